package report_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/quarryhq/quarry/report"
)

var known = map[string]bool{"S1": true, "S2": true}

// renderedReport parses, verifies and renders md against verifySources.
func renderedReport(t *testing.T, md string) (*report.Report, *goquery.Document) {
	t.Helper()
	r := report.Parse(md)
	r.Verify(verifySources, nil, nil, report.DefaultVerifyOptions())
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(r.Render(report.RenderOptions{Known: known, Evidence: true})))
	if err != nil {
		t.Fatal(err)
	}
	return r, doc
}

const mixedReport = "# Ember and Titan\n\n## Default port\n\n" +
	"The default port is 7420 [S1]. The server encrypts every connection with TLS 1.3 and rotates its certificates daily [S1].\n\n" +
	"- Titan has a diameter of 3,200 miles [S1, S2]. It was mapped by a probe [S9].\n\n" +
	"Set `port = 7420 [S1]` and \\[S2] and see [S1](https://example.com/s1).\n\n" +
	"```\nport 7420 [S2]\n```\n"

// TestRenderCitationsCarryEvidence: every marker outside code becomes a
// link that names its evidence entry, in document order, each recorded
// with the sentence it closes; unsupported and invalid citations are
// flagged from the verification, not found in text.
func TestRenderCitationsCarryEvidence(t *testing.T) {
	r, doc := renderedReport(t, mixedReport)
	if r.Title != "Ember and Titan" || doc.Find("h1").Length() != 0 {
		t.Errorf("title %q; the body repeats it: %d", r.Title, doc.Find("h1").Length())
	}
	links := doc.Find("a[data-testid=citation]")
	want := []struct {
		cite        string
		sentence    int
		unsupported bool
	}{{"S1", 0, false}, {"S1", 1, true}, {"S1", 2, true}, {"S2", 2, false}}
	if links.Length() != len(want) || len(r.Citations) != len(want) {
		t.Fatalf("%d links, %d recorded, want %d: %+v", links.Length(), len(r.Citations), len(want), r.Citations)
	}
	links.Each(func(i int, a *goquery.Selection) {
		c, w := r.Citations[i], want[i]
		if c.Cite != w.cite || c.Sentence != w.sentence || a.AttrOr("data-cite", "") != w.cite ||
			a.AttrOr("data-ev", "") != c.ID || a.AttrOr("href", "") != "#"+c.ID || a.AttrOr("id", "") != c.Link() || a.Text() != "["+w.cite+"]" {
			t.Errorf("link %d: %s %+v, want %+v", i, outer(a), c, w)
		}
		if a.HasClass("citation-unsupported") != w.unsupported {
			t.Errorf("link %d unsupported = %v, want %v", i, a.HasClass("citation-unsupported"), w.unsupported)
		}
		if s, e := r.Evidence(c); s == nil || e == nil || !e.Found || (e.Passage == "" && e.Score > 0) {
			t.Errorf("link %d: no evidence (%+v, %+v)", i, s, e)
		}
	})
	if s, e := r.Evidence(r.Citations[3]); e.Score != s.Score || !e.Supported || s.SourceID != "S2" {
		t.Errorf("the best source's evidence is the sentence's verdict: %+v / %+v", e, s)
	}
	if _, e := r.Evidence(r.Citations[2]); e.Supported || e.Score >= 0.6 {
		t.Errorf("S1 says nothing of Titan: %+v", e)
	}
	if bad := doc.Find("span.citation-bad"); bad.Text() != "[S9]" {
		t.Errorf("invalid citation shown as %q", bad.Text())
	}
	marks := doc.Find("em.unverified[data-testid=unverified]")
	if marks.Length() != 2 || !strings.Contains(marks.Eq(0).Text(), "not supported by the cited source") || !strings.Contains(marks.Eq(1).Text(), "cites a source that does not exist") {
		t.Errorf("unverified marks: %d %q", marks.Length(), marks.Text())
	}
	// The flag follows the sentence as written, citations and period included.
	if got := doc.Find("p").First().Text(); !strings.HasSuffix(got, "daily [S1]. (unverified: not supported by the cited source)") {
		t.Errorf("flag placement: %q", got)
	}
	if got := doc.Find("li").First().Text(); !strings.HasSuffix(got, "probe [S9]. (unverified: cites a source that does not exist)") {
		t.Errorf("flag placement: %q", got)
	}
	if got := doc.Find("code").Text(); !strings.Contains(got, "port = 7420 [S1]") || !strings.Contains(got, "port 7420 [S2]") {
		t.Errorf("code lost its markers: %q", got)
	}
	if doc.Find("code a, pre a").Length() != 0 {
		t.Error("a marker inside code was linked")
	}
	if a := doc.Find("a[href='https://example.com/s1']"); a.Length() != 1 || a.HasClass("citation") {
		t.Error("[S1](url) is the model's link, not a citation")
	}
	if !strings.Contains(doc.Text(), "and [S2] and") {
		t.Errorf("an escaped marker is text: %q", doc.Text())
	}
}

