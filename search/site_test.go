package search

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/browser"
)

func TestParseSiteEngine(t *testing.T) {
	if _, err := ParseEngines("site:https://docs.example.org/"); err != nil {
		t.Errorf("a site: engine with an http(s) page: %v", err)
	}
	for _, bad := range []string{"site:", "site:ftp://example.org/", "site:/search"} {
		if _, err := ParseEngines(bad); err == nil || !strings.Contains(err.Error(), "site:") {
			t.Errorf("ParseEngines(%q) = %v, want an error naming site:", bad, err)
		}
	}
}

// TestSearchSiteHarvests: a site: engine hands the page and the query to
// Options.Site and harvests the page it returns; without one it refuses.
func TestSearchSiteHarvests(t *testing.T) {
	testSite.results.Store("site", []string{testSite.url("/article/one"), testSite.url("/article/two")})
	var asked string
	s := NewSearcher(testPool, Options{Site: func(ctx context.Context, page, query string) (*browser.Rendered, error) {
		asked = page + " " + query
		return testPool.Render(ctx, testSite.url("/gather/site/search?q="+url.QueryEscape(query)))
	}})
	name := "site:" + testSite.url("/start")
	res, err := s.Search(context.Background(), name, "rainfall")
	if err != nil {
		t.Fatal(err)
	}
	if asked != testSite.url("/start")+" rainfall" || len(res.Results) != 2 || res.Engine != name {
		t.Fatalf("asked %q, results %+v", asked, res)
	}
	if _, err := NewSearcher(testPool, Options{}).Search(context.Background(), name, "rainfall"); err == nil {
		t.Error("a site: engine without the site agent did not fail")
	}
}

type pauseErr struct{}

func (pauseErr) Error() string { return "awaits approval" }
func (pauseErr) Pauses() bool  { return true }

// TestSearchAnyStopsOnPause: a site search that stops to wait for the
// user is returned at once; the next engine is not tried.
func TestSearchAnyStopsOnPause(t *testing.T) {
	testSite.results.Store("site", []string{testSite.url("/article/one")})
	s := NewSearcher(testPool, Options{Site: func(ctx context.Context, page, query string) (*browser.Rendered, error) {
		return nil, pauseErr{}
	}})
	next := "url:" + testSite.url("/gather/site/search?q={query}")
	res, err := s.SearchAny(context.Background(), []string{"site:" + testSite.url("/start"), next}, "rainfall")
	var p Pauser
	if !errors.As(err, &p) || len(res.Results) != 0 {
		t.Fatalf("SearchAny = %d results, %v; want the pause and no fallback", len(res.Results), err)
	}
	// Without a pause the next engine is tried.
	s = NewSearcher(testPool, Options{Site: func(ctx context.Context, page, query string) (*browser.Rendered, error) {
		return nil, errors.New("no search box")
	}})
	if res, err := s.SearchAny(context.Background(), []string{"site:" + testSite.url("/start"), next}, "rainfall"); err != nil || len(res.Results) != 1 {
		t.Fatalf("fallback: %d results, %v", len(res.Results), err)
	}
}
