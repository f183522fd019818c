package runview_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/handlers/runview"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/web"
)

// recordedRun reads testdata/run.json: a run's events from intake through
// a repaired second verification pass, numbered from seq 2 (seq 1 is the
// run_created event every run starts with).
func recordedRun(t *testing.T) []db.Event {
	t.Helper()
	b, err := os.ReadFile("testdata/run.json")
	if err != nil {
		t.Fatal(err)
	}
	var recs []struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	evs := make([]db.Event, len(recs))
	for i, r := range recs {
		evs[i] = db.Event{RunID: "r1", Seq: int64(i + 2), Type: r.Type, Payload: r.Payload}
	}
	return evs
}

func event(t *testing.T, typ string, payload any) db.Event {
	t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	return db.Event{RunID: "r1", Type: typ, Payload: b}
}

// TestApplyFoldsRecordedRun: folding a whole run gives what its page shows.
func TestApplyFoldsRecordedRun(t *testing.T) {
	var v web.RunView
	for _, ev := range recordedRun(t) {
		runview.Apply(&v, ev)
	}
	if v.Status != research.StatusVerifying || v.Error != "" {
		t.Errorf("status %q error %q", v.Status, v.Error)
	}
	if v.Spec == nil || v.Spec.Goal != "Compare SSE transports for a Go server <behind nginx>" {
		t.Errorf("plan %+v, want the approved edit", v.Spec)
	}
	wantActions := []web.ActionView{
		{Idx: 1, Kind: research.ActionSearch, Engine: "duckduckgo", Query: "sse reconnect last-event-id", Status: research.ActionSuccess,
			Preview: "3 pages: <EventSource> reconnects with Last-Event-ID"},
		{Idx: 2, Kind: research.ActionNavigate, URL: "https://example.org/sse", Status: research.ActionError, Error: "refused: private address"},
		{Idx: 3, Kind: research.ActionSearch, Engine: "bing", Query: "sse proxy buffering cost", Status: research.ActionSuccess, Preview: "2 pages"},
	}
	if !reflect.DeepEqual(v.Actions, wantActions) {
		t.Errorf("actions\n got %+v\nwant %+v", v.Actions, wantActions)
	}
	wantDecisions := []web.DecisionView{
		{Batch: 1, Reason: "cost lacks evidence", NewActions: []string{"Search bing for “sse proxy buffering cost”"}},
		{Batch: 2, Done: true, Reason: "both criteria have evidence"},
	}
	if !reflect.DeepEqual(v.Decisions, wantDecisions) {
		t.Errorf("decisions\n got %+v\nwant %+v", v.Decisions, wantDecisions)
	}
	wantBudget := web.BudgetView{Known: true, Actions: 3, MaxActions: 10, Batches: 2, MaxBatches: 3, ElapsedMS: 9100, MaxTimeMS: 60000,
		Tokens: 2500, USD: 0.0064, StopReason: "the heartbeat found enough evidence"}
	if !reflect.DeepEqual(v.Budget, wantBudget) {
		t.Errorf("budget\n got %+v\nwant %+v", v.Budget, wantBudget)
	}
	if len(v.Passes) != 3 || v.Passes[0].Pass != 1 || v.Passes[0].Scores.Passed || !v.Passes[1].Repair || v.Passes[1].Pass != 1 ||
		v.Passes[2].Pass != 2 || !v.Passes[2].Scores.Passed {
		t.Errorf("passes %+v", v.Passes)
	}
	if want := "## Reconnects\n\nAn EventSource resends Last-Event-ID [S1].\n\n## Cost\n\nnginx buffers unless told not to [S4]."; v.Draft != want || v.DraftPass != 2 {
		t.Errorf("draft (pass %d) %q, want the repair pass's", v.DraftPass, v.Draft)
	}
}

