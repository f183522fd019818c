package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// FetchMode returns how host's pages are fetched ("http" or "render") while
// that decision is unexpired, and "" when none is known.
func (s *Store) FetchMode(ctx context.Context, host string) (string, error) {
	var mode string
	err := s.db.GetContext(ctx, &mode, `SELECT mode FROM host_fetch_modes WHERE host = $1 AND expires_at > now()`, host)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("host fetch mode %s: %w", host, err)
	}
	return mode, nil
}

// SetFetchMode records how host's pages are fetched until expires,
// replacing what was known. Expired rows of other hosts are swept now and
// then, so the table holds about the hosts of the last expiry period.
func (s *Store) SetFetchMode(ctx context.Context, host, mode string, expires time.Time) error {
	_, err := s.db.ExecContext(ctx, `
		INSERT INTO host_fetch_modes (host, mode, expires_at, updated_at) VALUES ($1, $2, $3, now())
		ON CONFLICT (host) DO UPDATE SET mode = EXCLUDED.mode, expires_at = EXCLUDED.expires_at, updated_at = now()`,
		host, mode, expires)
	if err != nil {
		return fmt.Errorf("record host fetch mode %s: %w", host, err)
	}
	if rand.IntN(64) == 0 {
		if _, err := s.db.ExecContext(ctx, `DELETE FROM host_fetch_modes WHERE expires_at < now() - interval '1 day'`); err != nil {
			return fmt.Errorf("sweep host fetch modes: %w", err)
		}
	}
	return nil
}
