package db

import (
	"context"
	"fmt"
)

// ActiveRunsOf counts owner's runs in progress (queued or being worked on;
// a run paused for review is not counted: it holds no worker).
func (s *Store) ActiveRunsOf(ctx context.Context, owner string) (int, error) {
	var n int
	err := s.DB.GetContext(ctx, &n, `SELECT count(*) FROM runs WHERE owner = $1
		AND status IN ('queued','planning','gathering','synthesizing','verifying')`, owner)
	if err != nil {
		return 0, fmt.Errorf("count active runs of %q: %w", owner, err)
	}
	return n, nil
}

// QueuedRuns counts runs waiting for a worker, on every replica.
func (s *Store) QueuedRuns(ctx context.Context) (int, error) {
	var n int
	if err := s.DB.GetContext(ctx, &n, `SELECT count(*) FROM runs WHERE status = 'queued'`); err != nil {
		return 0, fmt.Errorf("count queued runs: %w", err)
	}
	return n, nil
}
