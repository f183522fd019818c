package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/research"
)

// TestTransition: a step commits its checkpoint, run update and events
// together for the worker that holds the run, and nothing for one that
// does not; subscribers hear of the events only after the commit.
func TestTransition(t *testing.T) {
	ctx := context.Background()
	s := dbtest.NewStore(t)
	run := createRun(t, s, "transition question")
	claimed, err := s.ClaimRunByID(ctx, run.ID, "worker-a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := s.Broker().Subscribe(ctx, run.ID, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()

	status := research.StatusGathering
	applied := false
	err = s.Transition(ctx, claimed.ID, "worker-a", db.Step{
		Stage:  "gather",
		State:  map[string]any{"stage": "gather", "batch": 1},
		Update: db.RunUpdate{Status: &status},
		Apply: func(ctx context.Context, tx *db.Tx) error {
			applied = true
			return nil
		},
		Events: []db.NewEvent{{Type: research.EventStageStarted, Payload: research.StagePayload{Stage: "gather", Status: status}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cur, err := s.GetRun(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := s.LatestCheckpoint(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Status != status || cp.Stage != "gather" || !applied {
		t.Errorf("after the step: status %s, checkpoint %s, applied %v", cur.Status, cp.Stage, applied)
	}
	select {
	case ev := <-sub.C:
		if ev.Type != research.EventStageStarted || ev.Seq != cur.LastSeq {
			t.Errorf("subscriber got %s #%d, want %s #%d", ev.Type, ev.Seq, research.EventStageStarted, cur.LastSeq)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the step's event never reached the subscriber")
	}

	// Another worker, a failed check and a failed hook write nothing.
	failed := errors.New("hook failed")
	for name, c := range map[string]struct {
		owner string
		step  db.Step
		want  error
	}{
		"other worker": {"worker-b", db.Step{}, db.ErrLeaseLost},
		"check":        {"", db.Step{Check: func(*db.Run) error { return failed }}, failed},
		"hook":         {"worker-a", db.Step{Apply: func(context.Context, *db.Tx) error { return failed }}, failed},
	} {
		done := research.StatusDone
		c.step.Stage, c.step.State = "done", map[string]any{"stage": "done"}
		c.step.Update = db.RunUpdate{Status: &done}
		c.step.Events = []db.NewEvent{{Type: research.EventRunCompleted}}
		if err := s.Transition(ctx, run.ID, c.owner, c.step); !errors.Is(err, c.want) {
			t.Errorf("%s: err %v, want %v", name, err, c.want)
		}
	}
	after, _ := s.GetRun(ctx, run.ID)
	cp, _ = s.LatestCheckpoint(ctx, run.ID)
	if after.Status != status || after.LastSeq != cur.LastSeq || cp.Stage != "gather" {
		t.Errorf("a refused step wrote: status %s, last seq %d (was %d), checkpoint %s", after.Status, after.LastSeq, cur.LastSeq, cp.Stage)
	}

	// A finished run is nobody's to write to, even its last holder's.
	cancelled := research.StatusCancelled
	if err := s.Transition(ctx, run.ID, "", db.Step{Update: db.RunUpdate{Status: &cancelled}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Transition(ctx, run.ID, "worker-a", db.Step{Events: []db.NewEvent{{Type: "tick"}}}); !errors.Is(err, db.ErrLeaseLost) {
		t.Errorf("write to a cancelled run: %v, want ErrLeaseLost", err)
	}
}
