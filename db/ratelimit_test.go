package db_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
)

// TestTakeTokenRefills: a new bucket starts full, an empty one refuses with
// the wait until its next token, and time refills it up to the burst.
func TestTakeTokenRefills(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	take := func(at time.Duration) (bool, time.Duration) {
		t.Helper()
		ok, wait, err := s.TakeToken(ctx, "test/refill", 0.5, 3, t0.Add(at)) // a token every 2 s, burst 3
		if err != nil {
			t.Fatal(err)
		}
		return ok, wait
	}
	for i := 0; i < 3; i++ {
		if ok, _ := take(0); !ok {
			t.Fatalf("take %d of the burst refused", i+1)
		}
	}
	if ok, wait := take(500 * time.Millisecond); ok || wait < 1400*time.Millisecond || wait > 1600*time.Millisecond {
		t.Errorf("empty bucket: ok=%v wait=%v, want refused with about 1.5 s to wait", ok, wait)
	}
	if ok, _ := take(2100 * time.Millisecond); !ok {
		t.Error("a token did not come back after 2 s")
	}
	if ok, _ := take(2200 * time.Millisecond); ok {
		t.Error("a second token came back after 2 s")
	}
	// A clock that went back (another replica's) refills nothing.
	if ok, _ := take(-time.Minute); ok {
		t.Error("a clock that went back refilled the bucket")
	}
	// A long pause refills up to the burst only.
	for i := 0; i < 3; i++ {
		if ok, _ := take(time.Hour); !ok {
			t.Fatalf("after an hour, take %d refused", i+1)
		}
	}
	if ok, _ := take(time.Hour); ok {
		t.Error("the bucket refilled beyond its burst")
	}
	// Buckets are separate.
	if ok, _, err := s.TakeToken(ctx, "test/other", 0.5, 3, t0); err != nil || !ok {
		t.Errorf("another key: ok=%v err=%v", ok, err)
	}
}

// TestTakeTokenAcrossReplicas: two stores (replicas) racing for one bucket
// get exactly its burst between them.
func TestTakeTokenAcrossReplicas(t *testing.T) {
	stores := []*db.Store{newStore(t), db.NewStore(dbtest.Open(t), nil)}
	ctx := context.Background()
	now := time.Now()
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func(s *db.Store) {
			defer wg.Done()
			ok, _, err := s.TakeToken(ctx, "test/race", 0.001, 7, now)
			if err != nil {
				t.Error(err)
			}
			if ok {
				allowed.Add(1)
			}
		}(stores[i%2])
	}
	wg.Wait()
	if n := allowed.Load(); n != 7 {
		t.Errorf("%d of 40 racing takes allowed, want the burst of 7", n)
	}
	// Swept buckets count as full again.
	if err := stores[0].SweepTokens(ctx, "test/", now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := stores[1].TakeToken(ctx, "test/race", 0.001, 7, now); err != nil || !ok {
		t.Errorf("after the sweep: ok=%v err=%v", ok, err)
	}
}
