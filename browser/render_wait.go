package browser

import (
	"context"
	"time"
)

// pollEvery is how often RenderUntil reads the DOM again.
const pollEvery = 250 * time.Millisecond

// RenderUntil renders rawURL like Render and, while ready rejects the
// page, reads the DOM again every quarter second for at most wait more:
// for pages whose scripts fill them in after load (a results page that
// queries a client-side index). It returns the last page read, ready or
// not; ready is called with no tab lock held and must be quick.
func (p *Pool) RenderUntil(ctx context.Context, rawURL string, wait time.Duration, ready func(*Rendered) bool) (r *Rendered, err error) {
	tab, err := p.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { p.Release(tab, tab.doubt(err)) }()
	r, err = tab.render(ctx, rawURL)
	if err != nil || ready(r) {
		return r, err
	}
	loaded, waitStart := r.LoadTime, time.Now()
	deadline := waitStart.Add(wait)
	for time.Now().Before(deadline) {
		select {
		case <-time.After(min(pollEvery, time.Until(deadline))):
		case <-ctx.Done():
			return r, nil // what was read so far is still the page
		}
		next := *r
		if err := tab.capture(ctx, &next); err != nil {
			return r, nil // keep the page read at load; the tab goes back in doubt if broken
		}
		next.LoadTime = loaded + time.Since(waitStart)
		r = &next
		if ready(r) {
			break
		}
	}
	return r, nil
}
