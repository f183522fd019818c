// Package browser is the Rod pool: a bounded set of headless Chromium tabs,
// each in its own browser context, shared by every run of the process. It
// navigates, waits for a page to settle and returns the rendered DOM, prints
// documents to PDF, and answers every request the browser makes itself
// through the egress guard. What a page means (its main text, its
// metadata) is the extract package's business, and search drives both.
package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quarryhq/quarry/egress"
)

// Defaults for PoolOptions fields left at zero.
const (
	DefaultPoolSize     = 4
	DefaultRecycleAfter = 500
	DefaultNavTimeout   = 20 * time.Second
	DefaultMaxPageBytes = 5 << 20
	defaultHeartbeat    = 5 * time.Second
	defaultLaunchWait   = 30 * time.Second
	cdpShortDeadline    = 3 * time.Second
)

// ErrPoolClosed is returned by Acquire, Render and PrintPDF after Close.
var ErrPoolClosed = errors.New("browser pool closed")

// PoolOptions configures a Pool. Zero values take the documented defaults.
type PoolOptions struct {
	// ChromiumPath is the browser binary; empty means FindChromium("").
	ChromiumPath string
	// RemoteURL connects to a running browser instead of launching one: a
	// CDP websocket (ws://host:port/devtools/browser/…) or an http(s) URL
	// whose /json/version names one.
	RemoteURL string
	// Size is the number of tabs (default 4).
	Size int
	// RecycleAfter relaunches the browser after this many navigations
	// (default 500), draining the old one first; negative disables it.
	RecycleAfter int
	// NavTimeout bounds one navigation, load and capture (default 20 s).
	NavTimeout time.Duration
	// MaxPageBytes caps every response body and the rendered HTML
	// (default 5 MB).
	MaxPageBytes int64
	// Guard checks every request the browser makes; nil allows only public
	// addresses (egress.NewGuard(nil)).
	Guard *egress.Guard
	// Logger receives pool events; nil discards them.
	Logger *slog.Logger
	// Heartbeat is how often the supervisor pings the browser (default 5 s).
	Heartbeat time.Duration
}

// PoolStats is a snapshot of the pool for /readyz, metrics and logs.
type PoolStats struct {
	Size       int   `json:"size"`
	InUse      int   `json:"in_use"`
	Waiting    int   `json:"waiting"`
	Pages      int64 `json:"pages"`      // navigations since the pool started
	Relaunches int64 `json:"relaunches"` // browsers started after the first (crash or recycle)
	Recycles   int64 `json:"recycles"`   // of which planned recycles
	Crashes    int64 `json:"crashes"`    // browsers found dead or silent
}

// Pool is a bounded set of tabs in one headless Chromium shared by every run
// of the process. A supervisor relaunches the browser when it dies or stops
// answering, and the browser is recycled after RecycleAfter navigations.
type Pool struct {
	opt    PoolOptions
	log    *slog.Logger
	guard  *egress.Guard
	slots  chan struct{} // a token per tab that may be held
	launch chan struct{} // held while a browser is being started

	waiting    atomic.Int64
	pages      atomic.Int64
	relaunches atomic.Int64
	recycles   atomic.Int64
	crashes    atomic.Int64

	mu       sync.Mutex
	cur      *instance
	launched int // browsers started so far
	idle     []*Tab
	inUse    int
	all      map[*instance]bool // every instance not yet shut down
	closed   bool

	done    chan struct{}
	bg      sync.WaitGroup
	closeMu sync.Once
}

