package tasks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
)

// A due slot whose owner is at the admission cap is skipped, with the
// refusal as its reason and a notice, instead of queuing a run over the
// cap; once the owner's run ends, the next slot runs.
func TestSchedulerObeysAdmission(t *testing.T) {
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	r := newRig(t, start, Policy{Grace: time.Hour, Admission: &db.Admission{MaxActive: 1}})
	owner := "admission-" + strings.ReplaceAll(t.Name(), "/", "-")
	task := r.create(t, owner, Input{Schedule: "every 10 minutes"})
	// The owner's own question is in progress: their one place is taken.
	busy, err := r.store.CreateRun(context.Background(), db.NewRun{Question: "a question asked by hand", Depth: "quick", Owner: owner})
	if err != nil {
		t.Fatal(err)
	}
	r.clock.Set(start.Add(10 * time.Minute))
	rep := r.tick(t)
	if len(rep.Created) != 0 || rep.Skipped != 1 || len(rep.Refused) != 1 {
		t.Fatalf("at the cap: created %v skipped %d refused %d", rep.Created, rep.Skipped, len(rep.Refused))
	}
	skips, _ := r.store.TaskSkips(context.Background(), task.ID, 10)
	if len(skips) != 1 || !strings.Contains(skips[0].Reason, "1 runs in progress") {
		t.Fatalf("skips = %+v, want the refusal as the reason", skips)
	}
	if kinds := r.notes.kinds(); len(kinds) != 1 || kinds[0] != KindRefused {
		t.Fatalf("notices %v, want one %s", kinds, KindRefused)
	}
	if got := r.task(t, task.ID); got.Status != db.TaskActive || !got.NextRunAt.Valid {
		t.Fatalf("the task stopped: %s", got.Status)
	}
	dbtest.Exec(t, r.store, `UPDATE runs SET status = 'done' WHERE id = $1`, busy.ID)
	r.clock.Set(start.Add(20 * time.Minute))
	if rep := r.tick(t); len(rep.Created) != 1 {
		t.Fatalf("after the run ended: created %v", rep.Created)
	}
}
