package pipeline_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// paperParagraphs are the text of the PDF the loopback site serves.
var paperParagraphs = []string{
	"The regional rainfall survey measured soil moisture at forty stations between 2015 and 2024.",
	"Soil moisture lagged the rain by about three weeks, so the driest soils of the year were measured in early autumn rather than in summer.",
	"The survey found that October and November were the wettest months, with rainfall well above the mean recorded since 1950.",
	"The authors recommend that reservoir releases follow the soil moisture record rather than the calendar.",
}

// TestPDFSourceCited: a search result that is a PDF is fetched over HTTP,
// its text extracted, and the report cites it with a passage of that text.
func TestPDFSourceCited(t *testing.T) {
	var mu sync.Mutex
	var pdf []byte
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Search</title></head><body><main id="results"><div class="result"><h2><a href="/papers/rainfall-survey.pdf">Regional rainfall survey (PDF)</a></h2><p>The survey report.</p></div></main></body></html>`)
	})
	mux.HandleFunc("/papers/rainfall-survey.pdf", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(pdf)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s := &site{Server: srv}
	r, store := newRunner(t, s, extractive.New())

	// The browser prints the paper, so it has a real text layer.
	var doc strings.Builder
	doc.WriteString(`<!DOCTYPE html><html><head><title>Regional rainfall survey</title></head><body><h1>Regional rainfall survey</h1>`)
	for _, p := range paperParagraphs {
		doc.WriteString("<p>" + p + "</p>")
	}
	doc.WriteString("</body></html>")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	printed, err := pool.PrintPDF(ctx, doc.String())
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	pdf = printed
	mu.Unlock()

	run, err := r.Submit(context.Background(), pipeline.Request{Question: "What did the regional rainfall survey find about soil moisture?", Depth: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, store, run.ID, research.StatusDone)
	sources, err := store.Sources(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	sid := ""
	for _, src := range sources {
		if strings.HasSuffix(src.URL, ".pdf") {
			sid = fmt.Sprintf("S%d", src.SID)
			if !strings.Contains(src.Text, paperParagraphs[1]) || src.Title != "Regional rainfall survey" {
				t.Errorf("PDF source: title %q, text %q", src.Title, src.Text)
			}
		}
	}
	if sid == "" {
		t.Fatalf("no PDF source among %d sources", len(sources))
	}
	rep, err := store.PublishedReport(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Markdown, "["+sid+"]") {
		t.Fatalf("the report does not cite the PDF (%s):\n%s", sid, rep.Markdown)
	}
	cited := false
	for _, p := range paperParagraphs {
		if strings.Contains(rep.Markdown, strings.TrimSuffix(p, ".")) || strings.Contains(string(rep.Citations), strings.TrimSuffix(p, ".")[:40]) {
			cited = true
		}
	}
	if !cited {
		t.Errorf("no passage of the PDF in the report:\n%s\ncitations: %s", rep.Markdown, rep.Citations)
	}
}
