package handlers_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/library"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/search"
	"github.com/quarryhq/quarry/web"
)

// The page checks visit every page of a server with everything on
// (password login, tasks, the library, the inbox) in a real browser, at
// desktop and phone width: each page is photographed, must fit its width
// and must pass axe-core without serious or critical violations; the
// keyboard walk tabs through a page and checks that every action is
// reached and visibly focused.

// axeFile is the vendored axe-core (npm pack axe-core@4.14.1, axe.min.js);
// it is injected into the page under test, never served by Quarry.
const axeFile = "axe-core-4.14.1.min.js"

var (
	axeOnce   sync.Once
	axeSource string
	axeErr    error
)

// fullEnv is a Quarry server with every feature on, on its own database;
// its runner gathers from the browser tests' loopback site with their
// browser pool.
type fullEnv struct {
	store *db.Store
	lib   *library.Library
	srv   *httptest.Server
	site  *uiSite
}

func newFullEnv(t *testing.T) *fullEnv {
	t.Helper()
	ui := sharedUIEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dbURL, drop, err := dbtest.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	conn, err := db.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	broker := db.NewBroker(db.NewEventReader(conn), nil)
	store := db.NewStore(conn, broker)
	lctx, lcancel := context.WithCancel(context.Background())
	if err := broker.Listen(lctx, dbURL); err != nil {
		t.Fatal(err)
	}
	inbox := db.NewInbox(log)
	if err := inbox.Listen(lctx, dbURL); err != nil {
		t.Fatal(err)
	}
	guard := egress.NewGuard([]string{"127.0.0.1", ui.site.hostPort()})
	engines := []string{ui.site.engine("")}
	runner := pipeline.NewRunner(pipeline.Options{
		Store: store, Engine: extractive.New(), Gatherer: search.NewGatherer(ui.pool, search.NewSearcher(ui.pool, search.Options{Guard: guard})),
		Engines: engines, Workers: 1, Logger: log, LeaseTTL: 5 * time.Second, PollInterval: 100 * time.Millisecond,
	})
	runner.Start()
	lib := library.New(store, library.Options{Poll: 100 * time.Millisecond, Logger: log})
	libDone := make(chan struct{})
	go func() { lib.Work(lctx); close(libDone) }()
	h := handlers.New(handlers.Options{
		Store: store, Runs: runner, Browser: ui.pool, Printer: ui.pool, DefaultDepth: research.DepthQuick, Logger: log,
		Auth: handlers.AuthOptions{Mode: handlers.AuthPassword}, Inbox: inbox, Library: lib, Tasks: testTaskOptions(runner),
		Settings: web.SettingsView{Engine: "extractive", SearchEngines: engines, PoolSize: 2, Workers: 1, Browser: "local " + chromiumBin,
			DefaultDepth: research.DepthQuick, Auth: "password"},
	})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		h.CloseStreams(ctx)
		srv.Close()
		runner.Shutdown(ctx)
		lcancel()
		<-libDone
		conn.Close()
	})
	addUser(t, store, "alice", "correct horse battery")
	return &fullEnv{store: store, lib: lib, srv: srv, site: ui.site}
}

