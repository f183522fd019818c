package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// errSessionOver is what a session's tab is released with: any error makes
// the pool close the tab and dispose of its browser context, so nothing a
// site agent did (cookies, storage, a half-filled form) reaches a later user.
var errSessionOver = errors.New("session over: tab and its browser context discarded")

// Session is a tab lent to one site-agent run for as long as the run
// needs it. The tab is new, in a browser context of its own that no
// earlier render has used, and Close destroys it. Unlike Render, a session
// loads stylesheets: an agent needs the layout (what is visible, what
// covers what).
type Session struct {
	pool *Pool
	tab  *Tab
}

// OpenSession waits for a free slot, opens a fresh tab for it and returns
// the session. Close must be called exactly once.
func (p *Pool) OpenSession(ctx context.Context) (*Session, error) {
	if err := p.takeSlot(ctx, "open browser session"); err != nil {
		return nil, err
	}
	inst, err := p.instance(ctx)
	if err != nil {
		<-p.slots
		return nil, err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.slots
		return nil, ErrPoolClosed
	}
	inst.active++
	p.inUse++
	p.mu.Unlock()
	t, err := inst.newTab(ctx)
	if err != nil {
		p.mu.Lock()
		inst.active--
		p.inUse--
		p.mu.Unlock()
		<-p.slots
		return nil, fmt.Errorf("open browser session: %w", err)
	}
	t.styles.Store(true)
	return &Session{pool: p, tab: t}, nil
}

// Close gives the slot back and destroys the tab with its browser context.
func (s *Session) Close() {
	s.pool.Release(s.tab, errSessionOver)
}

// Page is the session's page bound to ctx, for CDP calls and input.
func (s *Session) Page(ctx context.Context) *rod.Page { return s.tab.page.Context(ctx) }

// Navigate loads rawURL in the session's tab like Render (guard check,
// load, settle) and returns the rendered page.
func (s *Session) Navigate(ctx context.Context, rawURL string) (*Rendered, error) {
	return s.tab.render(ctx, rawURL)
}

// Capture reads the tab's current DOM without navigating.
func (s *Session) Capture(ctx context.Context) (*Rendered, error) {
	out := &Rendered{}
	if err := s.tab.capture(ctx, out); err != nil {
		return nil, err
	}
	out.URL = out.FinalURL
	s.tab.mu.Lock()
	out.Status = s.tab.docStatus
	s.tab.mu.Unlock()
	return out, nil
}

// Settle waits, for at most max, until the document has loaded and the
// page's network has been quiet briefly: after a click or a key press that
// may have started a navigation or a request.
func (s *Session) Settle(ctx context.Context, max time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, max)
	defer cancel()
	// Let an event handler start its navigation or request first.
	select {
	case <-time.After(150 * time.Millisecond):
	case <-ctx.Done():
		return
	}
	for ctx.Err() == nil {
		if s.tab.readyState(ctx) == "complete" {
			break
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
		}
	}
	_ = s.tab.settle(ctx)
}

// DocumentError is the guard's or the page policy's refusal of the last
// top-level document the tab asked for, if any.
func (s *Session) DocumentError() error {
	s.tab.mu.Lock()
	defer s.tab.mu.Unlock()
	return s.tab.docErr
}

// Screenshot is a JPEG of the viewport at the given quality, no wider
// than the tab's viewport.
func (s *Session) Screenshot(ctx context.Context, quality int) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, captureDeadline)
	defer cancel()
	q := quality
	res, err := proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatJpeg, Quality: &q}.Call(s.tab.page.Context(ctx))
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	return res.Data, nil
}
