package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/tasks"
)

const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// TestWebhookValidatedAtSave: every webhook form that delivery would
// refuse is refused when the task is saved, through the API and the form,
// with 400 naming the field, and nothing is stored.
func TestWebhookValidatedAtSave(t *testing.T) {
	rep := newReplica(t, replicaOptions{tasks: true})
	cases := []struct {
		name, url, secret, field string
	}{
		{"no secret", "https://hooks.example.com/q", "", "notify.webhook_secret"},
		{"short secret", "https://hooks.example.com/q", "whsec_x", "notify.webhook_secret"},
		{"user and password", "https://user:pass@hooks.example.com/q", testSecret, "notify.webhook_url"},
		{"decimal address", "http://2130706433/q", testSecret, "notify.webhook_url"},
		{"hex address", "http://0x7f000001/q", testSecret, "notify.webhook_url"},
		{"octal address", "http://0177.0.0.1/q", testSecret, "notify.webhook_url"},
		{"short address", "http://127.1/q", testSecret, "notify.webhook_url"},
		{"trailing dot", "https://hooks.example.com./q", testSecret, "notify.webhook_url"},
	}
	before := countTasks(t, rep.store)
	for _, c := range cases {
		notify := map[string]any{"webhook_url": c.url}
		if c.secret != "" {
			notify["webhook_secret"] = c.secret
		}
		code, got := doJSON(t, "POST", rep.srv.URL+"/api/tasks", map[string]any{"question": "What changed on the status page?",
			"schedule": "every hour", "notify": notify})
		if code != http.StatusBadRequest || got["field"] != c.field {
			t.Errorf("API, %s: %d %v, want 400 naming %s", c.name, code, got, c.field)
		}
		resp, err := http.PostForm(rep.srv.URL+"/tasks", url.Values{"question": {"What changed on the status page?"},
			"schedule": {"every hour"}, "webhook_url": {c.url}, "webhook_secret": {c.secret}})
		if err != nil {
			t.Fatal(err)
		}
		msg := mustDoc(t, resp.Body).Find("[data-testid=form-error]")
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || msg.AttrOr("data-field", "") != c.field {
			t.Errorf("form, %s: %d %q (field %q), want 400 naming %s", c.name, resp.StatusCode, msg.Text(), msg.AttrOr("data-field", ""), c.field)
		}
	}
	if after := countTasks(t, rep.store); after != before {
		t.Errorf("bad webhooks stored %d tasks", after-before)
	}
	code, got := doJSON(t, "POST", rep.srv.URL+"/api/tasks", map[string]any{"question": "What changed on the status page?",
		"schedule": "every hour", "notify": map[string]any{"webhook_url": "https://hooks.example.com/q", "webhook_secret": testSecret}})
	if code != http.StatusCreated {
		t.Errorf("a good webhook: %d %v", code, got)
	}
}

// TestEditPageHidesWebhookSecret: the edit page says a secret is set and
// never shows it; saving with the field empty keeps the secret, a new
// value replaces it.
func TestEditPageHidesWebhookSecret(t *testing.T) {
	rep := newReplica(t, replicaOptions{tasks: true})
	code, got := doJSON(t, "POST", rep.srv.URL+"/api/tasks", map[string]any{"question": "What changed on the status page?",
		"schedule": "every hour", "notify": map[string]any{"webhook_url": "https://hooks.example.com/q", "webhook_secret": testSecret}})
	if code != http.StatusCreated {
		t.Fatalf("create: %d %v", code, got)
	}
	id := got["id"].(string)
	resp, err := http.Get(rep.srv.URL + "/tasks/" + id + "/edit")
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, resp.Body)
	resp.Body.Close()
	html, _ := doc.Html()
	if strings.Contains(html, strings.TrimPrefix(testSecret, "whsec_")) {
		t.Fatal("the edit page shows the webhook secret")
	}
	if doc.Find("[data-testid=secret-set]").Length() != 1 || doc.Find("input[name=webhook_secret]").AttrOr("value", "x") != "" {
		t.Fatalf("the edit page does not say a secret is set, or fills the field: %q", doc.Find("form").Text())
	}
	save := func(secret string) {
		t.Helper()
		resp, err := noRedirect.PostForm(rep.srv.URL+"/tasks/"+id+"/edit", url.Values{"question": {"What changed on the status page?"},
			"name": {"Status watch"}, "schedule": {"every hour"}, "webhook_url": {"https://hooks.example.com/q"}, "webhook_secret": {secret}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("save with secret %q: %d", secret, resp.StatusCode)
		}
	}
	save("")
	task, _ := rep.store.GetTask(t.Context(), id)
	if ch := tasks.ChannelsOf(task); ch.WebhookSecret != testSecret || task.Name != "Status watch" {
		t.Fatalf("an empty secret field did not keep the secret: %+v", ch)
	}
	const next = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"
	save(next)
	task, _ = rep.store.GetTask(t.Context(), id)
	if ch := tasks.ChannelsOf(task); ch.WebhookSecret != next {
		t.Fatalf("a new secret did not replace the old: %+v", ch)
	}
}
