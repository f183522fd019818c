package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lib/pq"

	"github.com/quarryhq/quarry/research"
)

// DueTask is a task whose slot has come, with what the scheduler needs to
// decide about it, all read inside the claiming transaction.
type DueTask struct {
	Task
	PrevActive       bool    // a run of the task is still queued or being worked on
	HasScheduledRuns bool    // a slot of the task has run before (approval "first")
	OwnerRunsToday   int     // the owner's task runs today (UTC): slots today and "Run now" today
	OwnerSpendToday  float64 // their spend in dollars
}

// SlotDecision is what the scheduler does with a due task.
type SlotDecision struct {
	Slot       time.Time
	Run        *NewRun   // create this run for Slot (nil: none)
	SkipReason string    // record Slot as skipped, with this reason
	Next       time.Time // the task's next slot; zero: none
	Complete   bool      // a one-shot is done: status completed
	// Passed are earlier slots that came and went unrun (downtime, or a
	// scheduler later than a slot's length): recorded with PassedReason.
	Passed       []time.Time
	PassedReason string
	// PauseOwner, when set, pauses every active task of the owner with
	// this reason until PauseUntil (a daily budget reached).
	PauseOwner string
	PauseUntil time.Time
}

// Refusal is a task's slot whose run Admission refused.
type Refusal struct {
	Task   Task
	Slot   time.Time
	Reason string
}

// TickPolicy decides for the scheduler's tick.
type TickPolicy interface {
	// Decide is called once per due task, with the task locked.
	Decide(now time.Time, t DueTask) SlotDecision
	// Resume gives the next slot of a task whose timed pause has ended.
	Resume(now time.Time, t Task) time.Time
}

// TickResult is what one tick did.
type TickResult struct {
	Now       time.Time
	Created   []string  // runs inserted
	Expired   []string  // runs awaiting approval cancelled as expired
	Skipped   int       // slots recorded as skipped
	Paused    []Task    // tasks paused by a budget in this tick (one per owner)
	Refused   []Refusal // slots skipped because their run was refused admission
	Resumed   int       // tasks whose timed pause ended
	NextDueAt time.Time
}

// TickTasks claims up to limit due tasks in one transaction and applies the
// policy's decision to each: expire the runs still awaiting approval,
// insert the slot's run (once per slot, whatever other replica tries the
// same), record skipped slots, advance next_run_at. Due is judged on the
// database's clock, or on at when it is not zero (tests inject a clock).
// Tasks another replica is claiming are skipped, not waited for.
func (s *Store) TickTasks(ctx context.Context, at time.Time, limit int, policy TickPolicy) (TickResult, error) {
	var res TickResult
	err := s.InTx(ctx, func(tx *Tx) error {
		now, err := tx.clock(ctx, at)
		if err != nil {
			return err
		}
		res.Now = now
		if res.Resumed, err = tx.resumeTimedPauses(ctx, now, policy); err != nil {
			return err
		}
		var due []Task
		err = tx.tx.SelectContext(ctx, &due, `SELECT `+taskColumns+` FROM tasks
			WHERE status = 'active' AND next_run_at <= $1
			ORDER BY next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED`, now, limit)
		if err != nil {
			return fmt.Errorf("claim due tasks: %w", err)
		}
		b, err := tx.readBatch(ctx, now, due)
		if err != nil {
			return err
		}
		res.Expired = append(res.Expired, b.expired...)
		pausedOwners := map[string]bool{}
		for _, t := range due {
			if pausedOwners[t.Owner] {
				continue
			}
			if err := tx.tickTask(ctx, now, t, b, policy, &res, pausedOwners); err != nil {
				return err
			}
		}
		var next sql.NullTime
		if err := tx.tx.GetContext(ctx, &next, `SELECT min(next_run_at) FROM tasks WHERE status = 'active'`); err != nil {
			return fmt.Errorf("next due task: %w", err)
		}
		var until sql.NullTime
		if err := tx.tx.GetContext(ctx, &until, `SELECT min(paused_until) FROM tasks WHERE status = 'paused' AND paused_until IS NOT NULL`); err != nil {
			return fmt.Errorf("next timed pause: %w", err)
		}
		if until.Valid && (!next.Valid || until.Time.Before(next.Time)) {
			next = until
		}
		if next.Valid {
			res.NextDueAt = next.Time
		}
		return nil
	})
	if err != nil {
		return TickResult{}, fmt.Errorf("scheduler tick: %w", err)
	}
	return res, nil
}

