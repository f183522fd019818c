package handlers_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/library"
	"github.com/quarryhq/quarry/research"
)

// TestPagesFitPhonesAndPassAxe visits every page a signed-in user sees
// (and the login and shared report pages a visitor sees) with real
// content: each is photographed at 1280 and 390 px, must not scroll
// sideways, must have no serious or critical axe-core violation, and must
// let a keyboard reach every action with a visible focus.
func TestPagesFitPhonesAndPassAxe(t *testing.T) {
	// The longest test of the package, on a server and database of its
	// own: it runs beside the other browser tests that have their own
	// (TestBrowserAskShowsPlanLive, TestPageChecksCatchProblems) once the
	// serial tests are done, instead of after them.
	t.Parallel()
	env := newFullEnv(t)
	ctx := context.Background()
	page := newUIPage(t)
	// One page walks through all the others: give it longer than the
	// minute a page gets by default (the race detector slows it).
	page.Page = page.Page.CancelTimeout().Timeout(5 * time.Minute)
	visit := func(name string) {
		t.Helper()
		page.checkPage(t, name)
		n := page.keyboardWalk(t, name)
		if n < 3 {
			t.Errorf("%s: only %d elements took keyboard focus", name, n)
		}
		t.Logf("%s: %d elements took keyboard focus, each visibly", name, n)
	}

	page.open(t, env, "/")
	if !strings.Contains(page.MustInfo().URL, "/login") {
		t.Fatalf("signed out, / shows %s, want the login page", page.MustInfo().URL)
	}
	visit("login")
	page.loginThroughForm(t)

	// A Markdown document whose title is its first heading; it ingests
	// while the run below runs.
	doc, _, err := env.lib.Add(ctx, library.Upload{Collection: "field-notes", Filename: "notes.md", AddedBy: "alice",
		Content: []byte("# Quarry field notes\n\nThe north face was cut in 1921 and closed in 1968.\n\nWater fills the lowest bench every spring.\n")})
	if err != nil {
		t.Fatal(err)
	}

	page.open(t, env, "/")
	visit("ask")
	page.MustElement("[data-testid=question]").MustInput("Why is the New York attorney general investigating WeWork?")
	page.MustElement("[data-testid=depth]").MustSelect("quick")
	page.MustElement("[data-testid=review]").MustClick()
	page.MustElement("[data-testid=ask]").MustClick()
	runID := page.landedOnRun(t)
	env.waitRun(t, runID, 30*time.Second, research.StatusAwaitingApproval)
	page.open(t, env, "/runs/"+runID)
	page.MustElement("[data-testid=approve-form]")
	visit("run-plan-review")

	page.MustElement("[data-testid=approve]").MustClick()
	run := env.waitRun(t, runID, 60*time.Second, research.StatusDone)
	page.open(t, env, "/runs/"+runID)
	page.MustElement("[data-testid=report]")
	visit("report")

	page.open(t, env, "/runs")
	visit("history")

	if !run.ShareToken.Valid {
		t.Fatal("the finished run has no share link")
	}
	visitor := newUIPage(t)
	visitor.open(t, env, "/r/"+run.ShareToken.String)
	visitor.MustElement("[data-testid=report]")
	visitor.checkPage(t, "shared-report")

	// Tasks: the form, a task, its edit form, a run waiting for approval.
	page.open(t, env, "/tasks/new")
	visit("task-new")
	page.MustElement("#task-question").MustInput("What changed in the WeWork investigation?")
	page.MustElement("[data-testid=task-schedule]").MustInput("every weekday at 8am")
	page.MustElement("#task-approval").MustSelect("approve every run's plan")
	page.MustElement("[data-testid=task-save]").MustClick()
	page.wait(t, 15*time.Second, `() => document.querySelector("[data-testid=task-run]") !== null`)
	taskURL := page.MustInfo().URL
	taskPath := taskURL[strings.Index(taskURL, "/tasks/"):]
	page.MustElement("[data-testid=task-run]").MustClick()
	page.wait(t, 15*time.Second, `() => document.querySelector("[data-testid=task-run-item]") !== null`)
	visit("task")
	page.open(t, env, taskPath+"/edit")
	visit("task-edit")
	page.open(t, env, "/tasks")
	visit("tasks")
	deadline := time.Now().Add(30 * time.Second)
	for {
		pending, err := env.store.PendingTaskApprovals(ctx, "alice", false)
		if err != nil {
			t.Fatal(err)
		}
		if len(pending) > 0 {
			break
		}
		if time.Now().After(deadline) {
			var states string
			dbtest.Get(t, env.store, &states, `SELECT coalesce(string_agg(t.approval || ' ' || r.status || ' ' || coalesce(r.error, ''), '; '), 'no runs') FROM tasks t LEFT JOIN runs r ON t.id = r.task_id`)
			t.Fatalf("the task's run never waited for approval: %q", states)
		}
		time.Sleep(100 * time.Millisecond)
	}
	page.open(t, env, "/approvals")
	page.MustElement("[data-testid=approval]")
	visit("approvals")

	// The library and a document.
	env.waitDocument(t, doc.ID)
	page.open(t, env, "/library")
	if got := page.evalString(t, `() => document.querySelector("[data-testid=library-documents] a").textContent.trim()`); got != "Quarry field notes" {
		t.Errorf("the library lists the Markdown document as %q, want its heading without #", got)
	}
	visit("library")
	page.open(t, env, "/library/documents/"+doc.ID)
	visit("document")

	if _, err := env.store.AddNotification(ctx, db.NewNotification{Owner: "alice", Kind: "run_done",
		Title: "What changed in the WeWork investigation?", Body: "The report found two new sources.", URL: "/runs/" + runID}); err != nil {
		t.Fatal(err)
	}
	page.open(t, env, "/notifications")
	page.MustElement("[data-testid=notification]")
	visit("notifications")

	page.open(t, env, "/settings")
	visit("settings")

	if p := page.problems(true); len(p) > 0 {
		t.Errorf("console errors (CSP or script): %q", p)
	}
}
