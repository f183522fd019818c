package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A replay rewrites a run's report from the pages in its JSON, keeping
// the pages, in the form the benchmarks' scorers read.
func TestReplayRewritesTheReport(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.json"), filepath.Join(dir, "set", "01.json")
	run := `{"status":"done","report_markdown":"## Summary\n\nold report","sources":[{"id":"S1","url":"http://127.0.0.1/docs/a.html","title":"Tallyweb core","text":"keep_wait\n\nSyntax: keep_wait seconds\nDefault: keep_wait 5\nContext: server config\n\nThe number of seconds the server waits for a further request."}]}`
	if err := os.WriteFile(in, []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := replay("What is the default value of keep_wait in Tallyweb?", in, out, "standard"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Status  string `json:"status"`
		Report  string `json:"report_markdown"`
		Sources []struct {
			Text string `json:"text"`
		} `json:"sources"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != "done" || strings.Contains(got.Report, "old report") || !strings.Contains(got.Report, "keep\\_wait 5 [S1]") {
		t.Errorf("replayed report (%s):\n%s", got.Status, got.Report)
	}
	if len(got.Sources) != 1 || got.Sources[0].Text == "" {
		t.Errorf("the pages were not kept: %+v", got.Sources)
	}
	if md, err := os.ReadFile(strings.TrimSuffix(out, ".json") + ".md"); err != nil || string(md) != got.Report {
		t.Errorf("the .md beside it differs: %v", err)
	}
}
