package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// TestRunPageFoldsEvents: the page shows what the events up to the run's
// last seq say, and points its stream just after them.
func TestRunPageFoldsEvents(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	run := createRun(t, rep.store, "What does the <b>page</b> show?")
	appendEvent(t, rep.store, run.ID, research.EventAction, research.ActionPayload{Idx: 1, Kind: "search", Engine: "bing", Query: "first", Status: research.ActionPending})
	appendEvent(t, rep.store, run.ID, research.EventAction, research.ActionPayload{Idx: 2, Kind: "navigate", URL: "https://example.org/", Status: research.ActionPending})
	appendEvent(t, rep.store, run.ID, research.EventAction, research.ActionPayload{Idx: 1, Status: research.ActionSuccess, Preview: "a preview"})
	appendEvent(t, rep.store, run.ID, research.EventHeartbeatDecision, research.DecisionPayload{Batch: 1, Reason: "criterion 2 lacks evidence"})
	appendEvent(t, rep.store, run.ID, research.EventSynthesisDelta, research.DeltaPayload{Pass: 1, Text: "Hello "})
	last := appendEvent(t, rep.store, run.ID, research.EventSynthesisDelta, research.DeltaPayload{Pass: 1, Text: "world"})

	resp, err := http.Get(rep.srv.URL + "/runs/" + run.ID)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, resp.Body)
	resp.Body.Close()
	if got := doc.Find("h1.question").Text(); got != "What does the <b>page</b> show?" {
		t.Errorf("question %q (must be escaped text)", got)
	}
	actions := doc.Find("[data-testid=action]")
	if actions.Length() != 2 || actions.Eq(0).AttrOr("data-status", "") != string(research.ActionSuccess) || !strings.Contains(actions.Eq(0).Text(), "Search bing for “first”") ||
		!strings.Contains(actions.Eq(0).Text(), "a preview") || actions.Eq(1).AttrOr("data-status", "") != string(research.ActionPending) {
		t.Errorf("actions: %d %q", actions.Length(), actions.Text())
	}
	if got := doc.Find("[data-testid=decision]").Text(); !strings.Contains(got, "criterion 2 lacks evidence") {
		t.Errorf("decision %q", got)
	}
	if got := doc.Find("#draft").Text(); got != "Hello world" {
		t.Errorf("draft %q", got)
	}
	if got := doc.Find("[sse-connect]").AttrOr("sse-connect", ""); !strings.HasSuffix(got, "/events?after="+itoa(last.Seq)) {
		t.Errorf("sse-connect %q, want after=%d", got, last.Seq)
	}
	if doc.Find("[data-testid=stop]").Length() != 1 {
		t.Error("no Stop button on a live run")
	}
}

