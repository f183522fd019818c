package db

import (
	"context"
	"fmt"
)

// Admission is the one rule that decides whether a new run may be queued:
// its owner may have at most MaxActive runs queued or in progress, and the
// whole cluster at most MaxQueued runs waiting for a worker. A zero or
// negative cap is off. Every way of creating a run goes through it — the
// ask form and POST /api/runs (pipeline.Request.Admission), a task's "Run
// now" (CreateTaskRun) and the scheduler (its slot is skipped, with the
// refusal as the reason) — because the check runs inside the transaction
// that inserts the run, under the owner's lock: a burst of requests, on any
// replica, cannot all pass the last free place. A new caller (an MCP tool,
// say) sets NewRun.Admission, or calls Admit itself, and shows the
// *AdmissionError's message.
type Admission struct {
	MaxActive int // per owner: runs queued or in progress
	MaxQueued int // cluster-wide: runs waiting for a worker
}

// Admission limits named in AdmissionError.Limit.
const (
	LimitActiveRuns = "active_runs"
	LimitQueue      = "queue"
)

// AdmissionError is a run refused by Admission, with a message for the
// person who asked.
type AdmissionError struct {
	Limit string // LimitActiveRuns or LimitQueue
	Count int    // the runs counted against the limit
	Max   int
}

func (e *AdmissionError) Error() string {
	if e.Limit == LimitQueue {
		return fmt.Sprintf("The server is busy: %d runs are waiting in the queue (at most %d). Try again in a minute.", e.Count, e.Max)
	}
	return fmt.Sprintf("You have %d runs in progress, the most allowed at once (%d). Wait for one to finish, or stop one, then ask again.", e.Count, e.Max)
}

// Admit checks the rule for a new run of owner inside tx, after taking
// the owner's lock, which it holds until tx ends: the caller inserts the
// run in the same transaction. A refusal is an *AdmissionError.
func (tx *Tx) Admit(ctx context.Context, a Admission, owner string) error {
	if a.MaxActive <= 0 && a.MaxQueued <= 0 {
		return nil
	}
	// The owner's lock is the one their daily task budget takes (advisory
	// locks are re-entrant within a transaction, so a caller holding it
	// already passes): one lock per owner, so no two orders to deadlock in.
	if err := tx.lockBudgets(ctx, []string{owner}); err != nil {
		return err
	}
	if a.MaxActive > 0 {
		var n int
		if err := tx.tx.GetContext(ctx, &n, `SELECT count(*) FROM runs WHERE owner = $1 AND status IN (`+activeStatusSQL+`)`, owner); err != nil {
			return fmt.Errorf("count active runs of %q: %w", owner, err)
		}
		if n >= a.MaxActive {
			return &AdmissionError{Limit: LimitActiveRuns, Count: n, Max: a.MaxActive}
		}
	}
	if a.MaxQueued > 0 {
		var n int
		if err := tx.tx.GetContext(ctx, &n, `SELECT count(*) FROM runs WHERE status = 'queued'`); err != nil {
			return fmt.Errorf("count queued runs: %w", err)
		}
		if n >= a.MaxQueued {
			return &AdmissionError{Limit: LimitQueue, Count: n, Max: a.MaxQueued}
		}
	}
	return nil
}

// admit applies nr's admission, if any, inside tx.
func (tx *Tx) admit(ctx context.Context, nr NewRun) error {
	if nr.Admission == nil {
		return nil
	}
	return tx.Admit(ctx, *nr.Admission, nr.Owner)
}
