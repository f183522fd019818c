package tasks

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/research"
)

// workDelay is how long a test worker takes over a run.
var workDelay time.Duration

// worker claims runs the way the pipeline's workers do and finishes each at
// once, recording when it started it.
func worker(ctx context.Context, t testing.TB, store *db.Store, wake <-chan struct{}, name string) {
	for ctx.Err() == nil {
		run, err := store.ClaimRun(ctx, name, 10*time.Second)
		if err != nil {
			if ctx.Err() == nil {
				t.Errorf("claim: %v", err)
			}
			return
		}
		if run == nil {
			select {
			case <-ctx.Done():
				return
			case <-wake:
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		if workDelay > 0 {
			time.Sleep(workDelay)
		}
		status := research.StatusDone
		if err := store.Transition(ctx, run.ID, name, db.Step{Update: db.RunUpdate{Status: &status}}); err != nil && ctx.Err() == nil {
			t.Errorf("finish run: %v", err)
		}
	}
}

// replica is one process's scheduler and workers on its own connections.
type replica struct {
	store  *db.Store
	sched  *Scheduler
	cancel context.CancelFunc
	done   sync.WaitGroup
}

func startReplica(t testing.TB, name string, workers int) *replica {
	store := dbtest.NewStore(t)
	wake := make(chan struct{}, workers)
	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{store: store, cancel: cancel}
	r.sched = NewScheduler(Options{Store: store, Policy: Policy{Grace: time.Hour, MakeRun: testRunMaker}, MaxSleep: time.Second,
		Wake: func() {
			for i := 0; i < workers; i++ {
				select {
				case wake <- struct{}{}:
				default:
				}
			}
		}})
	if err := db.ListenTasks(ctx, dbtest.URL(t), r.sched.Wake); err != nil {
		t.Fatal(err)
	}
	r.sched.Start(ctx)
	for i := 0; i < workers; i++ {
		r.done.Add(1)
		go func(i int) {
			defer r.done.Done()
			worker(ctx, t, store, wake, fmt.Sprintf("%s-w%d", name, i))
		}(i)
	}
	return r
}

func (r *replica) stop() {
	r.cancel()
	r.sched.Wait()
	r.done.Wait()
}

// slot is one slot of a task as the database recorded it: a run, or a skip
// with its reason.
type slot struct {
	At   time.Time `db:"at"`
	What string    `db:"what"`
}

// slotCoverage reads every slot of the task as a run or a skip, and fails
// the test on a slot with two entries or a gap between the first and last.
func slotCoverage(t *testing.T, store *db.Store, taskID string, every time.Duration) []slot {
	t.Helper()
	var rows []slot
	err := db.TestingDB(store).Select(&rows, `SELECT scheduled_for AS at, 'run' AS what FROM runs WHERE task_id = $1
		UNION ALL SELECT scheduled_for, reason FROM task_skips WHERE task_id = $1 ORDER BY 1`, taskID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 3 {
		t.Fatalf("only %d slots were handled", len(rows))
	}
	for i := 1; i < len(rows); i++ {
		if gap := rows[i].At.Sub(rows[i-1].At); gap != every {
			t.Errorf("slot %s (%s) then %s (%s): %s apart, want %s", rows[i-1].At, rows[i-1].What, rows[i].At, rows[i].What, gap, every)
		}
	}
	return rows
}

// Two schedulers on one database, an interval task: every slot is handled
// exactly once, and stopping one replica part-way loses none. How many
// slots run rather than skip depends on how fast the workers finish on a
// loaded machine; what must hold is that a skip is only ever the overlap
// rule's, and that the replica left alone still starts runs.
func TestTwoSchedulersEverySlotOnce(t *testing.T) {
	store := dbtest.NewStore(t)
	dbtest.Exec(t, store, `DELETE FROM runs WHERE task_id IS NOT NULL OR trigger <> ''`)
	dbtest.Exec(t, store, `DELETE FROM tasks`)
	a := startReplica(t, "a", 2)
	b := startReplica(t, "b", 2)
	f, _, err := Prepare(context.Background(), Input{Question: "status of the provider", Depth: "quick", Schedule: "every 1 second"},
		Rules{MinInterval: time.Second}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	task, err := store.CreateTask(context.Background(), "replicas", f, 0)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	a.stop() // one replica goes away; the other carries on alone
	alone := time.Now()
	// Wait for the replica left alone to start a run, rather than for a
	// fixed time: on a loaded machine the workers may still be busy with
	// the runs started before a stopped, and the overlap rule then skips.
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		var n int
		if err := db.TestingDB(store).Get(&n, `SELECT count(*) FROM runs WHERE task_id = $1 AND scheduled_for > $2`, task.ID, alone); err != nil {
			t.Fatal(err)
		}
		if n > 0 && time.Since(alone) >= 3*time.Second {
			break
		}
	}
	if _, err := store.PauseTask(context.Background(), task.ID, "test over"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // let the last run finish
	b.stop()
	rows := slotCoverage(t, store, task.ID, time.Second)
	runs, runsAlone := 0, 0
	for _, r := range rows {
		switch {
		case r.What == "run":
			runs++
			if r.At.After(alone) {
				runsAlone++
			}
		case r.What != SkipStillRunning && r.What != SkipPassed:
			t.Errorf("slot %s: %q; only the overlap rule should skip here", r.At, r.What)
		}
	}
	t.Logf("%d slots: %d run (%d with one replica), %d skipped", len(rows), runs, runsAlone, len(rows)-runs)
	if len(rows) < 5 {
		t.Errorf("only %d slots handled in 6 s or more of a 1 s task", len(rows))
	}
	if runsAlone == 0 {
		t.Errorf("no run started after replica a stopped")
	}
}

// BenchmarkSchedulerLatency measures, over 100 slots (10 tasks due every
// second, 10 slots each), the time from a slot's due time to the start of
// its run by a worker (p50_ms, p99_ms) and to the run's creation by the
// scheduler (created_*), with two replicas sharing the work and a cap of 4
// scheduled runs at once.
//
//	go test -run '^$' -bench SchedulerLatency -benchtime 1x ./tasks/
func BenchmarkSchedulerLatency(b *testing.B) {
	for i := 0; i < b.N; i++ {
		store := dbtest.NewStore(b)
		dbtest.Exec(b, store, `DELETE FROM runs WHERE task_id IS NOT NULL OR trigger <> ''`)
		dbtest.Exec(b, store, `DELETE FROM tasks`)
		store.SetTaskConcurrency(0)
		r1 := startReplica(b, "a", 3)
		r2 := startReplica(b, "b", 3)
		r1.store.SetTaskConcurrency(4)
		r2.store.SetTaskConcurrency(4)
		var ids []string
		for k := 0; k < 10; k++ {
			f, _, err := Prepare(context.Background(), Input{Question: fmt.Sprintf("question %d", k), Depth: "quick", Schedule: "every 1 second"},
				Rules{MinInterval: time.Second}, time.Now())
			if err != nil {
				b.Fatal(err)
			}
			task, err := store.CreateTask(context.Background(), "bench", f, 0)
			if err != nil {
				b.Fatal(err)
			}
			ids = append(ids, task.ID)
		}
		var lat []float64
		deadline := time.Now().Add(40 * time.Second)
		for len(lat) < 100 && time.Now().Before(deadline) {
			time.Sleep(500 * time.Millisecond)
			lat = lat[:0]
			err := db.TestingDB(store).Select(&lat, `SELECT extract(epoch FROM started_at - scheduled_for) * 1000 FROM runs
				WHERE task_id = ANY($1) AND started_at IS NOT NULL ORDER BY scheduled_for LIMIT 100`, pqArray(ids))
			if err != nil {
				b.Fatal(err)
			}
		}
		var created []float64
		err := db.TestingDB(store).Select(&created, `SELECT extract(epoch FROM created_at - scheduled_for) * 1000 FROM runs
			WHERE task_id = ANY($1) AND started_at IS NOT NULL ORDER BY scheduled_for LIMIT 100`, pqArray(ids))
		if err != nil {
			b.Fatal(err)
		}
		sort.Float64s(created)
		if len(created) >= 100 {
			b.ReportMetric(created[49], "created_p50_ms")
			b.ReportMetric(created[98], "created_p99_ms")
		}
		for _, id := range ids {
			store.PauseTask(context.Background(), id, "bench over")
		}
		r1.stop()
		r2.stop()
		if len(lat) < 100 {
			b.Fatalf("only %d slots started in time", len(lat))
		}
		sort.Float64s(lat)
		b.ReportMetric(lat[49], "p50_ms")
		b.ReportMetric(lat[98], "p99_ms")
		b.ReportMetric(lat[99], "max_ms")
	}
}

func pqArray(ids []string) any { return pq.StringArray(ids) }

// A person's run is claimed before scheduled ones, and scheduled runs stay
// under the cluster-wide cap while they hold leases.
func TestScheduledRunsYieldToInteractive(t *testing.T) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	r := newRig(t, start, Policy{Grace: time.Hour})
	dbtest.Exec(t, r.store, `UPDATE runs SET status = 'done' WHERE status NOT IN ('done', 'failed', 'cancelled')`)
	r.store.SetTaskConcurrency(1)
	ctx := context.Background()
	r.create(t, "cap", Input{Schedule: "every hour"})
	r.create(t, "cap", Input{Schedule: "every hour"})
	r.clock.Set(start.Add(time.Hour))
	if rep := r.tick(t); len(rep.Created) != 2 {
		t.Fatalf("created %v", rep.Created)
	}
	person, err := r.store.CreateRun(ctx, db.NewRun{Question: "a person's question", Depth: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	first, err := r.store.ClaimRun(ctx, "w1", time.Minute)
	if err != nil || first == nil || first.ID != person.ID {
		t.Fatalf("first claim = %+v, %v; want the person's run", first, err)
	}
	second, err := r.store.ClaimRun(ctx, "w2", time.Minute)
	if err != nil || second == nil || second.ID == person.ID {
		t.Fatalf("second claim = %+v, %v; want a scheduled run", second, err)
	}
	third, err := r.store.ClaimRun(ctx, "w3", time.Minute)
	if err != nil || third != nil {
		t.Fatalf("third claim = %+v, %v; want none (the cap is 1 scheduled run)", third, err)
	}
	dbtest.Exec(t, r.store, `UPDATE runs SET status = 'done', lease_owner = NULL, lease_expires_at = NULL WHERE id = $1`, second.ID)
	fourth, err := r.store.ClaimRun(ctx, "w4", time.Minute)
	if err != nil || fourth == nil || fourth.ID == second.ID {
		t.Fatalf("after the scheduled run ended: %+v, %v; want the other scheduled run", fourth, err)
	}
	dbtest.Exec(t, r.store, `UPDATE runs SET status = 'done' WHERE status NOT IN ('done', 'failed', 'cancelled')`)
}
