package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// directiveEntry is one entry of an invented reference manual, written as
// such manuals are: the name as a heading, a key/value box, a description.
func directiveEntry(name, syntax, def, context, desc string) string {
	return fmt.Sprintf(`<h4 id="%[1]s">%[1]s</h4>
<table class="directive"><tr><td>Syntax:</td><td><code><strong>%[1]s</strong> %[2]s;</code></td></tr>
<tr><td>Default:</td><td><pre>%[1]s %[3]s;</pre></td></tr>
<tr><td>Context:</td><td><code>%[4]s</code></td></tr></table>
<p>%[5]s</p>
`, name, syntax, def, context, desc)
}

// manualSite serves an invented reference manual, one page with many
// entries, behind a search page that links to it.
func manualSite(t *testing.T) *site {
	t.Helper()
	page := `<!doctype html><html><head><title>Module tally_http_core — Tallyweb</title></head><body><main>
<h1>Module tally_http_core</h1><p>The tally_http_core module holds the directives every Tallyweb server reads first.</p><h2>Directives</h2>
` + directiveEntry("body_read_timeout", "<em>time</em>", "45s", "http, server, location",
		"Limits how long Tallyweb waits between two reads of a request body from the client. When the client sends nothing for that long, the request is closed with an error.") +
		directiveEntry("body_size_cap", "<em>size</em>", "2m", "http, server, location",
			"Caps the size of the body a client may send with one request. A request whose body is larger is refused with status 413, and a cap of 0 turns the check off.") +
		directiveEntry("header_pool_size", "<em>size</em>", "2k", "http, server",
			"This directive specifies the number of bytes kept for reading the headers of a request body. Larger headers get buffers from a second pool.") +
		`</main></body></html>`
	s := &site{}
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>%s - Search</title></head><body><main id="results">`+
			`<div class="result"><h2><a href="/docs/tally_http_core.html">Module tally_http_core</a></h2><p>Directives of the core module.</p></div>`+
			`</main></body></html>`, html.EscapeString(q))
	})
	mux.HandleFunc("/docs/tally_http_core.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// TestOneFactReportAnswersInItsFirstSentence runs a one-fact question
// through the whole pipeline with the built-in engine, over a reference
// page with many entries: the published report's first sentence states the
// asked entry's default with its citation, and nothing from the other
// entries is quoted.
func TestOneFactReportAnswersInItsFirstSentence(t *testing.T) {
	s := manualSite(t)
	r, store := newRunner(t, s, extractive.New())
	ctx := context.Background()
	run, err := r.Submit(ctx, pipeline.Request{Question: "What is the default value of body_size_cap in Tallyweb?", Depth: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, store, run.ID, research.StatusDone)
	rep, err := store.PublishedReport(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s", rep.Markdown)
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(rep.HTML))
	if err != nil {
		t.Fatal(err)
	}
	first := doc.Find("p").First()
	if !strings.Contains(first.Text(), "body_size_cap default: body_size_cap 2m;") || first.Find("[data-testid=citation]").Length() == 0 {
		t.Errorf("the first paragraph %q does not state the default with its citation:\n%s", first.Text(), rep.HTML)
	}
	var ver research.VerificationPayload
	if err := json.Unmarshal(rep.Verification, &ver); err != nil {
		t.Fatal(err)
	}
	if !ver.Passed || ver.Validity != 1 {
		t.Errorf("verification = %+v, want passed with validity 1", ver)
	}
	for _, other := range []string{"45s", "2k", "This directive specifies"} {
		if strings.Contains(rep.Markdown, other) {
			t.Errorf("another entry (%q) is quoted:\n%s", other, rep.Markdown)
		}
	}
}
