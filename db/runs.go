package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/quarryhq/quarry/research"
)

// Run is a research run; the row is also the job a worker claims.
type Run struct {
	ID             string             `db:"id" json:"id"`
	ParentRunID    sql.NullString     `db:"parent_run_id" json:"-"`
	Question       string             `db:"question" json:"question"`
	Depth          string             `db:"depth" json:"depth"`
	Route          string             `db:"route" json:"route"`
	Options        json.RawMessage    `db:"options" json:"options"`
	Status         research.RunStatus `db:"status" json:"status"`
	TaskSpec       json.RawMessage    `db:"task_spec" json:"task_spec,omitempty"`
	Budget         json.RawMessage    `db:"budget" json:"budget"`
	Spend          json.RawMessage    `db:"spend" json:"spend"`
	StopReason     string             `db:"stop_reason" json:"stop_reason,omitempty"`
	Error          string             `db:"error" json:"error,omitempty"`
	Owner          string             `db:"owner" json:"owner,omitempty"`
	ShareToken     sql.NullString     `db:"share_token" json:"-"`
	ShareRevokedAt sql.NullTime       `db:"share_revoked_at" json:"-"`
	ShareExpiresAt sql.NullTime       `db:"share_expires_at" json:"-"`
	// ReadsPrivate is set once the run has read a passage of a private
	// library collection (or follows up such a run): it is then its
	// owner's and admins' only. ShareConfirmed is the owner's consent that
	// its share link work all the same.
	ReadsPrivate   bool           `db:"reads_private" json:"reads_private"`
	ShareConfirmed bool           `db:"share_confirmed" json:"-"`
	LeaseOwner     sql.NullString `db:"lease_owner" json:"-"`
	LeaseExpiresAt sql.NullTime   `db:"lease_expires_at" json:"-"`
	Attempts       int            `db:"attempts" json:"attempts"`
	LastSeq        int64          `db:"last_seq" json:"last_seq"`
	CreatedAt      time.Time      `db:"created_at" json:"created_at"`
	UpdatedAt      time.Time      `db:"updated_at" json:"updated_at"`
	StartedAt      sql.NullTime   `db:"started_at" json:"-"`
	FinishedAt     sql.NullTime   `db:"finished_at" json:"-"`
}

// NewRun is what a caller supplies to create a run.
type NewRun struct {
	Question    string
	Depth       string
	Options     json.RawMessage // e.g. {"review": true, "engines": [...]}
	Budget      json.RawMessage
	ParentRunID string
	Owner       string
	// Admission, when set, refuses the run (*AdmissionError) past its
	// caps, checked in the transaction that inserts it.
	Admission *Admission
}

const runColumns = `id, parent_run_id, question, depth, route, options, status, task_spec, budget, spend,
	stop_reason, error, owner, share_token, share_revoked_at, share_expires_at, reads_private, share_confirmed, lease_owner, lease_expires_at,
	attempts, last_seq, created_at, updated_at, started_at, finished_at`

// CreateRun stores a queued run and its first event (run_created).
func (s *Store) CreateRun(ctx context.Context, nr NewRun) (*Run, error) {
	var run Run
	err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.admit(ctx, nr); err != nil {
			return err
		}
		opts := nr.Options
		if len(opts) == 0 {
			opts = json.RawMessage(`{}`)
		}
		budget := nr.Budget
		if len(budget) == 0 {
			budget = json.RawMessage(`{}`)
		}
		var parent any
		if nr.ParentRunID != "" {
			parent = nr.ParentRunID
		}
		if err := tx.tx.GetContext(ctx, &run, `INSERT INTO runs (question, depth, options, budget, parent_run_id, owner)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING `+runColumns,
			nr.Question, nr.Depth, []byte(opts), []byte(budget), parent, nr.Owner); err != nil {
			return fmt.Errorf("insert run: %w", err)
		}
		ev, err := tx.AppendEvent(ctx, run.ID, "run_created", map[string]any{"status": run.Status, "question": run.Question, "depth": run.Depth})
		if err != nil {
			return err
		}
		run.LastSeq = ev.Seq
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("create run: %w", err)
	}
	return &run, nil
}

// GetRun returns one run, or ErrNotFound.
func (s *Store) GetRun(ctx context.Context, id string) (*Run, error) {
	return getRun(ctx, s.db, id)
}

type getter interface {
	GetContext(ctx context.Context, dest any, query string, args ...any) error
}

