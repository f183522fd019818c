package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/db/dbtest"
)

// TestLibraryResearch: `quarry library add` ingests a real multi-page PDF,
// an HTML page and a Markdown file; `quarry research --engines kb` then
// answers a question whose answer is on page 8 of the PDF, citing that
// passage with its page, verified.
func TestLibraryResearch(t *testing.T) {
	env := map[string]string{"DATABASE_URL": dbtest.URL(t), "QUARRY_POOL_SIZE": "1"}
	getenv := func(k string) string { return env[k] }
	docs := filepath.Join("..", "..", "library", "testdata", "docs")
	var out bytes.Buffer
	err := libraryTo(context.Background(), &out, getenv, []string{"add", "--collection", "licenses",
		filepath.Join(docs, "GPL-3.pdf"), filepath.Join(docs, "go-asm.html"), filepath.Join(docs, "chi-README.md")})
	if err != nil {
		t.Fatalf("library add: %v\n%s", err, out.String())
	}
	if n := strings.Count(out.String(), "ready\t"); n != 3 || !strings.Contains(out.String(), "pdf, 12 pages") {
		t.Fatalf("library add printed:\n%s", out.String())
	}
	// Adding the same file again is reported as a duplicate.
	out.Reset()
	if err := libraryTo(context.Background(), &out, getenv, []string{"add", "--collection", "licenses", filepath.Join(docs, "GPL-3.pdf")}); err != nil || !strings.HasPrefix(out.String(), "duplicate\t") {
		t.Errorf("second add: %v\n%s", err, out.String())
	}

	var stdout, stderr bytes.Buffer
	err = researchTo(context.Background(), strings.NewReader(""), &stdout, &stderr, getenv,
		[]string{"--depth", "quick", "--engines", "kb:licenses", "--json", "How many days does a licensee have to cure a violation of the GPL after being notified by the copyright holder?"})
	if err != nil {
		t.Fatalf("research: %v\nstderr: %s", err, stderr.String())
	}
	var res struct {
		Status         string `json:"status"`
		ReportMarkdown string `json:"report_markdown"`
		Sources        []struct {
			ID, URL, Title, Text string
		} `json:"sources"`
		Verification json.RawMessage `json:"verification"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if res.Status != "done" {
		t.Fatalf("status %s\n%s", res.Status, stderr.String())
	}
	cited := ""
	for _, s := range res.Sources {
		if strings.Contains(s.URL, "?page=8") && strings.Contains(s.Text, "prior to 30 days after") {
			cited = s.ID
			if !strings.Contains(s.Title, "p. 8") {
				t.Errorf("source title %q does not name the page", s.Title)
			}
		}
	}
	if cited == "" {
		t.Fatalf("no source is page 8 of the PDF: %+v", res.Sources)
	}
	if !strings.Contains(res.ReportMarkdown, "["+cited+"]") {
		t.Fatalf("the report does not cite %s:\n%s", cited, res.ReportMarkdown)
	}
	var v struct {
		Passed  bool    `json:"passed"`
		Support float64 `json:"support"`
	}
	if err := json.Unmarshal(res.Verification, &v); err != nil || !v.Passed || v.Support < 1 {
		t.Errorf("verification: %s", res.Verification)
	}
}

func TestLibraryConfig(t *testing.T) {
	load := func(env map[string]string) (*Config, error) {
		return LoadConfig(func(k string) string { return env[k] })
	}
	cfg, err := load(map[string]string{"QUARRY_UPLOAD_MAX": "8MB"})
	if err != nil || cfg.Library.UploadMax != 8<<20 || cfg.Library.MaxPages != 5000 {
		t.Fatalf("8MB: %+v %v", cfg, err)
	}
	if cfg, _ := load(nil); cfg.Library.UploadMax != 50<<20 {
		t.Errorf("default upload max %d", cfg.Library.UploadMax)
	}
	for env, want := range map[string]map[string]string{
		"QUARRY_UPLOAD_MAX":        {"QUARRY_UPLOAD_MAX": "lots"},
		"QUARRY_LIBRARY_MAX_PAGES": {"QUARRY_LIBRARY_MAX_PAGES": "0"},
		"QUARRY_EMBEDDINGS_MODEL":  {"QUARRY_EMBEDDINGS_URL": "http://127.0.0.1:11434/v1"},
		"QUARRY_EMBEDDINGS_URL":    {"QUARRY_EMBEDDINGS_URL": "file:///etc/passwd", "QUARRY_EMBEDDINGS_MODEL": "m"},
	} {
		if _, err := load(want); err == nil || !strings.Contains(err.Error(), env) {
			t.Errorf("%v: %v, want an error naming %s", want, err, env)
		}
	}
}

// The upload caps have defaults, read their variables, and name them when
// they are bad.
func TestUploadCapsConfig(t *testing.T) {
	load := func(env map[string]string) (*Config, error) {
		return LoadConfig(func(k string) string { return env[k] })
	}
	cfg, err := load(nil)
	if err != nil || cfg.Limits.Uploads != 4 || cfg.Limits.UploadsPerUser != 2 {
		t.Fatalf("defaults: %+v %v", cfg.Limits, err)
	}
	cfg, err = load(map[string]string{"QUARRY_UPLOADS": "9", "QUARRY_UPLOADS_PER_USER": "0"})
	if err != nil || cfg.Limits.Uploads != 9 || cfg.Limits.UploadsPerUser != 0 {
		t.Fatalf("set: %+v %v", cfg.Limits, err)
	}
	for _, name := range []string{"QUARRY_UPLOADS", "QUARRY_UPLOADS_PER_USER"} {
		if _, err := load(map[string]string{name: "many"}); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=many: %v", name, err)
		}
	}
}
