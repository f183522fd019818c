package handlers_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/handlers"
)

// badTexts are the characters every text field refuses.
var badTexts = map[string]string{
	"NUL":             "Release\x00watch",
	"terminal escape": "\x1b[31mred\x1b[0m",
	"bell":            "ding\x07",
	"C1 control":      "next\u0085line",
}

// TestTextFieldsRefuseControlCharacters sends NUL, an escape sequence and
// other control characters in every text field of every JSON route, form
// and query: each is refused with 400 naming the field (in JSON, its
// "field"; on a page, its name in the message) and nothing is stored. A
// line break passes in a multi-line field and is refused in a one-line one.
func TestTextFieldsRefuseControlCharacters(t *testing.T) {
	rep := newReplica(t, replicaOptions{tasks: true})
	base := rep.srv.URL
	code, created := doJSON(t, "POST", base+"/api/tasks", map[string]any{"question": "What changed on the status page?", "schedule": "every hour"})
	if code != http.StatusCreated {
		t.Fatalf("create task: %d %v", code, created)
	}
	taskID := created["id"].(string)
	run := awaitingRun(t, rep.store, "", "Which plan should the run follow?")
	runsBefore, tasksBefore := countRuns(t, rep.store), countTasks(t, rep.store)

	type jsonCase struct {
		method, path string
		body         func(bad string) map[string]any
		field        string
	}
	task := func(field, bad string) map[string]any {
		m := map[string]any{"question": "What changed on the status page?", "schedule": "every hour"}
		m[field] = bad
		return m
	}
	notify := func(field, bad string) map[string]any {
		return map[string]any{"question": "What changed on the status page?", "schedule": "every hour", "notify": map[string]any{field: bad}}
	}
	var jsonCases []jsonCase
	for _, f := range []string{"question", "depth", "parent_id"} {
		jsonCases = append(jsonCases, jsonCase{"POST", "/api/runs", func(bad string) map[string]any {
			m := map[string]any{"question": "How are runs limited?"}
			m[f] = bad
			return m
		}, f})
	}
	jsonCases = append(jsonCases, jsonCase{"POST", "/api/runs", func(bad string) map[string]any {
		return map[string]any{"question": "How are runs limited?", "engines": []string{bad}}
	}, "engines"})
	for _, path := range []string{"/api/tasks", "/api/tasks/" + taskID} {
		method := "POST"
		if path != "/api/tasks" {
			method = "PATCH"
		}
		for _, f := range []string{"name", "question", "depth", "schedule", "timezone", "approval"} {
			jsonCases = append(jsonCases, jsonCase{method, path, func(bad string) map[string]any { return task(f, bad) }, f})
		}
		jsonCases = append(jsonCases, jsonCase{method, path, func(bad string) map[string]any {
			return map[string]any{"question": "What changed?", "schedule": "every hour", "engines": []string{bad}}
		}, "engines"})
		for _, f := range []string{"on", "webhook_url", "webhook_secret", "email"} {
			jsonCases = append(jsonCases, jsonCase{method, path, func(bad string) map[string]any { return notify(f, bad) }, "notify." + f})
		}
	}
	for _, f := range []string{"clarification", "reply", "intent"} {
		jsonCases = append(jsonCases, jsonCase{"POST", "/api/runs/" + run.ID + "/approve", func(bad string) map[string]any { return map[string]any{f: bad} }, f})
	}
	jsonCases = append(jsonCases, jsonCase{"POST", "/api/runs/" + run.ID + "/approve", func(bad string) map[string]any {
		return map[string]any{"spec": map[string]any{"goal": bad}}
	}, "spec.goal"})
	jsonCases = append(jsonCases, jsonCase{"POST", "/api/runs/" + run.ID + "/approve", func(bad string) map[string]any {
		return map[string]any{"spec": map[string]any{"criteria": []string{bad}}}
	}, "spec.criteria"})
	for _, c := range jsonCases {
		for what, bad := range badTexts {
			code, got := doJSON(t, c.method, base+c.path, c.body(bad))
			if code != http.StatusBadRequest || got["field"] != c.field {
				t.Errorf("%s %s, %s in %s: %d %v, want 400 naming %s", c.method, c.path, what, c.field, code, got, c.field)
			}
		}
	}

	type formCase struct {
		path  string
		form  url.Values
		field string
	}
	runForm := url.Values{"question": {"How are runs limited?"}, "depth": {"quick"}, "once": {"1"}}
	taskForm := url.Values{"question": {"What changed on the status page?"}, "schedule": {"every hour"}}
	var formCases []formCase
	for _, f := range []string{"question", "depth", "review", "parent_id", "scope", "engine"} {
		formCases = append(formCases, formCase{"/runs", runForm, f})
	}
	for _, path := range []string{"/tasks", "/tasks/" + taskID + "/edit"} {
		for _, f := range []string{"name", "question", "depth", "schedule", "timezone", "approval", "notify_on", "webhook_url", "webhook_secret", "email", "max_failures"} {
			formCases = append(formCases, formCase{path, taskForm, f})
		}
	}
	for _, f := range []string{"clarification", "reply", "goal"} {
		formCases = append(formCases, formCase{"/runs/" + run.ID + "/approve", url.Values{}, f})
	}
	for _, c := range formCases {
		for what, bad := range badTexts {
			form := url.Values{}
			for k, v := range c.form {
				form[k] = v
			}
			form.Set(c.field, bad)
			resp, err := noRedirect.PostForm(base+c.path, form)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "field "+c.field+" contains") {
				t.Errorf("form %s, %s in %s: %d, want 400 naming the field", c.path, what, c.field, resp.StatusCode)
			}
		}
	}
	for _, q := range []struct{ path, field string }{
		{"/runs?q=", "q"}, {"/api/tasks/preview?schedule=", "schedule"}, {"/tasks/new?question=", "question"},
		{"/runs?status=", "status"},
	} {
		resp, err := http.Get(base + q.path + url.QueryEscape("\x00\x1b[2J"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), q.field) {
			t.Errorf("GET %s with a NUL: %d %s", q.path, resp.StatusCode, body)
		}
	}
	if n := countRuns(t, rep.store); n != runsBefore {
		t.Errorf("refused input stored %d runs", n-runsBefore)
	}
	if n := countTasks(t, rep.store); n != tasksBefore {
		t.Errorf("refused input stored %d tasks", n-tasksBefore)
	}
	if got, _ := rep.store.GetTask(t.Context(), taskID); got.Name != created["name"] && strings.ContainsAny(got.Name, "\x00\x1b") {
		t.Errorf("the task's name was changed to %q", got.Name)
	}

	// Lines: a question may span lines, a name may not.
	if code, got := doJSON(t, "POST", base+"/api/runs", map[string]any{"question": "How are runs limited?\n\tAnd why?"}); code != http.StatusCreated {
		t.Errorf("a two-line question: %d %v", code, got)
	}
	if code, got := doJSON(t, "POST", base+"/api/tasks", task("name", "two\nlines")); code != http.StatusBadRequest || got["field"] != "name" {
		t.Errorf("a two-line task name: %d %v", code, got)
	}
}

// TestLoginAndUploadRefuseControlCharacters: the sign-in form and the
// library's upload form refuse control characters, naming the field.
func TestLoginAndUploadRefuseControlCharacters(t *testing.T) {
	srv := newAuthServer(t, "", handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthPassword}})
	for _, f := range []string{"name", "password", "next"} {
		form := url.Values{"name": {"alice"}, "password": {"correct horse"}, "next": {"/"}}
		form.Set(f, "al\x00ice")
		resp := do(t, http.MethodPost, srv.srv.URL+"/login", "", form)
		msg := mustDoc(t, resp.Body).Find("[data-testid=login-error]").Text()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(msg, "field "+f) {
			t.Errorf("login with a NUL in %s: %d %q", f, resp.StatusCode, msg)
		}
	}
	lib := libraryServer(t)
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	w.WriteField("collection", "notes\x1b[2J")
	fw, _ := w.CreateFormFile("file", "a.txt")
	fw.Write([]byte("some words of text"))
	w.Close()
	req, _ := http.NewRequest(http.MethodPost, lib.srv.URL+"/api/documents", &buf)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("X-User", "alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || out["field"] != "collection" {
		t.Errorf("upload with an escape in the collection: %d %v", resp.StatusCode, out)
	}
}
