package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/search"
)

const crashWorkerEnv = "QUARRY_CRASH_WORKER"

// runCrashWorker is the body of the child process: a runner with a short
// lease that works until it is killed.
func runCrashWorker() {
	ctx := context.Background()
	conn, err := db.Open(ctx, os.Getenv("QUARRY_CRASH_DB"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	guard := egress.NewGuard([]string{os.Getenv("QUARRY_CRASH_ALLOW")})
	pool, err := browser.NewPool(ctx, browser.PoolOptions{Size: 2, Guard: guard, NavTimeout: 20 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	r := pipeline.NewRunner(pipeline.Options{
		Store:        db.NewStore(conn, nil),
		Engine:       extractive.New(),
		Gatherer:     search.NewGatherer(pool, search.NewSearcher(pool, search.Options{Guard: guard, Site: crashSiteSearch(pool)})),
		Engines:      []string{os.Getenv("QUARRY_CRASH_ENGINE")},
		Workers:      1,
		LeaseTTL:     2 * time.Second,
		Owner:        "crash-child",
		PollInterval: 100 * time.Millisecond,
	})
	r.Start()
	select {}
}

// A worker process is SIGKILLed in the middle of gathering; another worker
// resumes the run from its checkpoint: finished actions are not repeated,
// source ids stay stable, event seqs continue without gaps.
func TestRunSurvivesWorkerKilledMidGather(t *testing.T) {
	s := newSite(t, 1500*time.Millisecond)
	store := db.NewStore(dbtest.Open(t), nil)
	submitter := pipeline.NewRunner(pipeline.Options{Store: store, Engine: extractive.New(), Engines: []string{s.engine()}})
	ctx := context.Background()
	run, err := submitter.Submit(ctx, pipeline.Request{Question: "Why is the New York attorney general investigating WeWork and its former CEO?", Depth: "standard"})
	if err != nil {
		t.Fatal(err)
	}

	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), crashWorkerEnv+"=1", "QUARRY_CRASH_DB="+dbtest.URL(t),
		"QUARRY_CRASH_ALLOW="+s.hostPort(), "QUARRY_CRASH_ENGINE="+s.engine())
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })

	// Wait until at least one action finished while another still runs.
	var before []db.Action
	deadline := time.Now().Add(60 * time.Second)
	for {
		if time.Now().After(deadline) {
			t.Fatal("the child never got mid-gather")
		}
		acts, err := store.Actions(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		var finished, open int
		for _, a := range acts {
			switch a.Status {
			case "success", "error":
				finished++
			default:
				open++
			}
		}
		if finished >= 1 && open >= 1 {
			before = acts
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	sourcesBefore, err := store.Sources(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}

	// A new worker (this process) claims the run once the dead lease expires.
	newRunner(t, s, extractive.New())
	done := waitStatus(t, store, run.ID, research.StatusDone)
	if done.Attempts < 2 {
		t.Errorf("attempts = %d; the run was not resumed by a second worker", done.Attempts)
	}

	after, err := store.Actions(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, a := range after {
		k := a.Kind + " " + a.Engine + " " + a.Query + " " + a.URL
		if seen[k] {
			t.Errorf("action repeated after resume: %s", k)
		}
		seen[k] = true
	}
	for _, b := range before {
		if b.Status != "success" && b.Status != "error" {
			continue
		}
		for _, a := range after {
			if a.Idx == b.Idx && (a.Status != b.Status || !a.FinishedAt.Time.Equal(b.FinishedAt.Time)) {
				t.Errorf("finished action %d was run again (%s at %v → %s at %v)", a.Idx, b.Status, b.FinishedAt.Time, a.Status, a.FinishedAt.Time)
			}
		}
	}
	sourcesAfter, err := store.Sources(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, src := range sourcesAfter {
		if src.SID != i+1 {
			t.Errorf("source ids not contiguous: position %d has S%d", i, src.SID)
		}
	}
	for _, b := range sourcesBefore {
		a := sourcesAfter[b.SID-1]
		if a.CanonicalURL != b.CanonicalURL {
			t.Errorf("S%d changed from %s to %s", b.SID, b.CanonicalURL, a.CanonicalURL)
		}
	}
	evs, err := store.EventsAfter(ctx, run.ID, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event seq gap: position %d has seq %d", i, e.Seq)
		}
	}
	rep, err := store.PublishedReport(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ver research.VerificationPayload
	json.Unmarshal(rep.Verification, &ver)
	if ver.Validity != 1 || !strings.Contains(rep.Markdown, "[S") {
		t.Errorf("resumed report not valid: %+v", ver)
	}
}
