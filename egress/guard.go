// Package egress decides whether Quarry may talk to a URL and gives it an
// HTTP client that holds to that decision at dial time: only http(s), and
// never a loopback, private, link-local, metadata or otherwise special
// address unless the operator allowed the host. Every request Quarry makes
// to the web, the browser's included, passes through a Guard.
package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// ErrRefused is wrapped by every refusal of the guard, so callers
// can tell a policy refusal from a network failure with errors.Is.
var ErrRefused = errors.New("egress refused")

// Error explains why the guard refused a request.
type Error struct {
	URL    string // the URL that was refused, when known
	Host   string // the host name as written in the URL
	IP     string // the resolved address that was refused, if any
	Reason string // e.g. "is a loopback address"
}

// Error reads like "egress refused: 127.0.0.1 is a loopback address".
func (e *Error) Error() string {
	subject := e.IP
	if subject == "" {
		subject = e.Host
	}
	if subject == "" {
		subject = e.URL
	}
	if e.IP != "" && e.Host != "" && e.Host != e.IP {
		subject = fmt.Sprintf("%s (%s)", e.Host, e.IP)
	}
	return fmt.Sprintf("egress refused: %s %s", subject, e.Reason)
}

// Unwrap lets errors.Is(err, ErrRefused) match.
func (e *Error) Unwrap() error { return ErrRefused }

// RequestError is the error of a guarded client's request for rawURL: a
// refusal is returned as its *Error (naming rawURL when the dial could
// not), anything else wrapped as "fetch rawURL: …".
func RequestError(rawURL string, err error) error {
	var ee *Error
	if errors.As(err, &ee) {
		if ee.URL == "" {
			ee.URL = rawURL
		}
		return ee
	}
	return fmt.Errorf("fetch %s: %w", rawURL, err)
}

// Guard decides whether Quarry may talk to a URL. It refuses non-http(s)
// schemes and any host that resolves to a loopback, private, link-local,
// multicast, unspecified, shared (CGNAT), reserved or cloud-metadata address,
// unless the host or host:port is on the allow list. A Guard is safe for
// concurrent use.
type Guard struct {
	hosts     map[string]bool // "host" or "host:port", lower case
	nets      []netip.Prefix  // CIDR entries of the allow list
	lookup    func(ctx context.Context, host string) ([]netip.Addr, error)
	dialer    *net.Dialer
	transport *http.Transport
}

// NewGuard returns a guard that allows the given hosts. Entries are host
// names, IP addresses, host:port pairs or CIDR prefixes (10.0.0.0/8);
// surrounding blanks and empty entries are ignored.
func NewGuard(allowHosts []string) *Guard {
	g := &Guard{
		hosts:  map[string]bool{},
		lookup: newDNSCache().lookup,
		dialer: &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second},
	}
	for _, h := range allowHosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		if p, err := netip.ParsePrefix(h); err == nil {
			g.nets = append(g.nets, p.Masked())
			continue
		}
		g.hosts[strings.Trim(h, "[]")] = true
		if host, port, err := net.SplitHostPort(h); err == nil {
			g.hosts[net.JoinHostPort(strings.ToLower(host), port)] = true
		}
	}
	g.transport = &http.Transport{
		Proxy:                 nil, // a proxy would resolve names where the guard cannot see them
		DialContext:           g.dialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return g
}

// WithAllowed returns a copy of the guard that also allows hosts; g is
// unchanged. It is how a configured service such as SearXNG on a private
// network is reached without opening the private network to pages.
func (g *Guard) WithAllowed(hosts ...string) *Guard {
	var all []string
	for h := range g.hosts {
		all = append(all, h)
	}
	for _, p := range g.nets {
		all = append(all, p.String())
	}
	ng := NewGuard(append(all, hosts...))
	ng.lookup = g.lookup
	return ng
}

// AllowList returns the entries of the allow list, for display.
func (g *Guard) AllowList() []string {
	var all []string
	for h := range g.hosts {
		all = append(all, h)
	}
	for _, p := range g.nets {
		all = append(all, p.String())
	}
	return all
}

// Check refuses rawURL unless it is http(s) and its host resolves only to
// public addresses or is allowed. The error wraps ErrRefused for a
// refusal and is a resolution error otherwise.
func (g *Guard) Check(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return &Error{URL: rawURL, Reason: "is not a valid URL"}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return &Error{URL: rawURL, Host: u.Host, Reason: fmt.Sprintf("uses the %q scheme (only http and https are allowed)", u.Scheme)}
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return &Error{URL: rawURL, Reason: "has no host"}
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	_, err = g.resolve(ctx, host, port)
	if err != nil {
		var ee *Error
		if errors.As(err, &ee) {
			ee.URL = rawURL
		}
		return err
	}
	return nil
}