// clock is at, or the database's now() when at is zero.
func (tx *Tx) clock(ctx context.Context, at time.Time) (time.Time, error) {
	if !at.IsZero() {
		return at, nil
	}
	var now time.Time
	if err := tx.tx.GetContext(ctx, &now, `SELECT now()`); err != nil {
		return time.Time{}, fmt.Errorf("read the database clock: %w", err)
	}
	return now, nil
}

func (tx *Tx) resumeTimedPauses(ctx context.Context, now time.Time, policy TickPolicy) (int, error) {
	var paused []Task
	err := tx.tx.SelectContext(ctx, &paused, `SELECT `+taskColumns+` FROM tasks
		WHERE status = 'paused' AND paused_until IS NOT NULL AND paused_until <= $1
		LIMIT 100 FOR UPDATE SKIP LOCKED`, now)
	if err != nil {
		return 0, fmt.Errorf("claim paused tasks: %w", err)
	}
	for _, t := range paused {
		next := policy.Resume(now, t)
		status := TaskActive
		if next.IsZero() {
			status = TaskCompleted
		}
		if _, err := tx.tx.ExecContext(ctx, `UPDATE tasks SET status = $2, paused_reason = '', paused_until = NULL,
			next_run_at = $3, updated_at = now() WHERE id = $1`, t.ID, status, nullTime(next)); err != nil {
			return 0, fmt.Errorf("end the pause of task %s: %w", t.ID, err)
		}
	}
	return len(paused), nil
}

// tickBatch is what a tick reads about its claimed tasks in a few
// statements for the whole batch, rather than a round trip per task.
type tickBatch struct {
	expired   []string            // runs that were awaiting approval, now cancelled
	active    map[string]bool     // task id → a run of it is queued or being worked on
	scheduled map[string]bool     // task id → a slot of it has run before
	tally     map[string]DayTally // owner → their task runs of the day, kept current as runs are added
}

