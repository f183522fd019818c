package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/notify"
	"github.com/quarryhq/quarry/research"
)

// e2eSecret is the task's Standard Webhooks secret (16 random bytes).
const e2eSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// webhookSink is a loopback webhook receiver that keeps only deliveries
// whose Standard Webhooks signature the library's verifier accepts.
type webhookSink struct {
	verify *standardwebhooks.Webhook
	mu     sync.Mutex
	got    []notify.Envelope
	bad    []string
	ch     chan struct{}
}

func (s *webhookSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.verify.Verify(body, r.Header); err != nil {
		s.bad = append(s.bad, err.Error())
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	var env notify.Envelope
	if err := json.Unmarshal(body, &env); err != nil {
		s.bad = append(s.bad, "body: "+err.Error())
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	s.got = append(s.got, env)
	select {
	case s.ch <- struct{}{}:
	default:
	}
	w.WriteHeader(http.StatusNoContent)
}

// TestScheduledTaskEndToEnd runs `quarry serve` with its real wiring
// (buildTasks, buildOutbox, the task notifier and change reader): a task
// created over the API runs on its schedule against a loopback site with
// the extractive engine, and its finish reaches the inbox and a loopback
// webhook, signed, with the report's link.
func TestScheduledTaskEndToEnd(t *testing.T) {
	t.Parallel()
	site := fixtureSite(t)
	verify, err := standardwebhooks.NewWebhook(e2eSecret)
	if err != nil {
		t.Fatal(err)
	}
	sink := &webhookSink{verify: verify, ch: make(chan struct{}, 1)}
	hook := httptest.NewServer(sink)
	defer hook.Close()

	const baseURL = "http://quarry.example"
	dbURL := ownDatabase(t)
	p := startServe(t, "DATABASE_URL="+dbURL,
		"QUARRY_LLM=extractive",
		"QUARRY_SEARCH_ENGINES=url:"+site.URL+"/search?q={query}",
		"QUARRY_ALLOW_HOSTS="+strings.TrimPrefix(site.URL, "http://")+","+strings.TrimPrefix(hook.URL, "http://"),
		"QUARRY_TASK_MIN_INTERVAL=5s",
		"QUARRY_TASK_DAILY_RUNS=3",
		"QUARRY_DEPTH_QUICK=actions=3,pages=2",
		"QUARRY_BASE_URL="+baseURL)
	api := "http://" + p.addr

	body, _ := json.Marshal(map[string]any{
		"name":     "WeWork watch",
		"question": "Why is the New York attorney general investigating WeWork?",
		"depth":    "quick",
		"schedule": "every 10 seconds",
		"notify":   map[string]any{"on": "always", "webhook_url": hook.URL + "/hook", "webhook_secret": e2eSecret},
	})
	resp, err := http.Post(api+"/api/tasks", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		ID        string     `json:"id"`
		NextRunAt *time.Time `json:"next_run_at"`
	}
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || created.ID == "" || created.NextRunAt == nil {
		t.Fatalf("POST /api/tasks: %d %+v", resp.StatusCode, created)
	}

	conn, err := db.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	store := db.NewStore(conn, nil)

	// The scheduler creates the slot's run, carrying the task (TaskRuns
	// reads runs by task_id), and the workers finish it.
	var run db.TaskRun
	deadline := time.Now().Add(2 * time.Minute)
	for {
		runs, err := store.TaskRuns(context.Background(), created.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) > 0 {
			run = runs[len(runs)-1] // the first
			if run.Status.Terminal() {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no finished run of the task within 2 min (runs %+v)", runs)
		}
		time.Sleep(250 * time.Millisecond)
	}
	if run.Trigger != db.TriggerSchedule || !run.ScheduledFor.Valid || run.ScheduledFor.Time.Before(created.NextRunAt.Add(-time.Second)) {
		t.Errorf("first run = %+v, want a scheduled run for the slot %s", run, created.NextRunAt)
	}
	if run.Status != research.StatusDone {
		t.Fatalf("the scheduled run ended %s: %s", run.Status, run.Error)
	}
	// The notice reaches the webhook, signed, with the report's link…
	var delivered notify.Envelope
	for found := false; !found; {
		sink.mu.Lock()
		for _, e := range sink.got {
			if e.Data.RunID == run.ID {
				delivered, found = e, true
			}
		}
		bad := append([]string(nil), sink.bad...)
		sink.mu.Unlock()
		if len(bad) > 0 {
			t.Fatalf("deliveries failed verification: %v", bad)
		}
		if found {
			break
		}
		select {
		case <-sink.ch:
		case <-time.After(time.Until(deadline)):
			t.Fatalf("no signed webhook for run %s", run.ID)
		}
	}
	if delivered.Type != "task.run_finished" || delivered.Data.TaskID != created.ID || delivered.Data.Status != string(research.StatusDone) {
		t.Errorf("webhook = %+v", delivered)
	}
	if want := baseURL + "/runs/" + run.ID; delivered.Data.ReportURL != want {
		t.Errorf("webhook report_url = %q, want %q", delivered.Data.ReportURL, want)
	}
	if delivered.Data.Changes != "First run of the task." {
		t.Errorf("webhook changes = %q, want the first run's summary", delivered.Data.Changes)
	}

	// …and the inbox, over the API.
	resp, err = http.Get(api + "/api/notifications")
	if err != nil {
		t.Fatal(err)
	}
	var inbox struct {
		Unread        int `json:"unread"`
		Notifications []struct {
			ID, Kind, Title, URL string
		} `json:"notifications"`
	}
	json.NewDecoder(resp.Body).Decode(&inbox)
	resp.Body.Close()
	found := false
	for _, n := range inbox.Notifications {
		if n.Kind == "run_finished" && n.URL == "/runs/"+run.ID && strings.Contains(n.Title, "WeWork watch") {
			found = true
		}
	}
	if !found || inbox.Unread == 0 {
		t.Errorf("inbox = %+v, want the run's notice", inbox)
	}

	// "Run now" counts toward the daily budget of 3 task runs with the
	// scheduled ones, and is refused once it is used up.
	post := func(path string) int {
		resp, err := http.Post(api+path, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	post("/api/tasks/" + created.ID + "/pause")
	for i := 0; ; i++ {
		code := post("/api/tasks/" + created.ID + "/run")
		if code == http.StatusTooManyRequests {
			break
		}
		if code != http.StatusCreated || i == 3 {
			t.Fatalf("run now #%d: %d", i+1, code)
		}
	}
	if runs, _ := store.TaskRuns(context.Background(), created.ID, 50); len(runs) != 3 {
		t.Errorf("the task has %d runs when run now was refused, want the budget's 3", len(runs))
	}
}

// fixtureSite serves a results page linking two stored news pages (the
// pipeline's test site) on loopback.
func fixtureSite(t *testing.T) *httptest.Server {
	t.Helper()
	pages := map[string]string{
		"/articles/venturebeat": "06e5123e4ef7.html",
		"/articles/techcrunch":  "1ace8c85aaee.html",
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><body><main>`)
		for path := range pages {
			fmt.Fprintf(w, `<div class="result"><h2><a href="%s">%s</a></h2></div>`, path, path)
		}
		fmt.Fprint(w, `</main></body></html>`)
	})
	for path, file := range pages {
		body, err := os.ReadFile(filepath.Join("..", "..", "pipeline", "testdata", "site", file))
		if err != nil {
			t.Fatal(err)
		}
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(body)
		})
	}
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	return site
}
