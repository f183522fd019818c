package handlers

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Forwarded headers set by a reverse proxy. They are believed only when
// the connection comes from one of Options.TrustedProxies; anyone else
// could set them to pose as another address, scheme or user.
const (
	forwardedForHeader   = "X-Forwarded-For"
	forwardedProtoHeader = "X-Forwarded-Proto"
	forwardedHostHeader  = "X-Forwarded-Host"
)

// client is who a request comes from, as far as can be trusted.
type client struct {
	IP       string // the client's address (from X-Forwarded-For behind a trusted proxy)
	ViaProxy bool   // the connection comes from a trusted proxy
	HTTPS    bool   // the client reached us (or the proxy) over TLS
}

const clientKey ctxKey = 100

// clientFrom returns the request's client as forwarded set it.
func clientFrom(ctx context.Context) client {
	c, _ := ctx.Value(clientKey).(client)
	return c
}

// forwarded works out the client behind a trusted proxy: its address from
// X-Forwarded-For (the rightmost address that is not itself a trusted
// proxy), its scheme from X-Forwarded-Proto and the public host from
// X-Forwarded-Host. From any other peer those headers, and the proxy
// identity header, are removed so nothing downstream can be fooled by them.
func (s *Server) forwarded(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		peer := parseIP(r.RemoteAddr)
		c := client{IP: peer.String(), HTTPS: r.TLS != nil}
		if !peer.IsValid() {
			c.IP = r.RemoteAddr
		}
		r = r.Clone(r.Context())
		if s.trustedPeer(peer) {
			c.ViaProxy = true
			if ip := s.forwardedClient(r.Header.Values(forwardedForHeader)); ip.IsValid() {
				c.IP = ip.String()
			}
			switch strings.ToLower(firstValue(r.Header.Get(forwardedProtoHeader))) {
			case "https":
				c.HTTPS = true
			case "http":
				c.HTTPS = false
			}
			if h := firstValue(r.Header.Get(forwardedHostHeader)); validHost(h) {
				r.Host = h
			}
		} else {
			for _, h := range []string{forwardedForHeader, forwardedProtoHeader, forwardedHostHeader, s.authHeader()} {
				r.Header.Del(h)
			}
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), clientKey, c)))
	})
}

// trustedPeer reports whether ip is one of the trusted proxies.
func (s *Server) trustedPeer(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	std := net.IP(ip.Unmap().AsSlice())
	for _, n := range s.opt.TrustedProxies {
		if n.Contains(std) {
			return true
		}
	}
	return false
}

// forwardedClient walks X-Forwarded-For from the right (the entry our
// proxy added) past further trusted proxies to the first address that is
// not one: the client. Entries left of it were written by the client and
// prove nothing.
func (s *Server) forwardedClient(values []string) netip.Addr {
	var hops []string
	for _, v := range values {
		hops = append(hops, strings.Split(v, ",")...)
	}
	var last netip.Addr
	for i := len(hops) - 1; i >= 0; i-- {
		ip := parseIP(strings.TrimSpace(hops[i]))
		if !ip.IsValid() {
			return last
		}
		last = ip
		if !s.trustedPeer(ip) {
			return ip
		}
	}
	return last
}

// parseIP reads an address with or without a port.
func parseIP(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap()
	}
	ip, err := netip.ParseAddr(strings.Trim(s, "[]"))
	if err != nil {
		return netip.Addr{}
	}
	return ip.Unmap()
}

// firstValue is the first of a comma-separated header value.
func firstValue(v string) string {
	if i := strings.IndexByte(v, ','); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}

// validHost accepts a host[:port] made of the characters a host name or an
// IP literal can have.
func validHost(h string) bool {
	if h == "" || len(h) > 255 {
		return false
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-:[]", c)) {
			return false
		}
	}
	return true
}
