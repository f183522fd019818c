package db_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/quarryhq/quarry/db"
)

// TestConcurrentSourcesGetDistinctSIDs: the actions of a run add sources in
// concurrent transactions; each gets its own sid, numbered 1…n without gaps.
func TestConcurrentSourcesGetDistinctSIDs(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	run := createRun(t, s, "concurrent sources")
	const n = 24
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			err := s.InTx(ctx, func(tx *db.Tx) error {
				u := fmt.Sprintf("https://example.org/page-%d", i)
				_, _, err := tx.AddSource(ctx, db.Source{RunID: run.ID, URL: u, CanonicalURL: u, Title: "page", Host: "example.org", Text: "text"})
				return err
			})
			if err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	sources, err := s.Sources(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	sids := make([]int, 0, len(sources))
	for _, src := range sources {
		sids = append(sids, src.SID)
	}
	sort.Ints(sids)
	if len(sids) != n {
		t.Fatalf("%d sources stored, want %d", len(sids), n)
	}
	for i, sid := range sids {
		if sid != i+1 {
			t.Fatalf("sids %v, want 1…%d", sids, n)
		}
	}
}
