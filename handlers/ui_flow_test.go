package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/input"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/research"
)

// TestUIPlanReviewEditApprove: a run asked with plan review stops at the
// plan; the person edits a criterion, adds a section, rewrites the first
// search and answers any clarifying question, approves, and the run goes
// on with the edited plan, which the report follows.
func TestUIPlanReviewEditApprove(t *testing.T) {
	env := sharedUIEnv(t)
	page := newUIPage(t)
	id := page.ask(t, env, "What is the New York attorney general asking WeWork about?", "quick", "", true)
	page.wait(t, 30*time.Second, `() => !!document.querySelector("[data-testid=approve-form]")`)

	const criterion = "Which WeWork dealings does the attorney general question?"
	const query = "WeWork Adam Neumann self-dealing attorney general"
	crit := page.MustElement("[data-testid=edit-criterion]")
	crit.MustSelectAllText().MustInput(criterion)
	added := false
	for _, el := range page.MustElements("[data-testid=edit-section]") {
		if el.MustProperty("value").String() == "" {
			el.MustInput("Timeline")
			added = true
			break
		}
	}
	if !added {
		t.Fatal("no empty section row to add a section")
	}
	page.MustElement("#action-target-0").MustSelectAllText().MustInput(query)
	for _, el := range page.MustElements("[data-testid=answer]") {
		el.MustInput("Focus on 2019.")
	}
	page.screenshot(t, "plan-review-desktop")
	page.phone()
	page.MustEval(`() => document.querySelector("#plan").scrollIntoView()`)
	page.screenshot(t, "plan-review-phone")
	page.desktop()

	wait := page.MustWaitNavigation()
	page.MustElement("[data-testid=approve]").MustClick()
	wait()
	page.MustWaitLoad()
	run, err := env.store.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var spec research.TaskSpec
	if err := json.Unmarshal(run.TaskSpec, &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Criteria[0] != criterion || !slices.Contains(spec.Sections, "Timeline") || spec.Actions[0].Query != query {
		t.Fatalf("stored plan after the edit: criteria %q sections %q first action %+v", spec.Criteria, spec.Sections, spec.Actions[0])
	}
	// The live page runs the edited search and the report has the section.
	page.wait(t, 30*time.Second, `() => document.querySelector("#actions").textContent.includes("`+query+`")`)
	env.waitRun(t, id, 60*time.Second, research.StatusDone)
	page.wait(t, 10*time.Second, `() => [...document.querySelectorAll("[data-testid=report] h2")].some(h => h.textContent.trim() === "Timeline")`)
	if text := page.evalString(t, `() => document.querySelector("#process").textContent`); !strings.Contains(text, criterion) {
		t.Errorf("the run's plan does not show the edited criterion")
	}
	if p := page.problems(false); len(p) > 0 {
		t.Errorf("console errors or dialogs: %q", p)
	}
}

// TestUIStopRun: a question submitted with Ctrl+Enter; Stop ends the run
// while it gathers; the page shows it cancelled over SSE, without a
// reload, and the worker stops.
func TestUIStopRun(t *testing.T) {
	env := sharedUIEnv(t)
	page := newUIPage(t)
	page.fillAsk(t, env, "What did the New York attorney general ask WeWork for?", "quick", "slow", false)
	page.MustElement("[data-testid=question]").MustFocus()
	page.KeyActions().Press(input.ControlLeft).Type(input.Enter).MustDo()
	id := page.landedOnRun(t)
	page.MustEval(watchStatus)
	page.wait(t, 30*time.Second, `() => document.querySelector("[data-testid=run-status]").dataset.status === "gathering"`)
	page.MustElement("[data-testid=stop]").MustClick()
	page.wait(t, 10*time.Second, `() => document.querySelector("[data-testid=run-status]").dataset.status === "cancelled"`)
	if got := page.MustEval(`() => window.__marker`).String(); got != "same-document" {
		t.Errorf("stopping reloaded the page (marker %q)", got)
	}
	if !page.MustElements("[data-testid=stop]").Empty() {
		t.Error("Stop is still offered after the run was stopped")
	}
	page.screenshot(t, "stopped-run-desktop")
	if text := page.evalString(t, `() => document.querySelector("#status").textContent`); !strings.Contains(text, "cancelled by user") {
		t.Errorf("status block %q does not say why the run stopped", text)
	}
	run := env.waitRun(t, id, 5*time.Second, research.StatusCancelled)
	if !run.FinishedAt.Valid {
		t.Error("a cancelled run has no finish time")
	}
	// The worker stops: the run records nothing after its cancellation.
	time.Sleep(1500 * time.Millisecond)
	later, err := env.store.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if later.LastSeq != run.LastSeq {
		t.Errorf("the run went on after it was stopped: last event %d, then %d", run.LastSeq, later.LastSeq)
	}
	// An action the stop interrupted is shown as stopped, not running.
	if n := len(page.MustElements("[data-testid=action][data-status=running], [data-testid=action][data-status=pending]")); n != 0 {
		t.Errorf("%d actions of the stopped run still shown as running or pending", n)
	}
	if p := page.problems(false); len(p) > 0 {
		t.Errorf("console errors or dialogs: %q", p)
	}
}

// TestUIStreamCutCatchesUp: the page's event stream is cut mid-run and
// refused for a while; the browser's reconnect (with Last-Event-ID) and
// then htmx's own fresh stream (with ?after= the last event shown) pick up
// where the page left off: every event is applied once, in order, and
// every action of the run reaches the page exactly once.
func TestUIStreamCutCatchesUp(t *testing.T) {
	env := sharedUIEnv(t)
	var blocked atomic.Bool
	var refused, opened atomic.Int64
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/events") {
			if blocked.Load() {
				refused.Add(1)
				http.Error(w, "unavailable", http.StatusServiceUnavailable)
				return
			}
			opened.Add(1)
		}
		env.h.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	page := newUIPage(t)
	page.MustNavigate(front.URL + "/").MustWaitLoad()
	frontEnv := *env
	frontEnv.srv = front
	id := page.ask(t, &frontEnv, "Why is the New York attorney general investigating WeWork and its founder?", "quick", "slow", false)
	// Before each event is applied, note the event id and the actions the
	// page lists; the last note is the page just before the run's final
	// event re-renders it.
	page.MustEval(`() => {
		window.__ids = [];
		window.__dups = [];
		window.__listed = [];
		document.addEventListener("htmx:sseBeforeMessage", e => {
			if (e.defaultPrevented) return;
			window.__ids.push(+e.detail.lastEventId);
			const ids = [...document.querySelectorAll("#actions > li")].map(li => li.id);
			if (new Set(ids).size !== ids.length) window.__dups.push(ids.join(","));
			window.__listed = ids;
		});
	}`)
	page.wait(t, 30*time.Second, `() => document.querySelectorAll("#actions > li").length > 0`)

	blocked.Store(true)
	front.CloseClientConnections()
	lastSeq := func() int64 {
		run, err := env.store.GetRun(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return run.LastSeq
	}
	atCut := lastSeq()
	// Keep the stream refused until the browser has tried to reconnect
	// and the run has moved on, so the page must catch up on events it
	// never received.
	waitUntil(t, 15*time.Second, func() bool { return refused.Load() > 0 && lastSeq() > atCut })
	atResume := lastSeq()
	blocked.Store(false)

	run := env.waitRun(t, id, 60*time.Second, research.StatusDone)
	page.wait(t, 20*time.Second, `() => document.querySelector("[data-testid=run-status]").dataset.status === "done"`)
	if opened.Load() < 2 {
		t.Errorf("the stream was opened %d times; the cut should have forced a reconnect", opened.Load())
	}
	var ids []int64
	var listed, dups []string
	page.MustEval(`() => window.__ids`).Unmarshal(&ids)
	page.MustEval(`() => window.__listed`).Unmarshal(&listed)
	page.MustEval(`() => window.__dups`).Unmarshal(&dups)
	t.Logf("stream opened %d times, refused %d times; events applied %v", opened.Load(), refused.Load(), ids)
	if len(dups) > 0 {
		t.Errorf("the page listed an action twice: %q", dups)
	}
	if !slices.ContainsFunc(ids, func(id int64) bool { return id > atCut && id <= atResume }) {
		t.Errorf("no event of the outage (%d, %d] was applied after the reconnect: %v", atCut, atResume, ids)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Fatalf("event %d applied after %d: replayed or out of order (%v)", ids[i], ids[i-1], ids)
		}
	}
	if len(ids) == 0 || ids[len(ids)-1] != run.LastSeq {
		t.Errorf("last event applied %v, want the run's last, %d", ids, run.LastSeq)
	}
	actions, err := env.store.Actions(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, a := range actions {
		want = append(want, "action-"+itoa(int64(a.Idx)))
	}
	slices.Sort(want)
	got := slices.Clone(listed)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("before the final event the page listed %v, want each of the run's actions once: %v", listed, want)
	}
	if n := len(page.MustElements("[data-testid=action]")); n != len(actions) {
		t.Errorf("the finished page lists %d actions, the run has %d", n, len(actions))
	}
	if p := page.problems(true); len(p) > 0 {
		t.Errorf("console errors or dialogs: %q", p)
	}
}

