package search

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/extract"
)

func TestNextPage(t *testing.T) {
	page := func(links ...string) string {
		var b strings.Builder
		b.WriteString("<html><body><ol><li><a href='/docs/a.html'>A</a></li></ol>")
		for _, l := range links {
			b.WriteString("<a href='" + l + "'>x</a> ")
		}
		return b.String() + "</body></html>"
	}
	for _, tc := range []struct {
		name, url, html, want string
	}{
		{"semicolons, page numbers", "http://s.test/cgi-bin/find?config=docs&words=git+cherry",
			page("/cgi-bin/find?config=docs;words=git%20cherry;page=3", "/cgi-bin/find?config=docs;words=git%20cherry;page=2"),
			"http://s.test/cgi-bin/find?config=docs;words=git%20cherry;page=2"},
		{"an offset raised", "http://s.test/find.cgi?query=limits&whence=20",
			page("/find.cgi?query=limits&whence=0", "/find.cgi?query=limits&whence=40", "/find.cgi?query=limits&whence=60"),
			"http://s.test/find.cgi?query=limits&whence=40"},
		{"another query (did you mean) is not a next page", "http://s.test/search?q=colour",
			page("/search?q=color&page=2", "/search?q=colour&sort=date"), ""},
		{"a filter beside the page number is not a next page", "http://s.test/search?q=a",
			page("/search?q=a&page=2&type=pdf"), ""},
		{"another path is not a next page", "http://s.test/search?q=a",
			page("/other?q=a&page=2", "http://elsewhere.test/search?q=a&page=2"), ""},
		{"no pagination", "http://s.test/search?q=a", page(), ""},
	} {
		if got := NextPage(tc.url, tc.html); got != tc.want {
			t.Errorf("%s: NextPage = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestRelaxedQueries(t *testing.T) {
	for _, tc := range []struct {
		query string
		max   int
		want  []string
	}{
		// Hyphenated words split first, then halves, then quarters.
		{"repeatedly squash-merging long-lived branches", 4, []string{
			"repeatedly squash merging long lived branches", "repeatedly squash merging", "long lived branches", "repeatedly"}},
		// Names (capitals, identifiers, quoted phrases) stay in every form.
		{"maximum size NOTIFY payload", 4, []string{"maximum NOTIFY", "size NOTIFY payload", "size NOTIFY", "maximum size payload"}},
		// The last form drops the names: an index may hold none of them
		// ("Riverton,Lakeside" written as the asker's own example).
		{"split string commas Riverton,Lakeside", 3, []string{"split Riverton,Lakeside", "string commas Riverton,Lakeside", "split string commas"}},
		{`"write ahead log" gc.auto default interval`, 2, []string{`"write ahead log" gc.auto default`, `"write ahead log" gc.auto interval`}},
		// A query in capitals names nothing by its case.
		{"MAXIMUM SIZE PAYLOAD", 4, []string{"MAXIMUM", "SIZE PAYLOAD", "SIZE", "PAYLOAD"}},
		// Nothing shorter to ask.
		{"NOTIFY payload", 4, nil},
		{"vacuum", 4, nil},
	} {
		if got := relaxedQueries(tc.query, tc.max); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("relaxedQueries(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

func TestNamesQuery(t *testing.T) {
	rs := []Result{
		{URL: "http://s.test/docs/user-manual.html", Title: "Tool User Manual"},
		{URL: "http://s.test/docs/tool-config.html", Title: "tool-config(1)"},
		{URL: "http://s.test/docs/tool-log.html", Title: "tool-log(1)"},
		{URL: "http://s.test/docs/tool-commit.html", Title: "tool-commit(1)"},
	}
	if namesQuery(rs, "tool cherry decide commit upstream") {
		t.Error("a title holding one of four asked words (beside the site's name) was taken to name the query")
	}
	if !namesQuery(rs, "tool commit upstream") {
		t.Error("tool-commit(1) names half of \"commit upstream\" and was not taken to name it")
	}
	if !namesQuery([]Result{{URL: "http://s.test/docs/x.html", Title: "Limits"}, {URL: "http://s.test/docs/vacuum.html", Title: "Maintenance"}}, "vacuum") {
		t.Error("a result whose address names the query was not taken to name it")
	}
	if namesQuery(nil, "vacuum") {
		t.Error("an empty results page names something")
	}
}

// TestGathererWidensSiteSearch: a site's own search that wants every word
// of a query lists, for a question's words, only a long page that holds
// them all; the gatherer asks it shorter forms of the query (hyphenated
// words split, then halves) and reads the page whose title names the asked
// thing, and it reads a second results page when the first names nothing.
func TestGathererWidensSiteSearch(t *testing.T) {
	ctx := context.Background()
	key := strings.ReplaceAll(t.Name(), "/", "-")
	testSite.corpora.Store(key, []indexedPage{
		{"/article/manual", "User Manual", "The manual: how a tool decides that a commit already has an upstream twin, cherry picking, squash merging."},
		{"/article/tool-cherry", "tool-cherry(1)", "Find commits yet to be applied upstream: each change is compared by its patch id."},
		{"/article/merging", "Merging strategies", "Repeated squash merging of two branches makes the merge base stay behind."},
		{"/article/archive-1", "Archive one", "Old notes that mention rainfall once."},
		{"/article/archive-2", "Archive two", "More notes that mention rainfall once."},
		{"/article/gauges", "Rainfall gauges", "How rainfall is measured."},
	})
	engine := "url:" + testSite.url("/allwords/"+key+"/search?q={query}")
	g := NewGatherer(testPool, NewSearcher(testPool, Options{Engines: []string{engine}}))
	// asked is what the site answered since the last call, each page
	// once (the fetcher may load a page twice: over HTTP, then rendered).
	asked := func() []string {
		testSite.askedMu.Lock()
		defer testSite.askedMu.Unlock()
		var a []string
		for _, q := range testSite.asked[key] {
			if len(a) == 0 || a[len(a)-1] != q {
				a = append(a, q)
			}
		}
		testSite.asked[key] = nil
		return a
	}
	visited := func(out Outcome) []string {
		var v []string
		for _, p := range out.Pages {
			v = append(v, extract.CanonicalURL(p.URL))
		}
		return v
	}

	// Relaxed by halves: the whole query lists only the manual.
	out, err := g.Search(ctx, Action{Engines: []string{engine}, Query: "tool cherry decide", Pages: 1, Widen: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := visited(out); len(v) != 1 || !strings.HasSuffix(v[0], "/article/tool-cherry") {
		t.Errorf("relaxed query: visited %q, want the page titled tool-cherry(1)", v)
	}
	if a := asked(); !reflect.DeepEqual(a, []string{"tool cherry decide#1", "tool#1"}) {
		t.Errorf("relaxed query: the site was asked %q, want the query then its first half", a)
	}

	// A name the site holds nowhere: the plain words alone find the page.
	out, err = g.Search(ctx, Action{Engines: []string{engine}, Query: "repeated squash merging Riverton,Lakeside", Pages: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v := visited(out); len(v) != 1 || !strings.HasSuffix(v[0], "/article/merging") {
		t.Errorf("absent name: visited %q, want the merging page", v)
	}
	if a := asked(); len(a) == 0 || a[len(a)-1] != "repeated squash merging#1" {
		t.Errorf("absent name: the site was asked %q, want the plain words last", a)
	}

	// Hyphenated words split when the page listed nothing.
	out, err = g.Search(ctx, Action{Engines: []string{engine}, Query: "squash-merging", Pages: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v := visited(out); len(v) != 1 || !strings.HasSuffix(v[0], "/article/merging") {
		t.Errorf("hyphenated query: visited %q, want the merging page", v)
	}
	asked()

	// A second results page when the first names nothing asked.
	out, err = g.Search(ctx, Action{Engines: []string{engine}, Query: "rainfall", Pages: 1, Widen: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := visited(out); len(v) != 1 || !strings.HasSuffix(v[0], "/article/gauges") {
		t.Errorf("second page: visited %q, want the gauges page listed on page 2", v)
	}
	if len(out.Results) != 3 {
		t.Errorf("second page: %d results, want both pages' 3", len(out.Results))
	}
	if a := asked(); !reflect.DeepEqual(a, []string{"rainfall#1", "rainfall#2"}) {
		t.Errorf("second page: the site was asked %q, want page 1 then page 2 once", a)
	}

	// A first search (Widen unset) reads its first page as it is, unless
	// that page lists nothing.
	if _, err := g.Search(ctx, Action{Engines: []string{engine}, Query: "tool cherry decide", Pages: 1}); err != nil {
		t.Fatal(err)
	}
	if a := asked(); !reflect.DeepEqual(a, []string{"tool cherry decide#1"}) {
		t.Errorf("first search: the site was asked %q, want the query only", a)
	}

	// An exact search (the preliminary one) asks its query only.
	if _, err := g.Search(ctx, Action{Engines: []string{engine}, Query: "tool cherry decide", Pages: 1, Widen: true, Exact: true}); err != nil {
		t.Fatal(err)
	}
	if a := asked(); !reflect.DeepEqual(a, []string{"tool cherry decide#1"}) {
		t.Errorf("exact search: the site was asked %q, want the query only", a)
	}

	// A first page that names the query is read as it is.
	if _, err := g.Search(ctx, Action{Engines: []string{engine}, Query: "tool cherry", Pages: 1, Widen: true}); err != nil {
		t.Fatal(err)
	}
	if a := asked(); len(a) != 1 {
		t.Errorf("a first page naming the query: the site was asked %q, want that page only", a)
	}
}