// NewPool starts the browser (or connects to the remote one) and the
// supervisor. Tabs are opened on demand up to Size.
func NewPool(ctx context.Context, opt PoolOptions) (*Pool, error) {
	if opt.Size <= 0 {
		opt.Size = DefaultPoolSize
	}
	if opt.RecycleAfter == 0 {
		opt.RecycleAfter = DefaultRecycleAfter
	}
	if opt.NavTimeout <= 0 {
		opt.NavTimeout = DefaultNavTimeout
	}
	if opt.MaxPageBytes <= 0 {
		opt.MaxPageBytes = DefaultMaxPageBytes
	}
	if opt.Heartbeat <= 0 {
		opt.Heartbeat = defaultHeartbeat
	}
	if opt.Guard == nil {
		opt.Guard = egress.NewGuard(nil)
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opt.RemoteURL == "" {
		bin, err := FindChromium(opt.ChromiumPath)
		if err != nil {
			return nil, err
		}
		opt.ChromiumPath = bin
	}
	p := &Pool{
		opt:    opt,
		log:    opt.Logger.With("component", "browser"),
		guard:  opt.Guard,
		slots:  make(chan struct{}, opt.Size),
		launch: make(chan struct{}, 1),
		all:    map[*instance]bool{},
		done:   make(chan struct{}),
	}
	if _, err := p.instance(ctx); err != nil {
		return nil, err
	}
	p.bg.Add(1)
	go p.supervise()
	return p, nil
}

// Tab is one browser tab lent out by Acquire. It must be given back with
// Release exactly once.
type Tab struct {
	pool *Pool
	inst *instance
	tabState
}

// takeSlot waits until one of the pool's slots (a tab's worth of work) is
// free, ctx is done or the pool closes; what names the caller's work in
// the error when every tab stayed busy. The slot is given back with
// <-p.slots.
func (p *Pool) takeSlot(ctx context.Context, what string) error {
	p.waiting.Add(1)
	defer p.waiting.Add(-1)
	select {
	case p.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: all %d tabs busy: %w", what, p.opt.Size, ctx.Err())
	case <-p.done:
		return ErrPoolClosed
	}
}

// Acquire waits for a free tab until ctx is done. The error names the pool
// size when every tab stayed busy.
func (p *Pool) Acquire(ctx context.Context) (*Tab, error) {
	if err := p.takeSlot(ctx, "acquire browser tab"); err != nil {
		return nil, err
	}
	tab, err := p.takeTab(ctx)
	if err != nil {
		<-p.slots
		return nil, err
	}
	return tab, nil
}

// takeTab reuses an idle tab of the current browser or opens a new one,
// relaunching the browser once if it turns out to be dead.
func (p *Pool) takeTab(ctx context.Context) (*Tab, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		inst, err := p.instance(ctx)
		if err != nil {
			return nil, err
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, ErrPoolClosed
		}
		if p.cur != inst { // recycled or lost meanwhile
			p.mu.Unlock()
			lastErr = errors.New("browser replaced while opening a tab")
			continue
		}
		for len(p.idle) > 0 {
			t := p.idle[len(p.idle)-1]
			p.idle = p.idle[:len(p.idle)-1]
			if t.inst == inst && !inst.isDead() {
				inst.active++
				p.inUse++
				p.mu.Unlock()
				return t, nil
			}
			p.closeTabAsync(t)
		}
		inst.active++
		p.inUse++
		p.mu.Unlock()

		t, err := inst.newTab(ctx)
		if err == nil {
			return t, nil
		}
		p.mu.Lock()
		inst.active--
		p.inUse--
		p.mu.Unlock()
		lastErr = err
		if ctx.Err() != nil {
			break
		}
		if inst.ping(ctx) != nil {
			p.markDead(inst, "tab creation failed: "+err.Error())
		}
	}
	return nil, fmt.Errorf("open browser tab: %w", lastErr)
}

// Release gives a tab back. A nil err means the tab is healthy and it is
// reset to about:blank for the next user; any other error closes the tab
// and a fresh one is opened on demand.
func (p *Pool) Release(t *Tab, err error) {
	if t == nil {
		return
	}
	if !t.released.CompareAndSwap(false, true) {
		return
	}
	inst := t.inst
	healthy := err == nil && !t.broken.Load() && !inst.isDead()
	if !healthy || p.waiting.Load() > 0 {
		// Someone waiting gets the tab without the reset: the next
		// navigation replaces the page anyway.
		p.giveBack(t, healthy)
		return
	}
	// The reset is cheap but is a CDP round trip; do it off the caller's
	// path and hand the slot back once the tab is clean.
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.giveBack(t, false)
		return
	}
	p.bg.Add(1) // under p.mu, so never after Close started waiting
	p.mu.Unlock()
	go func() {
		defer p.bg.Done()
		p.giveBack(t, t.reset() == nil)
	}()
}