// readBatch locks the budgets of the claimed tasks' owners, expires their
// runs still awaiting approval (the slot that has come ends that wait),
// and reads what the policy decides on.
func (tx *Tx) readBatch(ctx context.Context, now time.Time, due []Task) (*tickBatch, error) {
	b := &tickBatch{active: map[string]bool{}, scheduled: map[string]bool{}, tally: map[string]DayTally{}}
	if len(due) == 0 {
		return b, nil
	}
	ids := make(pq.StringArray, len(due))
	var owners []string
	for i, t := range due {
		ids[i] = t.ID
		if !slices.Contains(owners, t.Owner) {
			owners = append(owners, t.Owner)
		}
	}
	if err := tx.lockBudgets(ctx, owners); err != nil {
		return nil, err
	}
	var err error
	if b.expired, err = tx.expireApprovals(ctx, ids); err != nil {
		return nil, err
	}
	var flags []struct {
		ID        string `db:"id"`
		Active    bool   `db:"active"`
		Scheduled bool   `db:"scheduled"`
	}
	err = tx.tx.SelectContext(ctx, &flags, `SELECT t.id::text AS id,
			t.id IN (SELECT task_id FROM runs WHERE task_id = ANY($1::uuid[]) AND status IN (`+activeStatusSQL+`)) AS active,
			EXISTS (SELECT 1 FROM runs r WHERE r.task_id = t.id AND r.trigger = $2 AND r.scheduled_for IS NOT NULL) AS scheduled
		FROM unnest($1::uuid[]) AS t(id)`, ids, TriggerSchedule)
	if err != nil {
		return nil, fmt.Errorf("runs of the due tasks: %w", err)
	}
	for _, f := range flags {
		b.active[f.ID], b.scheduled[f.ID] = f.Active, f.Scheduled
	}
	for _, o := range owners {
		if b.tally[o], err = tx.ownerTally(ctx, o, now); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// activeStatusSQL lists research.ActiveStatuses as SQL literals, so the
// planner can use the index of active runs (runs_claimable).
var activeStatusSQL = func() string {
	q := make([]string, len(research.ActiveStatuses))
	for i, s := range research.ActiveStatuses {
		q[i] = "'" + string(s) + "'"
	}
	return strings.Join(q, ", ")
}()

func (tx *Tx) tickTask(ctx context.Context, now time.Time, t Task, b *tickBatch, policy TickPolicy, res *TickResult, pausedOwners map[string]bool) error {
	tally := b.tally[t.Owner]
	d := DueTask{Task: t, PrevActive: b.active[t.ID], HasScheduledRuns: b.scheduled[t.ID],
		OwnerRunsToday: tally.Runs, OwnerSpendToday: tally.SpendUSD}
	dec := policy.Decide(now, d)
	if dec.Run != nil && !dec.Slot.IsZero() {
		// A slot past its owner's admission caps is skipped, saying why,
		// rather than queued over them (a person's request would be
		// refused the same way); the task carries on at its next slot.
		var refused *AdmissionError
		if err := tx.admit(ctx, *dec.Run); errors.As(err, &refused) {
			dec.Run, dec.SkipReason = nil, "not run: "+refused.Error()
			res.Refused = append(res.Refused, Refusal{Task: t, Slot: dec.Slot, Reason: refused.Error()})
		} else if err != nil {
			return err
		}
	}
	if dec.Run != nil && !dec.Slot.IsZero() {
		id, err := tx.insertTaskRun(ctx, t.ID, TriggerSchedule, dec.Slot, now, *dec.Run)
		if err != nil {
			return err
		}
		if id != "" {
			res.Created = append(res.Created, id)
			tally.Runs++
			b.tally[t.Owner] = tally
		}
	}
	if dec.SkipReason != "" && !dec.Slot.IsZero() {
		if err := tx.skipSlot(ctx, t.ID, dec.Slot, dec.SkipReason); err != nil {
			return err
		}
		res.Skipped++
	}
	for _, slot := range dec.Passed {
		if err := tx.skipSlot(ctx, t.ID, slot, dec.PassedReason); err != nil {
			return err
		}
		res.Skipped++
	}
	status := TaskActive
	if dec.Complete {
		status = TaskCompleted
	}
	var lastRun any
	if dec.Run != nil {
		lastRun = now
	}
	if _, err := tx.tx.ExecContext(ctx, `UPDATE tasks SET next_run_at = $2, status = $3,
			last_run_at = COALESCE($4, last_run_at), updated_at = now() WHERE id = $1`,
		t.ID, nullTime(dec.Next), status, lastRun); err != nil {
		return fmt.Errorf("advance task %s: %w", t.ID, err)
	}
	if dec.PauseOwner != "" {
		var paused []Task
		err := tx.tx.SelectContext(ctx, &paused, `UPDATE tasks SET status = 'paused', paused_reason = $2, paused_until = $3,
				next_run_at = NULL, updated_at = now()
			WHERE owner = $1 AND status = 'active' RETURNING `+taskColumns, t.Owner, dec.PauseOwner, nullTime(dec.PauseUntil))
		if err != nil {
			return fmt.Errorf("pause tasks of %q: %w", t.Owner, err)
		}
		pausedOwners[t.Owner] = true
		res.Paused = append(res.Paused, t)
	}
	return nil
}

func (tx *Tx) skipSlot(ctx context.Context, taskID string, slot time.Time, reason string) error {
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO task_skips (task_id, scheduled_for, reason) VALUES ($1, $2, $3)
		ON CONFLICT (task_id, scheduled_for) DO NOTHING`, taskID, slot, reason)
	if err != nil {
		return fmt.Errorf("record skipped slot of task %s: %w", taskID, err)
	}
	return nil
}

// DayTally is what an owner's task runs used of a UTC day.
type DayTally struct {
	Runs     int     `db:"runs"`
	SpendUSD float64 `db:"spend"`
}

// lockBudgets locks the owners' daily budgets for the rest of the
// transaction, in one order whoever takes them, so two replicas (or a
// scheduler and a person's "Run now") cannot both pass the last unit of
// one, nor wait on each other in a circle.
func (tx *Tx) lockBudgets(ctx context.Context, owners []string) error {
	sorted := slices.Clone(owners)
	slices.Sort(sorted)
	for _, o := range sorted {
		if _, err := tx.tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('quarry_task_budget:' || $1))`, o); err != nil {
			return fmt.Errorf("lock budget of %q: %w", o, err)
		}
	}
	return nil
}

