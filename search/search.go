// Package search turns search and navigate actions into evidence: it asks
// search engines (results pages rendered by the browser pool, JSON APIs
// through the egress guard), harvests the organic results, recognises
// CAPTCHA, consent and block pages, and visits the chosen results, handing
// each rendered page to extract.
package search

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/fetch"
	"github.com/quarryhq/quarry/text"
)

const (
	maxQueryRunes   = 400
	maxAPIBodyBytes = 4 << 20
	apiTimeout      = 20 * time.Second
)

// Options configures a Searcher.
type Options struct {
	// Engines is the order SearchAny tries (QUARRY_SEARCH_ENGINES); empty
	// means DefaultEngines.
	Engines []string
	// SearxngURL is the base URL of a SearXNG instance (QUARRY_SEARXNG_URL);
	// its host is allowed through the guard for the API calls only.
	SearxngURL string
	// HTTPClient makes the JSON API calls; nil means a client of Guard.
	HTTPClient *http.Client
	// Guard checks API calls when HTTPClient is nil; nil means egress.NewGuard(nil).
	Guard *egress.Guard
	// BaseURLs overrides an engine's scheme://host (tests serve saved
	// results pages from a loopback server this way).
	BaseURLs map[string]string
	// Logger receives a line per engine failure; nil discards them.
	Logger *slog.Logger
	// Site runs the engine site:<URL> (the site agent); nil refuses it.
	Site SiteSearch
	// ScriptWait bounds the watch over a results page whose scripts have
	// not yet written its results; 0 means 4 s.
	ScriptWait time.Duration
}

// Results is what one engine returned for one query.
type Results struct {
	Engine  string   `json:"engine"`
	Query   string   `json:"query"`
	URL     string   `json:"url"` // the results page or API URL fetched
	Results []Result `json:"results"`
	Blocked string   `json:"blocked,omitempty"` // BlockCaptcha, BlockConsent, BlockDenied
	// Rendered says the results page came from the browser, not from
	// the served HTML.
	Rendered bool `json:"rendered,omitempty"`
	// Next is the page's link to its next page of results (a site's own
	// search program, url: engines only), or "".
	Next string `json:"next,omitempty"`
}

// Result is one organic link harvested from a search results page.
type Result struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Snippet string `json:"snippet,omitempty"`
}

// Searcher runs queries against search engines: results pages through the
// browser pool, JSON APIs through the guarded HTTP client.
type Searcher struct {
	pool    *browser.Pool
	opt     Options
	client  *http.Client
	log     *slog.Logger
	fetcher *fetch.Fetcher // fetches url: results pages over HTTP first; nil renders them all
}

