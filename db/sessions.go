package db

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Sessions are keyed by the SHA-256 of their token: the token itself lives
// only in the person's cookie, so reading the table does not yield a usable
// session. A 256-bit random token needs no salt or slow hash.

func tokenHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// CreateSession stores a session for user that ends at expires.
func (s *Store) CreateSession(ctx context.Context, token, user string, expires time.Time) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO sessions (token_hash, user_name, expires_at) VALUES ($1, $2, $3)`,
		tokenHash(token), user, expires)
	if err != nil {
		return fmt.Errorf("create session for %s: %w", user, err)
	}
	return nil
}

// SessionUser returns the user a live session belongs to, or ErrNotFound
// for an unknown or expired token (or one whose user was removed).
func (s *Store) SessionUser(ctx context.Context, token string) (string, error) {
	var name string
	err := s.db.GetContext(ctx, &name, `SELECT user_name FROM sessions WHERE token_hash = $1 AND expires_at > now()`, tokenHash(token))
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("look up session: %w", err)
	}
	return name, nil
}

// DeleteSession ends a session (logout, or the old one on login).
func (s *Store) DeleteSession(ctx context.Context, token string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM sessions WHERE token_hash = $1`, tokenHash(token)); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// DeleteExpiredSessions removes sessions past their end and returns how
// many there were.
func (s *Store) DeleteExpiredSessions(ctx context.Context) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= now()`)
	if err != nil {
		return 0, fmt.Errorf("delete expired sessions: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}
