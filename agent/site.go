package agent

import (
	"context"
	"fmt"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/search"
)

// ApprovalError is a site search that stopped before an action that needs
// the user's approval (the sensitive-action gate, or a side-effecting step
// an interrupted run may have taken). It stops the search engine's
// fallback to other engines: the run is to pause, not to search elsewhere.
type ApprovalError struct {
	URL        string // the site's page the search started on
	Why        string // what the action would do
	Step       int    // the number of the paused step
	Screenshot []byte // of the page awaiting approval
}

func (e *ApprovalError) Error() string {
	return fmt.Sprintf("site search on %s awaits approval: %s", e.URL, e.Why)
}

// Pauses marks the error as one that stops the search (search.Pauser).
func (e *ApprovalError) Pauses() bool { return true }

// SiteSearch is the search engine site:<URL>: a run with the task "search
// the site for the query" that ends on the site's results page. opt is
// the template of every run (its planner, limits and recorder); the rule
// planner goes first, and when it cannot finish (no search box it
// recognises, no results) and fallback is set (a model planner), the
// search is tried once more with it. A run resumed under ctx (WithResume)
// starts from its recorded steps. A run stopped by the gate returns an
// *ApprovalError.
func SiteSearch(opt Options, fallback func() Planner) search.SiteSearch {
	return func(ctx context.Context, pageURL, query string) (*browser.Rendered, error) {
		task := Task{Goal: "search this site for: " + query, StartURL: pageURL, Query: query}
		if rs, ok := resumeFrom(ctx); ok {
			task.Prior, task.Approved = rs.prior, rs.approved
		}
		res, err := Start(ctx, opt, task)
		if err == nil && res.Status == StatusDone && res.Final != nil {
			return res.Final, nil
		}
		if err == nil && res.Status == StatusAwaitingApproval {
			return nil, approvalError(pageURL, res)
		}
		if fallback != nil && ctx.Err() == nil {
			second := opt
			second.NewPlanner = fallback
			task.Prior, task.Approved = nil, false
			if res != nil {
				task.StepBase = lastStep(res.Steps)
			}
			r2, err2 := Start(ctx, second, task)
			switch {
			case err2 == nil && r2.Status == StatusDone && r2.Final != nil:
				return r2.Final, nil
			case err2 == nil && r2.Status == StatusAwaitingApproval:
				return nil, approvalError(pageURL, r2)
			case err2 == nil:
				res, err = r2, nil
			}
		}
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("site search on %s %s: %s", pageURL, res.Status, res.Reason)
	}
}

func approvalError(pageURL string, res *Result) *ApprovalError {
	e := &ApprovalError{URL: pageURL, Why: res.Approval, Screenshot: res.Screenshot}
	if n := len(res.Steps); n > 0 {
		e.Step = res.Steps[n-1].N
	}
	return e
}

// lastStep is the highest step number recorded.
func lastStep(steps []StepRecord) int {
	n := 0
	for _, s := range steps {
		n = max(n, s.N)
	}
	return n
}
