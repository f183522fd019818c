package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"sync"
	"time"

	"github.com/quarryhq/quarry/db"
)

// Limiter is a set of token buckets by key, kept in Postgres so every
// replica draws from the same buckets: each holds up to burst tokens and
// refills at rate per second. Buckets that have refilled are deleted, so
// the table follows the active clients only.
type Limiter struct {
	store *db.Store
	name  string // prefix of the limiter's keys
	rate  float64
	burst float64
	now   func() time.Time

	mu        sync.Mutex
	lastSweep time.Time
}

// NewLimiter returns the buckets called name (limiters with different
// names never share a bucket), each holding up to burst tokens (at least
// one) and refilling at rate tokens per second. A rate of zero or less
// allows everything.
func NewLimiter(store *db.Store, name string, rate, burst float64) *Limiter {
	return &Limiter{store: store, name: name + "/", rate: rate, burst: math.Max(1, burst), now: time.Now}
}

// Allow takes a token for key; when there is none it returns false and how
// long until there will be one.
func (l *Limiter) Allow(ctx context.Context, key string) (bool, time.Duration, error) {
	if l.rate <= 0 {
		return true, 0, nil
	}
	now := l.now()
	l.sweep(ctx, now)
	if len(key) > 128 { // a sign-in name is the client's to choose; keep keys index-sized
		sum := sha256.Sum256([]byte(key))
		key = "sha256:" + hex.EncodeToString(sum[:])
	}
	return l.store.TakeToken(ctx, l.name+key, l.rate, l.burst, now)
}

// sweep deletes, once a minute, the buckets that have had time to refill.
func (l *Limiter) sweep(ctx context.Context, now time.Time) {
	l.mu.Lock()
	due := now.Sub(l.lastSweep) >= time.Minute
	if due {
		l.lastSweep = now
	}
	l.mu.Unlock()
	if !due {
		return
	}
	full := time.Duration(l.burst / l.rate * float64(time.Second))
	_ = l.store.SweepTokens(ctx, l.name, now.Add(-full-time.Second)) // a failed sweep is retried next minute
}
