package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lib/pq"

	"github.com/quarryhq/quarry/research"
)

// TasksNotifyChannel is the NOTIFY channel that wakes the schedulers of
// every replica when a task is created, edited or resumed.
const TasksNotifyChannel = "quarry_tasks"

// ErrTaskLimit is returned when an owner already has the most tasks allowed.
var ErrTaskLimit = errors.New("task limit reached")

// Task is a stored research question with a schedule.
type Task struct {
	ID                  string          `db:"id"`
	Owner               string          `db:"owner"`
	Name                string          `db:"name"`
	Question            string          `db:"question"`
	Depth               string          `db:"depth"`
	Engines             pq.StringArray  `db:"engines"`
	ScheduleText        string          `db:"schedule_text"`
	ScheduleKind        string          `db:"schedule_kind"`
	ScheduleExpr        string          `db:"schedule_expr"`
	TimeZone            string          `db:"time_zone"`
	IntervalSeconds     int64           `db:"interval_seconds"`
	RunAt               sql.NullTime    `db:"run_at"`
	Approval            string          `db:"approval"`
	NotifyOn            string          `db:"notify_on"`
	Channels            json.RawMessage `db:"channels"`
	MaxFailures         int             `db:"max_failures"`
	ConsecutiveFailures int             `db:"consecutive_failures"`
	Status              string          `db:"status"`
	PausedReason        string          `db:"paused_reason"`
	PausedUntil         sql.NullTime    `db:"paused_until"`
	NextRunAt           sql.NullTime    `db:"next_run_at"`
	LastRunAt           sql.NullTime    `db:"last_run_at"`
	CreatedAt           time.Time       `db:"created_at"`
	UpdatedAt           time.Time       `db:"updated_at"`
}

// Task statuses, as stored in tasks.status.
const (
	TaskActive    = "active"
	TaskPaused    = "paused"
	TaskCompleted = "completed"
	TaskArchived  = "archived"
)

// Run triggers, as stored in runs.trigger ("" is a person's own run).
const (
	TriggerSchedule = "schedule"
	TriggerManual   = "manual"
)

const taskColumns = `id, owner, name, question, depth, engines, schedule_text, schedule_kind, schedule_expr,
	time_zone, interval_seconds, run_at, approval, notify_on, channels, max_failures, consecutive_failures,
	status, paused_reason, paused_until, next_run_at, last_run_at, created_at, updated_at`

