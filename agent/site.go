package agent

import (
	"context"
	"fmt"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/search"
)

// SiteSearch is the search engine site:<URL>: a run with the task "search
// the site for the query" that ends on the site's results page. opt is
// the template of every run (its planner, limits and recorder).
func SiteSearch(opt Options) search.SiteSearch {
	return func(ctx context.Context, pageURL, query string) (*browser.Rendered, error) {
		res, err := Start(ctx, opt, Task{Goal: "search this site for: " + query, StartURL: pageURL, Query: query})
		if err != nil {
			return nil, err
		}
		if res.Status != StatusDone || res.Final == nil {
			return nil, fmt.Errorf("site search on %s %s: %s", pageURL, res.Status, res.Reason)
		}
		return res.Final, nil
	}
}
