package handlers_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/quarryhq/quarry/research"
)

func TestAskPageRendersForm(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	resp, err := http.Get(rep.srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	doc := mustDoc(t, resp.Body)
	for _, sel := range []string{"[data-testid=question]", "[data-testid=depth]", "[data-testid=ask]", "[data-testid=review]"} {
		if doc.Find(sel).Length() != 1 {
			t.Errorf("%s: found %d, want 1", sel, doc.Find(sel).Length())
		}
	}
	if got := doc.Find("[data-testid=depth] option[selected]").AttrOr("value", ""); got != "standard" {
		t.Errorf("default depth = %q, want standard", got)
	}
}

func TestCreateRunFormRedirects(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(rep.srv.URL+"/runs", url.Values{"question": {"How do SSE reconnects work?"}, "depth": {"quick"}, "review": {"1"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("status %d, want 303", resp.StatusCode)
	}
	loc := resp.Header.Get("Location")
	if !strings.HasPrefix(loc, "/runs/") {
		t.Fatalf("Location %q", loc)
	}
	run, err := rep.store.GetRun(t.Context(), strings.TrimPrefix(loc, "/runs/"))
	if err != nil {
		t.Fatal(err)
	}
	var opts struct{ Review research.ReviewMode }
	json.Unmarshal(run.Options, &opts)
	if run.Question != "How do SSE reconnects work?" || run.Depth != "quick" || opts.Review != research.ReviewAlways {
		t.Errorf("stored run = %q %q %s", run.Question, run.Depth, run.Options)
	}

	page, err := http.Get(rep.srv.URL + loc)
	if err != nil {
		t.Fatal(err)
	}
	defer page.Body.Close()
	doc := mustDoc(t, page.Body)
	if got := doc.Find("[data-testid=run-status]").Text(); got != "queued" {
		t.Errorf("run-status = %q, want queued", got)
	}
	if got := doc.Find("[sse-connect]").AttrOr("sse-connect", ""); got != loc+"/events?after=1" {
		t.Errorf("sse-connect = %q", got)
	}
}

func TestCreateRunFormRejectsBadInput(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	long := strings.Repeat("a", 4001)
	tests := []struct {
		name     string
		body     string
		question string // kept in the re-rendered form
		wantErr  string
	}{
		{"empty question", url.Values{"question": {""}, "depth": {"quick"}}.Encode(), "", "enter a question"},
		{"whitespace question", url.Values{"question": {"  \n\t "}, "depth": {"quick"}}.Encode(), "  \n\t ", "enter a question"},
		{"too long", url.Values{"question": {long}, "depth": {"quick"}}.Encode(), long, "limit is 4000"},
		{"unknown depth", url.Values{"question": {"What is SKIP LOCKED?"}, "depth": {"extreme"}}.Encode(), "What is SKIP LOCKED?", "unknown depth"},
		{"oversized body", "question=" + strings.Repeat("b", 70<<10), "", "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := countRuns(t, rep.store)
			resp, err := http.Post(rep.srv.URL+"/runs", "application/x-www-form-urlencoded", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", resp.StatusCode)
			}
			doc := mustDoc(t, resp.Body)
			if got := doc.Find("[data-testid=form-error]").Text(); !strings.Contains(strings.ToLower(got), tt.wantErr) {
				t.Errorf("form error %q, want it to mention %q", got, tt.wantErr)
			}
			if got := doc.Find("textarea[data-testid=question]").Text(); got != tt.question {
				t.Errorf("question kept = %q (len %d), want %q", clip(got), len(got), clip(tt.question))
			}
			if after := countRuns(t, rep.store); after != before {
				t.Errorf("runs stored: %d → %d", before, after)
			}
		})
	}
}

func TestCreateRunAPI(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	resp, err := http.Post(rep.srv.URL+"/api/runs", "application/json",
		strings.NewReader(`{"question":"Which Postgres versions support MERGE?","depth":"deep","review":true,"engines":["duckduckgo"]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var out map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	id := out["id"]
	if len(id) != 36 || out["url"] != "/runs/"+id || out["events_url"] != "/api/runs/"+id+"/events" || len(out) != 3 {
		t.Fatalf("response %v", out)
	}

	get, err := http.Get(rep.srv.URL + "/api/runs/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer get.Body.Close()
	var run map[string]any
	if err := json.NewDecoder(get.Body).Decode(&run); err != nil {
		t.Fatal(err)
	}
	if run["id"] != id || run["status"] != "queued" || run["depth"] != "deep" || run["question"] != "Which Postgres versions support MERGE?" {
		t.Errorf("run %v", run)
	}
	for _, key := range []string{"actions", "sources", "task_spec", "created_at", "stop_reason", "error"} {
		if _, ok := run[key]; !ok {
			t.Errorf("run lacks %q: %v", key, run)
		}
	}
	if _, ok := run["report"]; ok {
		t.Errorf("unpublished run has a report: %v", run["report"])
	}
}

func TestCreateRunAPIRejectsBadInput(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	tests := []struct {
		name      string
		body      string
		wantErr   string
		wantField string
	}{
		{"empty question", `{"question":""}`, "enter a question", "question"},
		{"whitespace question", `{"question":"   \n "}`, "enter a question", "question"},
		{"too long", `{"question":"` + strings.Repeat("x", 4001) + `"}`, "limit is 4000", "question"},
		{"unknown depth", `{"question":"q?","depth":"bottomless"}`, "unknown depth", "depth"},
		{"unknown engine", `{"question":"q?","engines":["altavista"]}`, "altavista", "engines"},
		{"malformed JSON", `{"question": "q?"`, "malformed JSON", ""},
		{"not JSON", `question=q`, "malformed JSON", ""},
		{"unknown field", `{"question":"q?","colour":"red"}`, `unknown field "colour"`, ""},
		{"wrong type", `{"question":42}`, `field "question"`, ""},
		{"trailing data", `{"question":"q?"} {"question":"again"}`, "after the object", ""},
		{"empty body", ``, "empty", ""},
		{"oversized body", `{"question":"` + strings.Repeat("y", 70<<10) + `"}`, "larger than 65536 bytes", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := countRuns(t, rep.store)
			resp, err := http.Post(rep.srv.URL+"/api/runs", "application/json", bytes.NewBufferString(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", resp.StatusCode)
			}
			var body struct{ Error, Field string }
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(body.Error, tt.wantErr) || body.Field != tt.wantField {
				t.Errorf("error %q field %q, want %q field %q", body.Error, body.Field, tt.wantErr, tt.wantField)
			}
			if after := countRuns(t, rep.store); after != before {
				t.Errorf("runs stored: %d → %d", before, after)
			}
		})
	}
}

func TestUnknownRunIs404(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	ids := []string{"00000000-0000-4000-8000-000000000000", "not-a-uuid", "1%27%20OR%201=1"}
	for _, id := range ids {
		for _, path := range []string{"/runs/" + id, "/runs/" + id + "/events"} {
			resp, err := http.Get(rep.srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			doc := mustDoc(t, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound || doc.Find("[data-testid=error]").AttrOr("data-status", "") != "404" {
				t.Errorf("GET %s: %d, error block %q", path, resp.StatusCode, doc.Find("[data-testid=error]").AttrOr("data-status", ""))
			}
		}
		for _, path := range []string{"/api/runs/" + id, "/api/runs/" + id + "/events", "/api/runs/" + id + "/report.md"} {
			resp, err := http.Get(rep.srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			var body struct{ Error string }
			json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound || body.Error == "" || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
				t.Errorf("GET %s: %d %q %q", path, resp.StatusCode, resp.Header.Get("Content-Type"), body.Error)
			}
		}
		for _, path := range []string{"/api/runs/" + id + "/cancel", "/api/runs/" + id + "/approve"} {
			resp, err := http.Post(rep.srv.URL+path, "application/json", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("POST %s: %d, want 404", path, resp.StatusCode)
			}
		}
	}
}

func mustDoc(t *testing.T, r io.Reader) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(r)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
