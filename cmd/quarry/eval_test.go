package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeBenchmark lays out a two-page benchmark directory like
// shared/benchmarks/article-extraction: one page gzipped, one plain.
func writeBenchmark(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	htmlDir := filepath.Join(dir, "html")
	if err := os.Mkdir(htmlDir, 0o755); err != nil {
		t.Fatal(err)
	}
	bodies := map[string][]string{
		"alpha": {
			"The ferry service between the two islands resumed on Tuesday after a three-week strike ended with a new pay deal.",
			"Operators said the first boat left at 6:40 a.m. carrying 212 passengers and 40 cars.",
			"The union accepted a 6 percent raise over two years, according to a statement published on its website.",
		},
		"beta": {
			"A rare orchid was found growing beside a motorway verge, botanists from the county trust said on Friday.",
			"The plant had not been recorded in the region since 1978, when a survey last mapped the area.",
			"Road crews have fenced the spot and will mow around it until the seeds have ripened in autumn.",
		},
	}
	truth := map[string]map[string]string{}
	for id, paras := range bodies {
		var page strings.Builder
		page.WriteString(`<html lang="en"><head><title>` + id + `</title></head><body><nav><a href="/">Home</a> <a href="/news">News</a></nav><article><h1>` + id + `</h1>`)
		for _, p := range paras {
			page.WriteString("<p>" + p + "</p>")
		}
		page.WriteString(`</article><footer>Subscribe to our newsletter. © 2024 Example.</footer></body></html>`)
		truth[id] = map[string]string{"articleBody": strings.Join(paras, "\n\n"), "url": "https://example.com/" + id}

		if id == "alpha" {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			if _, err := zw.Write([]byte(page.String())); err != nil {
				t.Fatal(err)
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(htmlDir, id+".html.gz"), buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(filepath.Join(htmlDir, id+".html"), []byte(page.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := json.Marshal(truth)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ground-truth.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestEvalExtraction(t *testing.T) {
	dir := writeBenchmark(t)
	out := filepath.Join(t.TempDir(), "pred.json")
	var stdout bytes.Buffer
	if err := evalTo(context.Background(), &stdout, []string{"extraction", "--dir", dir, "--out", out}); err != nil {
		t.Fatalf("eval: %v", err)
	}

	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	for _, prefix := range []string{"pages:", "precision:", "recall:", "f1:"} {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l, prefix)
		}
		if !found {
			t.Errorf("output lacks a %q line:\n%s", prefix, stdout.String())
		}
	}
	var report struct {
		Pages     int     `json:"pages"`
		Failures  int     `json:"failures"`
		Precision float64 `json:"precision"`
		Recall    float64 `json:"recall"`
		F1        float64 `json:"f1"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &report); err != nil {
		t.Fatalf("last line is not the JSON report: %v\n%s", err, lines[len(lines)-1])
	}
	if report.Pages != 2 || report.Failures != 0 || report.F1 < 0.95 {
		t.Errorf("report = %+v, want 2 pages, no failures, F1 ≥ 0.95", report)
	}

	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("predictions file: %v", err)
	}
	var preds map[string]struct {
		ArticleBody string `json:"articleBody"`
	}
	if err := json.Unmarshal(data, &preds); err != nil {
		t.Fatalf("predictions: %v", err)
	}
	if len(preds) != 2 || !strings.Contains(preds["alpha"].ArticleBody, "212 passengers") ||
		!strings.Contains(preds["beta"].ArticleBody, "rare orchid") {
		t.Errorf("predictions = %+v", preds)
	}
}

func TestEvalExtractionErrors(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no subcommand", nil, "usage"},
		{"unknown subcommand", []string{"search"}, "usage"},
		{"no dir", []string{"extraction"}, "--dir is required"},
		{"unknown flag", []string{"extraction", "--bogus"}, "usage"},
		{"missing dir", []string{"extraction", "--dir", filepath.Join(empty, "nope")}, "benchmark directory"},
		{"missing ground truth", []string{"extraction", "--dir", empty}, "ground-truth.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := evalTo(context.Background(), &bytes.Buffer{}, tt.args)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}
