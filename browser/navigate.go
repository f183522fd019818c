package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

const (
	// settleQuiet is how long the page's network must stay quiet after
	// the load event before the DOM is captured.
	settleQuiet = 100 * time.Millisecond
	// settleMax bounds the wait for a quiet network after load.
	settleMax = 1500 * time.Millisecond
	// captureDeadline bounds the CDP call that reads the rendered DOM.
	captureDeadline = 3 * time.Second
)

// ErrTabUnresponsive is returned when a page's scripts or loading keep the
// tab from answering within the navigation deadline; the tab is replaced.
var ErrTabUnresponsive = errors.New("page did not respond (busy script or stalled load)")

// tabState is what the event loop and the request handler learn about the
// tab's current navigation.
type tabState struct {
	page     *rod.Page
	target   proto.TargetTargetID
	bctx     proto.BrowserBrowserContextID
	session  proto.TargetSessionID
	released atomic.Bool
	broken   atomic.Bool
	styles   atomic.Bool // fetch stylesheets (for printing); evidence needs none
	dialogs  atomic.Int64
	policy   atomic.Pointer[RequestPolicy] // a session's own rule for its requests, nil for renders

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every state change
	navGen    int
	loads     map[proto.NetworkLoaderID]proto.PageLifecycleEventName
	inflight  int
	lastNet   time.Time
	docErr    error
	docStatus int
	refused   []Refusal // requests the policy stopped, until taken
}

func (t *tabState) notifyLocked() {
	close(t.changed)
	t.changed = make(chan struct{})
}

func (t *tabState) notify() {
	t.mu.Lock()
	t.notifyLocked()
	t.mu.Unlock()
}

func (t *tabState) beginNav() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.navGen++
	t.loads = map[proto.NetworkLoaderID]proto.PageLifecycleEventName{}
	t.inflight = 0
	t.lastNet = time.Now()
	t.docErr = nil
	t.docStatus = 0
}

func (t *tabState) lifecycle(e *proto.PageLifecycleEvent) {
	if e.FrameID != proto.PageFrameID(t.target) {
		return
	}
	if e.Name != proto.PageLifecycleEventNameLoad && e.Name != proto.PageLifecycleEventNameDOMContentLoaded {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.loads == nil {
		return
	}
	if t.loads[e.LoaderID] != proto.PageLifecycleEventNameLoad {
		t.loads[e.LoaderID] = e.Name
	}
	t.lastNet = time.Now() // late requests are measured from here
	t.notifyLocked()
}

func (t *tabState) netStart() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inflight++
	t.lastNet = time.Now()
	return t.navGen
}

func (t *tabState) netDone(gen int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if gen != t.navGen {
		return
	}
	t.inflight--
	t.lastNet = time.Now()
	t.notifyLocked()
}

func (t *tabState) setDocErr(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.docErr == nil {
		t.docErr = err
	}
}

func (t *tabState) setDoc(status int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.docStatus = status
	t.docErr = nil // a redirect hop that succeeded clears nothing else
}

// domQuiet is how long a parsed document (DOMContentLoaded) must have no
// request of its own in flight to count as loaded without waiting for the
// load event: what load adds (late async scripts, iframes, lazy
// subresources) rarely changes the text, and it often takes seconds.
const domQuiet = 150 * time.Millisecond