// TestRenderWithoutEvidence: a report without stored evidence links each
// citation to its source in the Sources list.
func TestRenderWithoutEvidence(t *testing.T) {
	r := report.Parse(mixedReport)
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(r.Render(report.RenderOptions{Known: known})))
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Find("a[data-testid=citation][href='#src-S1']").Length(); got != 3 || len(r.Citations) != 0 {
		t.Errorf("%d links to #src-S1, %d recorded", got, len(r.Citations))
	}
	if doc.Find("[data-ev], em.unverified, .citation-unsupported").Length() != 0 {
		t.Error("an unverified report is flagged or linked to evidence")
	}
}

// TestRenderSanitizes: Markdown full of markup renders inert, and the
// sanitizer keeps exactly the attributes the citation renderer writes.
func TestRenderSanitizes(t *testing.T) {
	const payload = `<script>alert(1)</script><img src=x onerror=alert(2)>`
	md := "## Findings " + payload + "\n\nThe default port is 7420 " + payload + " [S1].\n\n" +
		"A [link](javascript:alert(3)) and ![alt text](https://x/y.png \"t\") and <div onclick=alert(4)>raw</div> [S1].\n"
	r, doc := renderedReport(t, md)
	out, _ := doc.Find("body").Html()
	for _, bad := range []string{"<script", "<img", "onerror", "onclick", "javascript:", "<div"} {
		if strings.Contains(out, bad) {
			t.Errorf("rendered report keeps %q: %s", bad, out)
		}
	}
	if doc.Find("span.img-alt").Text() != "[image: alt text]" {
		t.Errorf("image not replaced by its alt text: %s", out)
	}
	a := doc.Find("a.citation").First()
	for _, attr := range []string{"data-cite", "data-ev", "data-testid", "id", "href"} {
		if _, ok := a.Attr(attr); !ok {
			t.Errorf("the sanitizer dropped %s: %s", attr, outer(a))
		}
	}
	if len(r.Citations) != 2 {
		t.Errorf("%d citations", len(r.Citations))
	}
}

// TestMarkdownMarksUnverified: the Markdown export flags each sentence
// verification could not support after its citations and punctuation.
func TestMarkdownMarksUnverified(t *testing.T) {
	r, _ := renderedReport(t, mixedReport)
	got := r.Markdown()
	for _, want := range []string{
		"certificates daily [S1]. *(unverified: not supported by the cited source)*\n",
		"probe [S9]. *(unverified: cites a source that does not exist)*\n",
		"The default port is 7420 [S1]. The server",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("marked Markdown lacks %q:\n%s", want, got)
		}
	}
	// The Titan sentence: S1 does not support it, but S2 does.
	if n := strings.Count(got, "*(unverified:"); n != 2 {
		t.Errorf("%d sentences marked, want 2:\n%s", n, got)
	}
	if plain := report.Parse(mixedReport).Markdown(); plain != mixedReport {
		t.Errorf("an unverified report changed:\n%s", plain)
	}
}

// TestReportJSON: the value stored with a report version reads back with
// its verdicts and links.
func TestReportJSON(t *testing.T) {
	r, _ := renderedReport(t, mixedReport)
	r.Prior = []report.Prior{{ID: "P1", Heading: "Earlier"}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back report.Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Format != report.Format || back.Title != r.Title || !back.Verified || len(back.Citations) != len(r.Citations) ||
		len(back.Sentences) != len(r.Sentences) || len(back.Sections) != 1 || back.Prior[0].Heading != "Earlier" {
		t.Fatalf("round trip: %s", b)
	}
	s, e := back.Evidence(back.Citations[1])
	if s == nil || e == nil || s.Supported || e.Passage == "" {
		t.Errorf("evidence after the round trip: %+v %+v", s, e)
	}
}

func TestBody(t *testing.T) {
	body := "## A\n\nText [S1]."
	if got := report.Body(body + report.SourcesHeading + "- [S1] x\n"); got != body {
		t.Errorf("Body = %q", got)
	}
	if got := report.Body(body); got != body {
		t.Errorf("Body without a Sources list = %q", got)
	}
}

func outer(s *goquery.Selection) string {
	h, _ := goquery.OuterHtml(s)
	return h
}

// TestCitationsFindTheirSentence: a link belongs to the sentence whose
// marker it is, even when an earlier sentence of the same paragraph shows
// the same marker as code, or an escape hides one from the parser.
func TestCitationsFindTheirSentence(t *testing.T) {
	tests := []struct {
		name string
		md   string
		want []int // sentence of each link
	}{
		{"marker in code first", "## A\n\nWrite `[S1]` to cite it. The default port is 7420 [S1].\n", []int{1}},
		{"escaped marker first", "## A\n\nWrite \\[S1] to cite it. The default port is 7420 [S1]. Titan is large [S2].\n", []int{1, 2}},
		{"list items and tables", "## A\n\n- The default port is 7420 [S1].\n- Titan is large [S2].\n\n| a | b |\n|---|---|\n| port | 7420 [S1] |\n", []int{0, 1, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := report.Parse(tt.md)
			r.Render(report.RenderOptions{Known: known, Evidence: true})
			var got []int
			for _, c := range r.Citations {
				got = append(got, c.Sentence)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("links in sentences %v, want %v (%+v)", got, tt.want, r.Sentences)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("links in sentences %v, want %v (%+v)", got, tt.want, r.Sentences)
					break
				}
			}
		})
	}
}
