package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// PriorRun is the previous finished run of a task, which a new run of the
// task is compared with.
type PriorRun struct {
	ID        string    `db:"id"`
	StartedAt time.Time `db:"started_at"` // when it ran (its slot, else its start)
}

// PreviousTaskRun says whether runID is a task's run and returns the
// task's newest done run created before it (nil for the task's first).
func (s *Store) PreviousTaskRun(ctx context.Context, runID string) (isTask bool, prior *PriorRun, err error) {
	var row struct {
		Task      bool           `db:"task"`
		ID        sql.NullString `db:"id"`
		StartedAt sql.NullTime   `db:"started_at"`
	}
	err = s.db.GetContext(ctx, &row, `SELECT cur.task_id IS NOT NULL AS task, prev.id, prev.started_at
		FROM runs cur LEFT JOIN LATERAL (
			SELECT p.id, COALESCE(p.scheduled_for, p.started_at, p.created_at) AS started_at FROM runs p
			WHERE p.task_id = cur.task_id AND p.id <> cur.id AND p.status = 'done' AND p.created_at < cur.created_at
			ORDER BY p.created_at DESC LIMIT 1
		) prev ON true
		WHERE cur.id = $1`, runID)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil, ErrNotFound
	}
	if err != nil {
		return false, nil, fmt.Errorf("previous run of the task of run %s: %w", runID, err)
	}
	if row.ID.Valid {
		prior = &PriorRun{ID: row.ID.String, StartedAt: row.StartedAt.Time}
	}
	return row.Task, prior, nil
}

// RunChanges is what changed in a task's run since the task's previous
// finished run.
type RunChanges struct {
	RunID         string          `db:"run_id"`
	PreviousRunID sql.NullString  `db:"previous_run_id"`
	Since         time.Time       `db:"since"`
	Changed       bool            `db:"changed"`
	Summary       string          `db:"summary"`
	Detail        json.RawMessage `db:"detail"`
	CreatedAt     time.Time       `db:"created_at"`
}

// SaveRunChanges stores (or, on a later synthesis pass, replaces) the
// run's changes.
func (s *Store) SaveRunChanges(ctx context.Context, c RunChanges) error {
	detail := c.Detail
	if len(detail) == 0 {
		detail = json.RawMessage(`{}`)
	}
	var prev any
	if c.PreviousRunID.Valid {
		prev = c.PreviousRunID.String
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO run_changes (run_id, previous_run_id, since, changed, summary, detail)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (run_id) DO UPDATE SET previous_run_id = EXCLUDED.previous_run_id, since = EXCLUDED.since,
			changed = EXCLUDED.changed, summary = EXCLUDED.summary, detail = EXCLUDED.detail, created_at = now()`,
		c.RunID, prev, c.Since, c.Changed, c.Summary, []byte(detail))
	if err != nil {
		return fmt.Errorf("save changes of run %s: %w", c.RunID, err)
	}
	return nil
}

// GetRunChanges returns the run's changes, or ErrNotFound when none were
// computed (not a task's run, or not synthesized yet).
func (s *Store) GetRunChanges(ctx context.Context, runID string) (*RunChanges, error) {
	var c RunChanges
	err := s.db.GetContext(ctx, &c, `SELECT run_id, previous_run_id, since, changed, summary, detail, created_at
		FROM run_changes WHERE run_id = $1`, runID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("changes of run %s: %w", runID, err)
	}
	return &c, nil
}

// ChangeSummary answers the notify policy "change" and the task page: the
// plain-text summary of what the run found changed, and whether anything
// did. A task's first run counts as changed (everything is new); a run with
// no computed changes (not a task's run) reports "", false.
func (s *Store) ChangeSummary(ctx context.Context, runID string) (summary string, changed bool, err error) {
	c, err := s.GetRunChanges(ctx, runID)
	if errors.Is(err, ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return c.Summary, c.Changed, nil
}

// ChangeSummaries returns the summaries of several runs (a task page's
// history) by run id; runs without changes are absent.
func (s *Store) ChangeSummaries(ctx context.Context, runIDs []string) (map[string]RunChanges, error) {
	out := map[string]RunChanges{}
	if len(runIDs) == 0 {
		return out, nil
	}
	var rows []RunChanges
	if err := s.db.SelectContext(ctx, &rows, `SELECT run_id, previous_run_id, since, changed, summary, detail, created_at
		FROM run_changes WHERE run_id::text = ANY($1)`, pq.Array(runIDs)); err != nil {
		return nil, fmt.Errorf("changes of %d runs: %w", len(runIDs), err)
	}
	for _, r := range rows {
		out[r.RunID] = r
	}
	return out, nil
}
