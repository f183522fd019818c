package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/research"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Run(m)) }

// recorder is a Notifier that keeps what it was told.
type recorder struct {
	mu      sync.Mutex
	notices []Notice
}

func (r *recorder) Notify(_ context.Context, n Notice) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notices = append(r.notices, n)
	return nil
}

func (r *recorder) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, n := range r.notices {
		out = append(out, n.Kind)
	}
	return out
}

// fakeClock is the injected clock of the scheduler tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

func testRunMaker(t *db.Task, review bool) (db.NewRun, error) {
	opts, _ := json.Marshal(map[string]any{"review": review, "engines": t.Engines})
	return db.NewRun{Question: t.Question, Depth: t.Depth, Options: opts}, nil
}

type rig struct {
	store *db.Store
	clock *fakeClock
	notes *recorder
	sched *Scheduler
}

// newRig starts from a database without tasks, with a scheduler on an
// injected clock.
func newRig(t *testing.T, start time.Time, policy Policy) *rig {
	t.Helper()
	store := dbtest.NewStore(t)
	dbtest.Exec(t, store, `DELETE FROM runs WHERE task_id IS NOT NULL OR trigger <> ''`)
	dbtest.Exec(t, store, `DELETE FROM tasks`)
	if policy.MakeRun == nil {
		policy.MakeRun = testRunMaker
	}
	r := &rig{store: store, clock: &fakeClock{now: start}, notes: &recorder{}}
	r.sched = NewScheduler(Options{Store: store, Policy: policy, Notifier: r.notes, Clock: r.clock.Now})
	return r
}

