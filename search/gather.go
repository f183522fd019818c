package search

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/fetch"
)

// DefaultPages is how many results a search action visits by default.
const DefaultPages = 5

// Action is a two-step search: a results page, then the Pages results
// that best match the query (see pickTargets) visited in parallel.
type Action struct {
	// Engines to try in order; nil means the Searcher's configured order.
	Engines []string
	Query   string
	// Want is what the action looks for beyond its query (the criterion
	// it serves); with the query it decides which results to visit.
	Want string
	// Pages is how many results to visit (default 5, at most 10).
	Pages int
	// Reader is the user whose library collections a library engine may
	// search (the run's owner).
	Reader string
	// Exact asks the query as written only: a site search that names
	// nothing asked is not widened (no next page, no relaxed queries; see
	// widen). The preliminary search, which reads no page, sets it.
	Exact bool
	// Widen reads past a first results page that lists results but names
	// nothing asked; a page that lists nothing is widened unless Exact.
	// The pipeline sets it on follow-up searches only: widening costs a
	// round trip or more, and a first batch whose picks answer the
	// question has no need of it.
	Widen bool
	// Skip reports URLs the run already has (by extract.CanonicalURL); they are
	// neither visited nor returned. Nil skips nothing. It may be called
	// from several goroutines.
	Skip func(canonicalURL string) bool
}

// PageError is a result that could not be turned into evidence.
type PageError struct {
	URL string `json:"url"`
	Err string `json:"error"`
}

// Outcome is the evidence a search action produced. Pages are in
// retrieval order (the order their visits finished), which is the order
// the pipeline numbers sources in. The results page itself never becomes
// evidence.
type Outcome struct {
	Engine  string         `json:"engine"`
	Blocked []string       `json:"blocked,omitempty"` // "engine: kind" for engines that refused
	Results []Result       `json:"results"`
	Pages   []extract.Page `json:"pages"`
	Errors  []PageError    `json:"errors,omitempty"`
}

// Gatherer turns search and navigate actions into evidence pages.
type Gatherer struct {
	pool     *browser.Pool
	searcher *Searcher
	fetcher  *fetch.Fetcher // visits pages: HTTP first, the pool when needed
	library  Library        // answers kb and kb:<collection>; nil: none
}

// NewGatherer returns a Gatherer visiting pages with a default fetcher on
// pool (see WithFetcher) and searching with searcher, which fetches its
// url: results pages with that fetcher too.
func NewGatherer(pool *browser.Pool, searcher *Searcher) *Gatherer {
	g := &Gatherer{pool: pool, searcher: searcher}
	return g.WithFetcher(fetch.New(fetch.Options{Guard: pool.Guard(), Pool: pool}))
}

// Search runs a search action. When the search itself fails the error is
// returned with whatever is known; when only some pages fail, the outcome
// holds the pages that succeeded and an entry in Errors per failure, and the
// error is nil.
func (g *Gatherer) Search(ctx context.Context, a Action) (Outcome, error) {
	var out Outcome
	if len(a.Engines) > 0 {
		if coll, ok := LibraryCollection(a.Engines[0]); ok {
			return g.searchLibrary(ctx, a, a.Engines[0], coll)
		}
	}
	res, err := g.searcher.SearchAny(ctx, webEngines(a.Engines), a.Query)
	out.Engine = res.Engine
	if err == nil && !a.Exact && (a.Widen || len(res.Results) == 0) {
		res.Results = g.widen(ctx, res)
	}
	out.Results = res.Results
	var blocked *BlockedError
	for _, e := range unwrapJoined(err) {
		if errors.As(e, &blocked) {
			out.Blocked = append(out.Blocked, blocked.Engine+": "+blocked.Kind)
		}
	}
	if len(res.Results) == 0 {
		if err != nil {
			return out, fmt.Errorf("search %q: %w", a.Query, err)
		}
		return out, nil
	}

	n := a.Pages
	if n <= 0 {
		n = DefaultPages
	}
	n = min(n, maxResults)
	skip := a.Skip
	if skip == nil {
		skip = func(string) bool { return false }
	}
	targets := pickTargets(res.Results, a.Query+" "+a.Want, n, skip)
	seen := map[string]bool{}
	for _, t := range targets {
		seen[extract.CanonicalURL(t)] = true
	}

	// The fetcher bounds the parallelism: HTTP fetches by its limits,
	// renders by the tabs of the pool.
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, target := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			page, err := g.visit(ctx, target)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				out.Errors = append(out.Errors, PageError{URL: target, Err: err.Error()})
				return
			}
			// Two results may redirect (or declare rel=canonical) to one page.
			if key := page.CanonicalURL; key != extract.CanonicalURL(target) {
				if seen[key] || skip(key) {
					return
				}
				seen[key] = true
			}
			out.Pages = append(out.Pages, page)
		}()
	}
	wg.Wait()
	return out, nil
}

// Navigate visits one URL (a navigate action).
func (g *Gatherer) Navigate(ctx context.Context, rawURL string) (extract.Page, error) {
	if err := g.fetcher.Guard().Check(ctx, rawURL); err != nil {
		return extract.Page{}, fmt.Errorf("navigate %s: %w", rawURL, err)
	}
	return g.visit(ctx, rawURL)
}

func unwrapJoined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
