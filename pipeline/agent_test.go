package pipeline_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/agent"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/search"
)

// gatedFind is a search page whose form also asks for an e-mail address:
// pressing Enter in its search box submits personal data, so the
// sensitive-action gate stops the site agent there.
const gatedFind = `<!doctype html><html><head><title>Find</title></head><body><main>
<form action="/search" method="get"><label>Search <input type="search" name="q"></label>
<label>E-mail me the results <input type="email" name="email" autocomplete="email"></label>
<button type="submit">Go</button></form></main></body></html>`

// newAgentRunner runs the pipeline with s's /find page behind a site:
// engine that the site agent drives with its rule planner.
func newAgentRunner(t *testing.T, s *site) (*pipeline.Runner, *db.Store) {
	t.Helper()
	return newAgentRunnerOn(t, s, "/find", nil)
}

// newAgentRunnerOn runs the pipeline (extractive engine) with the engine
// site:<s's path>; the site agent's rule planner goes first and fallback,
// when set, is its model planner.
// submitForReview submits a quick run that pauses for plan review and
// returns it with its reviewed plan, for a test to replace the actions.
func submitForReview(t *testing.T, r *pipeline.Runner, store *db.Store) (*db.Run, research.TaskSpec) {
	t.Helper()
	run, err := r.Submit(context.Background(), pipeline.Request{Question: "Why is the New York attorney general investigating WeWork?", Depth: "quick", Review: research.ReviewAlways})
	if err != nil {
		t.Fatal(err)
	}
	paused := waitStatus(t, store, run.ID, research.StatusAwaitingApproval)
	var spec research.TaskSpec
	if err := json.Unmarshal(paused.TaskSpec, &spec); err != nil {
		t.Fatal(err)
	}
	return run, spec
}

func newAgentRunnerOn(t *testing.T, s *site, path string, fallback func() agent.Planner) (*pipeline.Runner, *db.Store) {
	t.Helper()
	store := dbtest.NewStore(t)
	return startAgentRunner(t, s, store, "site:"+s.URL+path, fallback), store
}

// startAgentRunner starts a runner on store whose engine engineName (a
// site: engine) is driven by the site agent.
func startAgentRunner(t *testing.T, s *site, store *db.Store, engineName string, fallback func() agent.Planner) *pipeline.Runner {
	t.Helper()
	testGatherer(t, s.hostPort()) // starts the shared pool
	guard := egress.NewGuard([]string{"127.0.0.1", s.hostPort()})
	searcher := search.NewSearcher(pool, search.Options{Guard: guard, Site: agent.SiteSearch(agent.Options{Pool: pool}, fallback)})
	r := pipeline.NewRunner(pipeline.Options{
		Store:        store,
		Engine:       extractive.New(),
		Gatherer:     search.NewGatherer(pool, searcher),
		Engines:      []string{engineName},
		Workers:      1,
		LeaseTTL:     5 * time.Second,
		PollInterval: 100 * time.Millisecond,
	})
	r.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r.Shutdown(ctx)
	})
	return r
}

func gatedSite(t *testing.T) *site {
	s := newSite(t, 0)
	s.Config.Handler.(*http.ServeMux).HandleFunc("/find", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(gatedFind))
	})
	return s
}