// HTTPClient returns a client whose every connection, including those made
// for redirects, is checked against the guard at dial time with the address
// actually dialled, so a DNS answer that changes between check and use cannot
// slip through. Redirects to non-http(s) schemes are refused too.
func (g *Guard) HTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout:   timeout,
		Transport: g.transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return &Error{URL: req.URL.String(), Reason: fmt.Sprintf("uses the %q scheme (only http and https are allowed)", req.URL.Scheme)}
			}
			return nil
		},
	}
}

// NoRedirectClient returns a guarded client that never follows redirects.
// The browser's request interception uses it: redirects go back to
// Chromium, which asks again, so every hop is checked and the page's final
// URL stays right.
func (g *Guard) NoRedirectClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout:   timeout,
		Transport: g.transport,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

func (g *Guard) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	ips, err := g.resolve(ctx, strings.ToLower(host), port)
	if err != nil {
		return nil, err
	}
	var lastErr error
	for _, ip := range ips {
		conn, err := g.dialer.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return conn, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// resolve returns the addresses to dial for host:port, or an *Error
// if any of them is forbidden. Every answer must be public: a name that
// resolves to both a public and a private address is refused.
func (g *Guard) resolve(ctx context.Context, host, port string) ([]netip.Addr, error) {
	host = strings.Trim(host, "[]")
	allowed := g.hosts[host] || g.hosts[net.JoinHostPort(host, port)]
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		if allowed || g.inAllowedNet(ip) {
			return []netip.Addr{ip}, nil
		}
		if reason := forbiddenReason(ip); reason != "" {
			return nil, &Error{Host: host, IP: ip.String(), Reason: reason}
		}
		return []netip.Addr{ip}, nil
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		if !allowed {
			return nil, &Error{Host: host, Reason: "is a loopback name"}
		}
	}
	addrs, err := g.lookup(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, ip := range addrs {
		ip = ip.Unmap()
		if !allowed && !g.inAllowedNet(ip) {
			if reason := forbiddenReason(ip); reason != "" {
				return nil, &Error{Host: host, IP: ip.String(), Reason: reason}
			}
		}
		out = append(out, ip)
	}
	return out, nil
}

func (g *Guard) inAllowedNet(ip netip.Addr) bool {
	for _, p := range g.nets {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

var (
	metadataAddrs = map[netip.Addr]bool{
		netip.MustParseAddr("169.254.169.254"): true, // AWS, GCP, Azure, OpenStack
		netip.MustParseAddr("169.254.170.2"):   true, // AWS ECS task metadata
		netip.MustParseAddr("100.100.100.200"): true, // Alibaba Cloud
		netip.MustParseAddr("192.0.0.192"):     true, // Oracle Cloud
		netip.MustParseAddr("fd00:ec2::254"):   true, // AWS IPv6
	}
	sharedNet   = netip.MustParsePrefix("100.64.0.0/10")
	thisNet     = netip.MustParsePrefix("0.0.0.0/8")
	reservedNet = netip.MustParsePrefix("240.0.0.0/4")
	benchNet    = netip.MustParsePrefix("198.18.0.0/15")
	ietfNet     = netip.MustParsePrefix("192.0.0.0/24")
	nat64Net    = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local  = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour   = netip.MustParsePrefix("2002::/16")
	teredoNet   = netip.MustParsePrefix("2001::/32")
)

// forbiddenReason says why ip may not be contacted, or "" when it may.
func forbiddenReason(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case metadataAddrs[ip]:
		return "is a cloud metadata address"
	case ip.IsLoopback():
		return "is a loopback address"
	case ip.IsUnspecified():
		return "is an unspecified address"
	case ip.IsLinkLocalUnicast():
		return "is a link-local address"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "is a multicast address"
	case ip.IsPrivate():
		return "is a private address"
	}
	if ip.Is4() {
		switch {
		case sharedNet.Contains(ip):
			return "is a shared (CGNAT) address"
		case thisNet.Contains(ip):
			return "is a this-network address"
		case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}), reservedNet.Contains(ip):
			return "is a reserved address"
		case benchNet.Contains(ip), ietfNet.Contains(ip):
			return "is a special-purpose address"
		}
		return ""
	}
	// IPv6 forms that embed an IPv4 address are judged by that address.
	b := ip.As16()
	switch {
	case nat64Net.Contains(ip):
		if r := forbiddenReason(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})); r != "" {
			return r + " (NAT64)"
		}
	case nat64Local.Contains(ip):
		return "is a local NAT64 address"
	case sixToFour.Contains(ip):
		if r := forbiddenReason(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})); r != "" {
			return r + " (6to4)"
		}
	case teredoNet.Contains(ip):
		return "is a Teredo address"
	}
	if [12]byte(b[:12]) == ([12]byte{}) { // deprecated IPv4-compatible ::a.b.c.d
		return forbiddenReason(netip.AddrFrom4([4]byte(b[12:])))
	}
	return ""
}
