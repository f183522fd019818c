package handlers_test

import (
	"context"
	"fmt"
	"html"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/search"
	"github.com/quarryhq/quarry/web"
)

// The browser tests share one Quarry server (its own database, a runner
// with two workers, the extractive engine, a two-tab browser pool that
// gathers from a loopback site and prints PDFs) and one Chromium that
// drives the pages, each test in its own incognito context. TestMain
// closes them after the last test.

// chromiumBin is the system browser the UI tests drive; never downloaded.
const chromiumBin = "/usr/bin/chromium"

// uiEnv is the shared server of the browser tests.
type uiEnv struct {
	store  *db.Store
	runner *pipeline.Runner
	h      *handlers.Server
	srv    *httptest.Server
	site   *uiSite
	pool   *browser.Pool
}

var (
	uiOnce    sync.Once
	ui        *uiEnv
	uiErr     error
	uiClosers []func()

	browserOnce sync.Once
	sharedB     *rod.Browser
	browserErr  error
)

// closeShared stops what the browser tests shared, last started first.
func closeShared() {
	for i := len(uiClosers) - 1; i >= 0; i-- {
		uiClosers[i]()
	}
}

// uiSite is a small web for the runs: news pages behind three search
// engines — fast, slow (every response delayed) and hostile (results
// that include a page carrying script payloads).
type uiSite struct {
	*httptest.Server
	delay atomic.Int64 // nanoseconds, for the slow engine
}

var uiPages = map[string]string{
	"/articles/wework-ag-venturebeat": "06e5123e4ef7.html",
	"/articles/wework-ag-techcrunch":  "1ace8c85aaee.html",
}

func newUISite() (*uiSite, error) {
	s := &uiSite{}
	s.delay.Store(int64(400 * time.Millisecond))
	pages := map[string][]byte{}
	for path, file := range uiPages {
		// The news pages are the pipeline tests' copies (one copy in the repo).
		b, err := os.ReadFile(filepath.Join("..", "pipeline", "testdata", "site", file))
		if err != nil {
			return nil, err
		}
		pages[path] = b
	}
	hostile, err := os.ReadFile(filepath.Join("testdata", "site", "hostile.html"))
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	results := func(prefix string, extra ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if prefix == "/slow" {
				time.Sleep(time.Duration(s.delay.Load()))
			}
			q := r.URL.Query().Get("q")
			var b strings.Builder
			fmt.Fprintf(&b, `<!doctype html><html><head><title>%s - Search</title></head><body><header><a href="/">Home</a></header><main id="results">`, html.EscapeString(q))
			links := append(append([]string{}, extra...), "/articles/wework-ag-techcrunch", "/articles/wework-ag-venturebeat")
			for _, path := range links {
				fmt.Fprintf(&b, `<div class="result"><h2><a href="%s%s">%s</a></h2><p>A result for %s.</p></div>`, prefix, path, path, html.EscapeString(q))
			}
			b.WriteString(`</main></body></html>`)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(b.String()))
		}
	}
	mux.HandleFunc("/search", results(""))
	mux.HandleFunc("/slow/search", results("/slow"))
	mux.HandleFunc("/hostile/search", results("/hostile", "/articles/wework-probe"))
	serve := func(body []byte, slow bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if slow {
				time.Sleep(time.Duration(s.delay.Load()))
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(body)
		}
	}
	for path, body := range pages {
		mux.HandleFunc(path, serve(body, false))
		mux.HandleFunc("/slow"+path, serve(body, true))
		mux.HandleFunc("/hostile"+path, serve(body, false))
	}
	mux.HandleFunc("/hostile/articles/wework-probe", serve(hostile, false))
	s.Server = httptest.NewServer(mux)
	return s, nil
}

// engine is the search engine template of one of the site's engines:
// "", "slow" or "hostile".
func (s *uiSite) engine(kind string) string {
	if kind != "" {
		kind = "/" + kind
	}
	return "url:" + s.URL + kind + "/search?q={query}"
}

func (s *uiSite) hostPort() string {
	u := strings.TrimPrefix(s.URL, "http://")
	host, port, _ := net.SplitHostPort(u)
	return net.JoinHostPort(host, port)
}

// sharedUIEnv returns the browser tests' server, starting it once.
func sharedUIEnv(t *testing.T) *uiEnv {
	t.Helper()
	uiOnce.Do(func() { ui, uiErr = startUIEnv() })
	if uiErr != nil {
		t.Fatal(uiErr)
	}
	return ui
}

