package extractive

import (
	"context"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

// TestSynthesisReportsSourcesThatDisagree: two pages giving different
// years for the same event are both quoted and the disagreement is
// written out; the report then passes verification, which would count
// the two quotes as a contradiction without it.
func TestSynthesisReportsSourcesThatDisagree(t *testing.T) {
	t.Parallel()
	sources := []research.Source{
		{ID: "S1", URL: "https://a.example/halden", Title: "Halden bridge history",
			Text: "The Halden bridge opened in 1932 after four years of construction. It spans the river near the old fortress."},
		{ID: "S2", URL: "https://b.example/bridges", Title: "Bridges of Halden",
			Text: "The Halden bridge opened to traffic in 1934. Its main span is 300 metres long."},
	}
	spec := research.TaskSpec{Route: research.RouteResearch, Goal: "When did the Halden bridge open?",
		Criteria: []string{"When did the Halden bridge open?"}, Sections: []string{"Opening"}}
	md, _, err := New().Synthesize(context.Background(), engine.SynthesisRequest{Question: spec.Goal, Spec: spec, Sources: sources,
		Budget: research.Presets()[research.DepthStandard]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := research.DisagreeSentence(research.Claim{Source: "S1", Value: "1932"}, research.Claim{Source: "S2", Value: "1934"})
	if !strings.Contains(md, want) {
		t.Fatalf("report lacks %q:\n%s", want, md)
	}
	v := report.Verify(md, sources, nil, spec.Criteria, report.DefaultVerifyOptions())
	if !v.Passed || len(v.Contradictions) != 0 {
		t.Errorf("verification %+v (contradictions %+v, failures %q):\n%s", v.Scores, v.Contradictions, v.Failures, md)
	}
	bare := strings.ReplaceAll(md, "- "+want+"\n", "")
	if v := report.Verify(bare, sources, nil, spec.Criteria, report.DefaultVerifyOptions()); v.Passed || len(v.Contradictions) != 1 {
		t.Errorf("without the disagreement sentence: passed %v, contradictions %+v\n%s", v.Passed, v.Contradictions, bare)
	}
}