// TestDoneRunShowsReport: a finished run shows the published report and
// share link in place, with no stream to connect to.
func TestDoneRunShowsReport(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	run := createRun(t, rep.store, "finished with a report")
	ctx := context.Background()
	err := rep.store.InTx(ctx, func(tx *db.Tx) error {
		if _, err := tx.AddReport(ctx, db.Report{RunID: run.ID, Markdown: "## Answer\n\nYes [S1].", HTML: "<h2>Answer</h2><p>Yes.</p>", Published: true}); err != nil {
			return err
		}
		if err := tx.SetShareToken(ctx, run.ID, "sharetoken123", nil); err != nil {
			return err
		}
		status := research.StatusDone
		if err := tx.UpdateRun(ctx, run.ID, db.RunUpdate{Status: &status}); err != nil {
			return err
		}
		_, err := tx.AppendEvent(ctx, run.ID, research.EventRunCompleted, research.CompletedPayload{Status: status, HTML: "<p>Yes.</p>"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(rep.srv.URL + "/runs/" + run.ID)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, resp.Body)
	resp.Body.Close()
	if doc.Find("[data-testid=report] h2").Text() != "Answer" || doc.Find("[data-testid=share-link]").AttrOr("href", "") != "/r/sharetoken123" {
		t.Errorf("report block: %q", doc.Find("#report-block").Text())
	}
	if doc.Find("[sse-connect]").Length() != 0 || doc.Find("[data-testid=stop]").Length() != 0 {
		t.Error("a finished run still streams or offers Stop")
	}

	api, err := http.Get(rep.srv.URL + "/api/runs/" + run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Status   string
		ShareURL string `json:"share_url"`
		Report   *struct{ Markdown string }
	}
	json.NewDecoder(api.Body).Decode(&body)
	api.Body.Close()
	if body.Status != string(research.StatusDone) || body.ShareURL != "/r/sharetoken123" || body.Report == nil || body.Report.Markdown != "## Answer\n\nYes [S1]." {
		t.Errorf("api run %+v", body)
	}
	md, err := http.Get(rep.srv.URL + "/api/runs/" + run.ID + "/report.md")
	if err != nil {
		t.Fatal(err)
	}
	b := new(strings.Builder)
	readAll(md.Body, b)
	md.Body.Close()
	if md.StatusCode != http.StatusOK || b.String() != "## Answer\n\nYes [S1]." || !strings.HasPrefix(md.Header.Get("Content-Type"), "text/markdown") {
		t.Errorf("report.md: %d %q %q", md.StatusCode, md.Header.Get("Content-Type"), b)
	}
}

// TestReviewApproveCancel drives a real run through the extractive intake
// to the plan review, approves it with the form, and stops it.
func TestReviewApproveCancel(t *testing.T) {
	dbURL, drop, err := dbtest.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	rep := newReplica(t, replicaOptions{url: dbURL, start: true})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(rep.srv.URL+"/runs", url.Values{"question": {"Compare SSE and WebSockets for live progress, and when is each the better choice?"}, "depth": {"quick"}, "review": {"on"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	id := strings.TrimPrefix(loc, "/runs/")
	waitStatus(t, rep.store, id, research.StatusAwaitingApproval)

	page, err := http.Get(rep.srv.URL + loc)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, page.Body)
	page.Body.Close()
	if doc.Find("[data-testid=approve-form] [data-testid=edit-criterion]").First().Text() == "" || doc.Find("[data-testid=approve-form]").Length() != 1 {
		t.Fatalf("plan awaiting review not shown: %q", doc.Find("#plan").Text())
	}
	if got := doc.Find("[data-testid=run-status]").Text(); got != string(research.StatusAwaitingApproval) {
		t.Errorf("status %q", got)
	}

	resp, err = client.PostForm(rep.srv.URL+loc+"/approve", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != loc {
		t.Fatalf("approve: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	run, err := rep.store.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status == research.StatusAwaitingApproval || run.Status == research.StatusQueued {
		t.Errorf("after approval the run is %s", run.Status)
	}
	// Approving again is not possible; the API says so.
	again, err := http.Post(rep.srv.URL+"/api/runs/"+id+"/approve", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if again.StatusCode != http.StatusConflict {
		t.Errorf("second approval: %d, want 409", again.StatusCode)
	}

	resp, err = client.PostForm(rep.srv.URL+loc+"/cancel", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel: %d", resp.StatusCode)
	}
	waitTerminal(t, rep.store, id)
	cancel, err := http.Post(rep.srv.URL+"/api/runs/"+id+"/cancel", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	cancel.Body.Close()
	if cancel.StatusCode != http.StatusConflict {
		t.Errorf("cancelling a finished run: %d, want 409", cancel.StatusCode)
	}
}

func TestHistoryPage(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	a := createRun(t, rep.store, "history about penguins in Antarctica")
	createRun(t, rep.store, "history about volcanoes")
	if err := rep.runner.Cancel(context.Background(), a.ID); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		query string
		want  string
	}{
		{"?q=penguins", "history about penguins in Antarctica"},
		{"?q=volcanoes&status=queued", "history about volcanoes"},
		{"?status=cancelled&q=history", "history about penguins in Antarctica"},
	} {
		resp, err := http.Get(rep.srv.URL + "/runs" + tt.query)
		if err != nil {
			t.Fatal(err)
		}
		doc := mustDoc(t, resp.Body)
		resp.Body.Close()
		items := doc.Find("[data-testid=run-item] a")
		if items.Length() != 1 || items.Text() != tt.want {
			t.Errorf("%s: %d items %q", tt.query, items.Length(), items.Text())
		}
	}
	// An htmx request gets the fragment without the layout.
	req, _ := http.NewRequest(http.MethodGet, rep.srv.URL+"/runs?q=penguins", nil)
	req.Header.Set("HX-Request", "true")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, resp.Body)
	resp.Body.Close()
	if doc.Find("header.top").Length() != 0 || doc.Find("[data-testid=run-item]").Length() != 1 {
		t.Errorf("htmx request got the full page or no list")
	}
}

func waitStatus(t *testing.T, store *db.Store, id string, status research.RunStatus) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		run, err := store.GetRun(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if run.Status == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s is %s, want %s", id, run.Status, status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitTerminal(t *testing.T, store *db.Store, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		run, err := store.GetRun(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if run.Status.Terminal() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s is still %s", id, run.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func readAll(r io.Reader, b *strings.Builder) { io.Copy(b, r) }

// TestReviewFormEditsAndAnswers posts the plan review form as a browser
// without JavaScript would: an edit the pipeline refuses (no usable
// action) shows the form again with the edit and the reason; a good edit
// with answers to the clarifying questions resumes the run with the
// edited plan and the answers as clarification.
func TestReviewFormEditsAndAnswers(t *testing.T) {
	rep := newReplica(t, replicaOptions{}) // no workers: the run stays where the test puts it
	ctx := context.Background()
	run := createRun(t, rep.store, "Which queue should we use?")
	spec := research.TaskSpec{Route: "research", Goal: "Pick a queue", Criteria: []string{"throughput"}, Sections: []string{"Answer"},
		Actions:   []research.ActionSpec{{Kind: "search", Engine: "duckduckgo", Query: "queues"}},
		Questions: []string{"How many messages a second?"}, Budget: research.Presets()["quick"]}
	err := rep.store.InTx(ctx, func(tx *db.Tx) error {
		status := research.StatusAwaitingApproval
		if err := tx.SaveCheckpoint(ctx, run.ID, pipeline.StageReview, pipeline.State{Stage: pipeline.StageReview, Spec: &spec, Review: research.ReviewAlways, Engines: []string{"duckduckgo"}}); err != nil {
			return err
		}
		if err := tx.UpdateRun(ctx, run.ID, db.RunUpdate{Status: &status, TaskSpec: mustJSON(t, spec)}); err != nil {
			return err
		}
		_, err := tx.AppendEvent(ctx, run.ID, research.EventAwaitingApproval, research.PlanPayload{Status: status, Spec: spec})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	page := getDoc(t, rep.srv.URL+"/runs/"+run.ID, http.StatusOK)
	form := page.Find("[data-testid=approve-form]")
	if form.Find("label[for=answer-0]").Text() != "How many messages a second?" || form.Find("#action-target-0").AttrOr("value", "") != "queues" {
		t.Fatalf("review form: %q", form.Text())
	}

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	bad := url.Values{"plan": {"1"}, "goal": {"Pick a queue"}, "criterion": {"latency", ""}, "section": {"Answer"},
		"action_kind_0": {"navigate"}, "action_target_0": {"not a url"}, "question": {"How many messages a second?"}, "answer": {"About 500."}}
	resp, err := client.PostForm(rep.srv.URL+"/runs/"+run.ID+"/approve", bad)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || doc.Find("[data-testid=review-error]").Text() == "" ||
		doc.Find("#criterion-0").Text() != "latency" || doc.Find("#answer-0").Text() != "About 500." {
		t.Fatalf("refused edit: %d, error %q, form %q", resp.StatusCode, doc.Find("[data-testid=review-error]").Text(), doc.Find("[data-testid=approve-form]").Text())
	}

	good := url.Values{"plan": {"1"}, "goal": {"Pick a queue"}, "criterion": {"latency", "cost"}, "section": {"Answer", "Costs"},
		"action_kind_0": {"search"}, "action_engine_0": {"duckduckgo"}, "action_target_0": {"queue latency"},
		"action_kind_1": {"navigate"}, "action_target_1": {"https://example.org/queues"},
		"question": {"How many messages a second?"}, "answer": {"About 500."}}
	resp, err = client.PostForm(rep.srv.URL+"/runs/"+run.ID+"/approve", good)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d", resp.StatusCode)
	}
	st, err := pipeline.LatestState(ctx, rep.store, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Approved || st.Spec.Criteria[1] != "cost" || st.Spec.Sections[1] != "Costs" || len(st.Spec.Actions) != 2 ||
		st.Spec.Actions[0].Query != "queue latency" || st.Spec.Actions[1].URL != "https://example.org/queues" ||
		st.Clarification != "Q: How many messages a second?\nA: About 500." {
		t.Errorf("resumed state: approved %v spec %+v clarification %q", st.Approved, st.Spec, st.Clarification)
	}
}

// TestRunPageShowsAgentSteps: the site agent's steps appear inside their
// action with the element's name and a screenshot served beside the run.
func TestRunPageShowsAgentSteps(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	run := createRun(t, rep.store, "site search")
	appendEvent(t, rep.store, run.ID, research.EventAction, research.ActionPayload{Idx: 1, Kind: "search", Engine: "site:https://example.org/", Query: "q", Status: research.ActionRunning})
	jpeg := []byte{0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9}
	ctx := context.Background()
	if err := rep.store.SaveAgentStep(ctx, db.AgentStep{RunID: run.ID, ActionIdx: 1, N: 1, Kind: "type", Element: "searchbox <Search>", Status: "running"}, `type [2] "q"`); err != nil {
		t.Fatal(err)
	}
	if err := rep.store.SaveAgentStep(ctx, db.AgentStep{RunID: run.ID, ActionIdx: 1, N: 1, Kind: "type", Element: "searchbox <Search>", Status: "success", Screenshot: jpeg}, `type [2] "q"`); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(rep.srv.URL + "/runs/" + run.ID)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, resp.Body)
	resp.Body.Close()
	steps := doc.Find("[data-testid=action] [data-testid=agent-step]")
	if steps.Length() != 1 || steps.AttrOr("data-status", "") != "success" || !strings.Contains(steps.Text(), "searchbox <Search>") {
		t.Fatalf("agent steps: %d %q", steps.Length(), steps.Text())
	}
	src := steps.Find("img").AttrOr("src", "")
	shot, err := http.Get(rep.srv.URL + src)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(shot.Body)
	shot.Body.Close()
	if shot.StatusCode != 200 || shot.Header.Get("Content-Type") != "image/jpeg" || string(body) != string(jpeg) {
		t.Errorf("GET %s: %d %s %d bytes", src, shot.StatusCode, shot.Header.Get("Content-Type"), len(body))
	}
	missing, err := http.Get(rep.srv.URL + "/runs/" + run.ID + "/agent/1/9.jpg")
	if err != nil {
		t.Fatal(err)
	}
	missing.Body.Close()
	if missing.StatusCode != http.StatusNotFound {
		t.Errorf("a missing screenshot answered %d", missing.StatusCode)
	}
}