func startUIEnv() (*uiEnv, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dbURL, drop, err := dbtest.NewDatabase(ctx)
	if err != nil {
		return nil, err
	}
	uiClosers = append(uiClosers, drop)
	conn, err := db.Open(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	uiClosers = append(uiClosers, func() { conn.Close() })
	broker := db.NewBroker(db.NewEventReader(conn), nil)
	store := db.NewStore(conn, broker)
	lctx, lcancel := context.WithCancel(context.Background())
	uiClosers = append(uiClosers, lcancel)
	if err := broker.Listen(lctx, dbURL); err != nil {
		return nil, err
	}
	site, err := newUISite()
	if err != nil {
		return nil, err
	}
	uiClosers = append(uiClosers, site.Close)
	guard := egress.NewGuard([]string{"127.0.0.1", site.hostPort()})
	pool, err := browser.NewPool(ctx, browser.PoolOptions{ChromiumPath: chromiumBin, Size: 2, Guard: guard, NavTimeout: 15 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("browser pool: %w", err)
	}
	uiClosers = append(uiClosers, func() { pool.Close() })
	engines := []string{site.engine(""), site.engine("slow"), site.engine("hostile")}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	runner := pipeline.NewRunner(pipeline.Options{
		Store: store, Engine: extractive.New(), Gatherer: search.NewGatherer(pool, search.NewSearcher(pool, search.Options{Guard: guard})),
		Engines: engines, Workers: 2, Logger: log, LeaseTTL: 5 * time.Second, PollInterval: 100 * time.Millisecond,
	})
	runner.Start()
	uiClosers = append(uiClosers, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		runner.Shutdown(ctx)
	})
	h := handlers.New(handlers.Options{
		Store: store, Runs: runner, Browser: pool, Printer: pool, DefaultDepth: research.DepthQuick, Logger: log,
		Settings: web.SettingsView{Engine: "extractive", SearchEngines: engines, PoolSize: 2, Workers: 2, Browser: "local " + chromiumBin,
			DefaultDepth: research.DepthQuick, Auth: "none"},
	})
	srv := httptest.NewServer(h)
	uiClosers = append(uiClosers, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.CloseStreams(ctx)
		srv.Close()
	})
	return &uiEnv{store: store, runner: runner, h: h, srv: srv, site: site, pool: pool}, nil
}

// sharedBrowser returns the Chromium that drives the pages, launched once.
func sharedBrowser(t *testing.T) *rod.Browser {
	t.Helper()
	if _, err := os.Stat(chromiumBin); err != nil {
		t.Fatalf("the browser tests need Chromium at %s (apt-get install chromium): %v", chromiumBin, err)
	}
	browserOnce.Do(func() {
		dir, err := os.MkdirTemp("", "quarry-ui-")
		if err != nil {
			browserErr = err
			return
		}
		l := launcher.New().Bin(chromiumBin).Headless(true).NoSandbox(true).Leakless(false).UserDataDir(dir).
			Set("disable-gpu").Set("disable-background-networking").Set("disable-component-update").
			Set("disable-sync").Set("no-first-run").Set("disable-quic").Set("hide-scrollbars").Set("font-render-hinting", "none")
		u, err := l.Launch()
		if err != nil {
			browserErr = fmt.Errorf("launch %s: %w", chromiumBin, err)
			return
		}
		b := rod.New().ControlURL(u)
		if err := b.Connect(); err != nil {
			l.Kill()
			browserErr = err
			return
		}
		sharedB = b
		uiClosers = append(uiClosers, func() {
			b.Close()
			l.Kill()
			l.Cleanup()
			os.RemoveAll(dir)
		})
	})
	if browserErr != nil {
		t.Fatal(browserErr)
	}
	return sharedB
}

// uiPage is a page in a fresh incognito context (no cookies, no cache)
// that records console errors and JavaScript dialogs, dismissing them.
type uiPage struct {
	*rod.Page
	contextID proto.BrowserBrowserContextID
	mu        sync.Mutex
	errors    []string
	dialogs   []string
}

func newUIPage(t *testing.T) *uiPage {
	t.Helper()
	ctx, err := sharedBrowser(t).Incognito()
	if err != nil {
		t.Fatal(err)
	}
	page, err := ctx.Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	p := &uiPage{Page: page.Timeout(60 * time.Second), contextID: ctx.BrowserContextID}
	t.Cleanup(func() {
		page.Close()
		ctx.Close()
	})
	go page.EachEvent(func(e *proto.RuntimeConsoleAPICalled) {
		if e.Type == proto.RuntimeConsoleAPICalledTypeError {
			p.mu.Lock()
			p.errors = append(p.errors, "console: "+page.MustObjectsToJSON(e.Args).String())
			p.mu.Unlock()
		}
	}, func(e *proto.LogEntryAdded) {
		if e.Entry.Level == proto.LogLogEntryLevelError {
			p.mu.Lock()
			p.errors = append(p.errors, e.Entry.Text+" "+e.Entry.URL)
			p.mu.Unlock()
		}
	}, func(e *proto.RuntimeExceptionThrown) {
		p.mu.Lock()
		p.errors = append(p.errors, "exception: "+e.ExceptionDetails.Text)
		p.mu.Unlock()
	}, func(e *proto.PageJavascriptDialogOpening) {
		p.mu.Lock()
		p.dialogs = append(p.dialogs, string(e.Type)+": "+e.Message)
		p.mu.Unlock()
		go proto.PageHandleJavaScriptDialog{Accept: false}.Call(page)
	})()
	if err := (proto.LogEnable{}).Call(page); err != nil {
		t.Fatal(err)
	}
	if err := (proto.PageEnable{}).Call(page); err != nil {
		t.Fatal(err)
	}
	p.desktop()
	return p
}