// TestUIReloadMatchesLive: a run page built by the stream, event by
// event, reads exactly like the same page loaded afresh afterwards.
func TestUIReloadMatchesLive(t *testing.T) {
	rep := newReplica(t, replicaOptions{}) // no workers: the test writes the run
	run := createRun(t, rep.store, "Does a page built live match a reload?")
	page := newUIPage(t)
	page.MustNavigate(rep.srv.URL + "/runs/" + run.ID).MustWaitLoad()
	waitUntil(t, 10*time.Second, func() bool { return rep.h.SSEClients() == 1 })

	emit := func(typ string, status research.RunStatus, payload any) {
		t.Helper()
		ctx := context.Background()
		err := rep.store.InTx(ctx, func(tx *db.Tx) error {
			if status != "" {
				if err := tx.UpdateRun(ctx, run.ID, db.RunUpdate{Status: &status}); err != nil {
					return err
				}
			}
			_, err := tx.AppendEvent(ctx, run.ID, typ, payload)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	spec := research.TaskSpec{Goal: "Compare", Criteria: []string{"first", "second"}, Sections: []string{"Answer"},
		Actions: []research.ActionSpec{{Kind: "search", Engine: "duckduckgo", Query: "one"}, {Kind: "navigate", URL: "https://example.org/two"}},
		Budget:  research.Presets()[research.DepthQuick]}
	emit(research.EventStageStarted, "planning", research.StagePayload{Stage: "intake", Status: "planning"})
	emit(research.EventPlan, "gathering", research.PlanPayload{Status: "gathering", Spec: spec})
	emit(research.EventAction, "", research.ActionPayload{Idx: 1, Kind: "search", Engine: "duckduckgo", Query: "one", Status: "pending"})
	emit(research.EventAction, "", research.ActionPayload{Idx: 2, Kind: "navigate", URL: "https://example.org/two", Status: "pending"})
	emit(research.EventAction, "", research.ActionPayload{Idx: 1, Status: "running"})
	emit(research.EventAction, "", research.ActionPayload{Idx: 1, Status: "success", Preview: "two pages"})
	emit(research.EventAction, "", research.ActionPayload{Idx: 2, Status: "error", Error: "refused: private address"})
	emit(research.EventHeartbeatDecision, "", research.DecisionPayload{Batch: 1, Done: true, Reason: "both criteria have evidence"})
	emit(research.EventBudget, "", research.BudgetPayload{Actions: 2, MaxActions: 4, Batches: 1, MaxBatches: 1, ElapsedMS: 2300, MaxTimeMS: 30000, StopReason: "batch limit reached (1 of 1)"})
	emit(research.EventStageStarted, "synthesizing", research.StagePayload{Stage: "synthesize", Status: "synthesizing"})
	emit(research.EventSynthesisDelta, "", research.DeltaPayload{Pass: 1, Text: "## Answer\n\nFirst draft "})
	emit(research.EventSynthesisDelta, "", research.DeltaPayload{Pass: 1, Text: "text [S1]."})
	emit(research.EventStageStarted, "verifying", research.StagePayload{Stage: "verify", Status: "verifying"})
	emit(research.EventVerification, "", research.VerificationPayload{Pass: 1, Scores: research.Scores{Validity: 1, Coverage: 0.5, Support: 0.4, Grounding: 1, CriteriaCoverage: 1}})
	emit(research.EventRepairStarted, "", research.RepairPayload{Pass: 2, Failures: []string{"sentence 1 is not supported"}})
	emit(research.EventStageStarted, "synthesizing", research.StagePayload{Stage: "synthesize", Status: "synthesizing"})
	emit(research.EventSynthesisDelta, "", research.DeltaPayload{Pass: 2, Text: "## Answer\n\nSecond draft [S1]."})
	page.wait(t, 10*time.Second, `() => document.querySelector("#draft").textContent === "## Answer\n\nSecond draft [S1]."`)

	snapshot := `() => document.querySelector("#run").innerText`
	live := page.evalString(t, snapshot)
	page.MustReload().MustWaitLoad()
	reloaded := page.evalString(t, snapshot)
	if live != reloaded {
		t.Errorf("live page and reload differ:\n--- live\n%s\n--- reloaded\n%s", live, reloaded)
	}
	for _, want := range []string{"synthesizing", "two pages", "refused: private address", "both criteria have evidence", "2 of 4", "Repair", "Pass 1"} {
		if !strings.Contains(live, want) {
			t.Errorf("the live page lacks %q:\n%s", want, live)
		}
	}
	if p := page.problems(false); len(p) > 0 {
		t.Errorf("console errors or dialogs: %q", p)
	}
}
