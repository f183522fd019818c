package handlers

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/quarryhq/quarry/auth"
	"github.com/quarryhq/quarry/db"
)

// Personal API tokens (`Authorization: Bearer qry_…`) authenticate the
// JSON API and the MCP endpoint as their user. A bearer request is a
// program's, not a browser's: a browser cannot add the header to a
// cross-site request without a CORS preflight Quarry never grants, so
// the cross-origin rule does not apply to it, and it never gets a cookie.

// MCPPath is where the MCP server answers (Streamable HTTP).
const MCPPath = "/mcp"

// readOnlyRefusal is what a read-only token is told when it tries to change
// something.
const readOnlyRefusal = "This API token is read-only: it may read runs, reports and documents, " +
	"but not create, cancel, approve, share or upload. Use a token made without read-only for that."

// Token is the API token a request authenticated with.
type Token struct {
	ID       int64
	ReadOnly bool
}

const tokenKey ctxKey = 102

// TokenFrom returns the API token of a request's context (false when it was
// not a bearer request).
func TokenFrom(ctx context.Context) (Token, bool) {
	t, ok := ctx.Value(tokenKey).(Token)
	return t, ok
}

// bearerPath reports whether a path accepts API tokens.
func bearerPath(p string) bool {
	return strings.HasPrefix(p, "/api/") || p == MCPPath
}

// bearerSecret returns the token of an `Authorization: Bearer` header on a
// path that accepts tokens.
func bearerSecret(r *http.Request) (string, bool) {
	if !bearerPath(r.URL.Path) {
		return "", false
	}
	scheme, secret, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(secret), true
}

// isBearer reports whether r authenticates with an API token.
func isBearer(r *http.Request) bool {
	_, ok := bearerSecret(r)
	return ok
}

// serveBearer checks an API token and serves r as its user: 401 for an
// unknown or revoked token, 403 when a read-only token asks to change
// something (MCP's own requests are all POSTs; its tools check instead).
func (s *Server) serveBearer(w http.ResponseWriter, r *http.Request, secret string, next http.Handler) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	tok, err := auth.CheckToken(ctx, s.store, secret)
	cancel()
	switch {
	case (errors.Is(err, auth.ErrTokenUnknown) || errors.Is(err, auth.ErrTokenRevoked)) && publicPath(r.URL.Path):
		next.ServeHTTP(w, r) // served to anyone: a bad token changes nothing
		return
	case errors.Is(err, auth.ErrTokenUnknown), errors.Is(err, auth.ErrTokenRevoked):
		s.access.denied.WithLabelValues("token").Inc()
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		writeError(w, http.StatusUnauthorized, err.Error())
		return
	case err != nil:
		s.log.Error("check API token", "request_id", requestIDFrom(r.Context()), "err", err)
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, "Cannot check the API token right now; try again in a moment.")
		return
	}
	if tok.ReadOnly && r.URL.Path != MCPPath && !safeMethod(r.Method) {
		writeError(w, http.StatusForbidden, readOnlyRefusal)
		return
	}
	ctx = withUser(r.Context(), tok.User)
	ctx = context.WithValue(ctx, tokenKey, Token{ID: tok.ID, ReadOnly: tok.ReadOnly})
	next.ServeHTTP(w, r.WithContext(ctx))
}

// safeMethod reports whether method only reads.
func safeMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}

// tokenID parses a token id from a path.
func tokenID(v string) (int64, bool) {
	id, err := strconv.ParseInt(v, 10, 64)
	return id, err == nil && id > 0
}

// tokenJSON is an API token as the API shows it (never its secret, except
// once, in Secret, when it is created).
type tokenJSON struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Hint       string     `json:"hint"`
	ReadOnly   bool       `json:"read_only"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
	Secret     string     `json:"token,omitempty"`
}

func toTokenJSON(t db.APIToken) tokenJSON {
	out := tokenJSON{ID: t.ID, Name: t.Name, Hint: t.Hint, ReadOnly: t.ReadOnly, CreatedAt: t.CreatedAt}
	if t.LastUsedAt.Valid {
		out.LastUsedAt = &t.LastUsedAt.Time
	}
	if t.RevokedAt.Valid {
		out.RevokedAt = &t.RevokedAt.Time
	}
	return out
}