// problems returns the console errors and dialogs seen so far, ignoring
// the browser's note that an event stream was cut, which the reconnect
// tests cause on purpose.
func (p *uiPage) problems(allowStreamErrors bool) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, e := range p.errors {
		if allowStreamErrors && (strings.Contains(e, "/events") || strings.Contains(e, "EventSource") || strings.Contains(e, "ERR_") || strings.Contains(e, "[object Event]")) {
			continue
		}
		out = append(out, e)
	}
	for _, d := range p.dialogs {
		out = append(out, "dialog "+d)
	}
	return out
}

const (
	desktopWidth, desktopHeight = 1280, 860
	phoneWidth, phoneHeight     = 390, 844
)

func (p *uiPage) desktop() {
	p.MustSetViewport(desktopWidth, desktopHeight, 1, false)
}

func (p *uiPage) phone() {
	p.MustSetViewport(phoneWidth, phoneHeight, 2, true)
}

// screenshot writes the viewport to screenshots/<name>.png at the repo
// root.
func (p *uiPage) screenshot(t *testing.T, name string) {
	t.Helper()
	dir := filepath.Join("..", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p.MustWaitRequestIdle()
	time.Sleep(150 * time.Millisecond) // let layout settle after a viewport change
	img, err := p.Screenshot(false, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), img, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fullScreenshot writes the whole page, not just the viewport.
func (p *uiPage) fullScreenshot(t *testing.T, name string) {
	t.Helper()
	img, err := p.Screenshot(true, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "screenshots", name+".png"), img, 0o644); err != nil {
		t.Fatal(err)
	}
}

// wait polls a JavaScript condition until it holds, failing after d.
func (p *uiPage) wait(t *testing.T, d time.Duration, js string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		v, err := p.Eval(js)
		if err == nil && v.Value.Bool() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s (err %v)", d, js, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// evalString evaluates a JavaScript function returning a string.
func (p *uiPage) evalString(t *testing.T, js string) string {
	t.Helper()
	v, err := p.Eval(js)
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v.Value.String()
}

// ask submits the ask form with the question, a depth and one search
// engine of the test site, and returns the run id from the page it lands
// on.
func (p *uiPage) ask(t *testing.T, env *uiEnv, question, depth, engine string, review bool) string {
	t.Helper()
	p.fillAsk(t, env, question, depth, engine, review)
	p.MustElement("[data-testid=ask]").MustClick()
	return p.landedOnRun(t)
}

// fillAsk fills the ask form without submitting it.
func (p *uiPage) fillAsk(t *testing.T, env *uiEnv, question, depth, engine string, review bool) {
	t.Helper()
	p.MustNavigate(env.srv.URL + "/").MustWaitLoad()
	p.MustElement("[data-testid=question]").MustInput(question)
	p.MustElement("[data-testid=depth]").MustSelect(depth)
	if review {
		p.MustElement("[data-testid=review]").MustClick()
	} else {
		p.MustElement("[data-testid=review-never]").MustClick() // the form's default, auto, could pause
	}
	want := env.site.engine(engine)
	for _, box := range p.MustElements("[data-testid=engine]") {
		checked := box.MustProperty("checked").Bool()
		if (box.MustAttribute("value") != nil && *box.MustAttribute("value") == want) != checked {
			box.MustClick()
		}
	}
}

// landedOnRun waits for the page a submitted question leads to and
// returns its run id.
func (p *uiPage) landedOnRun(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		url := p.MustInfo().URL
		if i := strings.Index(url, "/runs/"); i >= 0 {
			p.MustWaitLoad()
			p.MustElement("[data-testid=run-status]")
			return strings.TrimSuffix(url[i+len("/runs/"):], "/")
		}
		if time.Now().After(deadline) {
			msg, _ := p.Eval(`() => { const e = document.querySelector("[data-testid=form-error]"); return e ? e.textContent : "" }`)
			t.Fatalf("after asking, the page is %s (form error %v)", url, msg)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitRun waits for the run to reach one of the statuses in the database.
func (env *uiEnv) waitRun(t *testing.T, id string, d time.Duration, want ...research.RunStatus) *db.Run {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		run, err := env.store.GetRun(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if run.Status == w {
				return run
			}
		}
		if run.Status.Terminal() || time.Now().After(deadline) {
			t.Fatalf("run %s is %s (%s), want %v", id, run.Status, run.Error, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
