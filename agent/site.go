package agent

import (
	"context"
	"fmt"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/search"
)

// SiteSearch is the search engine site:<URL>: a run with the task "search
// the site for the query" that ends on the site's results page. opt is
// the template of every run (its planner, limits and recorder); the rule
// planner goes first, and when it cannot finish (no search box it
// recognises, no results) and fallback is set (a model planner), the
// search is tried once more with it.
func SiteSearch(opt Options, fallback func() Planner) search.SiteSearch {
	return func(ctx context.Context, pageURL, query string) (*browser.Rendered, error) {
		task := Task{Goal: "search this site for: " + query, StartURL: pageURL, Query: query}
		res, err := Start(ctx, opt, task)
		if err == nil && res.Status == StatusDone && res.Final != nil {
			return res.Final, nil
		}
		if fallback != nil && ctx.Err() == nil && (err != nil || res.Status != StatusAwaitingApproval) {
			second := opt
			second.NewPlanner = fallback
			if res != nil {
				task.StepBase = len(res.Steps)
			}
			if r2, err2 := Start(ctx, second, task); err2 == nil && r2.Status == StatusDone && r2.Final != nil {
				return r2.Final, nil
			} else if err2 == nil {
				res, err = r2, nil
			}
		}
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("site search on %s %s: %s", pageURL, res.Status, res.Reason)
	}
}
