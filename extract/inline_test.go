package extract

import (
	"strings"
	"testing"
)

// A manual page in the markup asciidoc writes: inline <em> and <code>
// inside paragraphs of a definition list. The extracted text keeps each
// sentence whole, with its inline words spaced as on the page — they used
// to come out as paragraphs of their own ("The\n\nort\n\nstrategy").
func TestInlineMarkupStaysInSentence(t *testing.T) {
	entry := `<dt class="hdlist1">lazy</dt><dd><p>This option makes the <em>lazy</em> planner defer
work until a query needs it. Deferred work is replayed in order, so results match
the eager planner; only the time of the work moves. It was written as a
replacement for the previous default planner, <code>eager</code>.</p>
<div class="paragraph"><p>The <em>lazy</em> planner can take the following options:</p></div>
<div class="dlist"><dl><dt class="hdlist1">budget</dt><dd><p>This option caps the deferred work, favoring
<em>recent</em> queries. Older work is dropped when the cap is reached, and a
warning names the queries it belonged to.</p></dd></dl></div></dd>`
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>planner(1)</title></head><body><div id="header"><h1>planner(1) Manual Page</h1></div><div id="content">`)
	b.WriteString(`<div class="sect1"><h2 id="_description">DESCRIPTION</h2><div class="sectionbody"><div class="paragraph"><p>The planner turns a query into steps. Each step reads one table and hands its rows to the next step, and the planner chooses the order of the steps from the sizes it knows.</p></div></div></div>`)
	b.WriteString(`<div class="sect1"><h2 id="_strategies">STRATEGIES</h2><div class="sectionbody"><div class="dlist"><dl>`)
	b.WriteString(entry)
	b.WriteString(`</dl></div></div></div></div></body></html>`)
	page, err := Extract([]byte(b.String()), "http://127.0.0.1/docs/planner.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"replacement for the previous default planner, eager.",
		"The lazy planner can take the following options:",
		"favoring recent queries.",
	} {
		if !strings.Contains(page.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, page.Text)
		}
	}
}