// TaskFields are the parts of a task a person sets; NextRunAt is its
// first slot (zero: none).
type TaskFields struct {
	Name            string
	Question        string
	Depth           string
	Engines         []string
	ScheduleText    string
	ScheduleKind    string
	ScheduleExpr    string
	TimeZone        string
	IntervalSeconds int64
	RunAt           time.Time
	Approval        string
	NotifyOn        string
	Channels        json.RawMessage
	MaxFailures     int
	NextRunAt       time.Time
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

func (f TaskFields) args() []any {
	channels := f.Channels
	if len(channels) == 0 {
		channels = json.RawMessage(`{}`)
	}
	engines := pq.StringArray(f.Engines)
	if engines == nil {
		engines = pq.StringArray{}
	}
	return []any{f.Name, f.Question, f.Depth, engines, f.ScheduleText, f.ScheduleKind, f.ScheduleExpr, f.TimeZone,
		f.IntervalSeconds, nullTime(f.RunAt), f.Approval, f.NotifyOn, []byte(channels), f.MaxFailures, nullTime(f.NextRunAt)}
}

// CreateTask stores an active task for owner, unless the owner already has
// maxPerOwner tasks that are not archived (ErrTaskLimit; 0 = no cap). The
// count and the insert are serialised per owner, so replicas agree.
func (s *Store) CreateTask(ctx context.Context, owner string, f TaskFields, maxPerOwner int) (*Task, error) {
	var t Task
	err := s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('quarry_tasks_of:' || $1))`, owner); err != nil {
			return fmt.Errorf("lock tasks of %q: %w", owner, err)
		}
		if maxPerOwner > 0 {
			var n int
			if err := tx.tx.GetContext(ctx, &n, `SELECT count(*) FROM tasks WHERE owner = $1 AND status <> 'archived'`, owner); err != nil {
				return fmt.Errorf("count tasks of %q: %w", owner, err)
			}
			if n >= maxPerOwner {
				return ErrTaskLimit
			}
		}
		args := append([]any{owner}, f.args()...)
		err := tx.tx.GetContext(ctx, &t, `INSERT INTO tasks (owner, name, question, depth, engines, schedule_text,
				schedule_kind, schedule_expr, time_zone, interval_seconds, run_at, approval, notify_on, channels,
				max_failures, next_run_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
			RETURNING `+taskColumns, args...)
		if err != nil {
			return fmt.Errorf("insert task: %w", err)
		}
		return wakeSchedulers(ctx, tx)
	})
	if err != nil {
		return nil, fmt.Errorf("create task: %w", err)
	}
	return &t, nil
}

func wakeSchedulers(ctx context.Context, tx *Tx) error {
	if _, err := tx.tx.ExecContext(ctx, `SELECT pg_notify($1, '')`, TasksNotifyChannel); err != nil {
		return fmt.Errorf("notify schedulers: %w", err)
	}
	return nil
}

// UpdateTask replaces what a person set on the task. An active task's next
// slot becomes f.NextRunAt; a completed one-shot given a new time is active
// again; a paused one keeps no slot until resumed.
func (s *Store) UpdateTask(ctx context.Context, id string, f TaskFields) (*Task, error) {
	if !validUUID(id) {
		return nil, ErrNotFound
	}
	var t Task
	err := s.InTx(ctx, func(tx *Tx) error {
		args := append([]any{id}, f.args()...)
		err := tx.tx.GetContext(ctx, &t, `UPDATE tasks SET name = $2, question = $3, depth = $4, engines = $5,
				schedule_text = $6, schedule_kind = $7, schedule_expr = $8, time_zone = $9, interval_seconds = $10,
				run_at = $11, approval = $12, notify_on = $13, channels = $14, max_failures = $15,
				next_run_at = CASE WHEN status IN ('active', 'completed') THEN $16 ELSE next_run_at END,
				status = CASE WHEN status = 'completed' AND $16::timestamptz IS NOT NULL THEN 'active' ELSE status END,
				updated_at = now()
			WHERE id = $1 AND status <> 'archived'
			RETURNING `+taskColumns, args...)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("update task %s: %w", id, err)
		}
		return wakeSchedulers(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// GetTask returns one task, or ErrNotFound.
func (s *Store) GetTask(ctx context.Context, id string) (*Task, error) {
	if !validUUID(id) {
		return nil, ErrNotFound
	}
	var t Task
	err := s.db.GetContext(ctx, &t, `SELECT `+taskColumns+` FROM tasks WHERE id = $1`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get task %s: %w", id, err)
	}
	return &t, nil
}

// TaskListItem is a task with the status of its latest run.
type TaskListItem struct {
	Task
	LastRunStatus sql.NullString `db:"last_run_status"`
	LastRunID     sql.NullString `db:"last_run_id"`
}

// ListTasks returns owner's tasks that are not archived, newest first
// (owner "" with all=true: everyone's, for an admin).
func (s *Store) ListTasks(ctx context.Context, owner string, all bool) ([]TaskListItem, error) {
	var out []TaskListItem
	err := s.db.SelectContext(ctx, &out, `SELECT `+prefixed("t", taskColumns)+`, l.status AS last_run_status, l.id AS last_run_id
		FROM tasks t
		LEFT JOIN LATERAL (SELECT r.status, r.id::text FROM runs r WHERE r.task_id = t.id ORDER BY r.created_at DESC LIMIT 1) l ON true
		WHERE t.status <> 'archived' AND ($2 OR t.owner = $1)
		ORDER BY t.created_at DESC LIMIT 500`, owner, all)
	if err != nil {
		return nil, fmt.Errorf("list tasks: %w", err)
	}
	return out, nil
}

// prefixed qualifies a column list with a table alias.
func prefixed(alias, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// PauseTask pauses an active task with a reason; it has no next slot until
// resumed. It reports whether the task was active.
func (s *Store) PauseTask(ctx context.Context, id, reason string) (bool, error) {
	if !validUUID(id) {
		return false, ErrNotFound
	}
	res, err := s.db.ExecContext(ctx, `UPDATE tasks SET status = 'paused', paused_reason = $2, paused_until = NULL,
		next_run_at = NULL, updated_at = now() WHERE id = $1 AND status = 'active'`, id, reason)
	if err != nil {
		return false, fmt.Errorf("pause task %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// ResumeTask makes a paused (or completed) task active again, with the
// next slot next computes from the database's clock; next returning the
// zero time leaves a one-shot completed. Consecutive failures restart at 0.
// at, when not zero, replaces the database's clock (tests).
func (s *Store) ResumeTask(ctx context.Context, id string, at time.Time, next func(now time.Time, t *Task) time.Time) (*Task, error) {
	if !validUUID(id) {
		return nil, ErrNotFound
	}
	var t Task
	err := s.InTx(ctx, func(tx *Tx) error {
		err := tx.tx.GetContext(ctx, &t, `SELECT `+taskColumns+` FROM tasks WHERE id = $1 FOR UPDATE`, id)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("lock task %s: %w", id, err)
		}
		now, err := tx.clock(ctx, at)
		if err != nil {
			return err
		}
		at := next(now, &t)
		status := TaskActive
		if at.IsZero() {
			status = TaskCompleted
		}
		err = tx.tx.GetContext(ctx, &t, `UPDATE tasks SET status = $2, paused_reason = '', paused_until = NULL,
				consecutive_failures = 0, next_run_at = $3, updated_at = now()
			WHERE id = $1 RETURNING `+taskColumns, id, status, nullTime(at))
		if err != nil {
			return fmt.Errorf("resume task %s: %w", id, err)
		}
		return wakeSchedulers(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// DeleteTask removes a task; its runs and reports stay (task_id set NULL).
func (s *Store) DeleteTask(ctx context.Context, id string) error {
	if !validUUID(id) {
		return ErrNotFound
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM tasks WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("delete task %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// TaskRun is a run of a task as its page lists it.
type TaskRun struct {
	ID           string             `db:"id"`
	Status       research.RunStatus `db:"status"`
	Trigger      string             `db:"trigger"`
	ScheduledFor sql.NullTime       `db:"scheduled_for"`
	Error        string             `db:"error"`
	StopReason   string             `db:"stop_reason"`
	Spend        json.RawMessage    `db:"spend"`
	CreatedAt    time.Time          `db:"created_at"`
	StartedAt    sql.NullTime       `db:"started_at"`
	FinishedAt   sql.NullTime       `db:"finished_at"`
}

// TaskRuns returns the task's runs, newest first.
func (s *Store) TaskRuns(ctx context.Context, taskID string, limit int) ([]TaskRun, error) {
	if limit <= 0 || limit > 500 {
		limit = 50
	}
	var out []TaskRun
	err := s.db.SelectContext(ctx, &out, `SELECT id, status, trigger, scheduled_for, error, stop_reason, spend,
			created_at, started_at, finished_at
		FROM runs WHERE task_id = $1 ORDER BY created_at DESC, id LIMIT $2`, taskID, limit)
	if err != nil {
		return nil, fmt.Errorf("runs of task %s: %w", taskID, err)
	}
	return out, nil
}

// TaskSkip is a slot the scheduler did not run, and why.
type TaskSkip struct {
	ScheduledFor time.Time `db:"scheduled_for"`
	Reason       string    `db:"reason"`
	CreatedAt    time.Time `db:"created_at"`
}

// TaskSkips returns the task's skipped slots, newest first.
func (s *Store) TaskSkips(ctx context.Context, taskID string, limit int) ([]TaskSkip, error) {
	if limit <= 0 || limit > 500 {
		limit = 50
	}
	var out []TaskSkip
	err := s.db.SelectContext(ctx, &out, `SELECT scheduled_for, reason, created_at FROM task_skips
		WHERE task_id = $1 ORDER BY scheduled_for DESC LIMIT $2`, taskID, limit)
	if err != nil {
		return nil, fmt.Errorf("skips of task %s: %w", taskID, err)
	}
	return out, nil
}

// CreateTaskRun stores a run of the task that a person asked for now
// ("Run now"): trigger manual, no slot. It counts toward its owner's
// daily budget: allow, when set, sees what the owner's task runs used
// today (under the budget's lock) and refuses the run by returning an error.
// at, when not zero, replaces the database's clock (tests).
func (s *Store) CreateTaskRun(ctx context.Context, taskID string, nr NewRun, at time.Time, allow func(DayTally) error) (*Run, error) {
	var run Run
	err := s.InTx(ctx, func(tx *Tx) error {
		now, err := tx.clock(ctx, at)
		if err != nil {
			return err
		}
		if allow != nil {
			if err := tx.lockBudgets(ctx, []string{nr.Owner}); err != nil {
				return err
			}
			tally, err := tx.ownerTally(ctx, nr.Owner, now)
			if err != nil {
				return err
			}
			if err := allow(tally); err != nil {
				return err
			}
		}
		if err := tx.admit(ctx, nr); err != nil {
			return err
		}
		id, err := tx.insertTaskRun(ctx, taskID, TriggerManual, time.Time{}, now, nr)
		if err != nil {
			return err
		}
		got, err := getRun(ctx, tx.tx, id)
		if err != nil {
			return err
		}
		run = *got
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("run task %s now: %w", taskID, err)
	}
	return &run, nil
}

// insertTaskRun inserts a queued run of a task with its run_created event.
// A second run for the same slot is not inserted: id is "" then. The run
// is created at now.
func (tx *Tx) insertTaskRun(ctx context.Context, taskID, trigger string, slot, now time.Time, nr NewRun) (string, error) {
	opts := nr.Options
	if len(opts) == 0 {
		opts = json.RawMessage(`{}`)
	}
	budget := nr.Budget
	if len(budget) == 0 {
		budget = json.RawMessage(`{}`)
	}
	var id string
	err := tx.tx.GetContext(ctx, &id, `INSERT INTO runs (question, depth, options, budget, owner, task_id, trigger, scheduled_for, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (task_id, scheduled_for) WHERE task_id IS NOT NULL AND scheduled_for IS NOT NULL DO NOTHING
		RETURNING id`, nr.Question, nr.Depth, []byte(opts), []byte(budget), nr.Owner, taskID, trigger, nullTime(slot), now)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("insert run of task %s: %w", taskID, err)
	}
	if _, err := tx.AppendEvent(ctx, id, "run_created", map[string]any{"status": research.StatusQueued, "question": nr.Question, "depth": nr.Depth}); err != nil {
		return "", err
	}
	return id, nil
}

// TaskApproval is a task's run waiting for its owner's approval.
type TaskApproval struct {
	RunID        string       `db:"run_id"`
	TaskID       string       `db:"task_id"`
	TaskName     string       `db:"task_name"`
	Question     string       `db:"question"`
	ScheduledFor sql.NullTime `db:"scheduled_for"`
	CreatedAt    time.Time    `db:"created_at"`
	ExpiresAt    sql.NullTime `db:"expires_at"` // the task's next slot
}

// PendingTaskApprovals lists owner's task runs awaiting approval (all
// owners' when all is set).
func (s *Store) PendingTaskApprovals(ctx context.Context, owner string, all bool) ([]TaskApproval, error) {
	var out []TaskApproval
	err := s.db.SelectContext(ctx, &out, `SELECT r.id AS run_id, t.id AS task_id, t.name AS task_name, r.question,
			r.scheduled_for, r.created_at, t.next_run_at AS expires_at
		FROM runs r JOIN tasks t ON t.id = r.task_id
		WHERE r.status = $1 AND ($3 OR t.owner = $2)
		ORDER BY r.created_at LIMIT 200`, research.StatusAwaitingApproval, owner, all)
	if err != nil {
		return nil, fmt.Errorf("pending approvals: %w", err)
	}
	return out, nil
}
