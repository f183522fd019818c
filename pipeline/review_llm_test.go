package pipeline_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine/llm"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// unclearPlanJSON is planJSON with a low clarity and clarifying questions.
func unclearPlanJSON(engine string) string {
	var plan map[string]any
	json.Unmarshal([]byte(planJSON(engine)), &plan)
	plan["clarity"] = 0.3
	plan["questions"] = []string{"Which investigation do you mean: the state's or the federal one?"}
	b, _ := json.Marshal(plan)
	return string(b)
}

// europePlanJSON is the plan the model makes once told to focus on Europe.
func europePlanJSON(engine string) string {
	var plan map[string]any
	json.Unmarshal([]byte(planJSON(engine)), &plan)
	plan["actions"] = []map[string]any{
		{"kind": "search", "engine": engine, "query": "WeWork attorney general investigation Europe", "priority": 1, "reason": planCriteria[0]},
		{"kind": "search", "engine": engine, "query": "WeWork Europe self-dealing inquiry", "priority": 1, "reason": planCriteria[1]},
	}
	b, _ := json.Marshal(plan)
	return string(b)
}

// scriptedResearch answers every stage of a run: the plan from plan,
// the heartbeat done, the synthesis quoting the sources.
func scriptedResearch(t *testing.T, plan func(c llmCall) string) func(c llmCall) llmReply {
	return func(c llmCall) llmReply {
		switch c.Stage {
		case stagePlan:
			return llmReply{Text: plan(c), In: 900, Out: 160}
		case stageHeartbeat:
			return llmReply{Text: heartbeatDone, In: 700, Out: 25}
		case stageSynthesize:
			return llmReply{Text: citedReport(t, c.User).markdown(), In: 3200, Out: 420}
		}
		t.Errorf("unexpected %q call:\n%s", c.Stage, clipText(c.Body, 500))
		return llmReply{Status: http.StatusBadRequest}
	}
}

// TestReplyToPausedPlanOpenAI answers a paused plan through the OpenAI
// engine with replies the old parser misread: "no, proceed" cancelled the
// run; "cancel" cancelled it without asking; "yes but focus on Europe"
// lost its amendment. Now the first goes on, the second asks first, and
// the third plans again with the amendment, which the heartbeat and the
// synthesis see too.
func TestReplyToPausedPlanOpenAI(t *testing.T) {
	s := newSite(t, 0)
	ctx := context.Background()

	t.Run("no, proceed approves", func(t *testing.T) {
		api := newLLMServer(t, llm.ProviderOpenAI, scriptedResearch(t, func(llmCall) string { return planJSON(s.engine()) }))
		r, store := newRunner(t, s, api.engine(t, testPrice, nil))
		run := pausedRun(t, r, store, research.ReviewAlways)
		dec, err := r.Approve(ctx, run.ID, pipeline.Approval{Reply: "no, proceed"})
		if err != nil || dec.Intent != pipeline.IntentApprove || dec.NeedsConfirmation {
			t.Fatalf("Approve(no, proceed) = %+v, %v; want approve", dec, err)
		}
		waitStatus(t, store, run.ID, research.StatusDone)
	})

	t.Run("cancel asks first", func(t *testing.T) {
		api := newLLMServer(t, llm.ProviderOpenAI, scriptedResearch(t, func(llmCall) string { return planJSON(s.engine()) }))
		r, store := newRunner(t, s, api.engine(t, testPrice, nil))
		run := pausedRun(t, r, store, research.ReviewAlways)
		dec, err := r.Approve(ctx, run.ID, pipeline.Approval{Reply: "cancel"})
		if err != nil || !dec.NeedsConfirmation || dec.Intent != pipeline.IntentCancel || !hasChoice(dec, pipeline.IntentCancel, true) {
			t.Fatalf("Approve(cancel) = %+v, %v; want a confirmation choice", dec, err)
		}
		if cur, _ := store.GetRun(ctx, run.ID); cur.Status != research.StatusAwaitingApproval {
			t.Fatalf("after an unconfirmed cancel the run is %s", cur.Status)
		}
		dec, err = r.Approve(ctx, run.ID, pipeline.Approval{Reply: "skip"})
		if err != nil || !dec.NeedsConfirmation || dec.Intent != pipeline.IntentUnclear {
			t.Fatalf("Approve(skip) = %+v, %v; want the options", dec, err)
		}
		dec, err = r.Approve(ctx, run.ID, pipeline.Approval{Reply: "no search, just write it"})
		if err != nil || !dec.NeedsConfirmation || dec.Intent != pipeline.IntentSkip || !hasChoice(dec, pipeline.IntentApprove, false) {
			t.Fatalf("Approve(no search) with nothing gathered = %+v, %v; want the options", dec, err)
		}
		if _, err := r.Approve(ctx, run.ID, pipeline.Approval{Reply: "cancel", Confirm: true}); err != nil {
			t.Fatal(err)
		}
		waitStatus(t, store, run.ID, research.StatusCancelled)
		if got := api.stages(); !equalStrings(got, []string{stagePlan}) {
			t.Errorf("calls = %v, want only the plan", got)
		}
	})

	t.Run("an amendment re-plans", func(t *testing.T) {
		api := newLLMServer(t, llm.ProviderOpenAI, scriptedResearch(t, func(c llmCall) string {
			if strings.Contains(c.User, "The user clarified:") {
				return europePlanJSON(s.engine())
			}
			return planJSON(s.engine())
		}))
		r, store := newRunner(t, s, api.engine(t, testPrice, nil))
		run := pausedRun(t, r, store, research.ReviewAlways)
		dec, err := r.Approve(ctx, run.ID, pipeline.Approval{Reply: "yes but focus on Europe"})
		if err != nil || dec.Intent != pipeline.IntentAmend || !dec.Replanned {
			t.Fatalf("Approve(yes but focus on Europe) = %+v, %v; want amend and re-plan", dec, err)
		}
		done := waitStatus(t, store, run.ID, research.StatusDone)
		plans := api.callsOf(stagePlan)
		if len(plans) != 2 || !strings.Contains(plans[1].User, "The user clarified: focus on Europe") {
			t.Fatalf("plan calls = %d, want a second with the clarification:\n%s", len(plans), clipText(plans[len(plans)-1].User, 800))
		}
		for _, stage := range []string{stageHeartbeat, stageSynthesize} {
			calls := api.callsOf(stage)
			if len(calls) == 0 || !strings.Contains(calls[0].User, "focus on Europe") {
				t.Errorf("%s prompt lacks the clarification", stage)
			}
		}
		var spec research.TaskSpec
		json.Unmarshal(done.TaskSpec, &spec)
		if len(spec.Actions) != 2 || !strings.Contains(spec.Actions[0].Query, "Europe") {
			t.Errorf("gathered with %+v, want the re-planned search", spec.Actions)
		}
		actions, _ := store.Actions(ctx, run.ID)
		for _, a := range actions {
			if a.Query != "" && !strings.Contains(a.Query, "Europe") {
				t.Errorf("ran the unclarified search %q", a.Query)
			}
		}
		checkStageSpend(t, done, map[string]int{pipeline.SpendPlan: 2, pipeline.SpendHeartbeat: 1, pipeline.SpendSynthesize: 1})
		checkSpend(t, done, api, 4, testPrice)
		budgets := payloads[research.BudgetPayload](t, runEvents(t, store, run.ID), research.EventBudget)
		if len(budgets) == 0 || len(budgets[len(budgets)-1].Stages) < 2 {
			t.Errorf("budget events carry no spend per stage: %+v", budgets)
		}
	})
}

