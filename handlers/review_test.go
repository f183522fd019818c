package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// pausedForReview stores a run paused at plan review, as the pipeline
// leaves it.
func pausedForReview(t *testing.T, rep *replica, question string) *db.Run {
	t.Helper()
	ctx := context.Background()
	run := createRun(t, rep.store, question)
	spec := research.TaskSpec{Route: "research", Goal: question, Criteria: []string{"throughput"}, Sections: []string{"Answer"},
		Actions:   []research.ActionSpec{{Kind: "search", Engine: "duckduckgo", Query: "queues"}},
		Questions: []string{"How many messages a second?"}, Clarity: 0.4, Budget: research.Presets()["quick"]}
	err := rep.store.InTx(ctx, func(tx *db.Tx) error {
		status := research.StatusAwaitingApproval
		if err := tx.SaveCheckpoint(ctx, run.ID, pipeline.StageReview, pipeline.State{Stage: pipeline.StageReview, Spec: &spec, Review: research.ReviewAuto, Engines: []string{"duckduckgo"}}); err != nil {
			return err
		}
		if err := tx.UpdateRun(ctx, run.ID, db.RunUpdate{Status: &status, TaskSpec: mustJSON(t, spec)}); err != nil {
			return err
		}
		_, err := tx.AppendEvent(ctx, run.ID, research.EventAwaitingApproval, research.PlanPayload{Status: status, Spec: spec, Reason: "The question is unclear (clarity 0.40, below 0.60)."})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func postJSON(t *testing.T, u, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(u, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("POST %s: %d %s", u, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

func runStatus(t *testing.T, store *db.Store, id string) research.RunStatus {
	t.Helper()
	run, err := store.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return run.Status
}

// TestAPIApproveReplies: "no, proceed" leaves the run going (it used to
// cancel it); "cancel" without confirm changes nothing and answers 409
// with the choices; with confirm it cancels.
func TestAPIApproveReplies(t *testing.T) {
	rep := newReplica(t, replicaOptions{})

	run := pausedForReview(t, rep, "Which queue should we use?")
	code, out := postJSON(t, rep.srv.URL+"/api/runs/"+run.ID+"/approve", `{"reply": "no, proceed"}`)
	if code != http.StatusOK || out["intent"] != pipeline.IntentApprove {
		t.Fatalf("no, proceed: %d %v", code, out)
	}
	if got := runStatus(t, rep.store, run.ID); got != research.StatusGathering {
		t.Errorf("after no, proceed the run is %s, want gathering", got)
	}

	run = pausedForReview(t, rep, "Which queue should we use?")
	u := rep.srv.URL + "/api/runs/" + run.ID + "/approve"
	code, out = postJSON(t, u, `{"reply": "cancel"}`)
	choices, _ := out["choices"].([]any)
	if code != http.StatusConflict || out["needs_confirmation"] != true || len(choices) < 2 {
		t.Fatalf("unconfirmed cancel: %d %v", code, out)
	}
	if first := choices[0].(map[string]any); first["intent"] != pipeline.IntentCancel || first["confirm"] != true {
		t.Errorf("first choice = %v, want the confirmed cancel", first)
	}
	if got := runStatus(t, rep.store, run.ID); got != research.StatusAwaitingApproval {
		t.Fatalf("an unconfirmed cancel left the run %s", got)
	}
	code, out = postJSON(t, u, `{"reply": "no"}`)
	if code != http.StatusConflict || out["intent"] != pipeline.IntentUnclear {
		t.Errorf("bare no: %d %v, want the options", code, out)
	}
	code, out = postJSON(t, u, `{"reply": "cancel", "confirm": true}`)
	if code != http.StatusOK || out["intent"] != pipeline.IntentCancel {
		t.Fatalf("confirmed cancel: %d %v", code, out)
	}
	if got := runStatus(t, rep.store, run.ID); got != research.StatusCancelled {
		t.Errorf("after a confirmed cancel the run is %s", got)
	}
}

// TestReviewFormReplyAndChoice posts the review form as a browser without
// JavaScript: a reply of "cancel" shows the choice as buttons and leaves
// the run paused; the cancel button cancels it. The page shows why the
// run paused and the plan's clarity.
func TestReviewFormReplyAndChoice(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	run := pausedForReview(t, rep, "Which queue should we use?")
	page := getDoc(t, rep.srv.URL+"/runs/"+run.ID, http.StatusOK)
	if page.Find("[data-testid=approve-form] textarea[name=reply]").Length() != 1 {
		t.Fatal("the review form has no reply field")
	}
	if got := page.Find("[data-testid=review-reason]").Text(); !strings.Contains(got, "unclear") {
		t.Errorf("review reason = %q", got)
	}
	if got := page.Find("[data-testid=clarity]").Text(); !strings.Contains(got, "0.40") {
		t.Errorf("clarity = %q", got)
	}

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"plan": {"1"}, "goal": {"Which queue should we use?"}, "criterion": {"throughput"}, "section": {"Answer"},
		"action_kind_0": {"search"}, "action_engine_0": {"duckduckgo"}, "action_target_0": {"queues"}, "reply": {"cancel"}}
	resp, err := client.PostForm(rep.srv.URL+"/runs/"+run.ID+"/approve", form)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, resp.Body)
	resp.Body.Close()
	choice := doc.Find("[data-testid=reply-choice]")
	if resp.StatusCode != http.StatusOK || choice.Find("button[name=choice][value=cancel]").Length() != 1 ||
		choice.Find("button[name=choice][value=approve]").Length() != 1 || doc.Find("textarea[name=reply]").Text() != "cancel" {
		t.Fatalf("reply cancel: %d, choice %q", resp.StatusCode, choice.Text())
	}
	if got := runStatus(t, rep.store, run.ID); got != research.StatusAwaitingApproval {
		t.Fatalf("the reply alone left the run %s", got)
	}
	form.Set("choice", "cancel")
	resp, err = client.PostForm(rep.srv.URL+"/runs/"+run.ID+"/approve", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || runStatus(t, rep.store, run.ID) != research.StatusCancelled {
		t.Errorf("cancel button: %d, run %s", resp.StatusCode, runStatus(t, rep.store, run.ID))
	}
}

// TestReviewModeDefaults: the ask form defaults to auto; the API keeps
// never unless told (true = always, "auto" accepted, anything else
// refused by name).
func TestReviewModeDefaults(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	page := getDoc(t, rep.srv.URL+"/", http.StatusOK)
	if !page.Find("[data-testid=review-auto]").Is("[checked]") {
		t.Error("the ask form does not default to review auto")
	}
	stored := func(id string) research.ReviewMode {
		run, err := rep.store.GetRun(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		var opts pipeline.RunOptions
		json.Unmarshal(run.Options, &opts)
		return opts.Review
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(rep.srv.URL+"/runs", url.Values{"question": {"Which queue should we use?"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := stored(strings.TrimPrefix(resp.Header.Get("Location"), "/runs/")); got != research.ReviewAuto {
		t.Errorf("form without a choice stored review %q, want auto", got)
	}
	for _, c := range []struct {
		field string
		want  research.ReviewMode
	}{{``, research.ReviewNever}, {`,"review":false`, research.ReviewNever}, {`,"review":true`, research.ReviewAlways}, {`,"review":"auto"`, research.ReviewAuto}} {
		code, out := postJSON(t, rep.srv.URL+"/api/runs", `{"question":"Which queue should we use?"`+c.field+`}`)
		if code != http.StatusCreated {
			t.Fatalf("%s: %d %v", c.field, code, out)
		}
		if got := stored(out["id"].(string)); got != c.want {
			t.Errorf("API %s stored review %q, want %q", c.field, got, c.want)
		}
	}
	code, out := postJSON(t, rep.srv.URL+"/api/runs", `{"question":"Which queue should we use?","review":"sometimes"}`)
	if msg, _ := out["error"].(string); code != http.StatusBadRequest || !strings.Contains(msg, "review") {
		t.Errorf("bad review: %d %v", code, out)
	}
}

// TestAutoReviewPausesUnclearQuestion: with review auto, a question the
// engine scores unclear pauses for review with the reason; the same
// question through the API's default runs straight on.
func TestAutoReviewPausesUnclearQuestion(t *testing.T) {
	rep := newReplica(t, replicaOptions{start: true})
	const unclear = "tell me about that"
	_, out := postJSON(t, rep.srv.URL+"/api/runs", `{"question":"`+unclear+`","depth":"quick","review":"auto"}`)
	id := out["id"].(string)
	waitLong(t, rep.store, id, research.StatusAwaitingApproval)
	page := getDoc(t, rep.srv.URL+"/runs/"+id, http.StatusOK)
	if got := page.Find("[data-testid=review-reason]").Text(); !strings.Contains(got, "unclear") {
		t.Errorf("review reason = %q", got)
	}

	// The ask form, left at its default, pauses it too.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(rep.srv.URL+"/runs", url.Values{"question": {unclear}, "depth": {"quick"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	waitLong(t, rep.store, strings.TrimPrefix(resp.Header.Get("Location"), "/runs/"), research.StatusAwaitingApproval)

	_, out = postJSON(t, rep.srv.URL+"/api/runs", `{"question":"`+unclear+`","depth":"quick"}`)
	id = out["id"].(string)
	deadline := time.Now().Add(90 * time.Second)
	for {
		st := runStatus(t, rep.store, id)
		if st == research.StatusAwaitingApproval {
			t.Fatal("a run without review paused")
		}
		if st != research.StatusQueued && st != research.StatusPlanning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("run stuck %s", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSpendPerStage: the run page and GET /api/runs/{id} show the model
// spend of each stage, not only the total.
func TestSpendPerStage(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	ctx := context.Background()
	run := createRun(t, rep.store, "Which queue should we use?")
	spend := `{"calls":3,"input_tokens":5000,"output_tokens":600,"usd":0.024,"stages":[` +
		`{"stage":"plan","calls":1,"input_tokens":900,"output_tokens":160,"usd":0.0051},` +
		`{"stage":"heartbeat","calls":1,"input_tokens":700,"output_tokens":25,"usd":0.0025},` +
		`{"stage":"synthesize","calls":1,"input_tokens":3400,"output_tokens":415,"usd":0.0164}]}`
	if err := rep.store.InTx(ctx, func(tx *db.Tx) error {
		return tx.UpdateRun(ctx, run.ID, db.RunUpdate{Spend: json.RawMessage(spend)})
	}); err != nil {
		t.Fatal(err)
	}
	page := getDoc(t, rep.srv.URL+"/runs/"+run.ID, http.StatusOK)
	stages := page.Find("[data-testid=spend-stages] [data-stage]")
	if stages.Length() != 3 || !strings.Contains(page.Find("[data-stage=synthesize]").Text(), "$0.0164") {
		t.Errorf("spend by stage on the page: %q", page.Find("[data-testid=spend-stages]").Text())
	}
	resp, err := http.Get(rep.srv.URL + "/api/runs/" + run.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Spend pipeline.Spend `json:"spend"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	if out.Spend.USD != 0.024 || len(out.Spend.Stages) != 3 || out.Spend.Stages[1].Stage != "heartbeat" {
		t.Errorf("API spend = %+v", out.Spend)
	}
}

// waitLong waits for a status while the package's earlier runs, queued
// before this one on the shared database, may still hold the worker.
func waitLong(t *testing.T, store *db.Store, id string, status research.RunStatus) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for runStatus(t, store, id) != status {
		if time.Now().After(deadline) {
			t.Fatalf("run %s is %s, want %s", id, runStatus(t, store, id), status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