func (p *Pool) giveBack(t *Tab, healthy bool) {
	inst := t.inst
	p.mu.Lock()
	inst.active--
	p.inUse--
	retire := false
	switch {
	case healthy && !p.closed && p.cur == inst && !inst.isDead():
		t.released.Store(false)
		p.idle = append(p.idle, t)
	default:
		p.closeTabAsync(t)
	}
	if inst != p.cur && inst.active == 0 && p.all[inst] {
		retire = true
		delete(p.all, inst)
		p.bg.Add(1)
	}
	p.mu.Unlock()
	<-p.slots
	if retire {
		go func() {
			defer p.bg.Done()
			inst.shutdown()
		}()
	}
}

// closeTabAsync closes a tab without blocking; p.mu is held. After Close
// the browser is going away with its tabs, so there is nothing to do.
func (p *Pool) closeTabAsync(t *Tab) {
	if t.inst.isDead() || p.closed {
		return
	}
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		t.close()
	}()
}

// countPage records a navigation and starts a recycle when the browser
// has served RecycleAfter of them.
func (p *Pool) countPage(inst *instance) {
	p.pages.Add(1)
	n := inst.pages.Add(1)
	if p.opt.RecycleAfter < 0 || n < int64(p.opt.RecycleAfter) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur != inst {
		return
	}
	p.log.Info("recycling browser", "pages", n, "browser", inst.id)
	p.recycles.Add(1)
	p.retireLocked(inst)
}

// retireLocked detaches inst from the pool: new acquirers get a new browser
// while tabs still in use finish; the old one shuts down when drained.
func (p *Pool) retireLocked(inst *instance) {
	inst.retired.Store(true)
	if p.cur == inst {
		p.cur = nil
	}
	kept := p.idle[:0]
	for _, t := range p.idle {
		if t.inst == inst {
			continue // closed with the browser
		}
		kept = append(kept, t)
	}
	p.idle = kept
	if inst.active == 0 && p.all[inst] {
		delete(p.all, inst)
		p.bg.Add(1)
		go func() {
			defer p.bg.Done()
			inst.shutdown()
		}()
	}
}

// markDead records that inst crashed or stopped answering: its in-flight
// navigations fail, and the next Acquire (or the supervisor) relaunches.
func (p *Pool) markDead(inst *instance, why string) {
	if !inst.dead.CompareAndSwap(false, true) {
		return
	}
	if inst.retired.Load() {
		inst.kill() // it was going away anyway
		return
	}
	p.crashes.Add(1)
	p.log.Warn("browser lost", "browser", inst.id, "reason", why)
	inst.kill()
	p.mu.Lock()
	p.retireLocked(inst)
	p.mu.Unlock()
}

// instance returns the live browser, starting one if there is none.
func (p *Pool) instance(ctx context.Context) (*instance, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrPoolClosed
	}
	if inst := p.cur; inst != nil && !inst.isDead() {
		p.mu.Unlock()
		return inst, nil
	}
	p.mu.Unlock()

	select {
	case p.launch <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("start browser: %w", ctx.Err())
	case <-p.done:
		return nil, ErrPoolClosed
	}
	defer func() { <-p.launch }()

	p.mu.Lock()
	if inst := p.cur; inst != nil && !inst.isDead() {
		p.mu.Unlock()
		return inst, nil
	}
	if p.cur != nil {
		p.retireLocked(p.cur)
	}
	p.launched++
	id := p.launched
	p.mu.Unlock()

	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), defaultLaunchWait)
	defer cancel()
	inst, err := p.startInstance(lctx, id)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		go inst.shutdown()
		return nil, ErrPoolClosed
	}
	if id > 1 {
		p.relaunches.Add(1)
	}
	p.cur = inst
	p.all[inst] = true
	p.log.Info("browser ready", "browser", id, "pid", inst.pid())
	return inst, nil
}

