package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/quarryhq/quarry/research"
)

// Action is one evidence-gathering step of a run, numbered idx 1, 2, … in
// the order it was planned.
type Action struct {
	RunID      string                `db:"run_id" json:"-"`
	Idx        int                   `db:"idx" json:"idx"`
	Batch      int                   `db:"batch" json:"batch"`
	Priority   int                   `db:"priority" json:"priority"`
	Kind       string                `db:"kind" json:"kind"`
	Engine     string                `db:"engine" json:"engine,omitempty"`
	Query      string                `db:"query" json:"query,omitempty"`
	URL        string                `db:"url" json:"url,omitempty"`
	Reason     string                `db:"reason" json:"reason,omitempty"`
	Status     research.ActionStatus `db:"status" json:"status"`
	Error      string                `db:"error" json:"error,omitempty"`
	Preview    string                `db:"preview" json:"preview,omitempty"`
	Result     json.RawMessage       `db:"result" json:"result,omitempty"`
	StartedAt  sql.NullTime          `db:"started_at" json:"-"`
	FinishedAt sql.NullTime          `db:"finished_at" json:"-"`
}

// actionSkipped is a status the actions table accepts that no stage sets
// today; FinishAction treats it as finished.
const actionSkipped research.ActionStatus = "skipped"

const actionColumns = `run_id, idx, batch, priority, kind, engine, query, url, reason, status, error, preview, result, started_at, finished_at`

// InsertAction adds a pending action with the next idx of the run.
func (tx *Tx) InsertAction(ctx context.Context, a Action) (Action, error) {
	var out Action
	err := tx.tx.GetContext(ctx, &out, `INSERT INTO actions (run_id, idx, batch, priority, kind, engine, query, url, reason)
		VALUES ($1, (SELECT COALESCE(max(idx), 0) + 1 FROM actions WHERE run_id = $1), $2, $3, $4, $5, $6, $7, $8)
		RETURNING `+actionColumns, a.RunID, a.Batch, a.Priority, a.Kind, a.Engine, a.Query, a.URL, a.Reason)
	if err != nil {
		return Action{}, fmt.Errorf("insert action for run %s: %w", a.RunID, err)
	}
	return out, nil
}

// FinishAction records an action's outcome.
func (tx *Tx) FinishAction(ctx context.Context, runID string, idx int, status research.ActionStatus, errText, preview string, result any) error {
	body, err := json.Marshal(result)
	if err != nil {
		return fmt.Errorf("encode action result: %w", err)
	}
	// An action that has run (or was skipped) gets its end stamped.
	finished := status.Finished() || status == actionSkipped
	_, err = tx.tx.ExecContext(ctx, `UPDATE actions SET status = $3, error = $4, preview = $5, result = $6,
		finished_at = CASE WHEN $7 THEN now() ELSE finished_at END,
		started_at = COALESCE(started_at, now())
		WHERE run_id = $1 AND idx = $2`, runID, idx, status, errText, preview, body, finished)
	if err != nil {
		return fmt.Errorf("finish action %d of run %s: %w", idx, runID, err)
	}
	return nil
}

// Actions returns the run's actions in idx order.
func (s *Store) Actions(ctx context.Context, runID string) ([]Action, error) {
	var out []Action
	if err := s.db.SelectContext(ctx, &out, `SELECT `+actionColumns+` FROM actions WHERE run_id = $1 ORDER BY idx`, runID); err != nil {
		return nil, fmt.Errorf("actions of run %s: %w", runID, err)
	}
	return out, nil
}

// StartAction marks an action running and stamps its start.
func (s *Store) StartAction(ctx context.Context, runID string, idx int) error {
	_, err := s.db.ExecContext(ctx, `UPDATE actions SET status = $3, started_at = now() WHERE run_id = $1 AND idx = $2`, runID, idx, research.ActionRunning)
	if err != nil {
		return fmt.Errorf("start action %d of run %s: %w", idx, runID, err)
	}
	return nil
}

// StopOpenActions ends the run's pending and running actions with reason,
// so a cancelled run shows none of them still running.
func (tx *Tx) StopOpenActions(ctx context.Context, runID, reason string) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE actions SET status = $3, error = $2, finished_at = now()
		WHERE run_id = $1 AND status IN ($4, $5)`, runID, reason, research.ActionError, research.ActionPending, research.ActionRunning)
	if err != nil {
		return fmt.Errorf("stop actions of run %s: %w", runID, err)
	}
	return nil
}
