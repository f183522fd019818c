package fetch_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/egress"
)

// The tests share one browser pool of two tabs, one loopback site and a
// database for the host decisions.
var (
	testPool  *browser.Pool
	testSite  *httptest.Server
	testGuard *egress.Guard
	testPDF   []byte       // printed by the browser from pdfSource
	requests  atomic.Int64 // documents served by testSite
	slowNow   atomic.Int64 // requests of /slow/ in flight
	slowPeak  atomic.Int64 // the most of them at once
)

func TestMain(m *testing.M) {
	testSite = httptest.NewServer(siteMux())
	testGuard = egress.NewGuard([]string{testSite.Listener.Addr().String()})
	var err error
	testPool, err = browser.NewPool(context.Background(), browser.PoolOptions{
		Size:       2,
		NavTimeout: 10 * time.Second,
		Guard:      testGuard,
		Heartbeat:  time.Second,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start browser pool:", err)
		os.Exit(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	testPDF, err = testPool.PrintPDF(ctx, pdfSource)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "print the test PDF:", err)
		os.Exit(1)
	}
	code := dbtest.Run(m)
	testPool.Close()
	testSite.Close()
	os.Exit(code)
}

// Sentences of the fixture article; every one must come out of every page
// that carries it, however the page delivers it.
var articleSentences = []string{
	"The survey of regional rainfall found that October and November were the wettest months, well above the mean recorded since 1950.",
	"Gauges in the northern valleys measured twice the rain of the coastal plain, a gap the authors trace to the prevailing westerly winds.",
	"Soil moisture lagged the rain by about three weeks, so the driest soils of the year were measured in early autumn rather than in summer.",
	"The authors recommend that reservoir releases follow the soil record rather than the calendar, which would have saved water in four of the last ten years.",
	"Farmers interviewed for the study said the forecasts they rely on still assume the old seasonal pattern, which no longer holds in most districts.",
}

const nav = `<header><nav><a href="/">Home</a> <a href="/news">News</a> <a href="/about">About us</a></nav></header>`

// staticArticle carries its text in the served HTML, with the analytics
// script most pages have.
func staticArticle(title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>%s</title><script>window.dataLayer=[];</script></head><body>%s<main><article><h1>%s</h1>`, title, nav, title)
	for _, s := range articleSentences {
		fmt.Fprintf(&b, "<p>%s</p>", s)
	}
	b.WriteString(`</article></main><footer>© Test site</footer><script src="/static/analytics.js"></script></body></html>`)
	return b.String()
}

// jsParagraphs is the article as a JavaScript array literal.
func jsParagraphs() string {
	var parts []string
	for _, s := range articleSentences {
		parts = append(parts, fmt.Sprintf("%q", s))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// The JavaScript-only fixtures: each serves HTML without the article's
// text and builds it in the browser.
var jsPages = map[string]func() string{
	// A client-rendered article: an empty root filled from an inline script.
	"/js/client-rendered": func() string {
		return `<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Rainfall survey</title></head><body><div id="root"></div><script>
const paras = ` + jsParagraphs() + `;
const root = document.getElementById('root');
root.innerHTML = '` + nav + `<main><article><h1>Rainfall survey</h1>' + paras.map(p => '<p>' + p + '</p>').join('') + '</article></main>';
</script></body></html>`
	},
	// A single-page application: a notice in <noscript> and a bundle that
	// routes and renders.
	"/js/spa": func() string {
		return `<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>App</title><script defer src="/static/app.js"></script></head><body><noscript>You need to enable JavaScript to run this app.</noscript><div id="app"></div></body></html>`
	},
	// A page whose shell is served and whose content a script fetches.
	"/js/fetched": func() string {
		return `<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Rainfall survey</title></head><body>` + nav + `<main><h1>Rainfall survey</h1><div id="content">Loading…</div></main><footer>© Test site</footer><script>
fetch('/api/article.json').then(r => r.json()).then(d => {
  document.getElementById('content').innerHTML = d.paragraphs.map(p => '<p>' + p + '</p>').join('');
});
</script></body></html>`
	},
	// Server-rendered teaser, the full article in a JSON state script that
	// the page's code hydrates.
	"/js/hydrated": func() string {
		return `<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Rainfall survey</title></head><body>` + nav + `<main><article id="story"><h1>Rainfall survey</h1><p>` + articleSentences[0] + `</p><p>` + articleSentences[1] + `</p></article></main>
<script id="__STATE__" type="application/json">{"story":{"paragraphs":` + jsParagraphs() + `,"related":[` + strings.Repeat(`{"title":"Another story about weather and climate","href":"/news/x","teaser":"A longer teaser text that is part of the state blob but never shown."},`, 30) + `{}]}}</script>
<script>
const st = JSON.parse(document.getElementById('__STATE__').textContent);
document.getElementById('story').innerHTML = '<h1>Rainfall survey</h1>' + st.story.paragraphs.map(p => '<p>' + p + '</p>').join('');
</script></body></html>`
	},
}

const appJS = `
const paras = %s;
document.getElementById('app').innerHTML = '<nav><a href="#/">Home</a></nav><main><article><h1>Rainfall survey</h1>' + paras.map(p => '<p>' + p + '</p>').join('') + '</article></main>';
`

// pdfSource is printed to the PDF the site serves.
var pdfSource = `<!DOCTYPE html><html><head><title>Rainfall report</title></head><body><h1>Rainfall report</h1>` +
	"<p>" + articleSentences[0] + "</p><p>" + articleSentences[1] + "</p></body></html>"

const markdownDoc = `---
title: front matter is not text
---
# Rainfall notes

The survey of regional rainfall found that **October and November** were the wettest months, well above the mean recorded since 1950.

- Gauges in the northern valleys measured twice the rain of the [coastal plain](https://example.org/plain).
- Soil moisture lagged the rain by about three weeks.

` + "```" + `
code is kept
` + "```" + `
`

// refused counts, per path, the requests /refuses-first/ has answered.
var refused sync.Map

func siteMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/refuses-first/{code}/{id}", func(w http.ResponseWriter, r *http.Request) {
		// The first request for a path is refused with the code (a bot
		// filter, an overloaded origin); the next is answered.
		n, _ := refused.LoadOrStore(r.URL.Path, new(atomic.Int32))
		if n.(*atomic.Int32).Add(1) == 1 {
			code, _ := strconv.Atoi(r.PathValue("code"))
			http.Error(w, "refused", code)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, staticArticle("Article "+r.PathValue("id")))
	})
	mux.HandleFunc("/article/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, staticArticle("Article "+r.PathValue("id")))
	})
	mux.HandleFunc("/ssr/hydrated", func(w http.ResponseWriter, r *http.Request) {
		// Served whole, with the same text again in the state its scripts
		// hydrate from: nothing for a browser to add.
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		page := staticArticle("Hydrated article")
		state := `<script id="__STATE__" type="application/json">{"paragraphs":` + jsParagraphs() + `}</script><script>JSON.parse(document.getElementById('__STATE__').textContent)</script></body>`
		fmt.Fprint(w, strings.Replace(page, "</body>", state, 1))
	})
	mux.HandleFunc("/gzip/article", func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			http.Error(w, "gzip expected", http.StatusBadRequest)
			return
		}
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(staticArticle("Compressed article")))
		zw.Close()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(b.Bytes())
	})
	mux.HandleFunc("/latin1/article", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
		page := strings.Replace(staticArticle("Café report"), "<meta charset=utf-8>", "", 1)
		var out []byte
		for _, r := range page {
			out = append(out, byte(r)) // every rune of the page is Latin-1
		}
		w.Write(out)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/article/redirected?utm_source=test", http.StatusFound)
	})
	mux.HandleFunc("/redirect-out", func(w http.ResponseWriter, r *http.Request) {
		// To a loopback port the guard does not allow.
		http.Redirect(w, r, "http://127.0.0.1:1/secret", http.StatusFound)
	})
	mux.HandleFunc("/slow/{id}", func(w http.ResponseWriter, r *http.Request) {
		n := slowNow.Add(1)
		for {
			p := slowPeak.Load()
			if n <= p || slowPeak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
		slowNow.Add(-1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, staticArticle("Slow "+r.PathValue("id")))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not here", http.StatusNotFound)
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>"))
		chunk := bytes.Repeat([]byte("<p>words words words</p>"), 1000)
		for range 300 { // about 7 MB, past the 5 MiB cap
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/image.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	mux.HandleFunc("/report.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(testPDF)
	})
	mux.HandleFunc("/notes.md", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		fmt.Fprint(w, markdownDoc)
	})
	mux.HandleFunc("/notes.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "Rainfall notes\n\n"+strings.Replace(articleSentences[0], " were ", "\nwere ", 1)+"\n\n"+articleSentences[1]+"\n")
	})
	for path, page := range jsPages {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, page())
		})
	}
	mux.HandleFunc("/static/app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/javascript")
		fmt.Fprintf(w, appJS, jsParagraphs())
	})
	mux.HandleFunc("/static/analytics.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/javascript")
		fmt.Fprint(w, "window.dataLayer.push({page: location.pathname});")
	})
	mux.HandleFunc("/api/article.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"paragraphs":%s}`, jsParagraphs())
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		mux.ServeHTTP(w, r)
	})
}