// supervise pings the browser and relaunches it when it died or went silent,
// so that a crash costs only the navigations that were in flight.
func (p *Pool) supervise() {
	defer p.bg.Done()
	tick := time.NewTicker(p.opt.Heartbeat)
	defer tick.Stop()
	for {
		p.mu.Lock()
		inst := p.cur
		p.mu.Unlock()
		var exited <-chan struct{}
		if inst != nil {
			exited = inst.exited
		}
		select {
		case <-p.done:
			return
		case <-exited:
			if !inst.retired.Load() { // a retired browser exits on purpose
				p.markDead(inst, "browser process exited")
			}
		case <-tick.C:
			if inst == nil || inst.isDead() {
				break
			}
			ctx, cancel := context.WithTimeout(context.Background(), cdpShortDeadline)
			err := inst.ping(ctx)
			cancel()
			if err != nil {
				p.markDead(inst, "heartbeat failed: "+err.Error())
			}
		}
		p.mu.Lock()
		needed := p.cur == nil && !p.closed
		p.mu.Unlock()
		if needed {
			ctx, cancel := context.WithTimeout(context.Background(), defaultLaunchWait)
			if _, err := p.instance(ctx); err != nil && !errors.Is(err, ErrPoolClosed) {
				p.log.Error("relaunch browser", "err", err)
			}
			cancel()
		}
	}
}

// Ping checks that the browser answers a cheap CDP call within ctx; it is
// what /readyz calls.
func (p *Pool) Ping(ctx context.Context) error {
	inst, err := p.instance(ctx)
	if err != nil {
		return fmt.Errorf("browser: %w", err)
	}
	if err := inst.ping(ctx); err != nil {
		return fmt.Errorf("browser not answering: %w", err)
	}
	return nil
}

// Stats returns a snapshot of the pool.
func (p *Pool) Stats() PoolStats {
	p.mu.Lock()
	inUse := p.inUse
	p.mu.Unlock()
	return PoolStats{
		Size:       p.opt.Size,
		InUse:      inUse,
		Waiting:    int(p.waiting.Load()),
		Pages:      p.pages.Load(),
		Relaunches: p.relaunches.Load(),
		Recycles:   p.recycles.Load(),
		Crashes:    p.crashes.Load(),
	}
}

// Close shuts every browser down, kills what does not exit and waits for
// the processes, so no Chromium outlives the pool. Tabs still in use fail.
func (p *Pool) Close() error {
	p.closeMu.Do(func() {
		p.mu.Lock()
		p.closed = true
		close(p.done)
		insts := make([]*instance, 0, len(p.all))
		for inst := range p.all {
			insts = append(insts, inst)
		}
		p.all = map[*instance]bool{}
		p.cur = nil
		p.idle = nil
		p.mu.Unlock()
		var wg sync.WaitGroup
		for _, inst := range insts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				inst.shutdown()
			}()
		}
		wg.Wait()
		p.bg.Wait()
	})
	return nil
}

// FindChromium returns the browser binary to launch: explicit if given
// (QUARRY_CHROMIUM), else the first of the usual install locations. It never
// downloads a browser.
func FindChromium(explicit string) (string, error) {
	if explicit != "" {
		path, err := exec.LookPath(explicit)
		if err != nil {
			return "", fmt.Errorf("chromium %q: %w", explicit, err)
		}
		return path, nil
	}
	for _, c := range []string{
		"/usr/bin/chromium",
		"/usr/bin/chromium-browser",
		"/usr/bin/google-chrome",
		"/usr/bin/google-chrome-stable",
		"/snap/bin/chromium",
		"/opt/google/chrome/chrome",
		"/Applications/Chromium.app/Contents/MacOS/Chromium",
		"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
	} {
		if st, err := os.Stat(c); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return c, nil
		}
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", errors.New("no Chromium found: install chromium or set QUARRY_CHROMIUM")
}
