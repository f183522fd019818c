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
	"testing"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/research"
)

// TestResearchJSONContract runs `quarry research --json` over a loopback
// site (a results page linking two benchmark news pages, shared with the
// pipeline's tests) and checks the object other tools rely on.
func TestResearchJSONContract(t *testing.T) {
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
	defer site.Close()

	env := map[string]string{
		"DATABASE_URL":          dbtest.URL(t),
		"QUARRY_SEARCH_ENGINES": "url:" + site.URL + "/search?q={query}",
		"QUARRY_ALLOW_HOSTS":    strings.TrimPrefix(site.URL, "http://"),
		"QUARRY_POOL_SIZE":      "2",
		"QUARRY_DEPTH_QUICK":    "actions=3,pages=2",
	}
	var stdout, stderr bytes.Buffer
	err := researchTo(context.Background(), strings.NewReader(""), &stdout, &stderr, func(k string) string { return env[k] },
		[]string{"--depth", "quick", "--json", "Why is the New York attorney general investigating WeWork?"})
	if err != nil {
		t.Fatalf("research: %v\nstderr: %s", err, stderr.String())
	}
	var out struct {
		RunID          string `json:"run_id"`
		Status         string `json:"status"`
		ReportMarkdown string `json:"report_markdown"`
		Sources        []struct {
			ID, URL, Title, Text string
		} `json:"sources"`
		Verification map[string]any   `json:"verification"`
		Timings      map[string]int64 `json:"timings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout.String())
	}
	if out.RunID == "" || out.Status != "done" {
		t.Fatalf("run %q ended %q", out.RunID, out.Status)
	}
	if len(out.Sources) == 0 || out.Sources[0].ID != "S1" || out.Sources[0].Text == "" || !strings.HasPrefix(out.Sources[0].URL, site.URL) {
		t.Fatalf("sources = %+v", out.Sources)
	}
	if !strings.Contains(out.ReportMarkdown, "[S") || !strings.Contains(out.ReportMarkdown, "## Sources") {
		t.Errorf("report lacks citations or the Sources list:\n%s", out.ReportMarkdown)
	}
	if out.Verification["passed"] != true {
		t.Errorf("verification = %v", out.Verification)
	}
	if out.Timings["total_ms"] <= 0 || out.Timings["gather_ms"] <= 0 {
		t.Errorf("timings = %v", out.Timings)
	}
	if !strings.Contains(stdout.String(), `"spend":{`) {
		t.Errorf("no spend in the output:\n%s", clipOut(stdout.String()))
	}
	conn, err := db.Open(context.Background(), env["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	store := db.NewStore(conn, nil)
	run, err := store.GetRun(context.Background(), out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var budget research.Budget
	json.Unmarshal(run.Budget, &budget)
	if budget.MaxActions != 3 || budget.PagesPerSearch != 2 {
		t.Errorf("run budget = %+v, want QUARRY_DEPTH_QUICK's actions=3,pages=2", budget)
	}

	// --review pauses at the plan and reads the reply: "cancel" is
	// confirmed before it happens (choice 1), and the run ends cancelled.
	stdout.Reset()
	stderr.Reset()
	err = researchTo(context.Background(), strings.NewReader("cancel\n1\n"), &stdout, &stderr, func(k string) string { return env[k] },
		[]string{"--depth", "quick", "--review", "Why is the New York attorney general investigating WeWork?"})
	if err == nil || !strings.Contains(err.Error(), "cancelled") || !strings.Contains(stderr.String(), "cannot be undone") {
		t.Errorf("--review with cancel: err %v\nstderr: %s", err, stderr.String())
	}
	// "no, proceed" goes on to the report.
	stdout.Reset()
	stderr.Reset()
	err = researchTo(context.Background(), strings.NewReader("no, proceed\n"), &stdout, &stderr, func(k string) string { return env[k] },
		[]string{"--depth", "quick", "--review", "Why is the New York attorney general investigating WeWork?"})
	if err != nil || !strings.Contains(stderr.String(), "Plan (clarity") || !strings.Contains(stdout.String(), "## Sources") {
		t.Errorf("--review with no, proceed: err %v\nstderr: %s", err, stderr.String())
	}
}

func clipOut(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

func TestResearchNeedsAQuestion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := researchTo(context.Background(), strings.NewReader(""), &stdout, &stderr, func(string) string { return "" }, []string{"--json"})
	if err == nil || !strings.Contains(err.Error(), "usage") {
		t.Fatalf("err = %v, want usage", err)
	}
}
