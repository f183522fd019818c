package handlers

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// RequestIDHeader carries the request id in and out.
const RequestIDHeader = "X-Request-Id"

type ctxKey int

const (
	requestIDKey ctxKey = iota
	nonceKey
)

// requestID takes a well-formed X-Request-Id from the client (a proxy's) or
// makes one, and returns it on the response.
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(RequestIDHeader)
		if !safeID(id) {
			id = randomToken(9)
		}
		w.Header().Set(RequestIDHeader, id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey, id)))
	})
}

func safeID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// randomToken returns n random bytes, base64url-encoded.
func randomToken(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// recoverer turns a panic into a logged 500 instead of a dropped connection.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v) // net/http's way to abort a response quietly
			}
			s.log.Error("panic serving request", "request_id", requestIDFrom(r.Context()),
				"method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			http.Error(w, "internal error", http.StatusInternalServerError)
		}()
		next.ServeHTTP(w, r)
	})
}

// logRequests logs one line per request and counts it for /metrics by
// route pattern (never by raw path, which would explode the label set).
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK
		}
		route := "unmatched"
		if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
			route = rc.RoutePattern()
		}
		s.requests.WithLabelValues(r.Method, route, strconv.Itoa(status)).Inc()
		level := slog.LevelInfo
		if route == "/healthz" || route == "/readyz" || route == "/metrics" || strings.HasPrefix(route, "/static/") {
			level = slog.LevelDebug
		}
		s.log.Log(r.Context(), level, "request", "request_id", requestIDFrom(r.Context()),
			"method", r.Method, "path", r.URL.Path, "route", route, "status", status,
			"bytes", ww.BytesWritten(), "ms", time.Since(start).Milliseconds(), "remote", clientFrom(r.Context()).IP)
	})
}

// securityHeaders sets a strict CSP with a per-request script nonce (no
// inline handlers anywhere), forbids framing and MIME sniffing, and keeps
// the referrer to the origin.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nonce := randomToken(16)
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'nonce-"+nonce+"'; "+
			"style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; "+
			"base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), nonceKey, nonce)))
	})
}

func nonceFrom(ctx context.Context) string {
	n, _ := ctx.Value(nonceKey).(string)
	return n
}

// limitBody caps the request body and the time to read it. There is no
// server-wide ReadTimeout (it would cut SSE streams), so a slow body is
// bounded here instead.
func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			limit := s.opt.MaxBodyBytes
			if n, ok := s.uploadLimit(r); ok {
				limit = n
			}
			r.Body = http.MaxBytesReader(w, r.Body, limit)
			if r.ContentLength != 0 {
				rc := http.NewResponseController(w)
				rc.SetReadDeadline(time.Now().Add(30 * time.Second))
				defer rc.SetReadDeadline(time.Time{})
			}
		}
		next.ServeHTTP(w, r)
	})
}

// stripBase accepts requests with or without the base path, so Quarry works
// behind a proxy that strips the prefix and behind one that keeps it.
func (s *Server) stripBase(next http.Handler) http.Handler {
	if s.base == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == s.base || strings.HasPrefix(r.URL.Path, s.base+"/") {
			r2 := r.Clone(r.Context())
			r2.URL.Path = strings.TrimPrefix(r.URL.Path, s.base)
			if r2.URL.Path == "" {
				r2.URL.Path = "/"
			}
			r2.URL.RawPath = ""
			r = r2
		}
		next.ServeHTTP(w, r)
	})
}
