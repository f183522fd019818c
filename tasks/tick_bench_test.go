package tasks

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db/dbtest"
)

// BenchmarkSchedulerTick times one tick that claims 50 due tasks of 5
// owners, over a runs table holding a year of their history (36,500 runs)
// and 20,000 runs of people: the work a tick does per task and per owner,
// and whether its reads find indexes.
func BenchmarkSchedulerTick(b *testing.B) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	store := dbtest.NewStore(b)
	dbtest.Exec(b, store, `DELETE FROM runs WHERE task_id IS NOT NULL OR trigger <> ''`)
	dbtest.Exec(b, store, `DELETE FROM tasks`)
	clock := &fakeClock{now: start}
	sched := NewScheduler(Options{Store: store, Policy: Policy{Grace: time.Hour, DailyRuns: 1000000, MakeRun: testRunMaker}, Clock: clock.Now})
	var ids []string
	for k := 0; k < 50; k++ {
		f, _, err := Prepare(context.Background(), Input{Question: fmt.Sprintf("question %d", k), Depth: "quick", Schedule: "every minute"},
			Rules{MinInterval: time.Second}, start)
		if err != nil {
			b.Fatal(err)
		}
		task, err := store.CreateTask(context.Background(), fmt.Sprintf("owner-%d", k%5), f, 0)
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, task.ID)
	}
	// History: two runs a day for a year per task, finished and settled;
	// and people's own runs.
	dbtest.Exec(b, store, `INSERT INTO runs (question, depth, owner, task_id, trigger, scheduled_for, created_at, status, finished_at, task_settled_at)
		SELECT 'q', 'quick', t.owner, t.id, 'schedule', $1::timestamptz - d * interval '12 hours', $1::timestamptz - d * interval '12 hours',
			'done', $1::timestamptz - d * interval '12 hours', $1::timestamptz
		FROM tasks t, generate_series(1, 730) d`, start)
	dbtest.Exec(b, store, `INSERT INTO runs (question, depth, owner, created_at, status, finished_at)
		SELECT 'q', 'quick', 'owner-' || (d % 5), $1::timestamptz - d * interval '1 minute', 'done', $1::timestamptz
		FROM generate_series(1, 20000) d`, start)
	dbtest.Exec(b, store, `ANALYZE runs`)
	dbtest.Exec(b, store, `ANALYZE tasks`)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		clock.Set(start.Add(time.Duration(i+1) * time.Minute))
		dbtest.Exec(b, store, `UPDATE runs SET status = 'done', finished_at = $2, task_settled_at = $2
			WHERE task_id = ANY($1) AND status <> 'done'`, pqArray(ids), clock.Now())
		b.StartTimer()
		rep, err := sched.Tick(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if rep.Claimed != 50 || len(rep.Created) != 50 {
			b.Fatalf("tick %d claimed %d, created %d", i, rep.Claimed, len(rep.Created))
		}
	}
}
