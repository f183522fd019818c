package search

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/fetch"
)

func TestDetectBlock(t *testing.T) {
	tests := []struct {
		file, finalURL string
		status         int
		want           string
	}{
		{"duckduckgo_captcha.html", "https://html.duckduckgo.com/html/?q=x", 200, BlockCaptcha},
		{"google_sorry.html", "https://www.google.com/sorry/index?continue=x", 429, BlockCaptcha},
		{"google_sorry.html", "https://www.google.com/search?q=x", 200, BlockCaptcha},
		{"google_consent.html", "https://consent.google.com/ml?continue=x", 200, BlockConsent},
		{"google_consent.html", "https://www.google.com/search?q=x", 200, BlockConsent},
		{"bing_captcha.html", "https://www.bing.com/search?q=x", 200, BlockCaptcha},
		{"stackoverflow_captcha.html", "https://stackoverflow.com/nocaptcha?s=1", 200, BlockCaptcha},
		{"duckduckgo.html", "https://html.duckduckgo.com/html/?q=x", 200, ""},
		{"bing.html", "https://www.bing.com/search?q=x", 200, ""},
		{"google.html", "https://www.google.com/search?q=x", 200, ""},
	}
	for _, tt := range tests {
		html := readSERP(t, tt.file)
		results, err := Harvest("url:x", tt.finalURL, html)
		if err != nil {
			t.Fatal(err)
		}
		if got := detectBlock(tt.finalURL, tt.status, html, len(results)); got != tt.want {
			t.Errorf("%s at %s: detectBlock = %q, want %q (%d results)", tt.file, tt.finalURL, got, tt.want, len(results))
		}
	}
	if got := detectBlock("https://example.org/search?q=x", 429, "<html><body>slow down</body></html>", 0); got != BlockDenied {
		t.Errorf("empty 429 page: %q, want %q", got, BlockDenied)
	}
	if got := detectBlock("https://example.org/search?q=x", 200, "<html><body>No results found.</body></html>", 0); got != "" {
		t.Errorf("an honest empty results page was taken for a block: %q", got)
	}
}

func TestParseEngines(t *testing.T) {
	got, err := ParseEngines(" bing, url:https://search.example.org/?q={query} ,wikipedia")
	if err != nil || strings.Join(got, "|") != "bing|url:https://search.example.org/?q={query}|wikipedia" {
		t.Errorf("ParseEngines = %v, %v", got, err)
	}
	if got, _ := ParseEngines(""); strings.Join(got, ",") != "duckduckgo,bing,wikipedia" {
		t.Errorf("default engines = %v", got)
	}
	for _, bad := range []string{"altavista", "url:https://x.example/", "url:ftp://x/{query}"} {
		if _, err := ParseEngines(bad); err == nil {
			t.Errorf("ParseEngines(%q) accepted", bad)
		}
	}
}

// newTestSearcher serves the saved results pages from the loopback site:
// every engine's base URL points at /engine/<test>/<engine>/.
func newTestSearcher(t *testing.T, pages map[string]string, opt Options) *Searcher {
	t.Helper()
	key := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	opt.BaseURLs = map[string]string{}
	for engine, file := range pages {
		testSite.engines.Store(key+"/"+engine, file)
		opt.BaseURLs[engine] = testSite.url("/engine/" + key + "/" + engine)
	}
	if opt.Guard == nil {
		opt.Guard = egress.NewGuard([]string{testSite.host()})
	}
	return NewSearcher(testPool, opt)
}

func TestSearchEnginesThroughBrowser(t *testing.T) {
	s := newTestSearcher(t, map[string]string{
		"duckduckgo": "duckduckgo.html",
		"bing":       "bing.html",
		"wikipedia":  "wikipedia.html",
		"hackernews": "hackernews.json",
	}, Options{})
	for engine, first := range map[string]string{
		"duckduckgo": "https://go.dev/doc/tutorial/generics",
		"bing":       "https://go.dev/doc/tutorial/generics",
		"wikipedia":  "", // relative links resolve against the loopback server
		"hackernews": "https://go.dev/doc/tutorial/generics",
	} {
		res, err := s.Search(context.Background(), engine, "go generics tutorial")
		if err != nil {
			t.Errorf("%s: %v", engine, err)
			continue
		}
		if len(res.Results) == 0 || first != "" && res.Results[0].URL != first {
			t.Errorf("%s: results %+v", engine, res.Results)
		}
	}
}

