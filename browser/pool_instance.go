package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"
)

// instance is one running (or remote) browser. A recycle or a crash
// replaces it with a new one; tabs remember which instance they belong to.
type instance struct {
	id      int
	pool    *Pool
	browser *rod.Browser
	ctx     context.Context // cancelled at shutdown; parent of every CDP call
	cancel  context.CancelFunc
	client  *http.Client // guarded, no redirects: fetches what the browser asks for

	proc   *os.Process   // nil for a remote browser
	jail   net.Listener  // the dead proxy every un-intercepted request is sent to
	exited chan struct{} // closed when the local process has exited and been waited for

	dead    atomic.Bool
	retired atomic.Bool // replaced by a newer browser; shuts down when drained
	pages   atomic.Int64
	active  int // tabs in use; guarded by pool.mu

	mu        sync.Mutex
	bySession map[proto.TargetSessionID]*Tab
	byTarget  map[proto.TargetTargetID]*Tab
	byFrame   map[proto.PageFrameID]*Tab // the frames inside each tab's main frame

	shutOnce sync.Once
}

// initScript runs before any page script in every frame: popups are
// refused at the source (a popup that still opens is closed by the event loop).
const initScript = `(() => {
  const deny = () => null;
  try { Object.defineProperty(window, 'open', {value: deny, writable: false, configurable: false}); } catch (e) {}
})();`

func (p *Pool) startInstance(ctx context.Context, id int) (*instance, error) {
	inst := &instance{
		id:        id,
		pool:      p,
		client:    p.guard.NoRedirectClient(p.opt.NavTimeout),
		exited:    make(chan struct{}),
		bySession: map[proto.TargetSessionID]*Tab{},
		byTarget:  map[proto.TargetTargetID]*Tab{},
		byFrame:   map[proto.PageFrameID]*Tab{},
	}
	inst.ctx, inst.cancel = context.WithCancel(context.Background())
	controlURL := p.opt.RemoteURL
	if controlURL == "" {
		u, err := inst.launch(ctx)
		if err != nil {
			inst.cancel()
			return nil, err
		}
		controlURL = u
	} else {
		inst.exited = nil // a remote browser is watched by heartbeat only
		u, err := resolveRemote(ctx, controlURL)
		if err != nil {
			inst.cancel()
			return nil, err
		}
		controlURL = u
	}
	client, err := cdp.StartWithURL(ctx, controlURL, nil)
	if err != nil {
		inst.shutdown()
		return nil, fmt.Errorf("connect to browser %s: %w", controlURL, err)
	}
	// The browser's event stream lives as long as the context Connect runs
	// under, so Connect gets the instance's context and a watchdog instead
	// of the launch deadline.
	inst.browser = rod.New().Client(client).Context(inst.ctx).NoDefaultDevice()
	connected := make(chan error, 1)
	go func() { connected <- inst.browser.Connect() }()
	select {
	case err = <-connected:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		inst.shutdown()
		return nil, fmt.Errorf("connect to browser: %w", err)
	}
	if err := inst.setup(ctx); err != nil {
		inst.shutdown()
		return nil, err
	}
	return inst, nil
}

// resolveRemote turns QUARRY_BROWSER_URL into a websocket URL.
func resolveRemote(ctx context.Context, raw string) (string, error) {
	if strings.HasPrefix(raw, "ws://") || strings.HasPrefix(raw, "wss://") {
		return raw, nil
	}
	type result struct {
		u   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		u, err := launcher.ResolveURL(raw)
		ch <- result{u, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return "", fmt.Errorf("resolve browser URL %s: %w", raw, r.err)
		}
		return r.u, nil
	case <-ctx.Done():
		return "", fmt.Errorf("resolve browser URL %s: %w", raw, ctx.Err())
	}
}

// setup applies browser-wide policy and starts the event loop.
func (inst *instance) setup(ctx context.Context) error {
	b := inst.browser.Context(ctx)
	if err := (proto.BrowserSetDownloadBehavior{Behavior: proto.BrowserSetDownloadBehaviorBehaviorDeny}).Call(b); err != nil {
		return fmt.Errorf("deny downloads: %w", err)
	}
	events := inst.browser.Event()
	// Intercept every request of every target at the request stage.
	if err := (proto.FetchEnable{Patterns: []*proto.FetchRequestPattern{{URLPattern: "*"}}}).Call(b); err != nil {
		return fmt.Errorf("enable request interception: %w", err)
	}
	go inst.loop(events)
	return nil
}