// TestApplyReportsChangedBlocks: each event names the blocks of the page
// it changed, and only those.
func TestApplyReportsChangedBlocks(t *testing.T) {
	spec := research.TaskSpec{Goal: "g", Budget: research.Presets()[research.DepthQuick]}
	running := web.RunView{Status: research.StatusGathering, Draft: "old text", DraftPass: 1,
		Actions: []web.ActionView{{Idx: 4, Kind: research.ActionSearch, Query: "q", Status: research.ActionRunning}}}
	tests := []struct {
		name  string
		ev    db.Event
		want  runview.Block
		check func(t *testing.T, v web.RunView, c runview.Change)
	}{
		{"status", event(t, research.EventStageStarted, research.StagePayload{Stage: "synthesize", Status: research.StatusSynthesizing}), runview.Status,
			func(t *testing.T, v web.RunView, _ runview.Change) {
				if v.Status != research.StatusSynthesizing {
					t.Errorf("status %q", v.Status)
				}
			}},
		{"plan", event(t, research.EventPlan, research.PlanPayload{Status: research.StatusGathering, Spec: spec}), runview.Status | runview.Plan | runview.Budget,
			func(t *testing.T, v web.RunView, _ runview.Change) {
				if !reflect.DeepEqual(v.Budget, runview.BudgetFromSpec(spec.Budget)) || v.Spec.Goal != "g" {
					t.Errorf("plan %+v budget %+v", v.Spec, v.Budget)
				}
			}},
		{"new action", event(t, research.EventAction, research.ActionPayload{Idx: 5, Kind: research.ActionNavigate, URL: "https://example.org/", Status: research.ActionPending}), runview.Action,
			func(t *testing.T, v web.RunView, c runview.Change) {
				if !c.NewAction || c.Action != 1 || v.Actions[1].URL != "https://example.org/" || v.Status != research.StatusGathering {
					t.Errorf("change %+v actions %+v status %q", c, v.Actions, v.Status)
				}
			}},
		{"action update keeps what it leaves out", event(t, research.EventAction, research.ActionPayload{Idx: 4, Status: research.ActionSuccess, Preview: "p"}), runview.Action,
			func(t *testing.T, v web.RunView, c runview.Change) {
				want := web.ActionView{Idx: 4, Kind: research.ActionSearch, Query: "q", Status: research.ActionSuccess, Preview: "p"}
				if c.NewAction || c.Action != 0 || !reflect.DeepEqual(v.Actions[0], want) {
					t.Errorf("change %+v action %+v", c, v.Actions[0])
				}
			}},
		{"agent step", event(t, research.EventAgentStep, research.AgentStepPayload{ActionIdx: 4, N: 1, Kind: "click", Action: "click [3]", Element: "button Reject all", Status: "success", Shot: true}), runview.Action,
			func(t *testing.T, v web.RunView, c runview.Change) {
				if c.NewAction || c.Action != 0 || len(v.Actions[0].Steps) != 1 || v.Actions[0].Steps[0].Element != "button Reject all" {
					t.Errorf("change %+v action %+v", c, v.Actions[0])
				}
			}},
		{"checkpoint", event(t, research.EventCheckpoint, map[string]int{"batch": 1}), 0, nil},
		{"decision", event(t, research.EventHeartbeatDecision, research.DecisionPayload{Batch: 1, Reason: "r"}), runview.Decision, nil},
		{"budget", event(t, research.EventBudget, research.BudgetPayload{Actions: 1}), runview.Budget, nil},
		{"delta", event(t, research.EventSynthesisDelta, research.DeltaPayload{Pass: 1, Text: " more"}), runview.DraftText,
			func(t *testing.T, v web.RunView, c runview.Change) {
				if c.Delta != " more" || v.Draft != "old text more" {
					t.Errorf("delta %q draft %q", c.Delta, v.Draft)
				}
			}},
		{"delta of another pass", event(t, research.EventSynthesisDelta, research.DeltaPayload{Pass: 2, Text: "new"}), runview.Draft,
			func(t *testing.T, v web.RunView, _ runview.Change) {
				if v.Draft != "new" || v.DraftPass != 2 {
					t.Errorf("draft (pass %d) %q", v.DraftPass, v.Draft)
				}
			}},
		{"verification", event(t, research.EventVerification, research.VerificationPayload{Pass: 1, Scores: research.Scores{Passed: true}}), runview.Pass, nil},
		{"repair", event(t, research.EventRepairStarted, research.RepairPayload{Pass: 2, Failures: []string{"f"}}), runview.Draft | runview.Pass,
			func(t *testing.T, v web.RunView, _ runview.Change) {
				if v.Draft != "" || v.DraftPass != 2 || !reflect.DeepEqual(v.Passes, []web.PassView{{Pass: 1, Repair: true, Failures: []string{"f"}}}) {
					t.Errorf("draft (pass %d) %q passes %+v", v.DraftPass, v.Draft, v.Passes)
				}
			}},
		{"failed", event(t, research.EventRunFailed, research.FailedPayload{Status: research.StatusFailed, Error: "boom"}), runview.Status | runview.Run,
			func(t *testing.T, v web.RunView, _ runview.Change) {
				if v.Error != "boom" || v.Actions[0].Status != web.ActionStopped {
					t.Errorf("error %q actions %+v", v.Error, v.Actions)
				}
			}},
		{"completed", event(t, research.EventRunCompleted, research.CompletedPayload{Status: research.StatusDone, HTML: "<p>r</p>"}), runview.Status | runview.Run,
			func(t *testing.T, _ web.RunView, c runview.Change) {
				if c.Completed == nil || c.Completed.HTML != "<p>r</p>" {
					t.Errorf("completed %+v", c.Completed)
				}
			}},
		{"unreadable payload", db.Event{Type: research.EventAction, Payload: json.RawMessage(`"junk"`)}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := running
			v.Actions = append([]web.ActionView(nil), running.Actions...)
			c := runview.Apply(&v, tt.ev)
			if c.Blocks != tt.want {
				t.Errorf("blocks %b, want %b", c.Blocks, tt.want)
			}
			if tt.check != nil {
				tt.check(t, v, c)
			}
		})
	}
}

