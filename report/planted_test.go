package report_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// plantedReport carries citation-like text a page planted, in every place
// page text reaches a report: escaped prose (as engines quote pages), a
// quoted command in a code span (with a javascript: link in it), a code
// span whose page text held backticks, a heading, an escaped table cell and
// a link's text. Only the real markers, [S1] at the ends, are citations.
const plantedReport = "# Rates\n\n## Limits \\[S2]\n\n" +
	"The page says \\[S2] \\[S9] is how to cite. [S1]\n\n" +
	"To limit the rate, run: `tool --rate [S2] [S9] [x](javascript:alert(1))` [S1]\n\n" +
	"Label ``a` [S9] `b``: set it. [S1]\n\n" +
	"### Heading [S9]\n\n" +
	"| option | meaning |\n|---|---|\n| rate \\[S9] | per second [S1] |\n\n" +
	"See [the guide [S9]](https://example.com/guide) for more [S1].\n"

// TestPlantedCitationsAreText: citation-like text from a page is never a
// citation: not linked, not counted for the sentence, not a "source that
// does not exist".
func TestPlantedCitationsAreText(t *testing.T) {
	r, doc := renderedReport(t, plantedReport)
	doc.Find("a[data-testid=citation]").Each(func(i int, a *goquery.Selection) {
		if a.AttrOr("data-cite", "") != "S1" {
			t.Errorf("link %d is %s: a planted marker became a citation", i, outer(a))
		}
	})
	if n := doc.Find("a[data-testid=citation]").Length(); n != 5 {
		t.Errorf("%d citation links, want the 5 real [S1]", n)
	}
	if n := doc.Find(".citation-bad").Length(); n != 0 {
		t.Errorf("%d bad citations shown: planted markers were read as citations", n)
	}
	cited := 0
	for _, s := range r.Sentences {
		if len(s.Citations) > 0 && !slices.Equal(s.Citations, []string{"S1"}) {
			t.Errorf("sentence %q cites %v, want only S1", s.Text, s.Citations)
		}
		if len(s.Citations) > 0 {
			cited++
		}
		if !s.Valid {
			t.Errorf("sentence %q is invalid (cites a source that does not exist)", s.Text)
		}
	}
	if cited != 5 {
		t.Errorf("%d sentences cite, want 5", cited)
	}
	if !slices.Equal(r.Cited(), []string{"S1"}) {
		t.Errorf("cited %v, want [S1]", r.Cited())
	}
	if got := doc.Find("code").First().Text(); got != "tool --rate [S2] [S9] [x](javascript:alert(1))" {
		t.Errorf("the command reads %q", got)
	}
	if doc.Find("a[href^=javascript]").Length() != 0 {
		t.Error("a javascript: link was rendered")
	}
	if md := r.Markdown(); strings.Contains(md, "does not exist") {
		t.Errorf("export flags a planted marker:\n%s", md)
	}
}
