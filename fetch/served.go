package fetch

import (
	"context"
	"math/rand/v2"
	"net/url"
	"strings"
	"time"

	"github.com/quarryhq/quarry/browser"
)

// Served is a page as a plain HTTP client gets it, for a caller that reads
// the HTML itself rather than its main text: a search results page, whose
// content is a list of links.
type Served struct {
	URL      string
	FinalURL string
	Status   int
	HTML     string
	// Scripted says the page carries scripts a browser would run, so it may
	// hold less than the rendered page would.
	Scripted bool
	Phases   Phases
}

// Rendered returns s in the shape the browser gives a rendered page.
func (s Served) Rendered(load time.Duration) *browser.Rendered {
	return &browser.Rendered{URL: s.URL, FinalURL: s.FinalURL, HTML: s.HTML, Status: s.Status, LoadTime: load}
}

// listingKey is the HostStore key of the pages at rawURL's host and path:
// a results page's decision belongs to the program serving that path, not
// to the host's articles, which may be fetched the other way.
func listingKey(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	return "list " + strings.ToLower(u.Host) + u.EscapedPath(), nil
}

// Listing fetches rawURL over HTTP unless the page at that host and path
// is remembered to need the browser (then ok is false and the caller
// renders). The caller judges the HTML and says what it found with
// Learned. An HTTP failure is returned as an error; the caller may render.
func (f *Fetcher) Listing(ctx context.Context, rawURL string) (s Served, ok bool, err error) {
	if err := f.opt.Guard.Check(ctx, rawURL); err != nil {
		return Served{}, false, err
	}
	key, err := listingKey(rawURL)
	if err != nil {
		return Served{}, false, err
	}
	if f.mode(ctx, key) == ModeRender && rand.Float64() >= f.opt.Recheck {
		return Served{}, false, nil
	}
	u, _ := url.Parse(rawURL)
	resp, err := f.httpGet(ctx, rawURL, strings.ToLower(u.Hostname()))
	if err != nil {
		return Served{}, false, err
	}
	if !isHTML(resp.mediaType) {
		return Served{}, false, nil
	}
	return Served{
		URL:      rawURL,
		FinalURL: resp.finalURL,
		Status:   resp.status,
		HTML:     string(resp.body),
		Scripted: measure(resp.body).execScripts > 0,
		Phases:   Phases{Connect: resp.connect, FirstByte: resp.firstByte, Body: resp.bodyTime},
	}, true, nil
}

// Learned records whether the served HTML of the listing at rawURL was
// enough (servedEnough) or only the browser's rendering held its content.
func (f *Fetcher) Learned(ctx context.Context, rawURL string, servedEnough bool) {
	key, err := listingKey(rawURL)
	if err != nil {
		return
	}
	mode := ModeRender
	if servedEnough {
		mode = ModeHTTP
	}
	if f.mode(ctx, key) != mode {
		f.remember(ctx, key, mode)
	}
}
