package search

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/fetch"
)

// newsSite is a loopback news site with its own search program: its
// articles live under /news/, and every page's navigation and footer link
// its furniture (/help, /about, /privacy, the /news/ section front).
func newsSite(t *testing.T) *httptest.Server {
	t.Helper()
	articles := []struct{ path, title, body string }{
		{"/news/2024/05/harbour-bridge-reopens", "Harbour bridge reopens after two years of repairs", "The bridge carries 40,000 vehicles a day and reopened on Monday."},
		{"/news/2024/05/council-budget-vote", "Council votes on bridge repair budget", "Councillors approved the final payment for the bridge works."},
		{"/news/world/2024/05/ferry-strike", "Ferry crews strike as bridge closure ends", "Ferry operators say the reopened bridge will halve their passengers."},
	}
	chrome := `<header><a href="/"><img alt="The Daily Loop"></a><nav><ul>
<li><a href="/news/">News</a></li><li><a href="/news/world/">World</a></li>
<li><a href="/help">Help</a></li><li><a href="/about">About us</a></li></ul></nav></header>`
	foot := `<footer><ul><li><a href="/about">About</a></li><li><a href="/help">Help centre</a></li>
<li><a href="/privacy">Privacy</a></li></ul></footer>`
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		q := strings.ToLower(r.URL.Query().Get("q"))
		fmt.Fprintf(w, "<!DOCTYPE html><html><head><title>Search: %s</title></head><body>%s<main><h1>Search results</h1>", html.EscapeString(q), chrome)
		var hits []string
		for _, a := range articles {
			if q != "" && strings.Contains(strings.ToLower(a.title+" "+a.body), q) {
				hits = append(hits, fmt.Sprintf(`<li class="result"><h3><a href="%s">%s</a></h3><p>%s</p></li>`, a.path, html.EscapeString(a.title), html.EscapeString(a.body)))
			}
		}
		if len(hits) == 0 {
			fmt.Fprint(w, "<p>Sorry, no articles matched your search.</p>")
		} else {
			fmt.Fprintf(w, `<ol class="results">%s</ol>`, strings.Join(hits, ""))
		}
		fmt.Fprintf(w, "</main>%s</body></html>", foot)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestSiteSearchKeepsSectionPathsDropsFurniture: a news site's own search,
// whose articles live under /news/, yields its articles, and never the
// help, about or section pages its navigation and footer link.
func TestSiteSearchKeepsSectionPathsDropsFurniture(t *testing.T) {
	srv := newsSite(t)
	guard := egress.NewGuard([]string{strings.TrimPrefix(srv.URL, "http://")})
	f := fetch.New(fetch.Options{Guard: guard, Pool: testPool, Recheck: -1})
	s := NewSearcher(testPool, Options{Guard: guard}).WithFetcher(f)
	engine := "url:" + srv.URL + "/search?q={query}"

	res, err := s.Search(context.Background(), engine, "bridge")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Results {
		got = append(got, strings.TrimPrefix(r.URL, srv.URL))
	}
	want := []string{"/news/2024/05/harbour-bridge-reopens", "/news/2024/05/council-budget-vote", "/news/world/2024/05/ferry-strike"}
	if !slices.Equal(got, want) {
		t.Errorf("results = %q, want the three articles %q", got, want)
	}

	res, err = s.Search(context.Background(), engine, "tramway")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 0 {
		t.Errorf("a search that matched nothing yielded %+v, want no results (the furniture is no result)", res.Results)
	}
}

// TestHarvestFurnitureByStructure: on a site's own results page, a
// same-site link only the navigation or footer gives is furniture; one the
// content gives too (a manual's side bar listing the page a result names)
// is a result.
func TestHarvestFurnitureByStructure(t *testing.T) {
	page := `<html><body><aside><ul><li><a href="/guide/install.html">Installing</a></li><li><a href="/guide/tuning.html">Tuning</a></li><li><a href="/about.html">About</a></li></ul></aside>
<div id="results"><ul><li><a href="/guide/tuning.html">Tuning the cache</a><p>The cache size is set with cache_size, in pages.</p></li>
<li><a href="/news/cache-release.html">Cache rewrite released</a><p>The release notes describe the new cache.</p></li></ul></div></body></html>`
	got, err := Harvest("url:https://docs.example.org/search?q={query}", "https://docs.example.org/search?q=cache", page)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, r := range got {
		urls = append(urls, r.URL)
	}
	want := []string{"https://docs.example.org/guide/tuning.html", "https://docs.example.org/news/cache-release.html"}
	if !slices.Equal(urls, want) {
		t.Errorf("harvested %q, want %q", urls, want)
	}

	// Menus in plain <div>s, and a search that found nothing: the menu's
	// entries (a word or two, nothing beside them) are no results.
	empty := `<html><body><div class="top"><ul><li><a href="/news/">News</a></li><li><a href="/news/world/">World</a></li><li><a href="/help">Help</a></li><li><a href="/about">About us</a></li></ul></div>
<div class="content"><h1>Search results</h1><p>Sorry, no articles matched your search.</p></div>
<div class="bottom"><ul><li><a href="/about">About</a></li><li><a href="/privacy">Privacy policy</a></li></ul></div></body></html>`
	got, err = Harvest("url:https://daily.example.org/search?q={query}", "https://daily.example.org/search?q=tramway", empty)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("a results page listing nothing yielded %+v, want no results", got)
	}

	// A program that names a hit by its file name, for a page with no
	// title it reads: a one-word link is a result when it is the file
	// it links to.
	files := `<html><body><div class="top"><ul><li><a href="/help">Help</a></li><li><a href="/about">About us</a></li></ul></div>
<form action="/search"><input name="q" value="raspberry"></form><p>1 results</p><ol><li><a href="/docs/simplyfound-1.html">simplyfound-1.html</a></li></ol></body></html>`
	got, err = Harvest("url:https://files.example.org/search?q={query}", "https://files.example.org/search?q=raspberry", files)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].URL != "https://files.example.org/docs/simplyfound-1.html" {
		t.Errorf("a hit named by its file name yielded %+v, want the one file", got)
	}

	// A reference's search that names each hit by the module it
	// documents, with nothing beside it: the names are results, not a
	// menu, though each is one word.
	modules := `<html><body><form action="/search"><input name="q" value="buffer"></form><p>3 results</p><ol>` +
		`<li><a href="/docs/Tally-Stream-Buffer.html">Tally.Stream.Buffer</a></li>` +
		`<li><a href="/docs/src/Tally-Stream.html">Tally/Stream.hs</a></li>` +
		`<li><a href="/docs/Tally-Buffer.html">Tally.Buffer</a></li></ol></body></html>`
	got, err = Harvest("url:https://ref.example.org/search?q={query}", "https://ref.example.org/search?q=buffer", modules)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].URL != "https://ref.example.org/docs/Tally-Stream-Buffer.html" {
		t.Errorf("hits named by their modules yielded %+v, want the three modules", got)
	}
}
