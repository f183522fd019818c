package search

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/egress"
)

// The search tests share one browser pool of two tabs and one loopback
// site that serves articles and saved results pages.
var (
	testPool  *browser.Pool
	testSite  *site
	otherSite *httptest.Server // a loopback server the guard does not allow
)

func TestMain(m *testing.M) {
	otherSite = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<p>internal admin page</p>")
	}))
	testSite = newSite()
	var err error
	testPool, err = browser.NewPool(context.Background(), browser.PoolOptions{
		Size:       2,
		NavTimeout: 6 * time.Second,
		Guard:      egress.NewGuard([]string{testSite.host()}),
		Heartbeat:  time.Second,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start browser pool:", err)
		os.Exit(1)
	}
	code := m.Run()
	testPool.Close()
	testSite.Close()
	otherSite.Close()
	os.Exit(code)
}

// site is the loopback web site the search tests visit.
type site struct {
	*httptest.Server
	engines sync.Map // "test/engine" → saved results page served under /engine/test/engine/
	results sync.Map // test → []string of result links for /gather/test/search
	// corpora holds, per test, the pages of a site search that lists only
	// pages holding every word of the query (/allwords/test/search),
	// two a page; asked logs the queries and pages it answered.
	corpora sync.Map // test → []indexedPage
	askedMu sync.Mutex
	asked   map[string][]string
}

// indexedPage is a page of an all-words site search's index.
type indexedPage struct{ path, title, body string }

// allWords answers a site search that requires every word of q, listing
// two results a page with page links joined by ";" as older search
// programs write them.
func (s *site) allWords(w http.ResponseWriter, r *http.Request) {
	test := r.PathValue("test")
	docs, ok := s.corpora.Load(test)
	if !ok {
		http.NotFound(w, r)
		return
	}
	params := queryParams(r.URL.RawQuery)
	q := params["q"]
	page, _ := strconv.Atoi(params["page"])
	page = max(page, 1)
	s.askedMu.Lock()
	s.asked[test] = append(s.asked[test], fmt.Sprintf("%s#%d", q, page))
	s.askedMu.Unlock()
	var hits []indexedPage
	for _, d := range docs.([]indexedPage) {
		all := true
		for _, word := range strings.Fields(strings.ToLower(q)) {
			if !strings.Contains(strings.ToLower(d.title+" "+d.body), word) {
				all = false
			}
		}
		if all && q != "" {
			hits = append(hits, d)
		}
	}
	fmt.Fprintf(w, "<!DOCTYPE html><html><head><title>Search: %s</title></head><body><form action=search><input name=q value=%q></form>", html.EscapeString(q), q)
	if len(hits) == 0 {
		fmt.Fprint(w, "<p>No matches were found.</p></body></html>")
		return
	}
	fmt.Fprint(w, "<ol>")
	for _, d := range hits[min(len(hits), 2*(page-1)):min(len(hits), 2*page)] {
		fmt.Fprintf(w, "<li><h3><a href=%q>%s</a></h3><p>%s</p></li>", d.path, html.EscapeString(d.title), html.EscapeString(d.body))
	}
	fmt.Fprint(w, "</ol><p>Pages:")
	for p := 1; p <= (len(hits)+1)/2; p++ {
		fmt.Fprintf(w, ` <a href="search?q=%s;page=%d">%d</a>`, url.QueryEscape(q), p, p)
	}
	fmt.Fprint(w, "</p></body></html>")
}

func (s *site) host() string { return s.Listener.Addr().String() }

func (s *site) url(path string) string { return s.URL + path }

func article(title string, paras ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>%s</title></head><body><nav><a href=/>Home</a></nav><main><article><h1>%s</h1>", title, title)
	for _, p := range paras {
		fmt.Fprintf(&b, "<p>%s</p>", p)
	}
	b.WriteString("</article></main><footer>© Test site</footer></body></html>")
	return b.String()
}

// slowIndex is how long the search index of a built site takes to answer.
const slowIndex = 2500 * time.Millisecond

const filler = "The quick survey of regional rainfall found that the wettest months were October and November, with averages well above the long-term mean recorded since 1950."

func newSite() *site {
	s := &site{asked: map[string][]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/article/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		fmt.Fprint(w, article("Article "+id, "This is article number "+id+" about measured rainfall.", filler, filler))
	})
	mux.HandleFunc("/to-article", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/article/redirected?utm_source=test", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not here", http.StatusNotFound)
	})
	mux.HandleFunc("/engine/{test}/{engine}/{rest...}", func(w http.ResponseWriter, r *http.Request) {
		file, ok := s.engines.Load(r.PathValue("test") + "/" + r.PathValue("engine"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(file.(string), ".json") {
			w.Header().Set("Content-Type", "application/json")
		}
		http.ServeFile(w, r, "testdata/serp/"+file.(string))
	})
	mux.HandleFunc("/allwords/{test}/search", s.allWords)
	mux.HandleFunc("/gather/{test}/search", func(w http.ResponseWriter, r *http.Request) {
		hrefs, ok := s.results.Load(r.PathValue("test"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		bingResults(w, hrefs.([]string))
	})
	// Built sites whose search pages run in the browser. Their search
	// index answers slowly, so that the results appear only well after the
	// page has loaded and settled.
	sites := http.StripPrefix("/site/", http.FileServer(http.Dir("testdata/serp/site")))
	mux.HandleFunc("/site/{rest...}", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/search_index.json") {
			select {
			case <-time.After(slowIndex):
			case <-r.Context().Done():
				return
			}
		}
		sites.ServeHTTP(w, r)
	})
	mux.HandleFunc("/serp/{file}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, "testdata/serp/"+r.PathValue("file"))
	})
	s.Server = httptest.NewServer(mux)
	return s
}
