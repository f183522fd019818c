//go:build faults

package faults

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// TestFaultSchedulerReplicas: two `quarry serve` processes on one
// database and a task due every 5 seconds (on a loaded test machine a
// tick can take a second or two; slots shorter than that would be passed
// over, and recorded as such, by design). A replica is killed with
// SIGKILL just after a slot comes due (in the middle of the scheduler's
// tick, as near as a test can aim) and a fresh one takes its place, rep
// times. Every slot from the first to the last is handled exactly once —
// a run, or a recorded skip ("skipped: still running" while the previous
// run is still going) — none lost, none doubled.
func TestFaultSchedulerReplicas(t *testing.T) {
	dbURL, conn := database(t)
	s := newSite(50 * time.Millisecond)
	defer s.Close()
	env := append(baseEnv(dbURL, s), "QUARRY_TASK_MIN_INTERVAL=1s", "QUARRY_TASK_CONCURRENCY=4", "QUARRY_TASK_DAILY_RUNS=0",
		"QUARRY_LLM=extractive")
	a := startReplica(t, "replica A", env...)
	b := startReplica(t, "replica B", env...)

	body, _ := json.Marshal(map[string]any{"name": "status watch", "question": "What do the pages say about job queues?",
		"depth": "quick", "schedule": "every 5 seconds"})
	resp, err := http.Post(a.url()+"/api/tasks", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || created.ID == "" {
		t.Fatalf("create task: %d", resp.StatusCode)
	}

	live := []*replica{a, b}
	for i := 0; i < reps; i++ {
		// Aim at a tick: kill one replica 5 ms after a slot comes due.
		var next time.Time
		if err := conn.Get(&next, `SELECT next_run_at FROM tasks WHERE id = $1`, created.ID); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Until(next) + 5*time.Millisecond)
		victim := live[i%2]
		victim.kill()
		time.Sleep(6 * time.Second) // the survivor alone for a slot or two
		live[i%2] = startReplica(t, "replica "+string(rune('C'+i)), env...)
		time.Sleep(6 * time.Second)
	}
	if _, err := conn.Exec(`UPDATE tasks SET status = 'paused', next_run_at = NULL WHERE id = $1`, created.ID); err != nil {
		t.Fatal(err)
	}
	runs, skips := slotsOf(t, conn, created.ID, 5*time.Second)
	t.Logf("FIGURES scheduler under replica kills: %d slots run, %d skipped while the previous run was active, %d kills", runs, skips, reps)
	if runs < 2 {
		t.Errorf("only %d slots ran", runs)
	}
}

// slotsOf reads every handled slot of the task, failing the test on a slot
// handled twice or a gap between the first and the last.
func slotsOf(t *testing.T, conn *sqlx.DB, taskID string, every time.Duration) (runs, skips int) {
	t.Helper()
	var rows []struct {
		At      time.Time `db:"at"`
		What    string    `db:"what"`
		Created time.Time `db:"created_at"`
	}
	err := conn.Select(&rows, `SELECT scheduled_for AS at, 'run' AS what, created_at FROM runs WHERE task_id = $1
		UNION ALL SELECT scheduled_for, reason, created_at FROM task_skips WHERE task_id = $1 ORDER BY 1`, taskID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 3 {
		t.Fatalf("only %d slots were handled", len(rows))
	}
	for i := 1; i < len(rows); i++ {
		if gap := rows[i].At.Sub(rows[i-1].At); gap != every {
			t.Errorf("slot %s (%s at %s) then %s (%s at %s): %s apart, want %s", rows[i-1].At.Format(time.StampMilli), rows[i-1].What,
				rows[i-1].Created.Format(time.StampMilli), rows[i].At.Format(time.StampMilli), rows[i].What,
				rows[i].Created.Format(time.StampMilli), gap, every)
		}
	}
	for _, r := range rows {
		switch {
		case r.What == "run":
			runs++
		case r.What == "skipped: still running":
			skips++
		default:
			t.Errorf("slot %s: %s (at %s)", r.At.Format(time.StampMilli), r.What, r.Created.Format(time.StampMilli))
		}
	}
	return runs, skips
}
