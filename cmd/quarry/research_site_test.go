package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/research"
)

// TestResearchSiteEngine runs `quarry research --engines site:URL` on a
// loopback site whose search form only POSTs (its results have no GET
// URL): the site agent uses the form, and the report cites the pages it
// found there.
func TestResearchSiteEngine(t *testing.T) {
	pages := map[string]string{
		"/articles/venturebeat": "06e5123e4ef7.html",
		"/articles/techcrunch":  "1ace8c85aaee.html",
	}
	var posts atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/news", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!DOCTYPE html><html lang="en"><head><title>Newsroom</title></head><body><main><h1>Newsroom</h1>
<form method="post" action="/news/found"><input name="words" type="search" aria-label="Search the newsroom"><button>Search</button></form></main></body></html>`)
	})
	mux.HandleFunc("/news/found", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.FormValue("words") == "" {
			http.Error(w, "use the form", http.StatusMethodNotAllowed)
			return
		}
		posts.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><body><main><h1>Found</h1><ul>`)
		for path := range pages {
			fmt.Fprintf(w, `<li class="hit"><h2><a href="%s">Story %s</a></h2><p>A story from the newsroom.</p></li>`, path, path)
		}
		fmt.Fprint(w, `</ul></main></body></html>`)
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
	defer site.Close()

	env := map[string]string{
		"DATABASE_URL":       dbtest.URL(t),
		"QUARRY_ALLOW_HOSTS": strings.TrimPrefix(site.URL, "http://"),
		"QUARRY_POOL_SIZE":   "2",
	}
	var stdout, stderr bytes.Buffer
	err := researchTo(context.Background(), strings.NewReader(""), &stdout, &stderr, func(k string) string { return env[k] },
		[]string{"--depth", "quick", "--engines", "site:" + site.URL + "/news", "--json", "Why is the New York attorney general investigating WeWork?"})
	if err != nil {
		t.Fatalf("research: %v\nstderr: %s", err, stderr.String())
	}
	var out struct {
		RunID          string `json:"run_id"`
		Status         string `json:"status"`
		ReportMarkdown string `json:"report_markdown"`
		Sources        []struct {
			ID, URL string
		} `json:"sources"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout.String())
	}
	if out.Status != "done" || posts.Load() == 0 {
		t.Fatalf("status %q after %d searches through the form\nstderr: %s", out.Status, posts.Load(), stderr.String())
	}
	// The report cites a page the site's own search listed, and says so.
	cited := false
	for _, s := range out.Sources {
		if strings.HasPrefix(s.URL, site.URL+"/articles/") && strings.Contains(out.ReportMarkdown, "["+s.ID+"]") {
			cited = true
		}
	}
	if !cited || !strings.Contains(out.ReportMarkdown, `(found via: typed "`) {
		t.Fatalf("no cited source found through the site's search among %+v; report:\n%s", out.Sources, out.ReportMarkdown)
	}

	// The agent's steps are stored on the search action, each with its
	// event, a screenshot and the element it acted on.
	ctx := context.Background()
	conn, err := db.Open(ctx, env["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	store := db.NewStore(conn, nil)
	steps, err := store.AgentSteps(ctx, out.RunID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) < 2 || steps[0].Kind != "type" || !strings.Contains(steps[0].Element, "Search the newsroom") || steps[len(steps)-1].Status != "success" {
		t.Fatalf("agent steps = %+v", steps)
	}
	if shot, err := store.AgentScreenshot(ctx, out.RunID, 1, steps[0].N); err != nil || len(shot) < 100 || shot[0] != 0xFF || shot[1] != 0xD8 {
		t.Errorf("screenshot of step 1: %d bytes, %v", len(shot), err)
	}
	events, err := store.EventsAfter(ctx, out.RunID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range events {
		var p research.AgentStepPayload
		if ev.Type == research.EventAgentStep && json.Unmarshal(ev.Payload, &p) == nil && p.ActionIdx == 1 {
			n++
		}
	}
	if n != 2*len(steps) {
		t.Errorf("%d agent_step events for %d steps (each is recorded running, then done)", n, len(steps))
	}
}
