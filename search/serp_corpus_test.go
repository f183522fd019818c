package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/quarryhq/quarry/egress"

	"github.com/quarryhq/quarry/extract"
)

// serpCase is one results page of the harvester corpus in testdata/serp:
// NAME.html as the search program served (or, for pages its scripts
// fill in, as Chromium rendered) it, and NAME.expected, its organic
// results in page order. The pages of programs Debian packages are made
// by scripts/serp-corpus.sh; the public engines' pages are saved pages
// in each engine's markup.
type serpCase struct {
	program string
	name    string // testdata/serp/NAME.html and NAME.expected
	engine  string // as given to Harvest: a known engine or url:<template>
	pageURL string
	generic bool // also harvest with the generic harvester (url:)
}

var serpCorpus = []serpCase{
	// Run by scripts/serp-corpus.sh over a local site at 127.0.0.1:8765.
	{program: "Xapian Omega (whole page one <form>, results in a table)", name: "omega",
		engine: "url:http://127.0.0.1:8765/cgi-bin/omega?DB=omega-db&P={query}", pageURL: "http://127.0.0.1:8765/cgi-bin/omega?DB=omega-db&P=vacuum"},
	{program: "ht://Dig htsearch (a <dl> per result)", name: "htdig",
		engine: "url:http://127.0.0.1:8765/cgi-bin/htsearch?words={query}", pageURL: "http://127.0.0.1:8765/cgi-bin/htsearch?words=vacuum"},
	{program: "Namazu (<dt>/<dd> list)", name: "namazu",
		engine: "url:http://127.0.0.1:8765/cgi-bin/namazu.cgi?query={query}&max=10", pageURL: "http://127.0.0.1:8765/cgi-bin/namazu.cgi?query=vacuum&max=10"},
	{program: "Sphinx search.html (JavaScript)", name: "sphinx",
		engine: "url:http://127.0.0.1:8765/search.html?q={query}", pageURL: "http://127.0.0.1:8765/search.html?q=compaction"},
	{program: "Sphinx search.html, one result", name: "sphinx_one",
		engine: "url:http://127.0.0.1:8765/search.html?q={query}", pageURL: "http://127.0.0.1:8765/search.html?q=kestrelctl"},
	{program: "MkDocs search (JavaScript, lunr)", name: "mkdocs",
		engine: "url:http://127.0.0.1:8765/search.html?q={query}", pageURL: "http://127.0.0.1:8765/search.html?q=compaction"},
	{program: "Pagefind UI (JavaScript, WebAssembly)", name: "pagefind",
		engine: "url:http://127.0.0.1:8765/search.html?q={query}", pageURL: "http://127.0.0.1:8765/search.html?q=vacuum"},
	// Saved pages of public engines, through their own selectors and
	// through the generic harvester as if the engine were unknown.
	{program: "DuckDuckGo HTML", name: "duckduckgo", engine: "duckduckgo", pageURL: "https://html.duckduckgo.com/html/?q=go+generics+tutorial", generic: true},
	{program: "Bing", name: "bing", engine: "bing", pageURL: "https://www.bing.com/search?q=go+generics+tutorial&setlang=en", generic: true},
	// Google's, Brave's and Stack Overflow's pages go through their own
	// selectors only: Google's "People also ask" and Brave's video and
	// discussion clusters link real pages the generic harvester cannot tell
	// from organic results, and Stack Overflow's links carry click-tracking
	// parameters only its engine entry strips.
	{program: "Google", name: "google", engine: "google", pageURL: "https://www.google.com/search?q=go+generics+tutorial&hl=en&num=10"},
	{program: "Google (no JavaScript)", name: "google_basic", engine: "google", pageURL: "https://www.google.com/search?q=go+generics+tutorial", generic: true},
	{program: "Brave Search", name: "brave", engine: "brave", pageURL: "https://search.brave.com/search?q=go+generics+tutorial&source=web"},
	{program: "Wikipedia (MediaWiki)", name: "wikipedia", engine: "wikipedia", pageURL: "https://en.wikipedia.org/w/index.php?search=go+generics+tutorial&title=Special%3ASearch&profile=advanced&fulltext=1&ns0=1", generic: true},
	{program: "GitHub", name: "github", engine: "github", pageURL: "https://github.com/search?q=go+generics+tutorial&type=repositories", generic: true},
	{program: "Stack Overflow", name: "stackoverflow", engine: "stackoverflow", pageURL: "https://stackoverflow.com/search?q=go+generics+tutorial"},
	{program: "SearXNG (HTML, simple theme)", name: "searxng",
		engine: "url:http://searxng.internal:8080/search?q={query}", pageURL: "http://searxng.internal:8080/search?q=go+generics+tutorial&language=en"},
	{program: "Yahoo", name: "unseen_yahoo", engine: "url:https://search.yahoo.com/search?p={query}", pageURL: "https://search.yahoo.com/search?p=go+generics+tutorial"},
	{program: "Mojeek", name: "unseen_mojeek", engine: "url:https://www.mojeek.com/search?q={query}", pageURL: "https://www.mojeek.com/search?q=go+generics+tutorial"},
	{program: "Python docs (Sphinx, saved)", name: "unseen_docs", engine: "url:https://docs.python.org/3/search.html?q={query}", pageURL: "https://docs.python.org/3/search.html?q=generics"},
}

