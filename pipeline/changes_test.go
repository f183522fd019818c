package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

// releaseSite is a small site whose release page names the current
// version, which the test changes between two runs of a task.
func releaseSite(t *testing.T, version *atomic.Value) *httptest.Server {
	mux := http.NewServeMux()
	page := func(title, body string) string {
		return `<!doctype html><html><head><title>` + title + `</title></head><body><header><a href="/">Home</a></header><main><article><h1>` +
			title + `</h1>` + body + `</article></main><footer>Copyright Example DB project</footer></body></html>`
	}
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		q := html.EscapeString(r.URL.Query().Get("q"))
		fmt.Fprintf(w, `<!doctype html><html><head><title>%s - Search</title></head><body><main id="results">
			<div class="result"><h2><a href="/releases">Example DB release notes</a></h2><p>Release notes for %s.</p></div>
			<div class="result"><h2><a href="/about">About Example DB</a></h2><p>About the project for %s.</p></div>
			</main></body></html>`, q, q, q)
	})
	mux.HandleFunc("/releases", func(w http.ResponseWriter, r *http.Request) {
		v := version.Load().(string)
		fmt.Fprint(w, page("Example DB release notes", `
			<p>The Example DB project publishes a new stable release every quarter, with security fixes in between.</p>
			<p>The current stable release of Example DB is version `+v+`, which every installation should run.</p>
			<p>Support for the 1.x series of Example DB ends on 31 December 2026, after which no fixes are published.</p>
			<p>Each release of Example DB is tested on Linux, FreeBSD and Windows before it is published to the mirrors.</p>
			<p>Upgrading between minor versions of Example DB needs no dump and restore of the data directory.</p>`))
	})
	mux.HandleFunc("/about", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("About Example DB", `
			<p>Example DB is an open source relational database maintained by a community of volunteers since 2009.</p>
			<p>The project counts 140 regular contributors from more than 20 countries, who meet once a year.</p>
			<p>Example DB is released under a permissive licence that allows commercial use without fees.</p>`))
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// runTaskRun runs one run of the task to completion with a runner of its
// own, started only once the run carries its task_id (as the scheduler's
// insert would have it from the start).
func runTaskRun(t *testing.T, store *db.Store, srv *httptest.Server, taskID string) string {
	ctx := context.Background()
	run, err := store.CreateRun(ctx, db.NewRun{Question: "What is the current stable release of Example DB?", Depth: "quick",
		Options: []byte(`{"engines":["url:` + srv.URL + `/search?q={query}"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Exec(t, store, `UPDATE runs SET task_id = $2, trigger = 'schedule', scheduled_for = now() WHERE id = $1`, run.ID, taskID)
	host := strings.TrimPrefix(srv.URL, "http://")
	r := pipeline.NewRunner(pipeline.Options{Store: store, Engine: extractive.New(), Gatherer: testGatherer(t, host),
		Engines: []string{"url:" + srv.URL + "/search?q={query}"}, Workers: 1, LeaseTTL: 5 * time.Second, PollInterval: 100 * time.Millisecond})
	r.Start()
	waitStatus(t, store, run.ID, research.StatusDone)
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r.Shutdown(sctx)
	return run.ID
}

// Two runs of a task over a site whose release page moves from version 2.3
// to 2.4: the second report opens with "Changes since …" naming exactly
// that value, cited to the release page and verified; the stored summary
// says it changed.
func TestTaskRunReportsWhatChanged(t *testing.T) {
	var version atomic.Value
	version.Store("2.3")
	srv := releaseSite(t, &version)
	store := dbtest.NewStore(t)
	ctx := context.Background()
	var taskID string
	dbtest.Get(t, store, &taskID, `INSERT INTO tasks (name, question, schedule_kind, interval_seconds)
		VALUES ('Example DB releases', 'What is the current stable release of Example DB?', 'interval', 86400) RETURNING id::text`)

	first := runTaskRun(t, store, srv, taskID)
	rep1, err := store.PublishedReport(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rep1.Markdown, "## Changes since") {
		t.Errorf("the task's first run has a Changes section:\n%s", rep1.Markdown)
	}
	if sum, changed, err := store.ChangeSummary(ctx, first); err != nil || !changed || sum != "First run of the task." {
		t.Errorf("first run's summary: %q %v %v", sum, changed, err)
	}

	version.Store("2.4")
	second := runTaskRun(t, store, srv, taskID)
	rep2, err := store.PublishedReport(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	sources, err := store.Sources(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	releases := ""
	var cur []research.Source
	for _, s := range sources {
		id := research.SourceID(s.SID)
		if strings.HasSuffix(s.URL, "/releases") {
			releases = id
		}
		cur = append(cur, research.Source{ID: id, URL: s.URL, Text: s.Text})
	}
	if releases == "" {
		t.Fatalf("the second run did not read the release page: %+v", sources)
	}
	md := rep2.Markdown
	start := strings.Index(md, "## Changes since ")
	if start < 0 {
		t.Fatalf("no Changes section:\n%s", md)
	}
	if before := strings.TrimSpace(md[:start]); before != "" && !strings.HasPrefix(before, "# ") {
		t.Errorf("the Changes section does not open the report:\n%s", md)
	}
	section := md[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	t.Logf("second report's section:\n%s", section)
	want := "- The current stable release of Example DB is version 2.4, which every installation should run [" + releases + "]. The sources of the last run said “2.3”."
	if !strings.Contains(section, "Changed values:\n\n"+want+"\n") {
		t.Errorf("section does not name the changed value as %q:\n%s", want, section)
	}
	if strings.Count(section, "\n- ") != 1 || strings.Contains(section, "New facts") || strings.Contains(section, "No longer found") || strings.Contains(section, "New sources") {
		t.Errorf("section says more than the one change:\n%s", section)
	}
	// Verified like any sentence: the quoted sentence is supported by the
	// release page it cites.
	v := report.Verify(md, cur, nil, nil, report.DefaultVerifyOptions())
	found := false
	for _, s := range v.Sentences {
		if strings.Contains(s.Text, "version 2.4") && strings.HasPrefix(s.Section, "Changes since") {
			found = true
			if !s.Factual || !s.Supported || s.SourceID != releases || len(s.Ungrounded) > 0 {
				t.Errorf("changed sentence not verified: %+v", s)
			}
		}
	}
	if !found {
		t.Errorf("the verifier did not see the changed sentence")
	}
	// The section does not cost the report its verification.
	var ver1, ver2 research.VerificationPayload
	json.Unmarshal(rep1.Verification, &ver1)
	json.Unmarshal(rep2.Verification, &ver2)
	if ver1.Passed && !ver2.Passed || ver2.Validity != 1 {
		t.Errorf("verification: first run passed=%v, second passed=%v validity %.2f (%s)", ver1.Passed, ver2.Passed, ver2.Validity, ver2.Warning)
	}
	t.Logf("verification passed: first run %v, second run %v (support %.2f)", ver1.Passed, ver2.Passed, ver2.Support)
	sum, changed, err := store.ChangeSummary(ctx, second)
	if err != nil || !changed || !strings.Contains(sum, "1 changed.") || !strings.Contains(sum, "version 2.4") || !strings.Contains(sum, "(was “2.3”)") {
		t.Errorf("second run's summary: %q %v %v", sum, changed, err)
	}
}