func TestSearchAnyFallsBackOnCaptcha(t *testing.T) {
	s := newTestSearcher(t, map[string]string{
		"duckduckgo": "duckduckgo_captcha.html",
		"google":     "google_consent.html",
		"bing":       "bing.html",
	}, Options{Engines: []string{"duckduckgo", "google", "bing"}})

	res, err := s.Search(context.Background(), "duckduckgo", "go generics tutorial")
	var blocked *BlockedError
	if !errors.As(err, &blocked) || blocked.Kind != BlockCaptcha || res.Blocked != BlockCaptcha {
		t.Fatalf("CAPTCHA page: err = %v, blocked = %q", err, res.Blocked)
	}
	if !strings.Contains(err.Error(), "duckduckgo answered with a CAPTCHA") {
		t.Errorf("error text: %v", err)
	}

	res, err = s.SearchAny(context.Background(), nil, "go generics tutorial")
	if err != nil {
		t.Fatal(err)
	}
	if res.Engine != "bing" || len(res.Results) != 9 {
		t.Errorf("SearchAny used %s with %d results, want bing with 9", res.Engine, len(res.Results))
	}
}

func TestSearchSearxngAPI(t *testing.T) {
	var gotQuery, gotFormat string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery, gotFormat = r.URL.Query().Get("q"), r.URL.Query().Get("format")
		w.Header().Set("Content-Type", "application/json")
		http.ServeFile(w, r, "testdata/serp/searxng.json")
	}))
	defer srv.Close()
	// The guard allows nothing, yet the configured SearXNG host is reachable
	// for its API.
	s := NewSearcher(testPool, Options{SearxngURL: srv.URL, Guard: egress.NewGuard(nil)})
	res, err := s.Search(context.Background(), "searxng", "go  generics\ttutorial")
	if err != nil {
		t.Fatal(err)
	}
	if gotQuery != "go generics tutorial" || gotFormat != "json" {
		t.Errorf("query sent: q=%q format=%q", gotQuery, gotFormat)
	}
	if len(res.Results) != 7 || res.Results[0].URL != "https://go.dev/doc/tutorial/generics" {
		t.Errorf("results: %+v", res.Results)
	}
}

func TestSearchURLTemplate(t *testing.T) {
	s := NewSearcher(testPool, Options{})
	res, err := s.Search(context.Background(), "url:"+testSite.url("/serp/unseen_mojeek.html?q={query}"), "go generics")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(res.URL, "?q=go+generics") || len(res.Results) != 8 {
		t.Errorf("url template: fetched %s, %d results", res.URL, len(res.Results))
	}
}

// TestURLEngineResultsOverHTTP: a site's own search program whose results
// page is complete HTML is read over HTTP, not rendered, and the decision
// is remembered; one whose results are written by scripts is rendered, and
// is remembered as needing the browser, so its next query goes straight
// there.
func TestURLEngineResultsOverHTTP(t *testing.T) {
	ctx := context.Background()
	guard := egress.NewGuard([]string{testSite.host()})
	hosts := fetch.NewMemoryHosts(0)
	f := fetch.New(fetch.Options{Guard: guard, Pool: testPool, Hosts: hosts, Recheck: -1})
	host := strings.TrimPrefix(testSite.URL, "http://")

	static := "url:" + testSite.url("/serp/unseen_mojeek.html?q={query}")
	s := NewSearcher(testPool, Options{Guard: guard}).WithFetcher(f)
	res, err := s.Search(ctx, static, "go generics")
	if err != nil {
		t.Fatal(err)
	}
	if res.Rendered || len(res.Results) != 8 {
		t.Errorf("static results page: rendered %v, %d results; want it read over HTTP with 8", res.Rendered, len(res.Results))
	}
	if m, _ := hosts.FetchMode(ctx, "list "+host+"/serp/unseen_mojeek.html"); m != fetch.ModeHTTP {
		t.Errorf("static results page remembered as %q, want %q", m, fetch.ModeHTTP)
	}

	scripted := "url:" + testSite.url("/site/mkdocs/search.html?q={query}")
	s = NewSearcher(testPool, Options{Guard: guard, ScriptWait: 12 * time.Second}).WithFetcher(f)
	for i, q := range []string{"kestrelctl", "configuration"} {
		res, err := s.Search(ctx, scripted, q)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Rendered || len(res.Results) == 0 {
			t.Errorf("query %d on a scripted results page: rendered %v, %d results; want it rendered with results", i, res.Rendered, len(res.Results))
		}
	}
	if m, _ := hosts.FetchMode(ctx, "list "+host+"/site/mkdocs/search.html"); m != fetch.ModeRender {
		t.Errorf("scripted results page remembered as %q, want %q", m, fetch.ModeRender)
	}
}

// TestURLEngineCancelledMidSearch: a search whose context ends while its
// results page loads over HTTP returns the context's error, never a
// results page it did not get.
func TestURLEngineCancelledMidSearch(t *testing.T) {
	guard := egress.NewGuard([]string{testSite.host()})
	f := fetch.New(fetch.Options{Guard: guard, Pool: testPool, Recheck: -1})
	s := NewSearcher(testPool, Options{Guard: guard}).WithFetcher(f)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Search(ctx, "url:"+testSite.url("/serp/unseen_mojeek.html?q={query}"), "go generics")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled search: %v, want context.Canceled", err)
	}
}
