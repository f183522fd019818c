package search

import (
	"context"
	"fmt"
	"time"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/extract"
)

// HTTPStatusError is returned when a page answers with an error status.
type HTTPStatusError struct {
	URL    string
	Status int
}

// Error reads like "https://example.org/a answered HTTP 404".
func (e *HTTPStatusError) Error() string {
	return fmt.Sprintf("%s answered HTTP %d", e.URL, e.Status)
}

// Visit renders rawURL in a tab of pool and extracts its main content. The
// tab is given back before extraction, so the CPU work does not hold it.
// A page that answers with an error status is an *HTTPStatusError.
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
