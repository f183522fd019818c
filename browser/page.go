// Package browser turns search actions and URLs into clean, attributed
// evidence: a bounded pool of headless Chromium tabs (go-rod), result-page
// harvesting for several search engines, main-content extraction and an
// egress guard that keeps every request away from private addresses. It knows
// nothing of HTTP handlers or the database.
package browser

import "time"

// Page is the evidence extracted from one visited page.
type Page struct {
	URL          string        `json:"url"`           // the URL that was requested
	FinalURL     string        `json:"final_url"`     // after redirects
	CanonicalURL string        `json:"canonical_url"` // rel=canonical or the normalised final URL
	Title        string        `json:"title"`
	Site         string        `json:"site,omitempty"`
	Host         string        `json:"host"`
	Byline       string        `json:"byline,omitempty"`
	Published    string        `json:"published,omitempty"` // RFC 3339 date when known
	Lang         string        `json:"lang,omitempty"`
	Text         string        `json:"text"`               // full main-content text, paragraphs separated by blank lines
	Findings     []string      `json:"findings,omitempty"` // informative sentences without boilerplate
	FetchedAt    time.Time     `json:"fetched_at"`
	LoadTime     time.Duration `json:"load_ms"`
}

// Result is one organic link harvested from a search results page.
type Result struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Snippet string `json:"snippet,omitempty"`
}
