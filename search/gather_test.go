package search

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/extract"
)

// bingResults writes a Bing-style results page linking to hrefs.
func bingResults(w http.ResponseWriter, hrefs []string) {
	fmt.Fprint(w, `<!DOCTYPE html><html><head><title>q - Search</title></head><body><main><ol id="b_results">`)
	fmt.Fprint(w, `<li class="b_ad"><h2><a href="https://www.bing.com/aclick?ld=1">Sponsored thing</a></h2></li>`)
	for i, h := range hrefs {
		fmt.Fprintf(w, `<li class="b_algo"><h2><a href="%s">Result %d</a></h2><div class="b_caption"><p>Snippet %d about rainfall.</p></div></li>`, h, i, i)
	}
	fmt.Fprint(w, `</ol></main></body></html>`)
}

func TestGathererSearch(t *testing.T) {
	hrefs := []string{
		testSite.url("/article/g1"),
		testSite.url("/missing"),
		testSite.url("/article/g2#comments"),
		testSite.url("/article/g2?utm_source=serp"), // the same page again
		testSite.url("/article/known"),              // the run has it already
		testSite.url("/to-article"),                 // redirects
		testSite.url("/article/g3"),
		testSite.url("/article/g4"),
		testSite.url("/article/g5"),
	}
	key := strings.ReplaceAll(t.Name(), "/", "-")
	s := NewSearcher(testPool, Options{
		Engines:  []string{"bing"},
		BaseURLs: map[string]string{"bing": testSite.url("/gather/" + key)},
	})
	testSite.results.Store(key, hrefs)
	g := NewGatherer(testPool, s)
	out, err := g.Search(context.Background(), Action{
		Query: "rainfall survey",
		Pages: 6,
		Skip:  func(u string) bool { return u == extract.CanonicalURL(testSite.url("/article/known")) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Engine != "bing" || len(out.Results) != 8 {
		t.Errorf("engine %q with %d results, want bing with 8 (ad and duplicate dropped)", out.Engine, len(out.Results))
	}
	var titles []string
	for _, p := range out.Pages {
		titles = append(titles, p.Title)
		if strings.Contains(p.Text, "Result 0") || strings.Contains(p.Text, "Snippet") {
			t.Errorf("results-page text leaked into evidence page %s", p.URL)
		}
	}
	sort.Strings(titles)
	// g1, g2 (once), the redirect target, g3, g4: the 404 fails and the
	// known page is skipped; Pages caps the visits at 6.
	want := []string{"Article g1", "Article g2", "Article g3", "Article g4", "Article redirected"}
	if strings.Join(titles, ",") != strings.Join(want, ",") {
		t.Errorf("pages %v, want %v", titles, want)
	}
	if len(out.Errors) != 1 || out.Errors[0].URL != testSite.url("/missing") || !strings.Contains(out.Errors[0].Err, "HTTP 404") {
		t.Errorf("errors = %+v, want the 404 only", out.Errors)
	}
}

func TestGathererNavigate(t *testing.T) {
	g := NewGatherer(testPool, NewSearcher(testPool, Options{}))
	page, err := g.Navigate(context.Background(), testSite.url("/article/nav"))
	if err != nil || page.Title != "Article nav" {
		t.Fatalf("Navigate = %q, %v", page.Title, err)
	}
	if _, err := g.Navigate(context.Background(), otherSite.URL); err == nil || !strings.Contains(err.Error(), "egress refused") {
		t.Errorf("Navigate to an unallowed loopback port: %v", err)
	}
}

// shelf is a Library of fixed passages (the real library is tested in
// package library; this is the gatherer's side of the interface).
type shelf []extract.Page

func (s shelf) SearchLibrary(_ context.Context, _, _, _ string, n int) ([]extract.Page, error) {
	return s[:min(n, len(s))], nil
}

// TestGathererLibraryAndWeb: an action whose engines are the library and
// the web ("both" on the ask form) reads the library's passages and the
// web's pages; with the library alone, the web is not asked.
func TestGathererLibraryAndWeb(t *testing.T) {
	key := strings.ReplaceAll(t.Name(), "/", "-")
	testSite.results.Store(key, []string{testSite.url("/article/w1")})
	s := NewSearcher(testPool, Options{Engines: []string{"bing"}, BaseURLs: map[string]string{"bing": testSite.url("/gather/" + key)}})
	lib := shelf{{URL: "/library/documents/d1?page=3", CanonicalURL: "/library/documents/d1?page=3", Title: "Handbook, p. 3", Text: "The handbook says the survey ran for ten years."}}
	g := NewGatherer(testPool, s).WithLibrary(lib)

	out, err := g.Search(context.Background(), Action{Query: "rainfall survey", Engines: []string{"kb", "bing"}})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, p := range out.Pages {
		titles = append(titles, p.Title)
	}
	sort.Strings(titles)
	if strings.Join(titles, "|") != "Article w1|Handbook, p. 3" || out.Engine != "kb+bing" {
		t.Errorf("library and web: engine %q, pages %v; want kb+bing with the passage and the web page", out.Engine, titles)
	}

	out, err = g.Search(context.Background(), Action{Query: "rainfall survey", Engines: []string{"kb"}})
	if err != nil || len(out.Pages) != 1 || out.Engine != "kb" {
		t.Errorf("library alone: engine %q, %d pages, %v", out.Engine, len(out.Pages), err)
	}
}
