package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/tasks"
	"github.com/quarryhq/quarry/web"
)

func testTaskOptions(runner *pipeline.Runner) handlers.TaskOptions {
	return handlers.TaskOptions{
		Rules:      tasks.Rules{MinInterval: 10 * time.Second, CheckURL: egress.NewGuard(nil).Check},
		MaxPerUser: 20,
		Normalize:  runner.Normalize,
		NewRun: func(t *db.Task, review bool) (db.NewRun, error) {
			return runner.NewRun(pipeline.Request{Question: t.Question, Depth: t.Depth, Engines: t.Engines, Review: research.ReviewWhen(review)})
		},
		Changes: func(_ context.Context, runID string) (string, bool) { return "", false },
	}
}

func doJSON(t *testing.T, method, url string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func countTasks(t *testing.T, store *db.Store) int {
	var n int
	dbtest.Get(t, store, &n, `SELECT count(*) FROM tasks`)
	return n
}

func TestTaskAPILifecycle(t *testing.T) {
	rep := newReplica(t, replicaOptions{tasks: true})
	api := rep.srv.URL + "/api/tasks"
	code, created := doJSON(t, "POST", api, map[string]any{
		"name": "Release watch", "question": "What changed in the PostgreSQL release notes?", "depth": "quick",
		"schedule": "every weekday at 8am", "timezone": "Europe/Berlin", "approval": "first",
		"notify": map[string]any{"on": "change", "webhook_url": "https://hooks.example.com/q", "webhook_secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "email": "ops@example.com"},
	})
	if code != http.StatusCreated || created["id"] == nil || created["next_run_at"] == nil {
		t.Fatalf("create: %d %v", code, created)
	}
	id := created["id"].(string)
	next, _ := time.Parse(time.RFC3339, created["next_run_at"].(string))
	berlin, _ := time.LoadLocation("Europe/Berlin")
	if l := next.In(berlin); l.Hour() != 8 || l.Minute() != 0 || l.Weekday() == time.Saturday || l.Weekday() == time.Sunday {
		t.Fatalf("next_run_at = %s (%s in Berlin)", next, l)
	}

	code, got := doJSON(t, "GET", api+"/"+id, nil)
	if code != 200 || got["status"] != "active" || got["consecutive_failures"].(float64) != 0 || got["paused_reason"] != "" {
		t.Fatalf("get: %d %v", code, got)
	}
	notify := got["notify"].(map[string]any)
	if notify["webhook_secret_set"] != true || notify["webhook_secret"] != nil || notify["email"] != "ops@example.com" {
		t.Fatalf("notify = %v (the secret must not come back)", notify)
	}

	code, got = doJSON(t, "POST", api+"/"+id+"/pause", nil)
	if code != 200 || got["status"] != "paused" || got["next_run_at"] != nil {
		t.Fatalf("pause: %d %v", code, got)
	}
	code, got = doJSON(t, "POST", api+"/"+id+"/resume", nil)
	if code != 200 || got["status"] != "active" || got["next_run_at"] == nil {
		t.Fatalf("resume: %d %v", code, got)
	}
	code, ran := doJSON(t, "POST", api+"/"+id+"/run", nil)
	if code != http.StatusCreated || ran["id"] == nil {
		t.Fatalf("run now: %d %v", code, ran)
	}
	run, err := rep.store.GetRun(t.Context(), ran["id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	var opts struct{ Review research.ReviewMode }
	json.Unmarshal(run.Options, &opts)
	if opts.Review != research.ReviewNever {
		// Approval "first" holds the first scheduled run; a person's
		// "Run now" is theirs and does not wait.
		t.Errorf("run now of an approval=first task waits for review: %s", run.Options)
	}
	code, got = doJSON(t, "GET", api+"/"+id, nil)
	runs := got["runs"].([]any)
	if code != 200 || len(runs) != 1 || runs[0].(map[string]any)["id"] != ran["id"] {
		t.Fatalf("runs after run now: %v", got["runs"])
	}
	if _, ok := runs[0].(map[string]any)["changes"]; !ok {
		t.Errorf("a run has no changes field: %v", runs[0])
	}

	code, got = doJSON(t, "PATCH", api+"/"+id, map[string]any{"schedule": "every 6 hours", "notify": map[string]any{"on": "always"}})
	if code != 200 || got["schedule"] != "every 6 hours" || got["notify"].(map[string]any)["on"] != "always" || got["name"] != "Release watch" {
		t.Fatalf("patch: %d %v", code, got)
	}
	code, list := doJSON(t, "GET", api, nil)
	if code != 200 || len(list["tasks"].([]any)) == 0 {
		t.Fatalf("list: %d %v", code, list)
	}
	code, _ = doJSON(t, "DELETE", api+"/"+id, nil)
	if code != http.StatusNoContent {
		t.Fatalf("delete: %d", code)
	}
	if code, _ := doJSON(t, "GET", api+"/"+id, nil); code != 404 {
		t.Fatalf("get after delete: %d", code)
	}
	// The run outlives its task.
	if _, err := rep.store.GetRun(t.Context(), run.ID); err != nil {
		t.Fatalf("the run went with its task: %v", err)
	}
}

func TestTaskAPIRejectsBadInput(t *testing.T) {
	rep := newReplica(t, replicaOptions{tasks: true})
	base := map[string]any{"question": "What is new on the status page?", "schedule": "every hour"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for a, b := range base {
			m[a] = b
		}
		m[k] = v
		return m
	}
	notify := func(k, v string) map[string]any { return with("notify", map[string]any{k: v}) }
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"invalid cron", with("schedule", "61 * * * *"), "schedule"},
		{"unreadable phrase", with("schedule", "every blursday"), "schedule"},
		{"unknown zone", with("timezone", "Mars/Olympus_Mons"), "timezone"},
		{"below the minimum interval", with("schedule", "every 5 seconds"), "schedule"},
		{"in the past", with("schedule", "2001-01-01 09:00"), "schedule"},
		{"private webhook", notify("webhook_url", "http://127.0.0.1:9/hook"), "notify.webhook_url"},
		{"webhook not http", notify("webhook_url", "ftp://hooks.example.com/x"), "notify.webhook_url"},
		{"email without @", notify("email", "ops.example.com"), "notify.email"},
		{"unknown policy", notify("on", "sometimes"), "notify.on"},
		{"unknown approval", with("approval", "maybe"), "approval"},
		{"no question", with("question", ""), "question"},
		{"unknown depth", with("depth", "bottomless"), "depth"},
		{"zero max failures", with("max_failures", 0), "max_failures"},
	}
	before := countTasks(t, rep.store)
	for _, c := range cases {
		code, got := doJSON(t, "POST", rep.srv.URL+"/api/tasks", c.body)
		if code != http.StatusBadRequest || got["field"] != c.field {
			t.Errorf("%s: %d %v, want 400 naming %s", c.name, code, got, c.field)
		}
	}
	if after := countTasks(t, rep.store); after != before {
		t.Errorf("bad input stored %d tasks", after-before)
	}
	// "every 10 seconds" is allowed when the minimum interval allows it.
	if code, got := doJSON(t, "POST", rep.srv.URL+"/api/tasks", with("schedule", "every 10 seconds")); code != http.StatusCreated {
		t.Errorf("every 10 seconds: %d %v", code, got)
	}
}

func TestSchedulePreview(t *testing.T) {
	rep := newReplica(t, replicaOptions{tasks: true})
	code, got := doJSON(t, "GET", rep.srv.URL+"/api/tasks/preview?"+url.Values{"schedule": {"every Monday and Thursday at 17:30"}, "timezone": {"America/New_York"}}.Encode(), nil)
	if code != 200 || len(got["next"].([]any)) != 5 || got["kind"] != "cron" {
		t.Fatalf("preview: %d %v", code, got)
	}
	ny, _ := time.LoadLocation("America/New_York")
	for _, v := range got["next"].([]any) {
		at, _ := time.Parse(time.RFC3339, v.(string))
		l := at.In(ny)
		if l.Hour() != 17 || l.Minute() != 30 || (l.Weekday() != time.Monday && l.Weekday() != time.Thursday) {
			t.Errorf("preview time %s", l)
		}
	}
}

func TestTaskPages(t *testing.T) {
	rep := newReplica(t, replicaOptions{tasks: true})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"question": {"What changed in the release notes?"}, "depth": {"quick"}, "schedule": {"daily at noon"},
		"timezone": {"UTC"}, "approval": {"always"}, "notify_on": {"change"}, "max_failures": {"3"}}

	// Preview shows the next five runs and stores nothing.
	before := countTasks(t, rep.store)
	preview := url.Values{"preview": {"1"}}
	for k, v := range form {
		preview[k] = v
	}
	resp, err := client.PostForm(rep.srv.URL+"/tasks", preview)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, resp.Body)
	resp.Body.Close()
	if n := doc.Find("[data-testid=schedule-preview] li").Length(); resp.StatusCode != 200 || n != 5 {
		t.Fatalf("preview: %d, %d times", resp.StatusCode, n)
	}
	if countTasks(t, rep.store) != before {
		t.Fatal("the preview stored a task")
	}

	// A bad schedule re-renders the form naming what was understood.
	bad := url.Values{}
	for k, v := range form {
		bad[k] = v
	}
	bad.Set("schedule", "every monday at quarter past")
	resp, _ = client.PostForm(rep.srv.URL+"/tasks", bad)
	doc = mustDoc(t, resp.Body)
	resp.Body.Close()
	if msg := doc.Find("[data-testid=form-error]"); resp.StatusCode != 400 || msg.AttrOr("data-field", "") != "schedule" ||
		!strings.Contains(msg.Text(), "quarter past") {
		t.Fatalf("bad schedule: %d %q", resp.StatusCode, msg.Text())
	}

	resp, err = client.PostForm(rep.srv.URL+"/tasks", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/tasks/") {
		t.Fatalf("create: %d %q", resp.StatusCode, loc)
	}
	taskID := strings.TrimPrefix(loc, "/tasks/")

	resp, _ = http.Get(rep.srv.URL + "/tasks")
	doc = mustDoc(t, resp.Body)
	resp.Body.Close()
	row := doc.Find("[data-testid=task-row][data-task-id='" + taskID + "']")
	if row.Length() != 1 || !strings.Contains(row.Text(), "daily at noon") || !strings.Contains(row.Text(), "active") {
		t.Fatalf("task list row: %q", row.Text())
	}

	// Run now, with approval always: the run waits on the approvals page.
	resp, _ = client.PostForm(rep.srv.URL+"/tasks/"+taskID+"/run", nil)
	resp.Body.Close()
	runs, _ := rep.store.TaskRuns(t.Context(), taskID, 5)
	if len(runs) != 1 {
		t.Fatalf("run now made %d runs", len(runs))
	}
	dbtest.Exec(t, rep.store, `UPDATE runs SET status = 'awaiting_approval' WHERE id = $1`, runs[0].ID)
	resp, _ = http.Get(rep.srv.URL + "/approvals")
	doc = mustDoc(t, resp.Body)
	resp.Body.Close()
	if doc.Find("[data-testid=approval][data-run-id='"+runs[0].ID+"']").Length() != 1 {
		t.Fatalf("the approvals page does not list the run: %s", doc.Find("main").Text())
	}
	resp, _ = client.PostForm(rep.srv.URL+"/approvals/"+runs[0].ID+"/skip", nil)
	resp.Body.Close()
	if run, _ := rep.store.GetRun(t.Context(), runs[0].ID); resp.StatusCode != http.StatusSeeOther || run.Status != "cancelled" {
		t.Fatalf("skip: %d, run %s", resp.StatusCode, run.Status)
	}

	resp, _ = client.PostForm(rep.srv.URL+"/tasks/"+taskID+"/pause", nil)
	resp.Body.Close()
	resp, _ = http.Get(rep.srv.URL + "/tasks/" + taskID)
	doc = mustDoc(t, resp.Body)
	resp.Body.Close()
	if got := doc.Find("[data-testid=task-status]").Text(); !strings.Contains(got, "paused") || doc.Find("[data-testid=task-resume]").Length() != 1 {
		t.Fatalf("task page after pause: %q", got)
	}
	if doc.Find("[data-testid=task-run-item]").Length() != 1 {
		t.Fatalf("task page lists %d runs: %s", doc.Find("[data-testid=task-run-item]").Length(), doc.Find("[data-testid=task-runs]").Text())
	}
}