func (r *rig) create(t *testing.T, owner string, in Input) *db.Task {
	t.Helper()
	if in.Question == "" {
		in.Question = "what changed in the release notes"
	}
	in.Depth = "quick"
	f, _, err := Prepare(context.Background(), in, Rules{MinInterval: time.Second}, r.clock.Now())
	if err != nil {
		t.Fatalf("prepare %+v: %v", in, err)
	}
	task, err := r.store.CreateTask(context.Background(), owner, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func (r *rig) tick(t *testing.T) TickReport {
	t.Helper()
	rep, err := r.sched.Tick(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// finishAll ends every unfinished run of the task with status.
func (r *rig) finishAll(t *testing.T, taskID string, status research.RunStatus, msg string) {
	t.Helper()
	dbtest.Exec(t, r.store, `UPDATE runs SET status = $2, error = $3, finished_at = now(), lease_owner = NULL, lease_expires_at = NULL
		WHERE task_id = $1 AND status NOT IN ('done', 'failed', 'cancelled')`, taskID, status, msg)
}

func (r *rig) slots(t *testing.T, taskID string) []time.Time {
	t.Helper()
	runs, err := r.store.TaskRuns(context.Background(), taskID, 500)
	if err != nil {
		t.Fatal(err)
	}
	var out []time.Time
	for i := len(runs) - 1; i >= 0; i-- {
		out = append(out, runs[i].ScheduledFor.Time.UTC())
	}
	return out
}

func (r *rig) task(t *testing.T, id string) *db.Task {
	t.Helper()
	task, err := r.store.GetTask(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// walk ticks every step from the clock's time to end, finishing each run
// as done right away.
func (r *rig) walk(t *testing.T, taskID string, end time.Time, step time.Duration) {
	t.Helper()
	for now := r.clock.Now(); !now.After(end); now = now.Add(step) {
		r.clock.Set(now)
		r.tick(t)
		r.finishAll(t, taskID, research.StatusDone, "")
	}
}

func TestSchedulerFallBackDayFiresOnce(t *testing.T) {
	ny := zone(t, "America/New_York")
	r := newRig(t, time.Date(2026, 10, 31, 12, 0, 0, 0, ny), Policy{Grace: time.Hour})
	task := r.create(t, "dst", Input{Schedule: "daily at 1:30am", Timezone: "America/New_York"})
	r.walk(t, task.ID, time.Date(2026, 11, 2, 12, 0, 0, 0, ny), 10*time.Minute)
	got := r.slots(t, task.ID)
	want := []time.Time{time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC), time.Date(2026, 11, 2, 6, 30, 0, 0, time.UTC)}
	if len(got) != len(want) || !got[0].Equal(want[0]) || !got[1].Equal(want[1]) {
		t.Fatalf("slots run = %v, want %v (one on the fall-back day)", got, want)
	}
}

func TestSchedulerSpringForwardShifts(t *testing.T) {
	ny := zone(t, "America/New_York")
	r := newRig(t, time.Date(2026, 3, 7, 12, 0, 0, 0, ny), Policy{Grace: time.Hour})
	task := r.create(t, "dst", Input{Schedule: "30 2 * * *", Timezone: "America/New_York"})
	r.walk(t, task.ID, time.Date(2026, 3, 8, 12, 0, 0, 0, ny), 10*time.Minute)
	got := r.slots(t, task.ID)
	if want := time.Date(2026, 3, 8, 7, 30, 0, 0, time.UTC); len(got) != 1 || !got[0].Equal(want) {
		t.Fatalf("slots run = %v, want [%s] (03:30 EDT, the instant 02:30 shifts to)", got, want)
	}
}

func TestSchedulerPauseResume(t *testing.T) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	r := newRig(t, start, Policy{Grace: time.Hour})
	task := r.create(t, "pr", Input{Schedule: "every 10 minutes"})
	ctx := context.Background()
	if ok, err := r.store.PauseTask(ctx, task.ID, "paused by owner"); err != nil || !ok {
		t.Fatalf("pause: %v %v", ok, err)
	}
	r.walk(t, task.ID, start.Add(time.Hour), 5*time.Minute)
	if got := r.slots(t, task.ID); len(got) != 0 {
		t.Fatalf("a paused task ran: %v", got)
	}
	resumeAt := start.Add(time.Hour + 3*time.Minute)
	resumed, err := r.store.ResumeTask(ctx, task.ID, resumeAt, func(now time.Time, t *db.Task) time.Time { return NextFrom(t, now) })
	if err != nil {
		t.Fatal(err)
	}
	if want := resumeAt.Add(10 * time.Minute); resumed.Status != db.TaskActive || !resumed.NextRunAt.Time.Equal(want) {
		t.Fatalf("resumed = %s next %s, want active next %s (from now, not the missed slots)", resumed.Status, resumed.NextRunAt.Time, want)
	}
	r.clock.Set(resumeAt)
	r.walk(t, task.ID, resumeAt.Add(25*time.Minute), time.Minute)
	if got := r.slots(t, task.ID); len(got) != 2 || !got[0].Equal(resumeAt.Add(10*time.Minute)) {
		t.Fatalf("after resume ran %v", got)
	}
}

func TestSchedulerAutoPauseAfterThreeFailures(t *testing.T) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	r := newRig(t, start, Policy{Grace: time.Hour})
	task := r.create(t, "fail", Input{Schedule: "every 10 minutes", NotifyOn: "never", WebhookURL: "https://hooks.example.com/x"})
	fail := func(n int) {
		for i := 0; i < n; i++ {
			r.clock.Set(r.clock.Now().Add(10 * time.Minute))
			r.tick(t)
			r.finishAll(t, task.ID, research.StatusFailed, "search engine unreachable")
		}
		r.tick(t) // settles the last one
	}
	fail(2)
	// A success in between resets the count; a cancelled run leaves it.
	r.clock.Set(r.clock.Now().Add(10 * time.Minute))
	r.tick(t)
	r.finishAll(t, task.ID, research.StatusDone, "")
	r.tick(t)
	if got := r.task(t, task.ID).ConsecutiveFailures; got != 0 {
		t.Fatalf("failures after a success = %d", got)
	}
	fail(2)
	r.clock.Set(r.clock.Now().Add(10 * time.Minute))
	r.tick(t)
	r.finishAll(t, task.ID, research.StatusCancelled, "cancelled by user")
	r.tick(t)
	if got := r.task(t, task.ID); got.ConsecutiveFailures != 2 || got.Status != db.TaskActive {
		t.Fatalf("after a cancel: %d failures, %s", got.ConsecutiveFailures, got.Status)
	}
	fail(1)
	got := r.task(t, task.ID)
	if got.Status != db.TaskPaused || !strings.Contains(got.PausedReason, "3 consecutive failures") ||
		!strings.Contains(got.PausedReason, "search engine unreachable") || got.NextRunAt.Valid {
		t.Fatalf("after 3 failures: status %s reason %q next %v", got.Status, got.PausedReason, got.NextRunAt)
	}
	kinds := r.notes.kinds()
	if len(kinds) != 1 || kinds[0] != KindAutoPaused {
		t.Fatalf("notices = %v, want one %s (notify=never sends nothing else)", kinds, KindAutoPaused)
	}
	if ch := r.notes.notices[0].Channels; ch.WebhookURL != "" {
		t.Errorf("notify=never sent the pause to the webhook: %+v", ch)
	}
	// Paused: further slots do not run.
	n := len(r.slots(t, task.ID))
	r.walk(t, task.ID, r.clock.Now().Add(time.Hour), 10*time.Minute)
	if len(r.slots(t, task.ID)) != n {
		t.Fatal("a paused task ran")
	}
}

func TestSchedulerApprovalExpires(t *testing.T) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	r := newRig(t, start, Policy{Grace: time.Hour})
	task := r.create(t, "appr", Input{Schedule: "every hour", Approval: "always"})
	r.clock.Set(start.Add(time.Hour))
	rep := r.tick(t)
	if len(rep.Created) != 1 {
		t.Fatalf("created %v", rep.Created)
	}
	first := rep.Created[0]
	var opts string
	dbtest.Get(t, r.store, &opts, `SELECT options::text FROM runs WHERE id = $1`, first)
	if !strings.Contains(opts, `"review": true`) {
		t.Fatalf("an always-approval run does not stop for review: %s", opts)
	}
	// The pipeline plans it and stops for approval.
	dbtest.Exec(t, r.store, `UPDATE runs SET status = 'awaiting_approval' WHERE id = $1`, first)
	pending, err := r.store.PendingTaskApprovals(context.Background(), "appr", false)
	if err != nil || len(pending) != 1 || pending[0].RunID != first {
		t.Fatalf("pending approvals = %+v, %v", pending, err)
	}
	r.clock.Set(start.Add(2 * time.Hour))
	rep = r.tick(t)
	if len(rep.Expired) != 1 || rep.Expired[0] != first || len(rep.Created) != 1 {
		t.Fatalf("next slot: expired %v created %v", rep.Expired, rep.Created)
	}
	run, err := r.store.GetRun(context.Background(), first)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != research.StatusCancelled || run.StopReason != "expired" {
		t.Fatalf("expired run: %s %q", run.Status, run.StopReason)
	}
	// Expired is not a failure.
	r.tick(t)
	if got := r.task(t, task.ID).ConsecutiveFailures; got != 0 {
		t.Fatalf("an expired approval counted as a failure: %d", got)
	}
}

func TestSchedulerApprovalFirstOnly(t *testing.T) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	r := newRig(t, start, Policy{Grace: time.Hour})
	task := r.create(t, "first", Input{Schedule: "every hour", Approval: "first"})
	var reviews []string
	for i := 1; i <= 2; i++ {
		r.clock.Set(start.Add(time.Duration(i) * time.Hour))
		rep := r.tick(t)
		var opts string
		dbtest.Get(t, r.store, &opts, `SELECT options->>'review' FROM runs WHERE id = $1`, rep.Created[0])
		reviews = append(reviews, opts)
		r.finishAll(t, task.ID, research.StatusDone, "")
	}
	if reviews[0] != "true" || reviews[1] != "false" {
		t.Fatalf("review per run = %v, want [true false]", reviews)
	}
}

func TestSchedulerGraceWindow(t *testing.T) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	r := newRig(t, start, Policy{Grace: time.Hour})
	late := r.create(t, "grace", Input{Schedule: "every 2 hours"})
	// Down for 4.5 hours: slots 11:00 and 13:00 missed; 13:00 is 30 m old.
	r.clock.Set(start.Add(4*time.Hour + 30*time.Minute))
	rep := r.tick(t)
	got := r.slots(t, late.ID)
	if len(rep.Created) != 1 || len(got) != 1 || !got[0].Equal(start.Add(4*time.Hour)) {
		t.Fatalf("after downtime ran %v, want once, the 13:00 slot", got)
	}
	if next := r.task(t, late.ID).NextRunAt.Time; !next.Equal(start.Add(6 * time.Hour)) {
		t.Fatalf("next = %s", next)
	}
	r.finishAll(t, late.ID, research.StatusDone, "")
	// Down past the grace: 15:00 is 90 m old at 16:30 — recorded, not run.
	r.clock.Set(start.Add(7*time.Hour + 30*time.Minute))
	rep = r.tick(t)
	if len(rep.Created) != 0 || rep.Skipped != 1 {
		t.Fatalf("beyond grace: created %v skipped %d", rep.Created, rep.Skipped)
	}
	skips, _ := r.store.TaskSkips(context.Background(), late.ID, 10)
	// Newest first: 15:00 beyond the grace, and 11:00, passed over by the
	// first tick after the downtime for 13:00.
	if len(skips) != 2 || skips[0].Reason != SkipMissed || skips[1].Reason != SkipPassed ||
		!skips[1].ScheduledFor.Equal(start.Add(2*time.Hour)) {
		t.Fatalf("skips = %+v", skips)
	}
}

