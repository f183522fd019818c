package browser

import (
	"context"

	"github.com/quarryhq/quarry/egress"
)

// Render acquires a tab, renders rawURL in it and gives the tab back,
// replacing it when the navigation left it in doubt. An error status of
// the page is no error here: Rendered.Status tells it, and the caller
// decides (a results page may still hold results). The tab goes back
// before the caller reads the page, so extraction never holds one.
func (p *Pool) Render(ctx context.Context, rawURL string) (r *Rendered, err error) {
	tab, err := p.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { p.Release(tab, tab.doubt(err)) }()
	return tab.render(ctx, rawURL)
}

// doubt is the error a tab is released with after a navigation that ended
// with err: none unless the navigation broke the tab.
func (t *Tab) doubt(err error) error {
	if !t.broken.Load() {
		return nil
	}
	if err == nil {
		return ErrTabUnresponsive
	}
	return err
}

// Guard returns the guard every request of the pool's browser passes, so
// that a caller can refuse a URL before it waits for a tab.
func (p *Pool) Guard() *egress.Guard { return p.guard }