// NewSearcher returns a Searcher that renders results pages in pool.
func NewSearcher(pool *browser.Pool, opt Options) *Searcher {
	if len(opt.Engines) == 0 {
		opt.Engines = append([]string(nil), DefaultEngines...)
	}
	if opt.Guard == nil {
		opt.Guard = egress.NewGuard(nil)
	}
	client := opt.HTTPClient
	if client == nil {
		g := opt.Guard
		if u, err := url.Parse(opt.SearxngURL); err == nil && u.Host != "" {
			g = g.WithAllowed(hostPort(u))
		}
		client = g.HTTPClient(apiTimeout)
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Searcher{pool: pool, opt: opt, client: client, log: log.With("component", "search")}
}

// WithFetcher makes s fetch the results pages of url: engines with f: over
// HTTP first, rendered only when the served page shows it needs a browser.
// It returns s.
func (s *Searcher) WithFetcher(f *fetch.Fetcher) *Searcher {
	s.fetcher = f
	return s
}

// Engines returns the configured engine order.
func (s *Searcher) Engines() []string { return append([]string(nil), s.opt.Engines...) }

// Search asks one engine. A CAPTCHA, consent or block page yields
// Results.Blocked and a *BlockedError.
func (s *Searcher) Search(ctx context.Context, engineName, query string) (Results, error) {
	query = text.OneLine(query)
	if r := []rune(query); len(r) > maxQueryRunes {
		query = string(r[:maxQueryRunes])
	}
	out := Results{Engine: engineName, Query: query}
	if query == "" {
		return out, errors.New("search: empty query")
	}
	if err := validEngine(engineName); err != nil {
		return out, err
	}
	if page, ok := sitePage(engineName); ok {
		return s.searchSite(ctx, engineName, page, out)
	}
	if _, ok := LibraryCollection(engineName); ok {
		return out, fmt.Errorf("search %s: the library is searched by the gatherer, not a results page", engineName)
	}
	target, e, err := s.resultsURL(engineName, query)
	if err != nil {
		return out, err
	}
	out.URL = target
	if e != nil && e.api {
		return s.searchAPI(ctx, e, out)
	}
	return s.searchPage(ctx, engineName, out)
}

// SearchPage reads a further results page of an earlier search (its
// Results.Next) on the same engine.
func (s *Searcher) SearchPage(ctx context.Context, prev Results) (Results, error) {
	out := Results{Engine: prev.Engine, Query: prev.Query, URL: prev.Next}
	if prev.Next == "" {
		return out, errors.New("search: no further results page")
	}
	return s.searchPage(ctx, prev.Engine, out)
}

// searchPage loads and harvests the results page out.URL of engineName.
func (s *Searcher) searchPage(ctx context.Context, engineName string, out Results) (Results, error) {
	target := out.URL
	r, results, rendered, err := s.results(ctx, engineName, target)
	if err != nil {
		return out, fmt.Errorf("search %s: %w", engineName, err)
	}
	out.Rendered = rendered
	if kind := detectBlock(r.FinalURL, r.Status, r.HTML, len(results)); kind != "" {
		out.Blocked = kind
		return out, &BlockedError{Engine: engineName, Kind: kind}
	}
	if len(results) == 0 && r.Status >= 400 {
		return out, fmt.Errorf("search %s: results page answered HTTP %d", engineName, r.Status)
	}
	out.Results = results
	if len(results) > 0 && strings.HasPrefix(engineName, "url:") {
		out.Next = NextPage(r.FinalURL, r.HTML)
	}
	return out, nil
}

// scriptWait is the default of Options.ScriptWait: how long a results page
// that rendered without results is watched for its scripts to write them
// (a client-side index such as Sphinx's, MkDocs' or lunr's answers
// after load).
const scriptWait = 4 * time.Second

// results loads a results page and harvests it. The page of a url: engine
// (a site's own search program) is fetched over HTTP first and taken when
// the served HTML holds results, or holds none and has no scripts that
// could add them; otherwise, and for the built-in engines, it is rendered.
// What worked is remembered per engine (the fetcher's host store), so a
// search program whose results are written by scripts goes straight to
// the browser next time.
func (s *Searcher) results(ctx context.Context, engineName, target string) (r *browser.Rendered, results []Result, rendered bool, err error) {
	if s.fetcher == nil || !strings.HasPrefix(engineName, "url:") {
		r, results, err = s.render(ctx, engineName, target)
		return r, results, true, err
	}
	start := time.Now()
	sv, ok, err := s.fetcher.Listing(ctx, target)
	var ee *egress.Error
	if errors.As(err, &ee) {
		return nil, nil, false, err
	}
	if ctx.Err() != nil {
		// The run was cancelled while the page loaded (whatever Listing said).
		return nil, nil, false, ctx.Err()
	}
	if err != nil {
		s.log.DebugContext(ctx, "results page over HTTP failed; rendering", "engine", engineName, "err", err)
	}
	if err == nil && ok {
		results, harvestErr := Harvest(engineName, sv.FinalURL, sv.HTML)
		block := detectBlock(sv.FinalURL, sv.Status, sv.HTML, len(results))
		switch {
		case harvestErr == nil && len(results) > 0 && block == "":
			s.fetcher.Learned(ctx, target, true)
			return sv.Rendered(time.Since(start)), results, false, nil
		case sv.Status < 400 && block == "" && !sv.Scripted:
			// Nothing a browser would run could change the page: it found nothing.
			return sv.Rendered(time.Since(start)), results, false, harvestErr
		}
	}
	r, results, err = s.render(ctx, engineName, target)
	if err == nil && len(results) > 0 && ok {
		s.fetcher.Learned(ctx, target, false)
	}
	return r, results, true, err
}

// render renders a results page and harvests it. A page with scripts that
// gave no results is read again until results appear and stop growing for
// one reading, or Options.ScriptWait runs out; a page without scripts, a
// block page or an error status is taken as it is.
func (s *Searcher) render(ctx context.Context, engineName, target string) (*browser.Rendered, []Result, error) {
	var results []Result
	var harvestErr error
	first := true
	wait := s.opt.ScriptWait
	if wait <= 0 {
		wait = scriptWait
	}
	r, err := s.pool.RenderUntil(ctx, target, wait, func(r *browser.Rendered) bool {
		prev := len(results)
		results, harvestErr = Harvest(engineName, r.FinalURL, r.HTML)
		n := len(results)
		if first {
			first = false
			return harvestErr != nil || n > 0 || r.Status >= 400 || !strings.Contains(r.HTML, "<script") ||
				detectBlock(r.FinalURL, r.Status, r.HTML, n) != ""
		}
		return harvestErr != nil || n > 0 && n == prev
	})
	if err != nil {
		return nil, nil, err
	}
	return r, results, harvestErr
}

// SearchAny tries engines in order (nil means the configured order) and
// returns the first that gives results. Blocks and failures move on to the
// next engine; if none gives results, the last answer is returned with every
// failure joined into the error (nil when engines merely found nothing).
func (s *Searcher) SearchAny(ctx context.Context, engineNames []string, query string) (Results, error) {
	if len(engineNames) == 0 {
		engineNames = webEngines(s.opt.Engines)
	}
	var errs []error
	last := Results{Query: query}
	for _, name := range engineNames {
		if ctx.Err() != nil {
			errs = append(errs, ctx.Err())
			break
		}
		res, err := s.Search(ctx, name, query)
		if err == nil && len(res.Results) > 0 {
			return res, nil
		}
		var p Pauser
		if errors.As(err, &p) && p.Pauses() {
			return res, err // the run is to pause, not to search elsewhere
		}
		if err != nil {
			s.log.InfoContext(ctx, "search engine failed, trying the next", "engine", name, "err", err)
			errs = append(errs, err)
		}
		last = res
	}
	if len(errs) == len(engineNames) || ctx.Err() != nil {
		return last, errors.Join(errs...)
	}
	return last, nil
}

// resultsURL builds the URL to fetch for engineName and query.
func (s *Searcher) resultsURL(engineName, query string) (string, *engine, error) {
	if tmpl, ok := strings.CutPrefix(engineName, "url:"); ok {
		return strings.ReplaceAll(tmpl, "{query}", url.QueryEscape(query)), nil, nil
	}
	e := engines[strings.ToLower(engineName)]
	base := e.base
	if b := s.opt.BaseURLs[e.name]; b != "" {
		base = b
	}
	if e.name == "searxng" {
		base = s.opt.SearxngURL
		if base == "" {
			return "", e, errors.New("search searxng: QUARRY_SEARXNG_URL is not set")
		}
	}
	return strings.TrimRight(base, "/") + strings.ReplaceAll(e.path, "{query}", url.QueryEscape(query)), e, nil
}

func (s *Searcher) searchAPI(ctx context.Context, e *engine, out Results) (Results, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, out.URL, nil)
	if err != nil {
		return out, fmt.Errorf("search %s: %w", e.name, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "Quarry/1 (research assistant)")
	resp, err := s.client.Do(req)
	if err != nil {
		return out, fmt.Errorf("search %s: %w", e.name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAPIBodyBytes))
	if err != nil {
		return out, fmt.Errorf("search %s: read: %w", e.name, err)
	}
	switch {
	case resp.StatusCode == 429 || resp.StatusCode == 403:
		out.Blocked = BlockDenied
		return out, &BlockedError{Engine: e.name, Kind: BlockDenied}
	case resp.StatusCode >= 400:
		return out, fmt.Errorf("search %s: HTTP %d", e.name, resp.StatusCode)
	}
	results, err := harvestJSON(e.name, string(body))
	if err != nil {
		return out, err
	}
	out.Results = results
	return out, nil
}

// hostPort is u's host with its port made explicit, for the allow list.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}