func TestAskProposesTaskForRecurringWish(t *testing.T) {
	rep := newReplica(t, replicaOptions{tasks: true})
	before := countRuns(t, rep.store)
	resp, err := http.PostForm(rep.srv.URL+"/runs", url.Values{"question": {"Every morning, what changed in the PostgreSQL release notes?"}, "depth": {"quick"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, resp.Body)
	resp.Body.Close()
	card := doc.Find("[data-testid=task-wish]")
	if resp.StatusCode != 200 || card.Length() != 1 {
		t.Fatalf("no proposal card: %d", resp.StatusCode)
	}
	if got := card.Find("input[name=schedule]").AttrOr("value", ""); got != "Every morning" {
		t.Errorf("proposed schedule %q", got)
	}
	if countRuns(t, rep.store) != before {
		t.Fatal("a run was stored before the person chose")
	}
	// "Just run it once" runs it.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, _ = client.PostForm(rep.srv.URL+"/runs", url.Values{"question": {"Every morning, what changed in the PostgreSQL release notes?"}, "depth": {"quick"}, "once": {"1"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || countRuns(t, rep.store) != before+1 {
		t.Fatalf("run once: %d", resp.StatusCode)
	}
	// The ask form's "Repeat this" leads to a prefilled task form.
	resp, _ = http.Get(rep.srv.URL + "/tasks/new?" + url.Values{"question": {"What changed?"}, "depth": {"deep"}}.Encode())
	doc = mustDoc(t, resp.Body)
	resp.Body.Close()
	if got := doc.Find("[data-testid=task-question]").Text(); got != "What changed?" {
		t.Errorf("prefilled question %q", got)
	}
	resp, _ = http.Get(rep.srv.URL + "/")
	doc = mustDoc(t, resp.Body)
	resp.Body.Close()
	if doc.Find("[data-testid=repeat]").AttrOr("formaction", "") != "/tasks/new" {
		t.Error("the ask form has no Repeat this")
	}
}

// With accounts, a task is its owner's: others neither see nor change it.
func TestTasksAreTheOwners(t *testing.T) {
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	opts := testTaskOptions(pipeline.NewRunner(pipeline.Options{Engines: []string{"duckduckgo"}}))
	srv := newAuthServer(t, "", handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthProxy, Header: "X-Auth-Request-User"},
		TrustedProxies: []*net.IPNet{loopback}, Tasks: opts})
	as := func(user, method, path, body string) (int, map[string]any) {
		req, _ := http.NewRequest(method, srv.srv.URL+path, strings.NewReader(body))
		req.Header.Set("X-Auth-Request-User", user)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	code, created := as("ann", "POST", "/api/tasks", `{"question":"What changed in the release notes?","schedule":"every hour"}`)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %v", code, created)
	}
	id := created["id"].(string)
	task, err := srv.store.GetTask(t.Context(), id)
	if err != nil || task.Owner != "ann" {
		t.Fatalf("owner = %v, %v", task, err)
	}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/tasks/" + id, ""}, {"PATCH", "/api/tasks/" + id, `{"schedule":"every 2 hours"}`},
		{"POST", "/api/tasks/" + id + "/pause", ""}, {"POST", "/api/tasks/" + id + "/run", ""}, {"DELETE", "/api/tasks/" + id, ""},
	} {
		if code, _ := as("bob", c.method, c.path, c.body); code != http.StatusNotFound {
			t.Errorf("bob %s %s: %d, want 404", c.method, c.path, code)
		}
	}
	if _, list := as("bob", "GET", "/api/tasks", ""); len(list["tasks"].([]any)) != 0 {
		t.Errorf("bob lists ann's tasks: %v", list)
	}
	if got, _ := srv.store.GetTask(t.Context(), id); got.Status != db.TaskActive || got.ScheduleText != "every hour" {
		t.Errorf("bob changed ann's task: %s %q", got.Status, got.ScheduleText)
	}
	if code, _ := as("ann", "POST", "/api/tasks/"+id+"/pause", ""); code != http.StatusOK {
		t.Errorf("ann pauses her task: %d", code)
	}
}

