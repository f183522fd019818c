package egress

import (
	"context"
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

const (
	dnsPositiveTTL = time.Minute
	dnsNegativeTTL = 30 * time.Second
	dnsAttempt     = 1500 * time.Millisecond // per query try, instead of resolv.conf's 5 s
	dnsMaxEntries  = 20000
)

// dnsCache remembers answers (and failures) for a short while and merges
// concurrent lookups of one name: a page pulls its subresources from the
// same few hosts, and a busy resolver drops bursts of queries. Caching is
// safe for the guard because it dials exactly the addresses it checked.
type dnsCache struct {
	resolver *net.Resolver
	group    singleflight.Group

	mu      sync.Mutex
	entries map[string]dnsEntry
}

type dnsEntry struct {
	addrs   []netip.Addr
	err     error
	expires time.Time
}

func newDNSCache() *dnsCache {
	dialer := &net.Dialer{}
	return &dnsCache{
		entries: map[string]dnsEntry{},
		resolver: &net.Resolver{
			PreferGo: true,
			Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
				c, err := dialer.DialContext(ctx, network, address)
				if err != nil {
					return nil, err
				}
				if u, ok := c.(*net.UDPConn); ok {
					// Keep it a PacketConn: the resolver frames UDP and
					// TCP differently by that.
					return &shortDeadlineUDP{UDPConn: u}, nil
				}
				return &shortDeadlineConn{Conn: c}, nil
			},
		},
	}
}

func (c *dnsCache) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	now := time.Now()
	c.mu.Lock()
	e, ok := c.entries[host]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.addrs, e.err
	}
	v, err, _ := c.group.Do(host, func() (any, error) {
		// The lookup outlives one caller's cancellation: others share it.
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 4*dnsAttempt)
		defer cancel()
		addrs, err := c.resolver.LookupNetIP(lctx, "ip", host)
		ttl := dnsPositiveTTL
		if err != nil {
			ttl = dnsNegativeTTL
		}
		c.mu.Lock()
		if len(c.entries) >= dnsMaxEntries {
			c.entries = map[string]dnsEntry{}
		}
		c.entries[host] = dnsEntry{addrs: addrs, err: err, expires: time.Now().Add(ttl)}
		c.mu.Unlock()
		return addrs, err
	})
	if err != nil {
		return nil, err
	}
	return v.([]netip.Addr), nil
}

// shortDeadlineConn caps each deadline the Go resolver sets on its socket,
// so one lost UDP answer costs dnsAttempt rather than five seconds.
type shortDeadlineConn struct{ net.Conn }

func (c *shortDeadlineConn) SetDeadline(t time.Time) error {
	return c.Conn.SetDeadline(capDeadline(t))
}

func (c *shortDeadlineConn) SetReadDeadline(t time.Time) error {
	return c.Conn.SetReadDeadline(capDeadline(t))
}

type shortDeadlineUDP struct{ *net.UDPConn }

func (c *shortDeadlineUDP) SetDeadline(t time.Time) error {
	return c.UDPConn.SetDeadline(capDeadline(t))
}

func (c *shortDeadlineUDP) SetReadDeadline(t time.Time) error {
	return c.UDPConn.SetReadDeadline(capDeadline(t))
}

func capDeadline(t time.Time) time.Time {
	if limit := time.Now().Add(dnsAttempt); t.IsZero() || t.After(limit) {
		return limit
	}
	return t
}
