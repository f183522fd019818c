package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/quarryhq/quarry/extract"
)

// HTTPStatusError is returned when a page answers with an error status.
type HTTPStatusError struct {
	URL    string
	Status int
}

func (e *HTTPStatusError) Error() string {
	return fmt.Sprintf("%s answered HTTP %d", e.URL, e.Status)
}

// Visit loads rawURL in a pooled tab and extracts its main content. The tab
// is released before extraction so the CPU work does not hold it.
func (p *Pool) Visit(ctx context.Context, rawURL string) (extract.Page, error) {
	r, err := p.renderURL(ctx, rawURL)
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

// renderURL acquires a tab, renders rawURL and releases the tab, replacing
// it when the navigation left it in doubt.
func (p *Pool) renderURL(ctx context.Context, rawURL string) (*rendered, error) {
	tab, err := p.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	r, err := tab.render(ctx, rawURL)
	var tabErr error
	if tab.broken.Load() {
		tabErr = err
		if tabErr == nil {
			tabErr = ErrTabUnresponsive
		}
	}
	p.Release(tab, tabErr)
	return r, err
}
