package db

import (
	"context"
	"fmt"
	"time"
)

// TakeToken takes one token from the bucket key, which holds up to burst
// tokens and refills at rate tokens per second; a new bucket starts full.
// When the bucket is empty it takes nothing and returns how long until a
// token will be there. One statement does the refill and the take under
// the row's lock, so replicas racing for the last token cannot both win.
// now is the caller's clock (replicas' clocks may differ by a little; a
// clock that went back refills nothing).
func (s *Store) TakeToken(ctx context.Context, key string, rate, burst float64, now time.Time) (bool, time.Duration, error) {
	var b struct {
		Tokens  float64 `db:"tokens"`
		Allowed bool    `db:"allowed"`
	}
	err := s.db.GetContext(ctx, &b, `
		INSERT INTO rate_buckets AS b (key, tokens, allowed, updated_at) VALUES ($1, $2::float8 - 1, true, $4)
		ON CONFLICT (key) DO UPDATE SET
			tokens = LEAST($2, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM $4 - b.updated_at)) * $3)
				- CASE WHEN LEAST($2, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM $4 - b.updated_at)) * $3) >= 1 THEN 1 ELSE 0 END,
			allowed = LEAST($2, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM $4 - b.updated_at)) * $3) >= 1,
			updated_at = GREATEST(b.updated_at, $4)
		RETURNING tokens, allowed`, key, burst, rate, now)
	if err != nil {
		return false, 0, fmt.Errorf("rate limit %s: %w", key, err)
	}
	if b.Allowed {
		return true, 0, nil
	}
	return false, time.Duration((1 - b.Tokens) / rate * float64(time.Second)), nil
}

// SweepTokens forgets the buckets under prefix untouched since before:
// they have refilled, and a missing bucket counts as full.
func (s *Store) SweepTokens(ctx context.Context, prefix string, before time.Time) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM rate_buckets WHERE starts_with(key, $1) AND updated_at < $2`, prefix, before)
	if err != nil {
		return fmt.Errorf("sweep rate limits %s: %w", prefix, err)
	}
	return nil
}
