package handlers

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// hostPolicy decides which Host headers the server answers. Its purpose is
// DNS rebinding: a page on a name the attacker controls, re-pointed at the
// Quarry server's address, is same-origin with it in the victim's browser
// and would pass every cross-origin check; the one thing it cannot forge is
// the Host header, which carries the attacker's name. An IP literal can
// therefore never be a rebinding (no name to re-point), and a name is
// accepted only when it is known to be ours.
type hostPolicy struct {
	enforce  bool
	names    map[string]bool // exact names, lower case
	suffixes []string        // ".example.com" from "*.example.com"
}

// newHostPolicy builds the policy: localhost (and *.localhost), the host of
// baseURL and the allowed list. It is enforced when authentication is off
// (nothing else stands between a rebinding page and the runs) or when an
// allowed list is configured; signed-in modes are otherwise protected by
// the session cookie or the proxy, which a rebinding page cannot present.
func newHostPolicy(mode, baseURL string, allowed []string) hostPolicy {
	p := hostPolicy{
		enforce:  mode == "" || mode == AuthNone || len(allowed) > 0,
		names:    map[string]bool{"localhost": true},
		suffixes: []string{".localhost"},
	}
	if u, err := url.Parse(baseURL); err == nil && u.Hostname() != "" {
		p.names[strings.ToLower(u.Hostname())] = true
	}
	for _, a := range allowed {
		a = strings.ToLower(strings.TrimSpace(a))
		if h, _, err := net.SplitHostPort(a); err == nil {
			a = h
		}
		switch {
		case a == "":
		case strings.HasPrefix(a, "*."):
			p.suffixes = append(p.suffixes, a[1:])
		default:
			p.names[strings.TrimSuffix(a, ".")] = true
		}
	}
	return p
}

// allows reports whether a request's Host (host or host:port) is served.
func (p hostPolicy) allows(host string) bool {
	if !p.enforce {
		return true
	}
	name := strings.ToLower(host)
	if h, _, err := net.SplitHostPort(name); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.Trim(name, "[]"), ".")
	if name == "" {
		return false
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return true
	}
	if p.names[name] {
		return true
	}
	for _, s := range p.suffixes {
		if strings.HasSuffix(name, s) && len(name) > len(s) {
			return true
		}
	}
	return false
}

// checkHost refuses requests for a Host the server does not know as its
// own with 421 Misdirected Request, naming the variable that allows it. It
// runs after forwarded, so behind a trusted proxy the public host
// (X-Forwarded-Host) is the one checked.
func (s *Server) checkHost(next http.Handler) http.Handler {
	if !s.hosts.enforce {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.hosts.allows(r.Host) {
			next.ServeHTTP(w, r)
			return
		}
		s.access.limited.WithLabelValues("host").Inc()
		msg := fmt.Sprintf("This server does not answer to the host %q. If that is its address, add the name to QUARRY_ALLOWED_HOSTS (or set QUARRY_BASE_URL to the public URL).", clipHost(r.Host))
		if strings.HasPrefix(r.URL.Path, "/api/") || strings.HasSuffix(r.URL.Path, "/events") {
			writeError(w, http.StatusMisdirectedRequest, msg)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		http.Error(w, msg, http.StatusMisdirectedRequest)
	})
}

// clipHost bounds a client-supplied host for a message.
func clipHost(h string) string {
	if len(h) > 100 {
		return h[:100] + "…"
	}
	return h
}