// TestApplyFirstDeltaAppends: the first text of the first pass is added to
// the empty draft (the block looks the same either way), while the first
// text of a later pass without a repair event (a resumed run) starts the
// block afresh, with its notice.
func TestApplyFirstDeltaAppends(t *testing.T) {
	var v web.RunView
	c := runview.Apply(&v, event(t, research.EventSynthesisDelta, research.DeltaPayload{Pass: 1, Text: "a"}))
	if c.Blocks != runview.DraftText || v.Draft != "a" || v.DraftPass != 1 {
		t.Errorf("first pass: blocks %b draft (pass %d) %q", c.Blocks, v.DraftPass, v.Draft)
	}
	v = web.RunView{}
	c = runview.Apply(&v, event(t, research.EventSynthesisDelta, research.DeltaPayload{Pass: 3, Text: "b"}))
	if c.Blocks != runview.Draft || v.Draft != "b" || v.DraftPass != 3 {
		t.Errorf("later pass: blocks %b draft (pass %d) %q", c.Blocks, v.DraftPass, v.Draft)
	}
	c = runview.Apply(&v, event(t, research.EventSynthesisDelta, research.DeltaPayload{Pass: 3, Text: ""}))
	if c.Blocks != 0 || v.Draft != "b" {
		t.Errorf("empty delta: blocks %b draft %q", c.Blocks, v.Draft)
	}
}

// TestEndsRun: the run's last events, and only those, end it.
func TestEndsRun(t *testing.T) {
	for _, typ := range []string{research.EventRunCompleted, research.EventRunFailed, research.EventRunCancelled} {
		if !runview.EndsRun(typ) {
			t.Errorf("%s does not end the run", typ)
		}
	}
	for _, typ := range []string{research.EventAwaitingApproval, research.EventStageCompleted, research.EventVerification} {
		if runview.EndsRun(typ) {
			t.Errorf("%s ends the run", typ)
		}
	}
}

