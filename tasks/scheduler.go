package tasks

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/research"
)

// ChangeReader tells whether a finished run's report changed since the
// task's previous run, with the change summary (notify policy "change").
type ChangeReader func(ctx context.Context, runID string) (summary string, changed bool)

// Options configure a Scheduler.
type Options struct {
	Store    *db.Store
	Policy   Policy
	Notifier Notifier     // nil: notices are dropped
	Changes  ChangeReader // nil: every finished run counts as changed
	// Wake tells this process's workers that runs were queued.
	Wake func()
	// Clock, when set, replaces the database's clock (tests).
	Clock func() time.Time
	// MaxSleep caps the sleep between ticks (finished runs are settled
	// each tick); default 2s.
	MaxSleep time.Duration
	// Batch is how many due tasks one tick claims; default 100.
	Batch  int
	Logger *slog.Logger
}

// Scheduler turns due tasks into runs. Every replica runs one; they share
// the work through the database and never create a slot's run twice.
type Scheduler struct {
	opt  Options
	log  *slog.Logger
	wake chan struct{}
	wg   sync.WaitGroup
}

// NewScheduler returns a scheduler; Run starts its loop.
func NewScheduler(opt Options) *Scheduler {
	if opt.Notifier == nil {
		opt.Notifier = NopNotifier{}
	}
	if opt.MaxSleep <= 0 {
		opt.MaxSleep = 2 * time.Second
	}
	if opt.Batch <= 0 {
		opt.Batch = 100
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Wake == nil {
		opt.Wake = func() {}
	}
	return &Scheduler{opt: opt, log: opt.Logger, wake: make(chan struct{}, 1)}
}

// Wake makes the loop tick now (a task was created or edited).
func (s *Scheduler) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Start runs the loop until ctx ends; Wait waits for it to return.
func (s *Scheduler) Start(ctx context.Context) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.loop(ctx)
	}()
}

// Wait returns when the loop has stopped.
func (s *Scheduler) Wait() { s.wg.Wait() }

func (s *Scheduler) loop(ctx context.Context) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-timer.C:
		}
		sleep := s.opt.MaxSleep
		began := time.Now()
		res, err := s.Tick(ctx)
		if took := time.Since(began); took > time.Second {
			s.log.Warn("slow scheduler tick", "ms", took.Milliseconds(), "claimed", res.Claimed)
		}
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			s.log.Warn("scheduler tick", "err", err)
		case res.Claimed >= s.opt.Batch:
			sleep = 0 // more are due
		case !res.NextDueAt.IsZero():
			if d := res.NextDueAt.Sub(res.Now); d < sleep {
				// Due already but not claimed: another replica holds it.
				// Look again shortly rather than spin on the database.
				sleep = max(d, minRecheck)
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(sleep)
	}
}

// minRecheck is the shortest sleep between ticks that claimed nothing.
const minRecheck = 25 * time.Millisecond

// TickReport is what one tick did.
type TickReport struct {
	db.TickResult
	Claimed int
	Settled []db.SettledRun
}

// Tick settles finished task runs, then claims due tasks once and creates
// their runs. The loop calls it; tests call it with an injected clock.
func (s *Scheduler) Tick(ctx context.Context) (TickReport, error) {
	var rep TickReport
	settled, err := s.opt.Store.SettleTaskRuns(ctx, s.opt.Batch, s.opt.Policy.Settle)
	if err != nil {
		return rep, err
	}
	rep.Settled = settled
	for _, r := range settled {
		s.noticeSettled(ctx, r)
	}
	var at time.Time
	if s.opt.Clock != nil {
		at = s.opt.Clock()
	}
	counter := &countingPolicy{Policy: s.opt.Policy}
	res, err := s.opt.Store.TickTasks(ctx, at, s.opt.Batch, counter)
	if err != nil {
		return rep, err
	}
	rep.TickResult = res
	rep.Claimed = counter.n
	if len(res.Created) > 0 || len(res.Expired) > 0 {
		s.opt.Wake()
	}
	for _, f := range res.Refused {
		s.notify(ctx, Notice{Owner: f.Task.Owner, Kind: KindRefused, TaskID: f.Task.ID, Status: db.TaskActive,
			Title:    "Scheduled research skipped: " + f.Task.Name,
			Body:     "The run due " + f.Slot.UTC().Format("2006-01-02 15:04 UTC") + " was not started. " + f.Reason + " The task runs again at its next slot.",
			Channels: ChannelsOf(&f.Task)})
	}
	for _, t := range res.Paused {
		s.notify(ctx, Notice{Owner: t.Owner, Kind: KindBudget, TaskID: t.ID, Status: db.TaskPaused,
			Title: "Scheduled research paused: daily budget reached",
			Body:  "Your scheduled tasks are paused until tomorrow (UTC): the daily budget for autonomous runs is used up.",
			// The budget notice goes to the inbox and to the channels of
			// the task that reached it.
			Channels: ChannelsOf(&t)})
	}
	return rep, nil
}

// countingPolicy counts the due tasks a tick decided about.
type countingPolicy struct {
	Policy
	n int
}

func (c *countingPolicy) Decide(now time.Time, d db.DueTask) db.SlotDecision {
	c.n++
	return c.Policy.Decide(now, d)
}

// noticeSettled sends what a settled run calls for under its task's
// notify policy. An auto-pause is always told (in the inbox at least).
func (s *Scheduler) noticeSettled(ctx context.Context, r db.SettledRun) {
	t := &r.Task
	ch := ChannelsOf(t)
	if t.NotifyOn == NotifyNever {
		ch = Channels{}
	}
	if r.PauseReason != "" {
		s.notify(ctx, Notice{Owner: t.Owner, Kind: KindAutoPaused, TaskID: t.ID, RunID: r.RunID, Status: db.TaskPaused,
			Title: "Task paused: " + t.Name, Body: r.PauseReason, ReportPath: "/runs/" + r.RunID, Channels: ch})
	}
	var send bool
	var changes string
	switch r.Status {
	case research.StatusDone:
		switch t.NotifyOn {
		case NotifyAlways:
			send = true
		case NotifyChange:
			send = true
			if s.opt.Changes != nil {
				changes, send = s.opt.Changes(ctx, r.RunID)
			}
		}
		if t.NotifyOn == NotifyAlways && s.opt.Changes != nil {
			changes, _ = s.opt.Changes(ctx, r.RunID)
		}
	case research.StatusFailed:
		send = t.NotifyOn == NotifyAlways || t.NotifyOn == NotifyFailure
	}
	if !send {
		return
	}
	title := "Task run finished: " + t.Name
	body := "The scheduled research finished."
	if r.Status == research.StatusFailed {
		title = "Task run failed: " + t.Name
		body = r.Error
	}
	s.notify(ctx, Notice{Owner: t.Owner, Kind: KindRunFinished, TaskID: t.ID, RunID: r.RunID, Status: string(r.Status),
		Title: title, Body: body, ReportPath: "/runs/" + r.RunID, Changes: changes, Channels: ch})
}

func (s *Scheduler) notify(ctx context.Context, n Notice) {
	if err := s.opt.Notifier.Notify(ctx, n); err != nil {
		s.log.Warn("task notice", "task_id", n.TaskID, "kind", n.Kind, "err", err)
	}
}