// Editing a one-shot's name keeps its time; a relative phrase is not read
// again from the time of the edit.
func TestPatchOneShotKeepsItsTime(t *testing.T) {
	rep := newReplica(t, replicaOptions{tasks: true})
	code, created := doJSON(t, "POST", rep.srv.URL+"/api/tasks", map[string]any{"question": "Summarise the reviews", "schedule": "in 3 hours", "timezone": "Asia/Tokyo"})
	if code != http.StatusCreated {
		t.Fatalf("create: %d %v", code, created)
	}
	id := created["id"].(string)
	time.Sleep(1100 * time.Millisecond)
	code, got := doJSON(t, "PATCH", rep.srv.URL+"/api/tasks/"+id, map[string]any{"name": "Reviews"})
	if code != 200 || got["next_run_at"] != created["next_run_at"] || got["name"] != "Reviews" {
		t.Fatalf("patch: %d next %v, was %v", code, got["next_run_at"], created["next_run_at"])
	}
}

// TestTaskFormEngines: the task form offers the configured engines, "Repeat
// this" (a GET of /tasks/new with the ask form's fields) carries the ones
// ticked, and the choice is stored and shown again when editing.
func TestTaskFormEngines(t *testing.T) {
	other := "url:https://search.example/?q={query}"
	rep := newReplica(t, replicaOptions{tasks: true, settings: web.SettingsView{SearchEngines: []string{"duckduckgo", other}}})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	ticked := func(path string) map[string]bool {
		t.Helper()
		resp, err := http.Get(rep.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		doc := mustDoc(t, resp.Body)
		resp.Body.Close()
		boxes := doc.Find("[data-testid=task-engine]")
		if resp.StatusCode != 200 || boxes.Length() != 2 {
			t.Fatalf("GET %s: %d, %d engine boxes", path, resp.StatusCode, boxes.Length())
		}
		out := map[string]bool{}
		boxes.Each(func(_ int, s *goquery.Selection) {
			_, on := s.Attr("checked")
			out[s.AttrOr("value", "")] = on
		})
		return out
	}
	got := ticked("/tasks/new?" + url.Values{"question": {"What changed?"}, "depth": {"quick"}, "engine": {"duckduckgo"}}.Encode())
	if !got["duckduckgo"] || got[other] {
		t.Fatalf("repeat this with duckduckgo ticked: %v", got)
	}
	resp, err := client.PostForm(rep.srv.URL+"/tasks", url.Values{"question": {"What changed in the release notes?"}, "depth": {"quick"},
		"schedule": {"daily at noon"}, "timezone": {"UTC"}, "approval": {"auto"}, "notify_on": {"never"}, "max_failures": {"3"},
		"engine": {"duckduckgo"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	taskID := strings.TrimPrefix(resp.Header.Get("Location"), "/tasks/")
	task, err := rep.store.GetTask(t.Context(), taskID)
	if resp.StatusCode != http.StatusSeeOther || err != nil {
		t.Fatalf("create: %d %v", resp.StatusCode, err)
	}
	if len(task.Engines) != 1 || task.Engines[0] != "duckduckgo" {
		t.Fatalf("stored engines = %v", task.Engines)
	}
	if got := ticked("/tasks/" + taskID + "/edit"); !got["duckduckgo"] || got[other] {
		t.Fatalf("edit form: %v", got)
	}
}