// TestCheckpointCoverageShownWithDecision: a checkpoint's coverage joins
// its batch's decision, which the page shows as "Checkpoint N: x of y
// criteria covered" with each criterion's sources or that it is missing.
func TestCheckpointCoverageShownWithDecision(t *testing.T) {
	var v web.RunView
	cov := []research.CriterionCoverage{
		{Criterion: "Who is investigating", Sources: []string{"S2", "S1"}, Key: []string{"[S2] The attorney general is."}},
		{Criterion: "How the company responded"},
	}
	if c := runview.Apply(&v, event(t, research.EventCheckpoint, research.CheckpointPayload{Stage: "gather", Batch: 1, Sources: 2, Covered: 1, Coverage: cov})); c.Blocks != 0 {
		t.Errorf("checkpoint changed blocks %b, want none", c.Blocks)
	}
	c := runview.Apply(&v, event(t, research.EventHeartbeatDecision, research.DecisionPayload{Batch: 1, Reason: "r"}))
	if c.Blocks != runview.Decision || len(v.Decisions) != 1 || v.Decisions[0].Coverage == nil {
		t.Fatalf("decision %+v (blocks %b), want it to carry the checkpoint's coverage", v.Decisions, c.Blocks)
	}
	var b strings.Builder
	if err := web.DecisionItem(v.Decisions[0], false).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(strings.Fields(doc.Find("[data-testid=coverage] .d-covered").Text()), " "); got != "Checkpoint 1: 1 of 2 criteria covered" {
		t.Errorf("coverage line %q", got)
	}
	items := doc.Find("[data-testid=coverage-criterion]")
	if items.Length() != 2 || !items.Eq(0).HasClass("c-covered") || !strings.Contains(items.Eq(0).Text(), "S2, S1") ||
		!items.Eq(1).HasClass("c-missing") || !strings.Contains(items.Eq(1).Text(), "missing") {
		t.Errorf("coverage list:\n%s", b.String())
	}
	// A decision of another batch does not take an older checkpoint's coverage.
	runview.Apply(&v, event(t, research.EventHeartbeatDecision, research.DecisionPayload{Batch: 2, Reason: "r"}))
	if v.Decisions[1].Coverage != nil {
		t.Errorf("batch 2 decision shows batch 1's coverage")
	}
}

// TestPreliminaryBlock: the preliminary search event changes its own
// block, which lists the results the planner saw.
func TestPreliminaryBlock(t *testing.T) {
	var v web.RunView
	p := research.PreliminaryPayload{Query: "q", Hits: []research.Hit{{URL: "https://a.example/x", Title: "A title"}, {URL: "https://b.example/", Title: "B"}}}
	if c := runview.Apply(&v, event(t, research.EventPreliminary, p)); c.Blocks != runview.Preliminary || v.Preliminary == nil {
		t.Fatalf("blocks %b, view %+v", c.Blocks, v.Preliminary)
	}
	var b strings.Builder
	if err := web.PreliminaryBlock(v.Preliminary, true).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if n := doc.Find("[data-testid=preliminary-hit]").Length(); n != 2 || !strings.Contains(doc.Find("summary").Text(), "2 results shown to the planner") {
		t.Errorf("preliminary block:\n%s", b.String())
	}
}

// TestGateShownForApproval: a run paused at the site agent's gate shows
// the description and the paused step's screenshot in the review form.
func TestGateShownForApproval(t *testing.T) {
	v := web.RunView{ID: "r1"}
	spec := research.TaskSpec{Goal: "g", Actions: []research.ActionSpec{{Kind: research.ActionSearch, Query: "q"}}}
	runview.Apply(&v, event(t, research.EventAwaitingApproval, research.PlanPayload{Status: research.StatusAwaitingApproval, Spec: spec,
		Reason: `The site agent stopped before an action that needs your approval: click button "Buy now"`, GateAction: 2, GateStep: 4}))
	v.Status = research.StatusAwaitingApproval
	if v.Gate == nil || v.Gate.ShotURL() != "/runs/r1/agent/2/4.jpg" {
		t.Fatalf("gate = %+v, want step 4 of action 2", v.Gate)
	}
	var b strings.Builder
	if err := web.RunBody(web.Page{}, v).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	form := doc.Find("[data-testid=approve-form]")
	if src, _ := form.Find("[data-testid=agent-gate] img").Attr("src"); src != "/runs/r1/agent/2/4.jpg" {
		t.Errorf("gate screenshot src = %q", src)
	}
	if !strings.Contains(form.Find("[data-testid=review-reason]").Text(), `"Buy now"`) {
		t.Errorf("review reason does not describe the gate: %q", form.Find("[data-testid=review-reason]").Text())
	}
	// A later plan review without a gate shows no screenshot.
	runview.Apply(&v, event(t, research.EventAwaitingApproval, research.PlanPayload{Status: research.StatusAwaitingApproval, Spec: spec}))
	if v.Gate != nil {
		t.Errorf("gate kept after a plain review: %+v", v.Gate)
	}
}
