package auth_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/auth"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
)

// TestLimiter: a burst, then refusals with the wait until the next token,
// drawn from buckets two replicas share; limiters with other names and
// other keys have buckets of their own; an overlong key is still counted.
func TestLimiter(t *testing.T) {
	a, b := newStore(t), newStore(t)
	ctx := context.Background()
	la := auth.NewLimiter(a, "test-burst", 1.0/60, 2) // a token a minute, burst 2
	lb := auth.NewLimiter(b, "test-burst", 1.0/60, 2)
	allow := func(l *auth.Limiter, key string) (bool, time.Duration) {
		t.Helper()
		ok, wait, err := l.Allow(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		return ok, wait
	}
	if ok, _ := allow(la, "ip:192.0.2.1"); !ok {
		t.Fatal("first take refused")
	}
	if ok, _ := allow(lb, "ip:192.0.2.1"); !ok {
		t.Fatal("second take (other replica) refused")
	}
	if ok, wait := allow(la, "ip:192.0.2.1"); ok || wait < 50*time.Second || wait > time.Minute {
		t.Errorf("third take: ok=%v wait=%v, want refused with about a minute to wait", ok, wait)
	}
	if ok, _ := allow(la, "ip:192.0.2.2"); !ok {
		t.Error("another key shares the bucket")
	}
	if ok, _ := allow(auth.NewLimiter(a, "test-other", 1.0/60, 2), "ip:192.0.2.1"); !ok {
		t.Error("another limiter shares the bucket")
	}
	long := "name:" + strings.Repeat("x", 5000)
	for i := 0; i < 2; i++ {
		if ok, _ := allow(la, long); !ok {
			t.Fatalf("overlong key: take %d refused", i+1)
		}
	}
	if ok, _ := allow(la, long); ok {
		t.Error("an overlong key is not counted")
	}
}

// TestLimiterOff: a rate of zero or less allows everything without asking
// the database.
func TestLimiterOff(t *testing.T) {
	for _, rate := range []float64{0, -1} {
		l := auth.NewLimiter(nil, "off", rate, 1)
		for i := 0; i < 5; i++ {
			if ok, wait, err := l.Allow(context.Background(), "ip:192.0.2.1"); !ok || wait != 0 || err != nil {
				t.Fatalf("rate %v, take %d: %v %v %v", rate, i+1, ok, wait, err)
			}
		}
	}
}

// TestLimiterSweep: once a minute a limiter deletes its buckets that have
// refilled, and only its own.
func TestLimiterSweep(t *testing.T) {
	conn := dbtest.Open(t)
	store := db.NewStore(conn, nil)
	ctx := context.Background()
	now := time.Now()
	l := auth.NewLimiter(store, "test-sweep", 1, 3) // full again 3 s after the last take
	auth.SetClock(l, func() time.Time { return now })
	other := auth.NewLimiter(store, "test-kept", 1, 3)
	auth.SetClock(other, func() time.Time { return now })
	for _, key := range []string{"a", "b"} {
		if ok, _, err := l.Allow(ctx, key); err != nil || !ok {
			t.Fatalf("take %s: %v %v", key, ok, err)
		}
	}
	if ok, _, err := other.Allow(ctx, "a"); err != nil || !ok {
		t.Fatalf("other limiter: %v %v", ok, err)
	}
	count := func(prefix string) int {
		t.Helper()
		var n int
		if err := conn.Get(&n, `SELECT count(*) FROM rate_buckets WHERE starts_with(key, $1)`, prefix); err != nil {
			t.Fatal(err)
		}
		return n
	}
	now = now.Add(30 * time.Second) // refilled, but the last sweep was under a minute ago
	if _, _, err := l.Allow(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if n := count("test-sweep/"); n != 3 {
		t.Errorf("%d buckets before the minute, want 3", n)
	}
	now = now.Add(time.Minute)
	if _, _, err := l.Allow(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	if n := count("test-sweep/"); n != 1 {
		t.Errorf("%d buckets after the sweep, want only the one just taken", n)
	}
	if n := count("test-kept/"); n != 1 {
		t.Errorf("the sweep deleted another limiter's bucket (%d left)", n)
	}
}