// loop dispatches browser events. It must never block: anything that
// calls back into the browser runs in its own goroutine.
func (inst *instance) loop(events <-chan *rod.Message) {
	for msg := range events {
		switch msg.Method {
		case "Fetch.requestPaused":
			var e proto.FetchRequestPaused
			if !msg.Load(&e) {
				continue
			}
			go inst.handleRequest(&e)
		case "Page.javascriptDialogOpening":
			var e proto.PageJavascriptDialogOpening
			if !msg.Load(&e) {
				continue
			}
			sid := msg.SessionID
			go inst.dismissDialog(sid, &e)
		case "Page.lifecycleEvent":
			var e proto.PageLifecycleEvent
			if !msg.Load(&e) {
				continue
			}
			if t := inst.tabBySession(msg.SessionID); t != nil {
				t.lifecycle(&e)
			}
		case "Page.frameAttached":
			var e proto.PageFrameAttached
			if !msg.Load(&e) {
				continue
			}
			if t := inst.tabBySession(msg.SessionID); t != nil {
				inst.mu.Lock()
				inst.byFrame[e.FrameID] = t
				inst.mu.Unlock()
			}
		case "Page.frameDetached":
			var e proto.PageFrameDetached
			if !msg.Load(&e) {
				continue
			}
			inst.mu.Lock()
			delete(inst.byFrame, e.FrameID)
			inst.mu.Unlock()
		case "Target.targetCreated":
			var e proto.TargetTargetCreated
			if !msg.Load(&e) {
				continue
			}
			if e.TargetInfo.OpenerID != "" && e.TargetInfo.Type == proto.TargetTargetInfoTypePage {
				go inst.closeTarget(e.TargetInfo.TargetID)
			}
		case "Inspector.targetCrashed":
			if t := inst.tabBySession(msg.SessionID); t != nil {
				t.broken.Store(true)
				t.notify()
			}
		}
	}
}

func (inst *instance) dismissDialog(sid proto.TargetSessionID, e *proto.PageJavascriptDialogOpening) {
	ctx, cancel := context.WithTimeout(inst.ctx, cdpShortDeadline)
	defer cancel()
	// Leaving a page must not be blocked by onbeforeunload; everything else
	// is dismissed (alert closed, confirm false, prompt null).
	accept := e.Type == proto.PageDialogTypeBeforeunload
	_, err := inst.browser.Call(ctx, string(sid), "Page.handleJavaScriptDialog", proto.PageHandleJavaScriptDialog{Accept: accept})
	if err != nil {
		inst.pool.log.Debug("dismiss dialog", "err", err)
	}
	if t := inst.tabBySession(sid); t != nil {
		t.dialogs.Add(1)
	}
}

func (inst *instance) closeTarget(id proto.TargetTargetID) {
	ctx, cancel := context.WithTimeout(inst.ctx, cdpShortDeadline)
	defer cancel()
	_, _ = proto.TargetCloseTarget{TargetID: id}.Call(inst.browser.Context(ctx))
}

func (inst *instance) tabBySession(sid proto.TargetSessionID) *Tab {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	return inst.bySession[sid]
}

func (inst *instance) tabByTarget(id proto.TargetTargetID) *Tab {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	return inst.byTarget[id]
}

// tabOfFrame is the tab whose page holds frame (its main frame or one
// inside it), and whether frame is the main frame.
func (inst *instance) tabOfFrame(frame proto.PageFrameID) (*Tab, bool) {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	if t := inst.byTarget[proto.TargetTargetID(frame)]; t != nil {
		return t, true
	}
	return inst.byFrame[frame], false
}

func (inst *instance) isDead() bool { return inst.dead.Load() }

func (inst *instance) pid() int {
	if inst.proc == nil {
		return 0
	}
	return inst.proc.Pid
}

// ping is the heartbeat: a cheap call that needs the browser process.
func (inst *instance) ping(ctx context.Context) error {
	if inst.isDead() {
		return errors.New("browser is dead")
	}
	_, err := proto.BrowserGetVersion{}.Call(inst.browser.Context(ctx))
	return err
}