func TestSchedulerSkipsWhileStillRunning(t *testing.T) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	r := newRig(t, start, Policy{Grace: time.Hour})
	task := r.create(t, "busy", Input{Schedule: "every 10 minutes"})
	r.clock.Set(start.Add(10 * time.Minute))
	r.tick(t)
	r.clock.Set(start.Add(20 * time.Minute)) // the first run is still queued
	rep := r.tick(t)
	if len(rep.Created) != 0 || rep.Skipped != 1 {
		t.Fatalf("created %v skipped %d", rep.Created, rep.Skipped)
	}
	skips, _ := r.store.TaskSkips(context.Background(), task.ID, 10)
	if len(skips) != 1 || skips[0].Reason != SkipStillRunning || !skips[0].ScheduledFor.Equal(start.Add(20*time.Minute)) {
		t.Fatalf("skips = %+v", skips)
	}
}

func TestSchedulerBudgetPause(t *testing.T) {
	start := time.Date(2026, 5, 1, 22, 0, 0, 0, time.UTC)
	r := newRig(t, start, Policy{Grace: time.Hour, DailyRuns: 2})
	a := r.create(t, "budget", Input{Schedule: "every 30 minutes"})
	b := r.create(t, "budget", Input{Schedule: "every hour", WebhookURL: "https://hooks.example.com/b"})
	other := r.create(t, "someone-else", Input{Schedule: "every 30 minutes"})
	for now := start; now.Before(start.Add(90 * time.Minute)); now = now.Add(10 * time.Minute) {
		r.clock.Set(now)
		r.tick(t)
		for _, id := range []string{a.ID, b.ID, other.ID} {
			r.finishAll(t, id, research.StatusDone, "")
		}
	}
	total := len(r.slots(t, a.ID)) + len(r.slots(t, b.ID))
	if total != 2 {
		t.Fatalf("the owner's scheduled runs = %d, want the daily cap 2", total)
	}
	for _, id := range []string{a.ID, b.ID} {
		got := r.task(t, id)
		if got.Status != db.TaskPaused || !strings.Contains(got.PausedReason, "daily budget") ||
			!got.PausedUntil.Time.Equal(time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("task %s: %s %q until %v", id, got.Status, got.PausedReason, got.PausedUntil)
		}
	}
	if got := r.task(t, other.ID); got.Status != db.TaskActive || len(r.slots(t, other.ID)) != 2 {
		t.Fatalf("another owner's task was held back: %s, %d runs", got.Status, len(r.slots(t, other.ID)))
	}
	budgetNotices := 0
	for _, k := range r.notes.kinds() {
		if k == KindBudget {
			budgetNotices++
		}
	}
	if budgetNotices != 1 {
		t.Fatalf("notices = %v, want one %s", r.notes.kinds(), KindBudget)
	}
	// The next day (UTC) the tasks resume from then.
	r.clock.Set(time.Date(2026, 5, 2, 0, 5, 0, 0, time.UTC))
	rep := r.tick(t)
	if rep.Resumed != 2 {
		t.Fatalf("resumed %d", rep.Resumed)
	}
	if got := r.task(t, a.ID); got.Status != db.TaskActive || !got.NextRunAt.Time.Equal(time.Date(2026, 5, 2, 0, 35, 0, 0, time.UTC)) {
		t.Fatalf("after the day turned: %s next %v", got.Status, got.NextRunAt)
	}
}

