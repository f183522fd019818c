package handlers_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"

	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

// TestMarkdownExportHasNoRawHTML: the report's Markdown export, rendered
// by a viewer that allows raw HTML, holds none of the payloads' elements
// or handlers, from the title, the section names, the text or the source
// titles; the text still reads as written.
func TestMarkdownExportHasNoRawHTML(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	run := createRun(t, rep.store, "Which payloads survive an export?")
	publishHostileReport(t, rep.store, run.ID)
	// Publishing appends the Sources list with the page titles.
	sources := report.SourcesMarkdown([]research.Source{{ID: "S1", URL: "https://example.org/a", Title: "title " + payload, Host: "example.org"}})
	dbtest.Exec(t, rep.store, `UPDATE reports SET markdown = markdown || $2 WHERE run_id = $1`, run.ID, "\n\n"+sources)

	viewer := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	for _, path := range []string{"/api/runs/" + run.ID + "/report.md", "/runs/" + run.ID + "/report.md", "/r/hostile-" + run.ID[:8] + "/report.md"} {
		resp, err := http.Get(rep.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		md, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, md)
		}
		var out bytes.Buffer
		if err := viewer.Convert(md, &out); err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(&out)
		if err != nil {
			t.Fatal(err)
		}
		if n := doc.Find("script, img, svg, iframe, b, div, object, embed").Length(); n != 0 {
			h, _ := doc.Html()
			t.Errorf("%s: %d raw HTML elements in the rendered export:\n%s", path, n, h)
		}
		doc.Find("*").Each(func(_ int, el *goquery.Selection) {
			for _, a := range el.Nodes[0].Attr {
				if strings.HasPrefix(strings.ToLower(a.Key), "on") {
					t.Errorf("%s: handler %s=%q on %s", path, a.Key, a.Val, goquery.NodeName(el))
				}
			}
		})
		text := doc.Text()
		for _, want := range []string{`<script>alert("s")</script>`, `<img src=x onerror=alert("img")>`} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the export no longer reads %q as text", path, want)
			}
		}
		if doc.Find(`a[href="https://example.org/a"]`).Length() != 1 {
			t.Errorf("%s: the source link was lost", path)
		}
	}
}
