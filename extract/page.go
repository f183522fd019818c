// Package extract turns a rendered HTML page into evidence: its main text
// without page furniture, its metadata (title, site, byline, date,
// language), its canonical URL for de-duplication and its key findings. It
// works on bytes and URLs only; fetching and rendering are the caller's.
package extract

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