// TestUnclearQuestionPausesAnthropic plans through the Anthropic engine a
// question the model scores unclear and asks about: with review auto the
// run pauses, saying why; with the API's default (never) it runs straight
// through. Before, the score was ignored and both ran.
func TestUnclearQuestionPausesAnthropic(t *testing.T) {
	s := newSite(t, 0)
	ctx := context.Background()
	api := newLLMServer(t, llm.ProviderAnthropic, scriptedResearch(t, func(llmCall) string { return unclearPlanJSON(s.engine()) }))
	r, store := newRunner(t, s, api.engine(t, testPrice, nil))

	run := pausedRun(t, r, store, research.ReviewAuto)
	evs := runEvents(t, store, run.ID)
	paused := payloads[research.PlanPayload](t, evs, research.EventAwaitingApproval)
	if len(paused) != 1 || !strings.Contains(paused[0].Reason, "unclear") || !strings.Contains(paused[0].Reason, "0.30") {
		t.Fatalf("awaiting_approval = %+v, want the reason with the clarity", paused)
	}
	// Answering the question re-plans with the answer.
	dec, err := r.Approve(ctx, run.ID, pipeline.Approval{Clarification: "Q: Which investigation?\nA: The state's."})
	if err != nil || !dec.Replanned {
		t.Fatalf("Approve with an answer = %+v, %v; want a re-plan", dec, err)
	}
	waitStatus(t, store, run.ID, research.StatusDone)
	if plans := api.callsOf(stagePlan); len(plans) != 2 || !strings.Contains(plans[1].User, "The state's.") {
		t.Errorf("plan calls = %d, want a second with the answer", len(plans))
	}

	straight, err := r.Submit(ctx, pipeline.Request{Question: weworkQuestion, Depth: research.DepthQuick})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, store, straight.ID, research.StatusDone)
	for _, e := range runEvents(t, store, straight.ID) {
		if e.Type == research.EventAwaitingApproval {
			t.Error("a run without review paused")
		}
	}
}