// waitLoaded waits for the load event of the navigation loader, or for its
// DOMContentLoaded followed by a quiet network. Lifecycle events are not
// always sent (a script-started navigation can swallow them), so the
// document's readyState is polled as well.
func (t *Tab) waitLoaded(ctx context.Context, loader proto.NetworkLoaderID) error {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	ready := ""
	for {
		t.mu.Lock()
		state := t.loads[loader]
		quiet := t.inflight == 0 && time.Since(t.lastNet) >= domQuiet
		done := loader == "" || state == proto.PageLifecycleEventNameLoad || ready == "complete" ||
			(state == proto.PageLifecycleEventNameDOMContentLoaded || ready == "interactive") && quiet
		ch := t.changed
		t.mu.Unlock()
		if done {
			return nil
		}
		if t.broken.Load() {
			return ErrTabUnresponsive
		}
		select {
		case <-ch:
		case <-tick.C:
			ready = t.readyState(ctx)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// readyState asks the document how far it got; "" when it does not answer
// quickly (a busy script).
func (t *Tab) readyState(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	res, err := proto.RuntimeEvaluate{Expression: "document.readyState", ReturnByValue: true}.Call(t.page.Context(ctx))
	if err != nil || res.ExceptionDetails != nil {
		return ""
	}
	return res.Result.Value.Str()
}

// Rendered is a page as the browser left it after loading and settling.
type Rendered struct {
	URL      string        // the URL that was asked for
	FinalURL string        // location.href at capture: after redirects and script navigation
	Title    string        // document.title
	HTML     string        // the rendered DOM, serialised with a doctype
	Status   int           // HTTP status of the main document, 0 when none was seen
	LoadTime time.Duration // from the guard's check to the captured DOM
	Partial  bool          // the load did not finish in time; the DOM as far as it got
}

// render navigates the tab to rawURL and returns the rendered DOM. Errors
// that leave the tab in doubt mark it broken so Release replaces it.
func (t *Tab) render(ctx context.Context, rawURL string) (*Rendered, error) {
	start := time.Now()
	opt := t.pool.opt
	if err := t.pool.guard.Check(ctx, rawURL); err != nil {
		return nil, err
	}
	t.pool.countPage(t.inst)
	t.beginNav()

	navCtx, cancel := context.WithTimeout(ctx, opt.NavTimeout)
	defer cancel()
	page := t.page.Context(navCtx)
	res, err := proto.PageNavigate{URL: rawURL}.Call(page)
	if err != nil {
		t.broken.Store(true)
		if t.inst.isDead() {
			return nil, fmt.Errorf("navigate %s: browser crashed: %w", rawURL, err)
		}
		return nil, fmt.Errorf("navigate %s: %w", rawURL, err)
	}
	t.mu.Lock()
	docErr := t.docErr
	t.mu.Unlock()
	if docErr != nil {
		return nil, docErr // refused by the guard or the page policy
	}
	if res.ErrorText != "" {
		return nil, fmt.Errorf("navigate %s: %s", rawURL, res.ErrorText)
	}

	out := &Rendered{URL: rawURL}
	loader := res.LoaderID
	err = t.waitLoaded(navCtx, loader)
	switch {
	case err == nil:
		// Give late requests (XHR that fills the page) a bounded chance:
		// first let the page's own clock run past what it scheduled at
		// load (a fetch started by a timer), then wait for its network
		// to go quiet. On a loaded machine the page's timers run late,
		// and a quiet network measured on ours alone ends the wait
		// before the page has asked for anything.
		sctx, scancel := context.WithTimeout(navCtx, settleMax)
		_, _ = proto.RuntimeEvaluate{Expression: pageTickJS, AwaitPromise: true}.Call(t.page.Context(sctx))
		_ = t.settle(sctx)
		scancel()
	case ctx.Err() != nil:
		t.broken.Store(true)
		return nil, fmt.Errorf("navigate %s: %w", rawURL, ctx.Err())
	default:
		// Load never finished: stop it and keep what is there, if the
		// renderer still answers.
		out.Partial = true
		sctx, scancel := context.WithTimeout(t.inst.ctx, time.Second)
		_ = proto.PageStopLoading{}.Call(t.page.Context(sctx))
		_, err := proto.RuntimeEvaluate{Expression: "1", ReturnByValue: true}.Call(t.page.Context(sctx))
		scancel()
		if err != nil {
			t.broken.Store(true)
			return nil, fmt.Errorf("navigate %s: %w", rawURL, ErrTabUnresponsive)
		}
	}

	if err := t.capture(ctx, out); err != nil {
		return nil, err
	}
	t.mu.Lock()
	out.Status = t.docStatus
	t.mu.Unlock()
	out.LoadTime = time.Since(start)
	return out, nil
}

// pageTickJS resolves once settleQuiet has passed on the page's own
// clock, after the timers the page set before it.
var pageTickJS = fmt.Sprintf("new Promise(r => setTimeout(r, %d))", settleQuiet.Milliseconds())

// settle waits until the page's own network has been quiet for settleQuiet.
func (t *tabState) settle(ctx context.Context) error {
	for {
		t.mu.Lock()
		quietFor := time.Since(t.lastNet)
		busy := t.inflight > 0
		ch := t.changed
		t.mu.Unlock()
		if !busy && quietFor >= settleQuiet {
			return nil
		}
		wait := settleQuiet - quietFor
		if busy || wait <= 0 {
			wait = settleQuiet
		}
		timer := time.NewTimer(wait)
		select {
		case <-ch:
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		}
		timer.Stop()
	}
}

// captureJS reads the rendered DOM, refusing it past the size limit so a
// huge document never crosses the CDP socket.
const captureJS = `((limit) => {
  const el = document.documentElement;
  const html = el ? el.outerHTML : '';
  if (html.length > limit) return {url: location.href, title: document.title, tooLarge: true, html: ''};
  return {url: location.href, title: document.title, tooLarge: false, html: '<!DOCTYPE html>' + html};
})`

// capture reads the DOM, retrying briefly when the document is caught
// between two states (no root element while a script rewrites it).
func (t *Tab) capture(ctx context.Context, out *Rendered) error {
	for attempt := 0; ; attempt++ {
		err := t.captureOnce(ctx, out)
		if err != nil || strings.TrimPrefix(out.HTML, "<!DOCTYPE html>") != "" || attempt == 5 {
			return err
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (t *Tab) captureOnce(ctx context.Context, out *Rendered) error {
	limit := 2 * t.pool.opt.MaxPageBytes // the DOM is often larger than the source
	cctx, cancel := context.WithTimeout(ctx, captureDeadline)
	defer cancel()
	res, err := proto.RuntimeEvaluate{
		Expression:    fmt.Sprintf("%s(%d)", captureJS, limit),
		ReturnByValue: true,
	}.Call(t.page.Context(cctx))
	if err != nil {
		t.broken.Store(true)
		if t.inst.isDead() {
			return fmt.Errorf("read %s: browser crashed: %w", out.URL, err)
		}
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("read %s: %w", out.URL, ErrTabUnresponsive)
		}
		return fmt.Errorf("read %s: %w", out.URL, err)
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("read %s: %s", out.URL, res.ExceptionDetails.Text)
	}
	var v struct {
		URL      string `json:"url"`
		Title    string `json:"title"`
		HTML     string `json:"html"`
		TooLarge bool   `json:"tooLarge"`
	}
	if err := json.Unmarshal([]byte(res.Result.Value.JSON("", "")), &v); err != nil {
		return fmt.Errorf("read %s: decode DOM: %w", out.URL, err)
	}
	if v.TooLarge {
		return &PageTooLargeError{URL: out.URL, Limit: limit}
	}
	out.FinalURL, out.Title, out.HTML = v.URL, v.Title, v.HTML
	return nil
}
