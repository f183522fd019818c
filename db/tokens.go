package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// APIToken is a personal API token as stored: never its secret, only the
// SHA-256 of it and a hint (its first characters).
type APIToken struct {
	ID         int64        `db:"id"`
	User       string       `db:"user_name"`
	Name       string       `db:"name"`
	Hint       string       `db:"hint"`
	ReadOnly   bool         `db:"read_only"`
	CreatedAt  time.Time    `db:"created_at"`
	LastUsedAt sql.NullTime `db:"last_used_at"`
	RevokedAt  sql.NullTime `db:"revoked_at"`
}

// tokenUseGranularity is how stale a token's last-used time may get: a
// program calling many times a second writes it once a minute, not on
// every request.
const tokenUseGranularity = "1 minute"

const apiTokenColumns = `id, user_name, name, hint, read_only, created_at, last_used_at, revoked_at`

// CreateAPIToken stores a token for user whose secret hashes to the
// SHA-256 of secret, and returns it.
func (s *Store) CreateAPIToken(ctx context.Context, user, name, secret, hint string, readOnly bool) (*APIToken, error) {
	var t APIToken
	err := s.db.GetContext(ctx, &t, `INSERT INTO api_tokens (user_name, name, token_hash, hint, read_only)
		VALUES ($1, $2, $3, $4, $5) RETURNING `+apiTokenColumns, user, name, tokenHash(secret), hint, readOnly)
	if err != nil {
		return nil, fmt.Errorf("create API token for %s: %w", user, err)
	}
	return &t, nil
}

// UseAPIToken returns the token whose secret is secret (revoked or not:
// the caller says why it refuses) and records that it was used; ErrNotFound
// when no token has that secret.
func (s *Store) UseAPIToken(ctx context.Context, secret string) (*APIToken, error) {
	var t APIToken
	err := s.db.GetContext(ctx, &t, `WITH used AS (
			UPDATE api_tokens SET last_used_at = now()
			WHERE token_hash = $1 AND revoked_at IS NULL
			  AND (last_used_at IS NULL OR last_used_at < now() - interval '`+tokenUseGranularity+`')
			RETURNING id, last_used_at)
		SELECT t.id, t.user_name, t.name, t.hint, t.read_only, t.created_at,
		       COALESCE(used.last_used_at, t.last_used_at) AS last_used_at, t.revoked_at
		FROM api_tokens t LEFT JOIN used ON used.id = t.id WHERE t.token_hash = $1`, tokenHash(secret))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("look up API token: %w", err)
	}
	return &t, nil
}

// APITokens lists user's tokens, newest first, revoked ones included.
func (s *Store) APITokens(ctx context.Context, user string) ([]APIToken, error) {
	out := []APIToken{}
	if err := s.db.SelectContext(ctx, &out, `SELECT `+apiTokenColumns+` FROM api_tokens
		WHERE user_name = $1 ORDER BY created_at DESC, id DESC`, user); err != nil {
		return nil, fmt.Errorf("list API tokens of %s: %w", user, err)
	}
	return out, nil
}

// GetAPIToken returns a token by id, or ErrNotFound.
func (s *Store) GetAPIToken(ctx context.Context, id int64) (*APIToken, error) {
	var t APIToken
	err := s.db.GetContext(ctx, &t, `SELECT `+apiTokenColumns+` FROM api_tokens WHERE id = $1`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get API token %d: %w", id, err)
	}
	return &t, nil
}

// RevokeAPIToken revokes a token; user, when not "", must own it (else
// ErrNotFound, as for an unknown id: someone else's tokens are not
// confirmed to exist). Revoking a revoked token changes nothing.
func (s *Store) RevokeAPIToken(ctx context.Context, id int64, user string) (*APIToken, error) {
	var t APIToken
	err := s.db.GetContext(ctx, &t, `UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, now())
		WHERE id = $1 AND ($2 = '' OR user_name = $2) RETURNING `+apiTokenColumns, id, user)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("revoke API token %d: %w", id, err)
	}
	return &t, nil
}
