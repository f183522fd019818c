package db_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
)

func newStore(t *testing.T) *db.Store {
	t.Helper()
	return db.NewStore(dbtest.Open(t), nil)
}

func createRun(t *testing.T, s *db.Store, q string) *db.Run {
	t.Helper()
	run, err := s.CreateRun(context.Background(), db.NewRun{Question: q, Depth: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestClaimNeverGivesOneRunToTwoWorkers(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	const runs = 30
	want := map[string]bool{}
	for i := 0; i < runs; i++ {
		want[createRun(t, s, fmt.Sprintf("claim question %d", i)).ID] = true
	}
	var mu sync.Mutex
	claimed := map[string]string{}
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(owner string) {
			defer wg.Done()
			for {
				run, err := s.ClaimRun(ctx, owner, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if run == nil {
					return
				}
				mu.Lock()
				if prev, ok := claimed[run.ID]; ok && want[run.ID] {
					t.Errorf("run %s claimed by %s and %s", run.ID, prev, owner)
				}
				claimed[run.ID] = owner
				mu.Unlock()
			}
		}(fmt.Sprintf("worker-%d", w))
	}
	wg.Wait()
	for id := range want {
		if claimed[id] == "" {
			t.Errorf("run %s never claimed", id)
		}
	}
}

func TestExpiredLeaseIsClaimedAgain(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	run := createRun(t, s, "lease question")
	// Drain anything else in the queue so only our run is claimable.
	for {
		got, err := s.ClaimRun(ctx, "dead-worker", 300*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil {
			t.Fatal("our run was never claimed")
		}
		if got.ID == run.ID {
			break
		}
	}
	// While the lease is live nobody else gets it.
	if got, err := s.ClaimRun(ctx, "other", time.Minute); err != nil || (got != nil && got.ID == run.ID) {
		t.Fatalf("claimed a leased run: %v %v", got, err)
	}
	if err := s.RenewLease(ctx, run.ID, "other", time.Minute); err != db.ErrLeaseLost {
		t.Fatalf("renew by non-holder = %v, want ErrLeaseLost", err)
	}
	time.Sleep(400 * time.Millisecond) // the holder "died": no renewal
	got, err := s.ClaimRun(ctx, "rescuer", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if got == nil || got.ID != run.ID {
		t.Fatalf("expired run not reclaimed: %+v", got)
	}
	if got.Attempts != 2 {
		t.Errorf("attempts = %d, want 2", got.Attempts)
	}
	if err := s.RenewLease(ctx, run.ID, "dead-worker", time.Minute); err != db.ErrLeaseLost {
		t.Errorf("old holder renewed a lost lease: %v", err)
	}
	if err := s.ReleaseLease(ctx, run.ID, "rescuer"); err != nil {
		t.Fatal(err)
	}
	again, err := s.ClaimRun(ctx, "next", time.Minute)
	if err != nil || again == nil || again.ID != run.ID {
		t.Fatalf("released run not claimable at once: %+v %v", again, err)
	}
}