// TestGatePausesRunForApproval: the gate pauses the run with the step's
// description and screenshot; approving lets the agent submit the form
// and the run ends with the results' pages as sources; cancelling a
// second paused run, once confirmed, ends it without the step.
func TestGatePausesRunForApproval(t *testing.T) {
	s := gatedSite(t)
	r, store := newAgentRunner(t, s)
	ctx := context.Background()
	run, err := r.Submit(ctx, pipeline.Request{Question: "Why is the New York attorney general investigating WeWork?", Depth: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, store, run.ID, research.StatusAwaitingApproval)
	st, err := pipeline.LatestState(ctx, store, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Gates) == 0 {
		t.Fatal("paused without a gate")
	}
	gate := st.Gates[0]
	if !strings.Contains(gate.Why, "personal or payment data (email)") || gate.Approved {
		t.Fatalf("gate = %+v, want the e-mail form's submission awaiting approval", gate)
	}
	if !strings.Contains(st.ReviewReason, gate.Why) {
		t.Errorf("review reason %q does not describe the gate", st.ReviewReason)
	}
	shot, err := store.AgentScreenshot(ctx, run.ID, gate.ActionIdx, gate.Step)
	if err != nil || len(shot) == 0 {
		t.Errorf("no screenshot of the paused step %d: %v", gate.Step, err)
	}
	s.mu.Lock()
	searched := len(s.queries)
	s.mu.Unlock()
	if searched != 0 {
		t.Fatalf("the form was submitted before approval (%d queries)", searched)
	}

	if _, err := r.Approve(ctx, run.ID, pipeline.Approval{}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, store, run.ID, research.StatusDone)
	sources, err := store.Sources(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) == 0 {
		t.Fatal("the approved search found no sources")
	}
	rep, err := store.PublishedReport(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Markdown, `(found via: typed "`) || !strings.Contains(rep.Markdown, `into searchbox Search, pressed Enter)`) ||
		strings.Count(rep.Markdown, "typed") != strings.Count(rep.Markdown, "pressed Enter") {
		t.Errorf("the sources list does not say how the agent found them:\n%s", rep.Markdown)
	}
	steps, err := store.AgentSteps(ctx, run.ID, gate.ActionIdx)
	if err != nil {
		t.Fatal(err)
	}
	var pressed bool
	for _, step := range steps {
		if step.N > gate.Step && step.Kind == "press" && step.Status == "success" {
			pressed = true
		}
	}
	if !pressed {
		t.Errorf("no approved Enter after the paused step %d: %+v", gate.Step, steps)
	}

	// Cancel: the unconfirmed reply changes nothing; the confirmed one ends the run.
	run2, err := r.Submit(ctx, pipeline.Request{Question: "What is WeWork being investigated for?", Depth: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, store, run2.ID, research.StatusAwaitingApproval)
	s.mu.Lock()
	before := len(s.queries)
	s.mu.Unlock()
	dec, err := r.Approve(ctx, run2.ID, pipeline.Approval{Reply: "cancel"})
	if err != nil || !dec.NeedsConfirmation {
		t.Fatalf("unconfirmed cancel: %+v, %v; want a confirmation asked", dec, err)
	}
	if _, err := r.Approve(ctx, run2.ID, pipeline.Approval{Reply: "cancel", Confirm: true}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, store, run2.ID, research.StatusCancelled)
	time.Sleep(500 * time.Millisecond)
	s.mu.Lock()
	after := len(s.queries)
	s.mu.Unlock()
	if after != before {
		t.Errorf("the cancelled run still submitted the form (%d queries, was %d)", after, before)
	}
}

// TestResumedActionNeverRepeatsASideEffect: an action re-run after a
// crash loads the agent steps it stored; its last step, Enter in the
// search form, was cut off while running, so the agent does not press it
// again but pauses the run for approval; approved, it searches.
func TestResumedActionNeverRepeatsASideEffect(t *testing.T) {
	s := newSite(t, 0)
	s.Config.Handler.(*http.ServeMux).HandleFunc("/find", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><html><head><title>Find</title></head><body><main><form action="/search">
<label>Search <input type="search" name="q"></label><button type="submit">Go</button></form></main></body></html>`))
	})
	r, store := newAgentRunner(t, s)
	ctx := context.Background()
	run, spec := submitForReview(t, r, store)
	spec.Actions = []research.ActionSpec{{Kind: "search", Query: "WeWork attorney general"}}
	// What a worker that died mid-action left: the query typed, Enter pressed
	// but never reported back.
	for _, st := range []db.AgentStep{
		{RunID: run.ID, ActionIdx: 1, N: 1, Kind: "type", Element: "searchbox Search", Status: "success", URL: s.URL + "/find",
			Action: []byte(`{"kind":"type","element":1,"text":"WeWork attorney general"}`)},
		{RunID: run.ID, ActionIdx: 1, N: 2, Kind: "press", Element: "searchbox Search", Status: "running", URL: s.URL + "/find",
			Action: []byte(`{"kind":"press","element":1,"key":"Enter"}`)},
	} {
		if err := store.SaveAgentStep(ctx, st, st.Kind); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Approve(ctx, run.ID, pipeline.Approval{Spec: &spec}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, store, run.ID, research.StatusAwaitingApproval)
	st, err := pipeline.LatestState(ctx, store, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Gates) != 1 || st.Gates[0].ActionIdx != 1 || !strings.Contains(st.Gates[0].Why, `stopped during "press`) {
		t.Fatalf("gates = %+v, want action 1 paused on the interrupted Enter", st.Gates)
	}
	s.mu.Lock()
	searched := len(s.queries)
	s.mu.Unlock()
	if searched != 0 {
		t.Fatalf("the interrupted Enter was repeated without approval (%d queries)", searched)
	}
	if _, err := r.Approve(ctx, run.ID, pipeline.Approval{}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, store, run.ID, research.StatusDone)
	s.mu.Lock()
	searched = len(s.queries)
	s.mu.Unlock()
	if searched != 1 {
		t.Errorf("approved, the search ran %d times, want once", searched)
	}
}

// TestBrowseSiteThroughAgent: "On <site>, find …" reads the site's home
// page and has the site agent search the site for what is asked; the
// results' pages become sources.
func TestBrowseSiteThroughAgent(t *testing.T) {
	s := newSite(t, 0)
	s.Config.Handler.(*http.ServeMux).HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><html><head><title>Home</title></head><body><main><h1>The news desk</h1>
<p>Articles about companies and products, updated daily by our editors.</p><form action="/search">
<label>Search <input type="search" name="q"></label><button type="submit">Go</button></form></main></body></html>`))
	})
	r, store := newAgentRunner(t, s)
	ctx := context.Background()
	run, err := r.Submit(ctx, pipeline.Request{Question: "On " + s.URL + "/, find the WeWork attorney general investigation", Depth: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, store, run.ID, research.StatusDone)
	actions, err := store.Actions(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var site *db.Action
	for i := range actions {
		if strings.HasPrefix(actions[i].Engine, "site:") {
			site = &actions[i]
		}
	}
	if site == nil || site.Query != "find the WeWork attorney general investigation" || site.Status != research.ActionSuccess {
		t.Fatalf("no successful site search among %+v", actions)
	}
	s.mu.Lock()
	queries := append([]string(nil), s.queries...)
	s.mu.Unlock()
	if len(queries) != 1 || queries[0] != site.Query {
		t.Errorf("the site's search box got %q, want the query once", queries)
	}
	sources, err := store.Sources(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var articles int
	for _, src := range sources {
		if strings.Contains(src.URL, "/articles/wework") {
			articles++
		}
	}
	if articles != 2 {
		t.Errorf("%d WeWork articles among the sources, want 2", articles)
	}
}

// TestSkipAtGateFinishesTheGatedAction: a run paused at the gate after it
// gathered a page is skipped: the gated search's action row ends
// "skipped" with the reason, in the same commit as the resume, with the
// action event the live page listens to; the report is written from what
// was gathered and the form is never submitted.
func TestSkipAtGateFinishesTheGatedAction(t *testing.T) {
	s := gatedSite(t)
	r, store := newAgentRunner(t, s)
	ctx := context.Background()
	run, spec := submitForReview(t, r, store)
	spec.Actions = []research.ActionSpec{
		{Kind: "navigate", URL: s.URL + "/articles/wework-ag-venturebeat", Priority: 1},
		{Kind: "search", Query: "WeWork attorney general", Priority: 1},
	}
	if _, err := r.Approve(ctx, run.ID, pipeline.Approval{Spec: &spec}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, store, run.ID, research.StatusAwaitingApproval)
	st, err := pipeline.LatestState(ctx, store, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Gates) != 1 {
		t.Fatalf("gates = %+v, want the site search's", st.Gates)
	}
	gated := st.Gates[0].ActionIdx
	evs, err := store.EventsAfter(ctx, run.ID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	lastSeq := evs[len(evs)-1].Seq
	actionRow := func() db.Action {
		t.Helper()
		rows, err := store.Actions(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range rows {
			if a.Idx == gated {
				return a
			}
		}
		t.Fatalf("no action %d", gated)
		return db.Action{}
	}
	if a := actionRow(); a.Status != research.ActionRunning {
		t.Fatalf("the gated action is %s while paused, want running", a.Status)
	}

	dec, err := r.Approve(ctx, run.ID, pipeline.Approval{Intent: pipeline.IntentSkip})
	if err != nil || dec.NeedsConfirmation {
		t.Fatalf("skip at the gate after gathering a page: %+v, %v", dec, err)
	}
	waitStatus(t, store, run.ID, research.StatusDone)
	a := actionRow()
	if a.Status != "skipped" || !strings.Contains(a.Error, "not performed") || !strings.Contains(a.Error, "email") || !a.FinishedAt.Valid {
		t.Errorf("the skipped gated action: status %s, error %q, finished %v", a.Status, a.Error, a.FinishedAt.Valid)
	}
	evs, err = store.EventsAfter(ctx, run.ID, lastSeq, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var sawSkip bool
	for _, e := range evs {
		if e.Type != research.EventAction {
			continue
		}
		var p research.ActionPayload
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			t.Fatal(err)
		}
		if p.Idx == gated && p.Status == "skipped" && p.Error == a.Error {
			sawSkip = true
		}
	}
	if !sawSkip {
		t.Error("no action event told the live page the gated action was skipped")
	}
	s.mu.Lock()
	searched := len(s.queries)
	s.mu.Unlock()
	if searched != 0 {
		t.Errorf("the skipped form was submitted (%d queries)", searched)
	}
	if _, err := store.PublishedReport(ctx, run.ID); err != nil {
		t.Errorf("no report after the skip: %v", err)
	}
}