func getRun(ctx context.Context, q getter, id string) (*Run, error) {
	if !validUUID(id) {
		return nil, ErrNotFound
	}
	var run Run
	err := q.GetContext(ctx, &run, `SELECT `+runColumns+` FROM runs WHERE id = $1`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get run %s: %w", id, err)
	}
	return &run, nil
}

// GetRunForUpdate locks the run row for the rest of the transaction, so
// concurrent approvals or cancellations serialise.
func (tx *Tx) GetRunForUpdate(ctx context.Context, id string) (*Run, error) {
	if !validUUID(id) {
		return nil, ErrNotFound
	}
	var run Run
	err := tx.tx.GetContext(ctx, &run, `SELECT `+runColumns+` FROM runs WHERE id = $1 FOR UPDATE`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("lock run %s: %w", id, err)
	}
	return &run, nil
}

// RunFilter selects runs for the history page.
type RunFilter struct {
	Query  string // full-text search over question and report
	Status research.RunStatus
	Owner  string
	Limit  int
	Offset int
	// Reader, unless AllPrivate, hides the runs that read private
	// documents (Run.ReadsPrivate) and are not Reader's.
	Reader     string
	AllPrivate bool
}

// where is the filter as SQL over runs, with its arguments from $1.
func (f RunFilter) where() (string, []any) {
	where := `WHERE ($1 = '' OR status = $1) AND ($2 = '' OR owner = $2) AND ($4 OR NOT reads_private OR owner = $5)`
	if f.Query != "" {
		where += ` AND (to_tsvector('english', question) @@ websearch_to_tsquery('english', $3)
			OR EXISTS (SELECT 1 FROM reports r WHERE r.run_id = runs.id AND r.search @@ websearch_to_tsquery('english', $3)))`
	} else {
		where += ` AND $3 = ''`
	}
	return where, []any{f.Status, f.Owner, f.Query, f.AllPrivate, f.Reader}
}

// ListRuns returns runs newest first.
func (s *Store) ListRuns(ctx context.Context, f RunFilter) ([]Run, error) {
	if f.Limit <= 0 || f.Limit > 200 {
		f.Limit = 20
	}
	where, args := f.where()
	var runs []Run
	err := s.db.SelectContext(ctx, &runs, `SELECT `+runColumns+` FROM runs `+where+`
		ORDER BY created_at DESC, id LIMIT $6 OFFSET $7`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return runs, nil
}

// RunUpdate is a partial update of a run; nil fields are left alone.
type RunUpdate struct {
	Status     *research.RunStatus
	Route      *string
	TaskSpec   json.RawMessage
	Spend      json.RawMessage
	Options    json.RawMessage
	StopReason *string
	Error      *string
}

// UpdateRun applies u to the run inside the transaction.
func (tx *Tx) UpdateRun(ctx context.Context, id string, u RunUpdate) error {
	var status, route, stop, errText any
	if u.Status != nil {
		status = *u.Status
	}
	if u.Route != nil {
		route = *u.Route
	}
	if u.StopReason != nil {
		stop = *u.StopReason
	}
	if u.Error != nil {
		errText = *u.Error
	}
	var spec, spend, opts any
	if u.TaskSpec != nil {
		spec = []byte(u.TaskSpec)
	}
	if u.Spend != nil {
		spend = []byte(u.Spend)
	}
	if u.Options != nil {
		opts = []byte(u.Options)
	}
	_, err := tx.tx.ExecContext(ctx, `UPDATE runs SET
		status = COALESCE($2, status),
		route = COALESCE($3, route),
		task_spec = COALESCE($4::jsonb, task_spec),
		spend = COALESCE($5::jsonb, spend),
		options = COALESCE($6::jsonb, options),
		stop_reason = COALESCE($7, stop_reason),
		error = COALESCE($8, error),
		finished_at = CASE WHEN COALESCE($2, status) = ANY($9) THEN COALESCE(finished_at, now()) ELSE finished_at END,
		lease_owner = CASE WHEN COALESCE($2, status) = ANY($10) THEN NULL ELSE lease_owner END,
		lease_expires_at = CASE WHEN COALESCE($2, status) = ANY($10) THEN NULL ELSE lease_expires_at END,
		updated_at = now()
		WHERE id = $1`, id, status, route, spec, spend, opts, stop, errText, terminalStatuses, unleasedStatuses)
	if err != nil {
		return fmt.Errorf("update run %s: %w", id, err)
	}
	return nil
}

// validUUID reports whether s looks like a UUID, so malformed ids become
// ErrNotFound rather than a database error.
func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
