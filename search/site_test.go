package search

import (
	"context"
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