func TestSchedulerOnceCompletes(t *testing.T) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	r := newRig(t, start, Policy{Grace: time.Hour})
	task := r.create(t, "once", Input{Schedule: "in 2 hours"})
	r.walk(t, task.ID, start.Add(5*time.Hour), 30*time.Minute)
	if got := r.slots(t, task.ID); len(got) != 1 || !got[0].Equal(start.Add(2*time.Hour)) {
		t.Fatalf("one-shot ran %v", got)
	}
	if got := r.task(t, task.ID); got.Status != db.TaskCompleted || got.NextRunAt.Valid {
		t.Fatalf("one-shot after its run: %s %v", got.Status, got.NextRunAt)
	}
}

// The notify policy decides which finished runs are told.
func TestSchedulerNotifyPolicy(t *testing.T) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	r := newRig(t, start, Policy{Grace: time.Hour})
	changed := map[string]bool{}
	r.sched.opt.Changes = func(_ context.Context, runID string) (string, bool) {
		if changed[runID] {
			return "1 changed fact", true
		}
		return "", false
	}
	task := r.create(t, "notify", Input{Schedule: "every hour", NotifyOn: "change", Email: "ops@example.com"})
	for i := 1; i <= 2; i++ {
		r.clock.Set(start.Add(time.Duration(i) * time.Hour))
		rep := r.tick(t)
		changed[rep.Created[0]] = i == 2
		r.finishAll(t, task.ID, research.StatusDone, "")
	}
	r.tick(t)
	r.notes.mu.Lock()
	defer r.notes.mu.Unlock()
	if len(r.notes.notices) != 1 {
		t.Fatalf("notices = %+v, want one for the changed run", r.notes.notices)
	}
	n := r.notes.notices[0]
	if n.Kind != KindRunFinished || n.Changes != "1 changed fact" || n.Channels.Email != "ops@example.com" ||
		n.Owner != "notify" || n.ReportPath != "/runs/"+n.RunID {
		t.Fatalf("notice = %+v", n)
	}
}

