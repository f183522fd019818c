package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quarryhq/quarry/egress"
)

// The browser tests share one pool of two tabs and one loopback site; tests
// that crash or recycle the browser start their own pool.
var (
	testPool  *Pool
	testSite  *site
	otherSite *httptest.Server // a loopback server the guard does not allow
	otherHits atomic.Int64
)

const testNavTimeout = 6 * time.Second

func TestMain(m *testing.M) {
	if os.Getenv("QUARRY_TEST_ORPHAN") != "" {
		orphanHelper() // a child process of TestBrowserDiesWithQuarry
		return
	}
	otherSite = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		fmt.Fprint(w, "<p>internal admin page</p>")
	}))
	testSite = newSite()
	var err error
	testPool, err = NewPool(context.Background(), PoolOptions{
		Size:       2,
		NavTimeout: testNavTimeout,
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

// site is the loopback web site the browser tests visit.
type site struct {
	*httptest.Server
	imageHits, popupHits, downloadHits atomic.Int64
	sinkPosts, sinkGets                atomic.Int64 // requests at /policy/sink
	arrived                            chan string  // ids of delayed article requests as they arrive
}

func (s *site) host() string { return s.Listener.Addr().String() }

func (s *site) url(path string) string { return s.URL + path }

func article(title string, paras ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>%s</title><link rel=stylesheet href=/style.css></head><body><nav><a href=/>Home</a></nav><main><article><h1>%s</h1>", title, title)
	for _, p := range paras {
		fmt.Fprintf(&b, "<p>%s</p>", p)
	}
	b.WriteString("<img src=/photo.png alt=photo></article></main><footer>© Test site</footer></body></html>")
	return b.String()
}

const filler = "The quick survey of regional rainfall found that the wettest months were October and November, with averages well above the long-term mean recorded since 1950."

func newSite() *site {
	s := &site{arrived: make(chan string, 100)}
	mux := http.NewServeMux()
	mux.HandleFunc("/article/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if ms, _ := strconv.Atoi(r.URL.Query().Get("delay")); ms > 0 {
			select {
			case s.arrived <- id:
			default:
			}
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
		fmt.Fprint(w, article("Article "+id, "This is article number "+id+" about measured rainfall.", filler, filler))
	})
	mux.HandleFunc("/style.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, "body{font-family:sans-serif} main{background:url(/bg.png)}")
	})
	mux.HandleFunc("/photo.png", func(w http.ResponseWriter, r *http.Request) {
		s.imageHits.Add(1)
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n"))
	})
	mux.HandleFunc("/bg.png", func(w http.ResponseWriter, r *http.Request) { s.imageHits.Add(1) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><head><title>loop</title></head><body><p>Before the loop.</p><script>while (true) {}</script><p>Never shown.</p></body></html>")
	})
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		// The document arrives but a script it waits for never does.
		fmt.Fprint(w, article("Stalled page", "This paragraph arrived before the stalled script.", filler))
		fmt.Fprint(w, "<script src=/hang.js></script>")
	})
	mux.HandleFunc("/hang.js", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	mux.HandleFunc("/trickle", func(w http.ResponseWriter, r *http.Request) {
		// The response body itself never ends.
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><p>start</p>")
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
				fmt.Fprint(w, "<p>more</p>")
				w.(http.Flusher).Flush()
			}
		}
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>")
		chunk := strings.Repeat("<p>"+filler+"</p>", 100)
		for written := 0; written < 20<<20; written += len(chunk) {
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/to-loopback", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherSite.URL+"/admin", http.StatusFound)
	})
	mux.HandleFunc("/to-article", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/article/redirected?utm_source=test", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/dialogs", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>dialogs</title></head><body><p id=out>Dialogs were dismissed and the page carried on rendering its text.</p>
<script>alert("hello"); var c = confirm("sure?"); var p = prompt("name?");
document.getElementById("out").textContent += " confirm=" + c + " prompt=" + p;
window.onbeforeunload = function (e) { e.preventDefault(); return "stay"; };</script></body></html>`)
	})
	mux.HandleFunc("/stay", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>stay</title></head><body onbeforeunload="return 'stay'"><p>This page asks to stay when it is left.</p>
<script>window.addEventListener("beforeunload", function (e) { e.preventDefault(); e.returnValue = "stay"; });</script></body></html>`)
	})
	mux.HandleFunc("/download-page", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>download</title></head><body><p>This page tries to download a file as soon as it loads.</p>
<a id=d href="/file.zip" download>get the file</a><script>document.getElementById("d").click(); location.href = "/file.zip";</script></body></html>`)
	})
	mux.HandleFunc("/file.zip", func(w http.ResponseWriter, r *http.Request) {
		s.downloadHits.Add(1)
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Disposition", `attachment; filename="file.zip"`)
		w.Write([]byte("PK\x03\x04 not really a zip"))
	})
	mux.HandleFunc("/popup", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>popup</title></head><body><p id=out>This page tries to open a popup window when it loads.</p>
<script>var w = window.open("/popup-target", "_blank"); document.getElementById("out").textContent += w === null ? " popup=blocked" : " popup=opened";</script></body></html>`)
	})
	mux.HandleFunc("/popup-target", func(w http.ResponseWriter, r *http.Request) {
		s.popupHits.Add(1)
		fmt.Fprint(w, "<p>popup</p>")
	})
	mux.HandleFunc("/late", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>late</title></head><body><main><p>Static intro paragraph of the page.</p><div id=more></div></main>
<script>window.addEventListener("load", function () { setTimeout(function () {
  fetch("/late-data").then(r => r.text()).then(t => { document.getElementById("more").innerHTML = "<p>" + t + "</p>"; });
}, 20); });</script></body></html>`)
	})
	mux.HandleFunc("/late-data", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond)
		fmt.Fprint(w, "Loaded after the load event by a script.")
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not here", http.StatusNotFound)
	})
	// A page whose script, whose frame's script and whose worker send a
	// POST once loaded, and a GET the policy lets through.
	mux.HandleFunc("/policy", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>policy</title></head><body><p id=out>The page sends requests of its own.</p>
<iframe src="/policy/frame"></iframe>
<script>fetch("/policy/sink", {method: "POST", body: "main"}).catch(() => {});
new Worker(URL.createObjectURL(new Blob(['fetch("' + location.origin + '/policy/sink", {method: "POST", body: "worker"}).catch(() => {});'], {type: "text/javascript"})));
fetch("/policy/sink").then(r => r.text()).then(t => { document.getElementById("out").textContent += " get=" + t; });</script></body></html>`)
	})
	mux.HandleFunc("/policy/frame", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><body><p>frame</p><script>fetch("/policy/sink", {method: "POST", body: "frame"}).catch(() => {});</script></body></html>`)
	})
	mux.HandleFunc("/policy/sink", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			s.sinkPosts.Add(1)
		} else {
			s.sinkGets.Add(1)
		}
		fmt.Fprint(w, "ok")
	})
	s.Server = httptest.NewServer(mux)
	return s
}
