package tasks

import (
	"errors"
	"fmt"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/research"
)

// Skip reasons recorded in task_skips.
const (
	SkipStillRunning = "skipped: still running"
	SkipBudget       = "skipped: daily budget reached"
	SkipMissed       = "missed: later than the grace period"
	SkipPassed       = "missed: a later slot was due by then"
)

// RunMaker builds the run of a task's slot; review is whether the run
// stops for its owner's approval after planning. An error skips the slot.
type RunMaker func(t *db.Task, review bool) (db.NewRun, error)

// Policy is the rules the scheduler applies to due tasks and finished runs.
type Policy struct {
	Grace          time.Duration // a missed slot later than this is not run
	DailyBudgetUSD float64       // per owner, task runs' spend per UTC day (0 = no cap)
	DailyRuns      int           // per owner, task runs ("Run now" included) per UTC day (0 = no cap)
	MakeRun        RunMaker
	// Admission is the run-creation rule a person's runs obey too
	// (db.Admission); a due slot it refuses is skipped with the refusal
	// as its reason and a notice to the owner, never queued over the caps.
	Admission *db.Admission
}

// Decide implements db.TickPolicy: run the due slot, or skip it and say why.
func (p Policy) Decide(now time.Time, d db.DueTask) db.SlotDecision {
	sched := ScheduleOf(&d.Task)
	due := sched.Plan(d.NextRunAt.Time, now, p.Grace)
	dec := db.SlotDecision{Slot: due.Slot, Next: due.Next, Complete: due.Next.IsZero(), Passed: due.Passed, PassedReason: SkipPassed}
	switch {
	case !due.Run:
		dec.SkipReason = SkipMissed
	case d.PrevActive:
		dec.SkipReason = SkipStillRunning
	case p.overBudget(d):
		dec.SkipReason = SkipBudget
		dec.PauseUntil = nextUTCDay(now)
		dec.PauseOwner = fmt.Sprintf("daily budget reached (%d task runs, $%.2f today); resumes %s",
			d.OwnerRunsToday, d.OwnerSpendToday, dec.PauseUntil.Format("2006-01-02 15:04 MST"))
		// A one-shot held back by the budget is not over: it stays
		// paused with its slot and runs on resume if its time is still
		// ahead, else completes then.
		dec.Complete = false
	default:
		review := d.Approval == ApprovalAlways || (d.Approval == ApprovalFirst && !d.HasScheduledRuns)
		nr, err := p.MakeRun(&d.Task, review)
		if err != nil {
			dec.SkipReason = "skipped: " + err.Error()
			break
		}
		nr.Owner = d.Owner
		nr.Admission = p.Admission
		dec.Run = &nr
	}
	return dec
}

func (p Policy) overBudget(d db.DueTask) bool {
	return p.spent(db.DayTally{Runs: d.OwnerRunsToday, SpendUSD: d.OwnerSpendToday})
}

func (p Policy) spent(t db.DayTally) bool {
	return (p.DailyRuns > 0 && t.Runs >= p.DailyRuns) || (p.DailyBudgetUSD > 0 && t.SpendUSD >= p.DailyBudgetUSD)
}

// ErrDailyBudget refuses a "Run now" once its owner's task runs have used
// the day's budget.
var ErrDailyBudget = errors.New("the daily budget for task runs is used up; it renews at midnight UTC")

// AllowManual decides whether a person's "Run now" may start, given what
// their task runs used today: it counts toward the same daily budget as
// the scheduled runs, so it is refused once that is used up.
func (p Policy) AllowManual(t db.DayTally) error {
	if p.spent(t) {
		return ErrDailyBudget
	}
	return nil
}

// ManualReview is whether a person's "Run now" of t stops for approval:
// only with approval "always". Approval "first" holds the first scheduled
// run, which the person was not there to start; a run they start
// themselves neither waits nor counts as that first.
func ManualReview(t *db.Task) bool { return t.Approval == ApprovalAlways }

func nextUTCDay(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}

// Resume implements db.TickPolicy: the next slot from now of a task whose
// timed pause ended.
func (p Policy) Resume(now time.Time, t db.Task) time.Time {
	return NextFrom(&t, now)
}

// NextFrom is the task's first slot after now (a resumed task does not run
// the slots it missed while paused).
func NextFrom(t *db.Task, now time.Time) time.Time {
	return ScheduleOf(t).Next(now)
}

// Settle decides what a finished run does to its task: a failure counts
// towards max_failures (and pauses the task when it reaches it), a success
// resets the count, and anything else (cancelled, skipped, expired,
// stopped by its budget) leaves it alone.
func (p Policy) Settle(f db.FinishedTaskRun) db.Settlement {
	st := db.Settlement{Failures: f.Task.ConsecutiveFailures}
	switch f.Status {
	case research.StatusDone:
		st.Failures = 0
	case research.StatusFailed:
		st.Failures++
		if st.Failures >= f.Task.MaxFailures {
			reason := f.Error
			if reason == "" {
				reason = "no reason given"
			}
			st.PauseReason = fmt.Sprintf("paused after %d consecutive failures; the last: %s", st.Failures, clip(reason, 300))
		}
	}
	return st
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