// ownerTally sums the owner's task runs of now's UTC day: scheduled runs
// by their slot, "Run now" runs by when they were asked for. It reads runs
// through the owner's tasks, whose indexes (task and slot, task and
// creation) hold the day's runs; runs have no index by owner.
func (tx *Tx) ownerTally(ctx context.Context, owner string, now time.Time) (DayTally, error) {
	y, m, d := now.UTC().Date()
	from := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	var tally DayTally
	err := tx.tx.GetContext(ctx, &tally, `SELECT count(*) AS runs, COALESCE(sum(COALESCE((spend->>'usd')::float8, 0)), 0) AS spend
		FROM (SELECT r.spend FROM tasks t JOIN runs r ON r.task_id = t.id
				WHERE t.owner = $1 AND r.trigger = 'schedule' AND r.scheduled_for >= $2 AND r.scheduled_for < $3
			UNION ALL
			SELECT r.spend FROM tasks t JOIN runs r ON r.task_id = t.id
				WHERE t.owner = $1 AND r.trigger = 'manual' AND r.created_at >= $2 AND r.created_at < $3) day`,
		owner, from, from.AddDate(0, 0, 1))
	if err != nil {
		return DayTally{}, fmt.Errorf("budget of %q: %w", owner, err)
	}
	return tally, nil
}

// ExpiredReason is the stop reason of a task's run whose approval did not
// come before the next slot.
const ExpiredReason = "expired"

