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