func readExpected(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "serp", name+".expected"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s.expected lists no results", name)
	}
	return out
}

// TestHarvestCorpus asserts, for every page of the corpus, that the
// harvester finds at least 90% of the organic results it can return (the
// first ten) and nothing that is not an organic result: no pagination,
// spelling, facet, login, image-search or engine links.
func TestHarvestCorpus(t *testing.T) {
	programs := map[string]bool{}
	var table []string
	for _, c := range serpCorpus {
		programs[strings.SplitN(c.program, " (", 2)[0]] = true
		engines := []string{c.engine}
		if c.generic {
			engines = append(engines, "url:"+c.pageURL)
		}
		for _, engine := range engines {
			name := c.name
			if strings.HasPrefix(engine, "url:") && c.generic {
				name += "/generic"
			}
			t.Run(name, func(t *testing.T) {
				expected := readExpected(t, c.name)
				got, err := Harvest(engine, c.pageURL, readSERP(t, c.name+".html"))
				if err != nil {
					t.Fatal(err)
				}
				want := map[string]bool{}
				for _, u := range expected {
					want[extract.CanonicalURL(u)] = true
				}
				top := map[string]bool{}
				for _, u := range expected[:min(len(expected), maxResults)] {
					top[extract.CanonicalURL(u)] = true
				}
				found := 0
				for _, r := range got {
					key := extract.CanonicalURL(r.URL)
					if !want[key] {
						t.Errorf("harvested %s (%q), which is not an organic result of the page", r.URL, r.Title)
					}
					if top[key] {
						found++
					}
					if r.Title == "" {
						t.Errorf("result %s has no title", r.URL)
					}
				}
				recall := float64(found) / float64(len(top))
				if recall < 0.9 {
					var urls []string
					for _, r := range got {
						urls = append(urls, r.URL)
					}
					t.Errorf("recall %.2f (%d of %d); harvested:\n%s", recall, found, len(top), strings.Join(urls, "\n"))
				}
				table = append(table, fmt.Sprintf("| %s | %s | %d | %d (%.2f) | %d |", c.program, name, len(top), found, recall, len(got)-found))
			})
		}
	}
	// The page that wraps everything in one form (as ASP.NET WebForms and
	// many older CMSs do) must be one that yields its results.
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(readSERP(t, "omega.html")))
	if err != nil {
		t.Fatal(err)
	}
	if n := doc.Find("form a[href]").Length(); n < 10 {
		t.Errorf("omega.html has %d links inside its form; the corpus needs a page whose results are in one", n)
	}
	if len(programs) < 12 {
		t.Errorf("the corpus covers %d search programs, want at least 12", len(programs))
	}
	t.Logf("corpus:\n| program | page | expected | found (recall) | furniture |\n|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
}

// TestSearchWaitsForScriptResults renders an MkDocs manual's own search
// page live. Its results are written only after a web worker has fetched
// the search index and built a lunr index from it, and the test site
// delays the index past the browser's settling: the page as loaded has
// none, and Search must watch it until they appear.
func TestSearchWaitsForScriptResults(t *testing.T) {
	ctx := context.Background()
	tmpl := "url:" + testSite.url("/site/mkdocs/search.html?q={query}")
	target := testSite.url("/site/mkdocs/search.html?q=kestrelctl")

	r, err := testPool.Render(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := Harvest(tmpl, r.FinalURL, r.HTML); len(got) != 0 {
		t.Fatalf("the page had results before its scripts could write them (%v); the test no longer exercises the wait", got)
	}

	// The default wait (4 s) is for a machine at rest; the test machine
	// may be running other suites, so it allows more, and still bounds it.
	s := NewSearcher(testPool, Options{Engines: []string{tmpl}, Guard: egress.NewGuard([]string{testSite.host()}), ScriptWait: 12 * time.Second})
	start := time.Now()
	res, err := s.Search(ctx, tmpl, "kestrelctl")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Results[0].URL != testSite.url("/site/mkdocs/cli.html") {
		t.Fatalf("results %+v, want the command-line page first", res.Results)
	}
	if res.Results[0].Title != "Command-Line Tool" {
		t.Errorf("title %q", res.Results[0].Title)
	}
	t.Logf("search: %v, %d results", time.Since(start), len(res.Results))
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("search took %v; the wait is bounded", d)
	}
}
