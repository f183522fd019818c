package fetch

import (
	"context"
	"sync"
	"time"
)

// Ways a host's pages are fetched, as remembered in a HostStore.
const (
	ModeHTTP   = "http"   // the served HTML holds the pages' text
	ModeRender = "render" // the pages need a browser
)

// HostStore remembers per host which way of fetching worked, until an
// expiry. db.Store implements it in Postgres, so replicas share what each
// learns; NewMemoryHosts keeps it in the process.
type HostStore interface {
	// FetchMode returns the host's unexpired mode, or "" when none is known.
	FetchMode(ctx context.Context, host string) (string, error)
	// SetFetchMode records mode for host until expires.
	SetFetchMode(ctx context.Context, host, mode string, expires time.Time) error
}

// MemoryHosts is a HostStore in memory, bounded in size.
type MemoryHosts struct {
	mu  sync.Mutex
	m   map[string]hostEntry
	max int
	now func() time.Time
}

type hostEntry struct {
	mode    string
	expires time.Time
}

// NewMemoryHosts returns an empty in-process store holding at most max
// hosts (10,000 when max <= 0).
func NewMemoryHosts(max int) *MemoryHosts {
	if max <= 0 {
		max = 10000
	}
	return &MemoryHosts{m: map[string]hostEntry{}, max: max, now: time.Now}
}

// FetchMode implements HostStore.
func (h *MemoryHosts) FetchMode(_ context.Context, host string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.m[host]
	if !ok {
		return "", nil
	}
	if !h.now().Before(e.expires) {
		delete(h.m, host)
		return "", nil
	}
	return e.mode, nil
}

// SetFetchMode implements HostStore. When the store is full, expired
// entries go first, then arbitrary ones.
func (h *MemoryHosts) SetFetchMode(_ context.Context, host, mode string, expires time.Time) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.m[host]; !ok && len(h.m) >= h.max {
		now := h.now()
		for k, e := range h.m {
			if !now.Before(e.expires) {
				delete(h.m, k)
			}
		}
		for k := range h.m {
			if len(h.m) < h.max {
				break
			}
			delete(h.m, k)
		}
	}
	h.m[host] = hostEntry{mode: mode, expires: expires}
	return nil
}

// Len is the number of hosts held (expired ones included until touched).
func (h *MemoryHosts) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.m)
}

// hostLimiter allows at most per requests to one host at a time. Entries
// go away when their last holder leaves, so it stays as small as the set
// of hosts in flight.
type hostLimiter struct {
	mu  sync.Mutex
	per int
	m   map[string]*hostSlot
}

type hostSlot struct {
	sem  chan struct{}
	refs int
}

func newHostLimiter(per int) *hostLimiter {
	return &hostLimiter{per: per, m: map[string]*hostSlot{}}
}

// acquire waits for a slot of host; release must be called after.
func (l *hostLimiter) acquire(ctx context.Context, host string) (release func(), err error) {
	l.mu.Lock()
	s := l.m[host]
	if s == nil {
		s = &hostSlot{sem: make(chan struct{}, l.per)}
		l.m[host] = s
	}
	s.refs++
	l.mu.Unlock()
	leave := func() {
		l.mu.Lock()
		s.refs--
		if s.refs == 0 {
			delete(l.m, host)
		}
		l.mu.Unlock()
	}
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}

func (l *hostLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}