// newTab opens a tab with the pool's per-tab policy applied.
func (inst *instance) newTab(ctx context.Context) (*Tab, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b := inst.browser.Context(ctx)
	// Each tab gets its own browser context. Renderer processes are never
	// shared across contexts, so a page spinning in a script cannot stall
	// the navigations of other tabs (Chromium otherwise reuses one renderer
	// for same-site main frames), and runs share no cookies or storage.
	bc, err := proto.TargetCreateBrowserContext{DisposeOnDetach: true}.Call(b)
	if err != nil {
		return nil, fmt.Errorf("create browser context: %w", err)
	}
	target, err := proto.TargetCreateTarget{URL: "about:blank", BrowserContextID: bc.BrowserContextID}.Call(b)
	if err != nil {
		inst.disposeContext(bc.BrowserContextID)
		return nil, fmt.Errorf("create target: %w", err)
	}
	page, err := b.PageFromTarget(target.TargetID)
	if err != nil {
		inst.closeTarget(target.TargetID)
		inst.disposeContext(bc.BrowserContextID)
		return nil, fmt.Errorf("attach to target: %w", err)
	}
	t := &Tab{pool: inst.pool, inst: inst}
	t.page = page.Context(inst.ctx)
	t.target = target.TargetID
	t.bctx = bc.BrowserContextID
	t.session = page.SessionID
	t.changed = make(chan struct{})
	inst.mu.Lock()
	inst.bySession[t.session] = t
	inst.byTarget[t.target] = t
	inst.mu.Unlock()

	pc := page.Context(ctx)
	if err := (proto.PageSetLifecycleEventsEnabled{Enabled: true}).Call(pc); err != nil {
		t.close()
		return nil, fmt.Errorf("prepare tab: lifecycle events: %w", err)
	}
	if _, err := (proto.PageAddScriptToEvaluateOnNewDocument{Source: initScript}).Call(pc); err != nil {
		t.close()
		return nil, fmt.Errorf("prepare tab: init script: %w", err)
	}
	return t, nil
}

// close closes the tab's target; the tab is unusable afterwards.
func (t *Tab) close() {
	inst := t.inst
	inst.mu.Lock()
	delete(inst.bySession, t.session)
	delete(inst.byTarget, t.target)
	for f, ft := range inst.byFrame {
		if ft == t {
			delete(inst.byFrame, f)
		}
	}
	inst.mu.Unlock()
	if !inst.isDead() {
		inst.closeTarget(t.target)
		inst.disposeContext(t.bctx)
	}
}

func (inst *instance) disposeContext(id proto.BrowserBrowserContextID) {
	if id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(inst.ctx, cdpShortDeadline)
	defer cancel()
	_ = proto.TargetDisposeBrowserContext{BrowserContextID: id}.Call(inst.browser.Context(ctx))
}

// reset puts the tab back on about:blank so nothing of the previous page
// (timers, handlers, sockets) keeps running while it is idle. It returns
// only once the blank document answers: Page.navigate can return while
// the old page's beforeunload round trip is still open, and a navigation
// sent into that window hangs without a request or a dialog.
func (t *Tab) reset() error {
	ctx, cancel := context.WithTimeout(t.inst.ctx, cdpShortDeadline)
	defer cancel()
	p := t.page.Context(ctx)
	_ = proto.PageStopLoading{}.Call(p)
	res, err := proto.PageNavigate{URL: "about:blank"}.Call(p)
	if err != nil {
		return err
	}
	if res.ErrorText != "" {
		return errors.New(res.ErrorText)
	}
	for {
		r, err := proto.RuntimeEvaluate{Expression: "location.href", ReturnByValue: true}.Call(p)
		if err != nil {
			return fmt.Errorf("reset: %w", err)
		}
		if r.Result.Value.Str() == "about:blank" {
			return nil
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return fmt.Errorf("reset: tab stayed on %s", r.Result.Value.Str())
		}
	}
}

// kill stops the local browser process group at once.
func (inst *instance) kill() {
	inst.cancel()
	if inst.proc != nil {
		killProcessGroup(inst.proc.Pid)
	}
}

// shutdown closes the browser gracefully, kills whatever is left of its
// process group and waits until the process has been reaped.
func (inst *instance) shutdown() {
	inst.shutOnce.Do(func() {
		if inst.browser != nil && !inst.isDead() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = proto.BrowserClose{}.Call(inst.browser.Context(ctx))
			cancel()
			if inst.proc != nil {
				select {
				case <-inst.exited:
				case <-time.After(2 * time.Second):
				}
			}
		}
		inst.dead.Store(true)
		inst.kill()
		if inst.proc != nil {
			select {
			case <-inst.exited:
			case <-time.After(10 * time.Second):
				inst.pool.log.Error("browser process did not exit", "pid", inst.pid())
			}
		}
		if inst.jail != nil {
			_ = inst.jail.Close()
		}
	})
}
