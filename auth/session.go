package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"time"

	"github.com/quarryhq/quarry/db"
)

// DefaultSessionTTL is how long a login lasts unless configured.
const DefaultSessionTTL = 7 * 24 * time.Hour

// sessionTokenBytes is the randomness of a session token: 256 bits, so a
// token cannot be guessed and needs no slow hash in the table.
const sessionTokenBytes = 32

// Sessions are login sessions kept in Postgres, so a login made on one
// replica is honoured, and a logout felt, on every one. A session is
// named by a random token that only the person's cookie holds; the table
// keeps its SHA-256.
type Sessions struct {
	store *db.Store
	ttl   time.Duration
}

// NewSessions returns the sessions in store, each lasting ttl
// (DefaultSessionTTL when ttl is zero or less).
func NewSessions(store *db.Store, ttl time.Duration) *Sessions {
	if ttl <= 0 {
		ttl = DefaultSessionTTL
	}
	return &Sessions{store: store, ttl: ttl}
}

// Start begins a new session for user and returns its token and when it
// ends. The token is always new: a session id chosen by someone else (a
// planted cookie) is never the one signed in.
func (s *Sessions) Start(ctx context.Context, user string) (token string, expires time.Time, err error) {
	b := make([]byte, sessionTokenBytes)
	rand.Read(b)
	token = base64.RawURLEncoding.EncodeToString(b)
	expires = time.Now().Add(s.ttl)
	if err := s.store.CreateSession(ctx, token, user, expires); err != nil {
		return "", time.Time{}, err
	}
	return token, expires, nil
}

// User returns the user of the live session token names: "" (and no
// error) when token is malformed, unknown or expired, or its user was
// removed.
func (s *Sessions) User(ctx context.Context, token string) (string, error) {
	if !plausibleToken(token) {
		return "", nil
	}
	user, err := s.store.SessionUser(ctx, token)
	if errors.Is(err, db.ErrNotFound) {
		return "", nil
	}
	return user, err
}

// End ends the session token names on every replica at once (logout, or
// the browser's previous session on login). A malformed token names no
// session and is ignored.
func (s *Sessions) End(ctx context.Context, token string) error {
	if !plausibleToken(token) {
		return nil
	}
	return s.store.DeleteSession(ctx, token)
}

// DeleteExpired removes the sessions past their end and returns how many
// there were.
func (s *Sessions) DeleteExpired(ctx context.Context) (int64, error) {
	return s.store.DeleteExpiredSessions(ctx)
}

// plausibleToken rejects values that cannot be a session token (a cookie
// is the client's to set) before they reach the database.
func plausibleToken(v string) bool {
	if len(v) < 32 || len(v) > 64 {
		return false
	}
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