// checkPage photographs the whole page at desktop and phone width as
// screenshots/page-<name>-{desktop,phone}.png and fails the test when the
// page is wider than the window (at 320 px too) or axe-core finds serious
// or critical violations (in dark mode too). It leaves the page at
// desktop width.
func (p *uiPage) checkPage(t *testing.T, name string) {
	t.Helper()
	p.MustWaitLoad()
	if err := os.MkdirAll(filepath.Join("..", "screenshots"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, width := range []struct {
		label string
		px    int
		set   func()
	}{{"desktop", desktopWidth, p.desktop}, {"phone", phoneWidth, p.phone}} {
		width.set()
		p.MustWaitRequestIdle()
		time.Sleep(150 * time.Millisecond) // let layout settle after a viewport change
		p.fullScreenshot(t, "page-"+name+"-"+width.label)
		if over := p.overflow(t, width.px); over != "" {
			t.Errorf("%s at %s width scrolls sideways: %s", name, width.label, over)
		}
		for _, v := range p.axe(t) {
			t.Errorf("%s at %s width: axe-core: %s", name, width.label, v)
		}
	}
	// Dark mode has its own colours, held to the same contrast.
	dark := proto.EmulationSetEmulatedMedia{Features: []*proto.EmulationMediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}
	if err := dark.Call(p); err != nil {
		t.Fatal(err)
	}
	for _, v := range p.axe(t) {
		t.Errorf("%s in dark mode: axe-core: %s", name, v)
	}
	if err := (proto.EmulationSetEmulatedMedia{}).Call(p); err != nil {
		t.Fatal(err)
	}
	// The narrowest phones in use are 320 px wide.
	p.MustSetViewport(narrowWidth, phoneHeight, 2, true)
	if over := p.overflow(t, narrowWidth); over != "" {
		t.Errorf("%s at %d px scrolls sideways: %s", name, narrowWidth, over)
	}
	p.desktop()
}

const narrowWidth = 320

// overflow returns "" when the document fits the window of width px,
// otherwise the widths and the elements that stick out. A phone zooms out
// to show a page wider than its screen, which widens innerWidth, so the
// width the window was given counts too.
func (p *uiPage) overflow(t *testing.T, px int) string {
	t.Helper()
	return p.evalString(t, `() => {
		const doc = document.documentElement, w = Math.min(window.innerWidth, `+strconv.Itoa(px)+`);
		if (doc.scrollWidth <= w) return "";
		const wide = [];
		for (const el of document.body.querySelectorAll("*")) {
			const r = el.getBoundingClientRect();
			if (r.right > w + 1 && wide.length < 6) wide.push(el.tagName.toLowerCase() + (el.className ? "." + String(el.className).split(" ").join(".") : "") + " right=" + Math.round(r.right));
		}
		return "scrollWidth " + doc.scrollWidth + " > innerWidth " + w + "; " + wide.join(", ");
	}`)
}

// axe runs axe-core on the page and returns its serious and critical
// violations, one line each.
func (p *uiPage) axe(t *testing.T) []string {
	t.Helper()
	axeOnce.Do(func() {
		b, err := os.ReadFile(filepath.Join("testdata", axeFile))
		axeSource, axeErr = string(b), err
	})
	if axeErr != nil {
		t.Fatal(axeErr)
	}
	if !p.MustEval(`() => typeof window.axe === "object"`).Bool() {
		// The function body runs axe's UMD wrapper, which sets window.axe.
		if _, err := p.Eval("() => {\n" + axeSource + "\n}"); err != nil {
			t.Fatalf("inject axe-core: %v", err)
		}
	}
	v, err := p.Eval(`async () => {
		const r = await axe.run(document, {resultTypes: ["violations"]});
		return r.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v =>
			v.impact + " " + v.id + " (" + v.help + "): " + v.nodes.slice(0, 4).map(n => n.target.join(" ") + " — " + (n.failureSummary || "").replace(/\s+/g, " ")).join(" | "));
	}`)
	if err != nil {
		t.Fatalf("axe-core: %v", err)
	}
	var out []string
	if err := v.Value.Unmarshal(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// keyboardWalk tabs through the page from its top until focus comes back
// round, and fails the test for a focused element without a visible focus
// style or an action (link, button, field, disclosure) never reached. It
// returns how many elements took focus.
func (p *uiPage) keyboardWalk(t *testing.T, name string) int {
	t.Helper()
	p.MustEval(`() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); for (const e of document.querySelectorAll("[data-kb-seen]")) e.removeAttribute("data-kb-seen"); }`)
	reached := 0
	for i := 0; i < 300; i++ {
		p.Keyboard.MustType(input.Tab)
		got := p.evalString(t, `() => {
			const el = document.activeElement;
			if (!el || el === document.body) return "body";
			if (el.hasAttribute("data-kb-seen")) return "again";
			el.setAttribute("data-kb-seen", "");
			const cs = getComputedStyle(el);
			const ring = (cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) > 0) || (cs.boxShadow && cs.boxShadow !== "none");
			if (ring) return "ok";
			return "unmarked " + el.outerHTML.slice(0, 120);
		}`)
		switch {
		case got == "body" && reached > 0, got == "again":
			i = 300
		case got == "ok":
			reached++
		case strings.HasPrefix(got, "unmarked"):
			reached++
			t.Errorf("%s: keyboard focus is not visible on %s", name, strings.TrimPrefix(got, "unmarked "))
		}
	}
	missed := p.evalString(t, `() => {
		const groups = new Set();
		for (const r of document.querySelectorAll("input[type=radio][data-kb-seen]")) groups.add(r.name);
		const out = [];
		for (const el of document.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]")) {
			if (el.disabled || el.getAttribute("tabindex") === "-1" || el.hasAttribute("data-kb-seen")) continue;
			if (el.type === "radio" && groups.has(el.name)) continue;
			if (!el.checkVisibility({visibilityProperty: true}) || el.closest("[hidden], [inert]")) continue;
			out.push(el.outerHTML.slice(0, 100));
		}
		return out.join("\n");
	}`)
	if missed != "" {
		t.Errorf("%s: not reachable by keyboard:\n%s", name, missed)
	}
	return reached
}

// loginThroughForm signs in as alice with the page's sign-in form.
func (p *uiPage) loginThroughForm(t *testing.T) {
	t.Helper()
	p.MustElement("[data-testid=login-name]").MustInput("alice")
	p.MustElement("[data-testid=login-password]").MustInput("correct horse battery")
	wait := p.MustWaitNavigation()
	p.MustElement("[data-testid=login-submit]").MustClick()
	wait()
	p.MustWaitLoad()
	if p.MustElements("[data-testid=user]").Empty() {
		t.Fatalf("not signed in after the login form; page %s", p.MustInfo().URL)
	}
}

// open navigates to a path of the server and waits for the page.
func (p *uiPage) open(t *testing.T, env *fullEnv, path string) {
	t.Helper()
	p.MustNavigate(env.srv.URL + path).MustWaitLoad()
	p.MustWaitRequestIdle()
}

func (env *fullEnv) waitRun(t *testing.T, id string, d time.Duration, want research.RunStatus) *db.Run {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		run, err := env.store.GetRun(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if run.Status == want {
			return run
		}
		if run.Status.Terminal() || time.Now().After(deadline) {
			t.Fatalf("run %s is %s (%s), want %s", id, run.Status, run.Error, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (env *fullEnv) waitDocument(t *testing.T, id string) db.Document {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		d, err := env.store.GetDocument(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if d.Status == "ready" {
			return *d
		}
		if d.Status == "failed" || time.Now().After(deadline) {
			t.Fatalf("document %s is %s (%s)", id, d.Status, d.Error)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