// pausedRun submits the WeWork question with review and waits for the pause.
func pausedRun(t *testing.T, r *pipeline.Runner, store *db.Store, review research.ReviewMode) *db.Run {
	t.Helper()
	run, err := r.Submit(context.Background(), pipeline.Request{Question: weworkQuestion, Depth: research.DepthStandard, Review: review})
	if err != nil {
		t.Fatal(err)
	}
	paused := waitStatus(t, store, run.ID, research.StatusAwaitingApproval)
	deadline := time.Now().Add(5 * time.Second)
	for paused.LeaseOwner.Valid && time.Now().Before(deadline) { // the worker lets go of it
		time.Sleep(50 * time.Millisecond)
		paused, _ = store.GetRun(context.Background(), run.ID)
	}
	return paused
}

func hasChoice(dec pipeline.Decision, intent string, confirm bool) bool {
	for _, c := range dec.Choices {
		if c.Intent == intent && c.Confirm == confirm {
			return true
		}
	}
	return false
}

// checkStageSpend asserts runs.spend lists the stages with these call
// counts, each priced, summing to the total.
func checkStageSpend(t *testing.T, run *db.Run, calls map[string]int) {
	t.Helper()
	var spend pipeline.Spend
	if err := json.Unmarshal(run.Spend, &spend); err != nil {
		t.Fatal(err)
	}
	var usd float64
	got := map[string]int{}
	for _, s := range spend.Stages {
		got[s.Stage] = s.Calls
		usd += s.USD
		if s.USD <= 0 || s.InputTokens <= 0 {
			t.Errorf("stage %s spent nothing: %+v", s.Stage, s)
		}
	}
	if len(got) != len(calls) || math.Abs(usd-spend.USD) > 1e-9 {
		t.Errorf("spend by stage = %+v, want %v summing to $%.6f", spend.Stages, calls, spend.USD)
	}
	for stage, n := range calls {
		if got[stage] != n {
			t.Errorf("stage %s: %d calls, want %d", stage, got[stage], n)
		}
	}
}

// replyMarker opens the prompt of the model's reading of a reply.
const replyMarker = "You read a person's reply to a web research plan"

// TestModelReadsReplyOpenAI: a reply whose words the rules do not know is
// read by the model, through the OpenAI SDK; its reading is held to the
// same rules: a new question is confirmed first, an answer the model
// cannot give leaves the rules' reading.
func TestModelReadsReplyOpenAI(t *testing.T) {
	s := newSite(t, 0)
	ctx := context.Background()
	research := scriptedResearch(t, func(llmCall) string { return planJSON(s.engine()) })
	api := newLLMServer(t, llm.ProviderOpenAI, func(c llmCall) llmReply {
		if !strings.Contains(c.Body, replyMarker) {
			return research(c)
		}
		switch {
		case strings.Contains(c.User, "con lo planeado"):
			return llmReply{Text: `{"intent": "approve", "text": ""}`, In: 300, Out: 12}
		case strings.Contains(c.User, "Rust"):
			return llmReply{Text: `{"intent": "new_question", "text": "something else entirely"}`, In: 300, Out: 14}
		}
		return llmReply{Text: `{"intent": "delete everything"}`, In: 300, Out: 10}
	})
	r, store := newRunner(t, s, api.engine(t, testPrice, nil))

	run := pausedRun(t, r, store, researchAlways)
	dec, err := r.Approve(ctx, run.ID, pipeline.Approval{Reply: "Seguí con lo planeado nomás"})
	if err != nil || dec.Intent != pipeline.IntentApprove || dec.Replanned {
		t.Fatalf("Approve(rioplatense go ahead) = %+v, %v; want approve as planned", dec, err)
	}
	done := waitStatus(t, store, run.ID, researchDone)
	checkStageSpend(t, done, map[string]int{pipeline.SpendPlan: 1, pipeline.SpendReview: 1, pipeline.SpendHeartbeat: 1, pipeline.SpendSynthesize: 1})

	run = pausedRun(t, r, store, researchAlways)
	dec, err = r.Approve(ctx, run.ID, pipeline.Approval{Reply: "Erzähl mir lieber etwas über Rust"})
	if err != nil || dec.Intent != pipeline.IntentNewQuestion || !dec.NeedsConfirmation {
		t.Fatalf("Approve(a different question in German) = %+v, %v; want the new question confirmed first", dec, err)
	}
	// A reading the model cannot give (an unknown intent, twice) leaves
	// the rules' reading: an amendment.
	dec, err = r.Approve(ctx, run.ID, pipeline.Approval{Reply: "Nur die Jahre seit 2020 bitte"})
	if err != nil || dec.Intent != pipeline.IntentAmend || !dec.Replanned {
		t.Fatalf("Approve with an unusable model reading = %+v, %v; want the amendment", dec, err)
	}
	waitStatus(t, store, run.ID, researchDone)
	if n := len(api.callsOf("")); n != 4 { // 1 + 1 + 2 (a retry)
		t.Errorf("model readings of replies = %d, want 4", n)
	}
}

const (
	researchAlways = research.ReviewAlways
	researchDone   = research.StatusDone
)
