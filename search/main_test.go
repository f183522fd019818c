package search

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
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
	s := &site{}
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
