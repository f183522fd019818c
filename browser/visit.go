package browser

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
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
func (p *Pool) Visit(ctx context.Context, rawURL string) (Page, error) {
	r, err := p.renderURL(ctx, rawURL)
	if err != nil {
		return Page{}, fmt.Errorf("visit %s: %w", rawURL, err)
	}
	if r.Status >= 400 {
		return Page{}, fmt.Errorf("visit %s: %w", rawURL, &HTTPStatusError{URL: r.FinalURL, Status: r.Status})
	}
	page, err := extractPage(r.HTML, r.FinalURL)
	if err != nil {
		return Page{}, fmt.Errorf("extract %s: %w", rawURL, err)
	}
	page.URL = rawURL
	page.FinalURL = r.FinalURL
	if page.Title == "" {
		page.Title = strings.TrimSpace(r.Title)
	}
	page.CanonicalURL = canonicalFor(page.CanonicalURL, r.FinalURL)
	if u, err := url.Parse(r.FinalURL); err == nil && page.Host == "" {
		page.Host = strings.ToLower(u.Hostname())
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

// canonicalFor picks the page's de-duplication key: its rel=canonical when
// that stays on the same host and does not collapse an article onto the
// site's home page (a common misconfiguration), else its final URL; either
// normalised by CanonicalURL.
func canonicalFor(declared, finalURL string) string {
	final := CanonicalURL(finalURL)
	if declared == "" {
		return final
	}
	d, err1 := url.Parse(CanonicalURL(declared))
	f, err2 := url.Parse(final)
	if err1 != nil || err2 != nil || d.Scheme == "" || !strings.EqualFold(d.Hostname(), f.Hostname()) {
		return final
	}
	if d.Path == "/" && f.Path != "/" {
		return final
	}
	return d.String()
}
