package report

import (
	"reflect"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
)

// TestCriterionResults: verification's verdict per criterion becomes
// answered (with the citations of its answering sentences, once each),
// undetermined or missing, and the export lists them with the prior
// sections used and the scores.
func TestCriterionResults(t *testing.T) {
	sources := []research.Source{
		{ID: "S1", Text: "The default port is 7420. It listens on all interfaces."},
		{ID: "S2", Text: "EmberDB listens on port 7420 by default."},
	}
	md := "## Default port\n\nThe default port is 7420 [S1][S2]. It listens on all interfaces [S1].\n\n" +
		"## Licence\n\n" + research.Undetermined + "\n"
	doc := Parse(md)
	v := doc.Verify(sources, nil, []string{"What is the default port", "Which licence applies", "Who maintains it"}, DefaultVerifyOptions())
	want := []CriterionResult{
		{Criterion: "What is the default port", Status: CriterionAnswered, Section: "Default port", Citations: []string{"S1", "S2"}},
		{Criterion: "Which licence applies", Status: CriterionUndetermined, Section: "Licence"},
		{Criterion: "Who maintains it", Status: CriterionMissing},
	}
	if !reflect.DeepEqual(doc.Criteria, want) {
		t.Fatalf("criteria = %+v\nwant %+v", doc.Criteria, want)
	}
	doc.Prior = []Prior{{ID: "P1", Heading: "Earlier findings"}}
	out := ExportAppendix(doc, &v.Scores, "careful")
	for _, s := range []string{"## Criteria\n\n- answered: What is the default port — [S1][S2]\n- undetermined: Which licence applies",
		"- not addressed: Who maintains it", "## Prior research used\n\n- [P1] Earlier findings", "## Verification\n\nCitation checks", "Warning: careful"} {
		if !strings.Contains(out, s) {
			t.Errorf("appendix lacks %q:\n%s", s, out)
		}
	}
	if out := ExportAppendix(nil, nil, ""); out != "## Verification\n\nThis report was not verified.\n" {
		t.Errorf("unverified appendix %q", out)
	}
}

// TestContradictionsInsideTheReport: two cited sentences giving different
// years for the same event fail verification with a repair line that
// asks for the disagreement sentence; with that sentence (each value in
// its cited source) the report passes; a disagreement sentence whose
// value its source does not state is unsupported.
func TestContradictionsInsideTheReport(t *testing.T) {
	sources := []research.Source{
		{ID: "S1", Text: "The Halden bridge opened in 1932 after four years of construction."},
		{ID: "S2", Text: "The Halden bridge opened to traffic in 1934."},
	}
	crit := []string{"When the Halden bridge opened"}
	bad := "## Opening\n\nThe Halden bridge opened in 1932 [S1]. The Halden bridge opened to traffic in 1934 [S2].\n"
	v := Verify(bad, sources, nil, crit, DefaultVerifyOptions())
	if v.Passed || len(v.Contradictions) != 1 || v.Contradictions[0] != (Contradiction{A: 0, B: 1, ValueA: "1932", ValueB: "1934"}) {
		t.Fatalf("contradictions %+v, passed %v", v.Contradictions, v.Passed)
	}
	if f := strings.Join(v.Failures, "\n"); !strings.Contains(f, `Sentences 1 and 2 give different values for the same thing ("1932" and "1934")`) ||
		!strings.Contains(f, "Sources disagree: [S#] gives 1932; [S#] gives 1934.") || !strings.Contains(v.Warning, "different values") {
		t.Errorf("failures %q, warning %q", f, v.Warning)
	}
	good := bad + "\nSources disagree: [S1] gives 1932; [S2] gives 1934.\n"
	if v := Verify(good, sources, nil, crit, DefaultVerifyOptions()); !v.Passed || len(v.Contradictions) != 0 {
		t.Errorf("with the disagreement stated: %+v %q", v.Contradictions, v.Failures)
	}
	wrong := "## Opening\n\nSources disagree: [S1] gives 1932; [S2] gives 1936.\n"
	if v := Verify(wrong, sources, nil, crit, DefaultVerifyOptions()); v.Passed || v.Sentences[0].Supported {
		t.Errorf("a disagreement sentence misquoting [S2] passed: %+v", v.Sentences[0])
	}
}

// TestDisagreementSentenceEvidence: each citation of a disagreement
// sentence opens the passage of its source that gives the value.
func TestDisagreementSentenceEvidence(t *testing.T) {
	sources := []research.Source{
		{ID: "S1", Text: "Some history first. The Halden bridge opened in 1932 after four years of construction."},
		{ID: "S2", Text: "Visitors are welcome. The Halden bridge opened to traffic in 1934."},
	}
	v := Verify("## Opening\n\nSources disagree: [S1] gives 1932; [S2] gives 1934.\n", sources, nil, nil, DefaultVerifyOptions())
	s := v.Sentences[0]
	if !s.Supported || len(s.Evidence) != 2 || !s.Evidence[0].Supported || !strings.Contains(s.Evidence[0].Passage, "1932") ||
		!s.Evidence[1].Supported || !strings.Contains(s.Evidence[1].Passage, "1934") {
		t.Errorf("disagreement sentence check: %+v", s)
	}
}
