package search

import (
	"context"
	"fmt"
	"time"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/fetch"
)

// HTTPStatusError is returned when a page answers with an error status.
// It is the fetcher's error, so errors.As finds it whichever way the page
// was loaded.
type HTTPStatusError = fetch.StatusError

// Visit renders rawURL in a tab of pool and extracts its main content. The
// tab is given back before extraction, so the CPU work does not hold it.
// A page that answers with an error status is an *HTTPStatusError. The
// Gatherer visits through a fetch.Fetcher instead, which renders only the
// pages that need it.
func Visit(ctx context.Context, pool *browser.Pool, rawURL string) (extract.Page, error) {
	r, err := pool.Render(ctx, rawURL)
	if err != nil {
		return extract.Page{}, fmt.Errorf("visit %s: %w", rawURL, err)
	}
	if r.Status >= 400 {
		return extract.Page{}, fmt.Errorf("visit %s: %w", rawURL, &HTTPStatusError{URL: r.FinalURL, Status: r.Status})
	}
	page, err := extract.Rendered(rawURL, r.FinalURL, r.Title, r.HTML)
	if err != nil {
		return extract.Page{}, err
	}
	page.FetchedAt = time.Now().UTC()
	page.LoadTime = r.LoadTime
	return page, nil
}

// WithFetcher makes g visit pages with f (built on the same guard and
// pool, with the configured concurrency and a shared host store), and its
// searcher fetch url: results pages with it too; it returns g.
func (g *Gatherer) WithFetcher(f *fetch.Fetcher) *Gatherer {
	g.fetcher = f
	if g.searcher != nil {
		g.searcher.WithFetcher(f)
	}
	return g
}

// visit fetches one page for the gatherer.
func (g *Gatherer) visit(ctx context.Context, rawURL string) (extract.Page, error) {
	res, err := g.fetcher.Fetch(ctx, rawURL)
	if err != nil {
		return extract.Page{}, err
	}
	return res.Page, nil
}
