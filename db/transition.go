package db

import "context"

// NewEvent is an event to append to a run: its type and a payload that is
// stored as JSON.
type NewEvent struct {
	Type    string
	Payload any
}

// Step is one state change of a run, committed whole by Transition. Every
// field is optional; the writes happen in the order of the fields.
type Step struct {
	// Check, when set, is called with the locked run before anything is
	// written; an error it returns aborts the step and is returned as is
	// (a person's action on a run that has moved on, say).
	Check func(cur *Run) error
	// Stage and State are the checkpoint to save (when State is not nil).
	Stage string
	State any
	// Update is applied to the run row (when it changes anything).
	Update RunUpdate
	// Apply makes further writes in the same transaction, such as the
	// report and share token a publish stores, or the sources an action
	// fetched (it may append events of its own).
	Apply func(ctx context.Context, tx *Tx) error
	// Events are appended last, so they never describe a change that was
	// not committed with them.
	Events []NewEvent
}

// Transition commits one step of a run in one transaction: it locks the
// run row, checks that owner still holds the run (owner "" is a person
// acting on it, not a worker: no lease to check), then writes the step. A
// worker that lost the run (another one claimed it, or it was cancelled or
// ended) gets ErrLeaseLost and nothing is written. Subscribers are told of
// the step's events only after the commit.
func (s *Store) Transition(ctx context.Context, runID, owner string, step Step) error {
	return s.InTx(ctx, func(tx *Tx) error {
		cur, err := tx.GetRunForUpdate(ctx, runID)
		if err != nil {
			return err
		}
		if owner != "" && (!cur.LeaseOwner.Valid || cur.LeaseOwner.String != owner || cur.Status.Terminal()) {
			return ErrLeaseLost
		}
		if step.Check != nil {
			if err := step.Check(cur); err != nil {
				return err
			}
		}
		if step.State != nil {
			if err := tx.SaveCheckpoint(ctx, runID, step.Stage, step.State); err != nil {
				return err
			}
		}
		if !step.Update.empty() {
			if err := tx.UpdateRun(ctx, runID, step.Update); err != nil {
				return err
			}
		}
		if step.Apply != nil {
			if err := step.Apply(ctx, tx); err != nil {
				return err
			}
		}
		for _, e := range step.Events {
			if _, err := tx.AppendEvent(ctx, runID, e.Type, e.Payload); err != nil {
				return err
			}
		}
		return nil
	})
}

// empty reports whether the update would change nothing.
func (u RunUpdate) empty() bool {
	return u.Status == nil && u.Route == nil && u.StopReason == nil && u.Error == nil &&
		u.TaskSpec == nil && u.Spend == nil && u.Options == nil
}
