package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/pipeline"
)

// Authentication modes (QUARRY_AUTH).
const (
	AuthNone     = "none"     // anyone who reaches the server may use it
	AuthPassword = "password" // accounts made with `quarry user add`, login sessions in Postgres
	AuthProxy    = "proxy"    // a trusted reverse proxy names the user in a header
)

// DefaultAuthHeader is the header a trusted proxy names the user in.
const DefaultAuthHeader = "X-Forwarded-User"

// SessionCookie is the name of the login session cookie.
const SessionCookie = "quarry_session"

// AuthOptions say who may use Quarry.
type AuthOptions struct {
	// Mode is AuthNone (also ""), AuthPassword or AuthProxy.
	Mode string
	// Header names the user in proxy mode (default X-Forwarded-User); it
	// is believed only from Options.TrustedProxies.
	Header string
	// SessionTTL is how long a login lasts (default 7 days).
	SessionTTL time.Duration
}

const userKey ctxKey = 101

// UserFrom returns the signed-in user of a request's context ("" when
// anonymous or when authentication is off).
func UserFrom(ctx context.Context) string {
	u, _ := ctx.Value(userKey).(string)
	return u
}

// withUser returns ctx carrying user.
func withUser(ctx context.Context, user string) context.Context {
	return context.WithValue(ctx, userKey, user)
}

// authHeader is the proxy identity header, canonicalised.
func (s *Server) authHeader() string {
	if s.opt.Auth.Header == "" {
		return DefaultAuthHeader
	}
	return http.CanonicalHeaderKey(s.opt.Auth.Header)
}

// publicPath reports whether a path is served without signing in: the
// login page, health and metrics, static files and shared reports.
func publicPath(p string) bool {
	switch p {
	case "/login", "/logout", "/healthz", "/readyz", "/metrics", "/favicon.ico", "/api/openapi.json":
		return true
	}
	return strings.HasPrefix(p, "/static/") || strings.HasPrefix(p, "/r/")
}

// anonymousPath reports whether a path never needs to know the user:
// static files, health checks and metrics answer the same for everyone
// (and must answer while the database is down).
func anonymousPath(p string) bool {
	switch p {
	case "/healthz", "/readyz", "/metrics", "/favicon.ico":
		return true
	}
	return strings.HasPrefix(p, "/static/")
}

// authenticate finds the request's user (a session cookie, or the proxy's
// header) and turns anonymous requests for anything but public paths away:
// 401 JSON for the API and event streams, the login page for pages.
func (s *Server) authenticate(next http.Handler) http.Handler {
	mode := s.opt.Auth.Mode
	if mode == "" || mode == AuthNone {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if anonymousPath(r.URL.Path) {
			next.ServeHTTP(w, r) // no session lookup for files and probes
			return
		}
		var user string
		switch mode {
		case AuthPassword:
			var err error
			user, err = s.sessionUser(r)
			if err != nil {
				s.log.Error("check session", "request_id", requestIDFrom(r.Context()), "err", err)
				s.refuse(w, r, http.StatusServiceUnavailable, 5*time.Second, "Cannot check your sign-in right now; try again in a moment.")
				return
			}
		case AuthProxy:
			if clientFrom(r.Context()).ViaProxy {
				user = proxyUser(r.Header.Get(s.authHeader()))
			}
		}
		if user != "" {
			next.ServeHTTP(w, r.WithContext(withUser(r.Context(), user)))
			return
		}
		if publicPath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		s.unauthorized(w, r)
	})
}

// sessionUser returns the user of the request's session cookie, "" when
// there is none or it is no longer valid.
func (s *Server) sessionUser(r *http.Request) (string, error) {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	return s.sessions.User(ctx, c.Value)
}

// proxyUser cleans the identity header's value: printable, at most 128
// characters; anything else is no user.
func proxyUser(v string) string {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 128 || !utf8.ValidString(v) {
		return ""
	}
	for _, c := range v {
		if !unicode.IsPrint(c) {
			return ""
		}
	}
	return v
}

// unauthorized answers an anonymous request for a protected path.
func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request) {
	s.access.denied.WithLabelValues(s.opt.Auth.Mode).Inc()
	msg := "Sign in first."
	if s.opt.Auth.Mode == AuthProxy {
		msg = "Sign in through your organisation's proxy first."
	}
	login := s.url("/login?next=" + url.QueryEscape(r.URL.RequestURI()))
	switch {
	case strings.HasPrefix(r.URL.Path, "/api/"), strings.HasSuffix(r.URL.Path, "/events"):
		writeError(w, http.StatusUnauthorized, msg)
	case s.opt.Auth.Mode != AuthPassword:
		s.errorPage(w, r, http.StatusUnauthorized, msg)
	case isFragmentRequest(r):
		w.Header().Set(HXRedirect, login)
		w.WriteHeader(http.StatusUnauthorized)
	default:
		http.Redirect(w, r, login, http.StatusSeeOther)
	}
}

// localPath returns next if it is a path on this site (so the login form
// cannot be used to send people elsewhere), else "/".
func localPath(next string) string {
	if next == "" || next[0] != '/' || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/"
	}
	if u, err := url.Parse(next); err != nil || u.Host != "" || u.Scheme != "" {
		return "/"
	}
	return next
}

// ownedRuns records the signed-in user as the owner of every run submitted
// through the handlers, whichever handler submits it.
type ownedRuns struct{ Runs }

// Submit implements Runs.
func (o ownedRuns) Submit(ctx context.Context, req pipeline.Request) (*db.Run, error) {
	if req.Owner == "" {
		req.Owner = UserFrom(ctx)
	}
	return o.Runs.Submit(ctx, req)
}