// cancellingPolicy decides like the real one, then kills its own tick's
// transaction (the replica dies mid-tick).
type cancellingPolicy struct {
	Policy
	cancel context.CancelFunc
}

func (p cancellingPolicy) Decide(now time.Time, d db.DueTask) db.SlotDecision {
	dec := p.Policy.Decide(now, d)
	p.cancel()
	return dec
}

// A tick that dies after claiming the task leaves nothing behind; the next
// tick, on any replica, runs the slot once.
func TestSchedulerTickDiesMidway(t *testing.T) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	r := newRig(t, start, Policy{Grace: time.Hour})
	task := r.create(t, "crash", Input{Schedule: "every 10 minutes"})
	slot := start.Add(10 * time.Minute)
	r.clock.Set(slot.Add(time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	_, err := r.store.TickTasks(ctx, r.clock.Now(), 10, cancellingPolicy{Policy{Grace: time.Hour, MakeRun: testRunMaker}, cancel})
	if err == nil {
		t.Fatal("the dying tick committed")
	}
	if got := r.slots(t, task.ID); len(got) != 0 {
		t.Fatalf("the dying tick left runs: %v", got)
	}
	if next := r.task(t, task.ID).NextRunAt.Time; !next.Equal(slot) {
		t.Fatalf("the dying tick moved the task on to %s", next)
	}
	// The dying tick's transaction is rolled back on its own after the
	// cancel (database/sql does it in the background), and until then
	// its row lock makes a tick skip the task (SKIP LOCKED): tick until
	// the slot is made, then once more, which must not make it again.
	for deadline := time.Now().Add(10 * time.Second); len(r.slots(t, task.ID)) == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		r.tick(t)
	}
	r.tick(t)
	if got := r.slots(t, task.ID); len(got) != 1 || !got[0].Equal(slot) {
		t.Fatalf("after the next ticks: %v, want the slot once", got)
	}
}