// expireApprovals cancels the tasks' runs still awaiting approval.
func (tx *Tx) expireApprovals(ctx context.Context, taskIDs pq.StringArray) ([]string, error) {
	var ids []string
	err := tx.tx.SelectContext(ctx, &ids, `SELECT id FROM runs WHERE task_id = ANY($1::uuid[]) AND status = $2 ORDER BY id FOR UPDATE`,
		taskIDs, research.StatusAwaitingApproval)
	if err != nil {
		return nil, fmt.Errorf("pending approvals of the due tasks: %w", err)
	}
	status := research.StatusCancelled
	reason := ExpiredReason
	for _, id := range ids {
		if err := tx.UpdateRun(ctx, id, RunUpdate{Status: &status, StopReason: &reason, Error: &reason}); err != nil {
			return nil, err
		}
		if _, err := tx.AppendEvent(ctx, id, research.EventRunCancelled, research.FailedPayload{Status: status, Error: reason}); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// FinishedTaskRun is a task's run that ended and has not been settled.
type FinishedTaskRun struct {
	Task         Task
	RunID        string
	Status       research.RunStatus
	Error        string
	StopReason   string
	Trigger      string
	ScheduledFor sql.NullTime
}

// Settlement is what a finished run does to its task.
type Settlement struct {
	Failures    int    // the task's consecutive failures from now on
	PauseReason string // pause the task with this reason ("": no)
}

// SettledRun is a run settled by SettleTaskRuns, with its task after.
type SettledRun struct {
	FinishedTaskRun
	Settlement
}

// SettleTaskRuns takes up to limit tasks' runs that ended and were not yet
// settled, applies decide's settlement to each run's task and marks the run
// settled, all in one transaction: whichever replica gets a run settles it,
// once.
func (s *Store) SettleTaskRuns(ctx context.Context, limit int, decide func(FinishedTaskRun) Settlement) ([]SettledRun, error) {
	var out []SettledRun
	err := s.InTx(ctx, func(tx *Tx) error {
		var runs []struct {
			ID           string             `db:"id"`
			TaskID       string             `db:"task_id"`
			Status       research.RunStatus `db:"status"`
			Error        string             `db:"error"`
			StopReason   string             `db:"stop_reason"`
			Trigger      string             `db:"trigger"`
			ScheduledFor sql.NullTime       `db:"scheduled_for"`
		}
		// The run and its task are claimed together, skipping either when
		// another replica holds it: a task that replica is ticking is
		// settled next tick rather than waited for.
		err := tx.tx.SelectContext(ctx, &runs, `SELECT r.id, r.task_id, r.status, r.error, r.stop_reason, r.trigger, r.scheduled_for
			FROM runs r JOIN tasks t ON t.id = r.task_id
			WHERE r.task_id IS NOT NULL AND r.task_settled_at IS NULL AND r.status = ANY($1)
			ORDER BY r.finished_at NULLS FIRST, r.id LIMIT $2 FOR UPDATE OF r, t SKIP LOCKED`, terminalStatuses, limit)
		if err != nil {
			return fmt.Errorf("claim finished task runs: %w", err)
		}
		for _, r := range runs {
			var t Task
			if err := tx.tx.GetContext(ctx, &t, `SELECT `+taskColumns+` FROM tasks WHERE id = $1 FOR UPDATE`, r.TaskID); err != nil {
				return fmt.Errorf("lock task %s: %w", r.TaskID, err)
			}
			f := FinishedTaskRun{Task: t, RunID: r.ID, Status: r.Status, Error: r.Error, StopReason: r.StopReason,
				Trigger: r.Trigger, ScheduledFor: r.ScheduledFor}
			st := decide(f)
			_, err := tx.tx.ExecContext(ctx, `UPDATE tasks SET consecutive_failures = $2,
					status = CASE WHEN $3 <> '' AND status = 'active' THEN 'paused' ELSE status END,
					paused_reason = CASE WHEN $3 <> '' AND status = 'active' THEN $3 ELSE paused_reason END,
					next_run_at = CASE WHEN $3 <> '' AND status = 'active' THEN NULL ELSE next_run_at END,
					updated_at = now()
				WHERE id = $1`, t.ID, st.Failures, st.PauseReason)
			if err != nil {
				return fmt.Errorf("settle task %s: %w", t.ID, err)
			}
			if _, err := tx.tx.ExecContext(ctx, `UPDATE runs SET task_settled_at = now() WHERE id = $1`, r.ID); err != nil {
				return fmt.Errorf("settle run %s: %w", r.ID, err)
			}
			if st.PauseReason != "" && t.Status != TaskActive {
				st.PauseReason = "" // already paused: no second notice
			}
			out = append(out, SettledRun{FinishedTaskRun: f, Settlement: st})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("settle task runs: %w", err)
	}
	return out, nil
}

// ListenTasks calls wake whenever a task is created, edited or resumed on
// any replica (and after a reconnect, when notifications may have been
// lost), until ctx ends.
func ListenTasks(ctx context.Context, url string, wake func()) error {
	if err := listen(ctx, url, TasksNotifyChannel, nil, func(string) { wake() }, wake); err != nil {
		return fmt.Errorf("listen for task changes: %w", err)
	}
	return nil
}
