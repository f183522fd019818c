package extract

import (
	"fmt"
	"net/url"
	"strings"
)

// Rendered extracts a page a browser rendered: rawURL is the URL that was
// asked for, finalURL where the browser ended up after redirects, title the
// document's title (used when the page names none) and html the rendered
// DOM. The canonical URL is the page's rel=canonical when that is
// trustworthy, else its normalised final URL. FetchedAt and LoadTime are
// left for the caller, which timed the visit.
func Rendered(rawURL, finalURL, title, html string) (Page, error) {
	page, err := Extract([]byte(html), finalURL)
	if err != nil {
		return Page{}, fmt.Errorf("extract %s: %w", rawURL, err)
	}
	page.URL = rawURL
	page.FinalURL = finalURL
	if page.Title == "" {
		page.Title = strings.TrimSpace(title)
	}
	page.CanonicalURL = canonicalFor(page.CanonicalURL, finalURL)
	if u, err := url.Parse(finalURL); err == nil && page.Host == "" {
		page.Host = strings.ToLower(u.Hostname())
	}
	return page, nil
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