// manualRun stores a "Run now" of the task as the handlers do, on the
// rig's clock.
func (r *rig) manualRun(t *testing.T, task *db.Task, p Policy) error {
	t.Helper()
	nr, err := testRunMaker(task, ManualReview(task))
	if err != nil {
		t.Fatal(err)
	}
	nr.Owner = task.Owner
	_, err = r.store.CreateTaskRun(context.Background(), task.ID, nr, r.clock.Now(), p.AllowManual)
	return err
}

func TestSchedulerRunNowCountsTowardBudget(t *testing.T) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	policy := Policy{Grace: time.Hour, DailyRuns: 2}
	r := newRig(t, start, policy)
	task := r.create(t, "manual", Input{Schedule: "every hour"})
	for i := 0; i < 2; i++ {
		if err := r.manualRun(t, task, policy); err != nil {
			t.Fatalf("run now #%d: %v", i+1, err)
		}
		r.finishAll(t, task.ID, research.StatusDone, "")
	}
	if err := r.manualRun(t, task, policy); !errors.Is(err, ErrDailyBudget) {
		t.Fatalf("a third run now = %v, want %v", err, ErrDailyBudget)
	}
	// The scheduler's own tally counts the two: the 10:00 slot is over
	// the budget and the owner's tasks pause until the next day.
	r.clock.Set(start.Add(time.Hour))
	rep := r.tick(t)
	if len(rep.Created) != 0 || len(rep.Paused) != 1 {
		t.Fatalf("slot after two runs now: created %v paused %d", rep.Created, len(rep.Paused))
	}
	if got := r.task(t, task.ID); got.Status != db.TaskPaused || !strings.Contains(got.PausedReason, "2 task runs") {
		t.Fatalf("task %s %q, want paused by the budget", got.Status, got.PausedReason)
	}
}

func TestSchedulerApprovalFirstIgnoresRunNow(t *testing.T) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	r := newRig(t, start, Policy{Grace: time.Hour})
	task := r.create(t, "first-manual", Input{Schedule: "every hour", Approval: "first"})
	if err := r.manualRun(t, task, Policy{}); err != nil {
		t.Fatal(err)
	}
	var manualReview string
	dbtest.Get(t, r.store, &manualReview, `SELECT options->>'review' FROM runs WHERE task_id = $1`, task.ID)
	r.finishAll(t, task.ID, research.StatusDone, "")
	r.clock.Set(start.Add(time.Hour))
	rep := r.tick(t)
	if len(rep.Created) != 1 {
		t.Fatalf("created %v", rep.Created)
	}
	var scheduledReview string
	dbtest.Get(t, r.store, &scheduledReview, `SELECT options->>'review' FROM runs WHERE id = $1`, rep.Created[0])
	if manualReview != "false" || scheduledReview != "true" {
		t.Fatalf("review: run now %s, first scheduled %s; want false, true", manualReview, scheduledReview)
	}
}

// TestSchedulerSettleSkipsATaskLocked: a finished run whose task another
// replica holds (ticking it) is settled on a later tick, not waited for.
func TestSchedulerSettleSkipsATaskLocked(t *testing.T) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	r := newRig(t, start, Policy{Grace: time.Hour})
	task := r.create(t, "locked", Input{Schedule: "every hour"})
	r.clock.Set(start.Add(time.Hour))
	r.tick(t)
	r.finishAll(t, task.ID, research.StatusDone, "")

	other, err := db.TestingDB(r.store).BeginTxx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback()
	if _, err := other.Exec(`SELECT 1 FROM tasks WHERE id = $1 FOR UPDATE`, task.ID); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rep, err := r.sched.Tick(ctx)
	if err != nil || len(rep.Settled) != 0 {
		t.Fatalf("tick while the task is held: %v, settled %d (want none, without waiting)", err, len(rep.Settled))
	}
	other.Rollback()
	if rep := r.tick(t); len(rep.Settled) != 1 {
		t.Fatalf("after the hold ended settled %d, want 1", len(rep.Settled))
	}
}
