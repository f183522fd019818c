package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// awaitingRun stores a run of owner paused for plan review, as the
// pipeline leaves it.
func awaitingRun(t *testing.T, store *db.Store, owner, question string) *db.Run {
	t.Helper()
	ctx := context.Background()
	run, err := store.CreateRun(ctx, db.NewRun{Question: question, Depth: "quick", Owner: owner})
	if err != nil {
		t.Fatal(err)
	}
	spec := research.TaskSpec{Route: "research", Goal: "Answer it", Criteria: []string{"accuracy"}, Sections: []string{"Answer"},
		Actions: []research.ActionSpec{{Kind: "search", Engine: "duckduckgo", Query: "answer"}}, Budget: research.Presets()["quick"]}
	err = store.InTx(ctx, func(tx *db.Tx) error {
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
	return run
}

func addAdmin(t *testing.T, store *db.Store, name, password string) {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.AddUser(context.Background(), db.User{Name: name, PasswordHash: string(h), Admin: true}); err != nil {
		t.Fatal(err)
	}
}

// TestRunControlIsForOwnerAndAdmins: with accounts, every user reads every
// run, but only its owner or an admin may cancel, approve or share it; the
// others get 403 with a message saying who may. The events record who
// acted, and the run page shows who approved and who cancelled.
func TestRunControlIsForOwnerAndAdmins(t *testing.T) {
	s := newAuthServer(t, "", handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthPassword}})
	addUser(t, s.store, "owner1", "owner password 1")
	addUser(t, s.store, "other2", "other password 2")
	addAdmin(t, s.store, "admin3", "admin password 3")
	session := map[string]string{}
	for name, pw := range map[string]string{"owner1": "owner password 1", "other2": "other password 2", "admin3": "admin password 3"} {
		_, c := login(t, s.srv.URL, name, pw, "")
		if c == nil {
			t.Fatalf("%s could not sign in", name)
		}
		session[name] = c.Value
	}
	run := awaitingRun(t, s.store, "owner1", "Who may stop this run?")
	runURL := s.srv.URL + "/runs/" + run.ID
	api := s.srv.URL + "/api/runs/" + run.ID

	if resp := do(t, http.MethodGet, api, session["other2"], nil); resp.StatusCode != http.StatusOK {
		t.Errorf("another user reading the run: %d, want 200", resp.StatusCode)
	}
	for _, tc := range []struct{ method, url string }{
		{http.MethodPost, api + "/cancel"},
		{http.MethodPost, api + "/approve"},
		{http.MethodPost, runURL + "/cancel"},
		{http.MethodPost, runURL + "/approve"},
		{http.MethodPost, runURL + "/share"},
		{http.MethodPost, runURL + "/share/revoke"},
	} {
		resp := do(t, tc.method, tc.url, session["other2"], nil)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "owner1") || !strings.Contains(string(b), "admin") {
			t.Errorf("%s %s by another user: %d %.200s, want 403 naming the owner and admins", tc.method, tc.url, resp.StatusCode, b)
		}
	}
	if got := getRun(t, s.store, run.ID).Status; got != research.StatusAwaitingApproval {
		t.Fatalf("after the refusals the run is %s", got)
	}
	// The page shows each viewer only what they may do: another user sees
	// the plan but no review form and no Stop button; the owner and an
	// admin see both.
	for name, want := range map[string]bool{"other2": false, "owner1": true, "admin3": true} {
		doc := mustDoc(t, do(t, http.MethodGet, runURL, session[name], nil).Body)
		form := doc.Find("[data-testid=approve-form]").Length() > 0
		stop := doc.Find("[data-testid=stop]").Length() > 0
		note := doc.Find("[data-testid=awaiting-owner]").Length() > 0
		if form != want || stop != want || note == want {
			t.Errorf("run page seen by %s: review form %v, Stop %v, waiting note %v; want controls %v", name, form, stop, note, want)
		}
	}
	// The owner may try to share (there is no report yet: 409, not 403).
	if resp := do(t, http.MethodPost, runURL+"/share", session["owner1"], nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("owner sharing a run without a report: %d, want 409", resp.StatusCode)
	}

	// An admin approves someone else's run; the plan event records them.
	if resp := do(t, http.MethodPost, api+"/approve", session["admin3"], nil); resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("admin approving: %d %s", resp.StatusCode, b)
	}
	// The owner cancels it.
	if resp := do(t, http.MethodPost, api+"/cancel", session["owner1"], nil); resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("owner cancelling: %d %s", resp.StatusCode, b)
	}
	evs, err := s.store.EventsAfter(context.Background(), run.ID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	actors := map[string]string{}
	for _, ev := range evs {
		actors[ev.Type] = ev.Actor
	}
	if actors[research.EventPlan] != "admin3" || actors[research.EventRunCancelled] != "owner1" || actors[research.EventAwaitingApproval] != "" {
		t.Errorf("event actors %v, want the plan by admin3, the cancel by owner1, the pipeline's own by no one", actors)
	}
	// The API's event stream carries the actor too.
	raw, _ := json.Marshal(evs[len(evs)-1])
	if !strings.Contains(string(raw), `"actor":"owner1"`) {
		t.Errorf("event JSON %s lacks the actor", raw)
	}

	resp := do(t, http.MethodGet, runURL, session["other2"], nil)
	doc := mustDoc(t, resp.Body)
	if got := doc.Find("[data-testid=approved-by]").Text(); !strings.Contains(got, "admin3") {
		t.Errorf("run page: approved-by %q, want admin3", got)
	}
	if got := doc.Find("[data-testid=cancelled-by]").Text(); !strings.Contains(got, "owner1") {
		t.Errorf("run page: cancelled-by %q, want owner1", got)
	}
}

func getRun(t *testing.T, store *db.Store, id string) *db.Run {
	t.Helper()
	run, err := store.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return run
}
