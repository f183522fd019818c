package report_test

import (
	"strings"
	"testing"

	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

// Two fetched pages, written like the documentation and news pages Quarry
// reads: headings, short paragraphs, figures and names.
var verifySources = []research.Source{
	{
		ID: "S1", URL: "https://docs.example.dev/configuration/", Title: "Configuration reference",
		Text: "Configuration reference\n\n" +
			"The server reads its settings from /etc/ember/ember.conf at start-up. Every setting can also be given on the command line.\n\n" +
			"port\n\n" +
			"The TCP port for client connections. The default port is 7420. To change it, set port in ember.conf and restart the server.\n\n" +
			"max_clients\n\n" +
			"The maximum number of simultaneous client connections. The default is 10,000; connections beyond the limit are refused.",
	},
	{
		ID: "S2", URL: "https://news.example.com/titan-map", Title: "First global map of Titan",
		Text: "Scientists on Monday unveiled the first global geological map of Saturn's moon Titan.\n\n" +
			"The map was based on radar and infrared data collected by NASA's Cassini spacecraft, which studied Saturn from 2004 to 2017. " +
			"Titan, with a diameter of 3,200 miles, is the second-biggest moon in the Solar System.\n\n" +
			"Plains cover 65 percent of the surface and dunes cover 17 percent, said planetary geologist Rosaly Lopes of the Jet Propulsion Laboratory.",
	},
}

var verifyCriteria = []string{
	"What is the default port?",
	"How large is Titan?",
}

// goodReport quotes and paraphrases the sources faithfully.
const goodReport = `## Summary

The default port is 7420 [S1]. Titan has a diameter of 3,200 miles [S2].

## Default port

- The TCP port for client connections defaults to 7420; to change it, set port in ember.conf and restart the server [S1].
- Up to 10,000 simultaneous client connections are accepted by default. [S1]

## How large is Titan

Titan, with a diameter of 3,200 miles, is the second-biggest moon in the Solar System. [S2] Its plains cover 65 percent of the surface, according to Rosaly Lopes [S2].

## Sources

1. [S1] https://docs.example.dev/configuration/
2. [S9] https://news.example.com/titan-map
`

func TestVerifyPassesFaithfulReport(t *testing.T) {
	v := report.Verify(goodReport, verifySources, nil, verifyCriteria, report.DefaultVerifyOptions())
	if !v.Passed || v.Warning != "" || len(v.Failures) != 0 {
		t.Fatalf("faithful report failed: %s %q", v.Warning, v.Failures)
	}
	for name, got := range map[string]float64{"validity": v.Validity, "coverage": v.Coverage, "support": v.Support, "grounding": v.Grounding, "criteria": v.CriteriaCoverage} {
		if got != 1 {
			t.Errorf("%s = %v, want 1", name, got)
		}
	}
	if len(v.Sentences) != 6 {
		t.Fatalf("%d sentences, want 6 (headings and the Sources list are not sentences)", len(v.Sentences))
	}
	byID := map[string]research.Source{}
	for _, s := range verifySources {
		byID[s.ID] = s
	}
	for _, s := range v.Sentences {
		if !s.Factual || !s.Valid || !s.Supported || s.SourceID == "" {
			t.Errorf("sentence %+v", s)
			continue
		}
		src := byID[s.SourceID]
		if src.Text[s.PassageStart:s.PassageEnd] != s.Passage || s.Passage == "" {
			t.Errorf("passage offsets [%d:%d] do not give %q", s.PassageStart, s.PassageEnd, s.Passage)
		}
	}
	first := v.Sentences[0]
	if first.Section != "Summary" || first.Passage != "The default port is 7420." {
		t.Errorf("best passage for %q = %q (section %q)", first.Text, first.Passage, first.Section)
	}
	if !v.Criteria[0].Answered || v.Criteria[0].Section != "Default port" || !v.Criteria[1].Answered {
		t.Errorf("criteria %+v", v.Criteria)
	}
}

func TestVerifyCatchesProblems(t *testing.T) {
	tests := []struct {
		name     string
		report   string
		check    func(t *testing.T, v report.Verification)
		failWith string
	}{
		{
			name:   "fabricated citation",
			report: "## Default port\n\nThe default port is 7420 [S1]. The server was written in 2019 by a team of four [S7].\n\n## How large is Titan\n\nTitan has a diameter of 3,200 miles [S2].",
			check: func(t *testing.T, v report.Verification) {
				if v.Validity >= 1 || v.Sentences[1].Valid || v.Sentences[1].Supported {
					t.Errorf("validity %v, sentence %+v", v.Validity, v.Sentences[1])
				}
			},
			failWith: "cites [S7], which is not a source of this run",
		},
		{
			name:   "unsupported claim",
			report: "## Default port\n\nThe default port is 7420 [S1]. The server encrypts every connection with TLS 1.3 and rotates its certificates daily [S1].\n\n## How large is Titan\n\nTitan has a diameter of 3,200 miles [S2].",
			check: func(t *testing.T, v report.Verification) {
				s := v.Sentences[1]
				if s.Supported || s.Score >= 0.6 || v.Support >= 0.9 {
					t.Errorf("support %v, sentence %+v", v.Support, s)
				}
			},
			failWith: "is not supported by [S1]",
		},
		{
			name:   "wrong number",
			report: "## Default port\n\nThe default port is 8080 [S1].\n\n## How large is Titan\n\nTitan has a diameter of 3,200 miles [S2].",
			check: func(t *testing.T, v report.Verification) {
				s := v.Sentences[0]
				if len(s.Ungrounded) != 1 || s.Ungrounded[0] != "8080" || v.Grounding >= 1 || s.Supported {
					t.Errorf("grounding %v, sentence %+v", v.Grounding, s)
				}
			},
			failWith: `has "8080", not found in [S1]`,
		},
		{
			name:   "wrong name",
			report: "## Default port\n\nThe default port is 7420 [S1].\n\n## How large is Titan\n\nTitan has a diameter of 3,200 miles, said planetary geologist Linda Morabito [S2].",
			check: func(t *testing.T, v report.Verification) {
				if got := v.Sentences[1].Ungrounded; len(got) != 1 || got[0] != "Linda Morabito" {
					t.Errorf("ungrounded %q", got)
				}
			},
			failWith: `"Linda Morabito"`,
		},
		{
			name:   "uncited facts",
			report: "## Default port\n\nThe default port is 7420 [S1]. The server also supports clustering across three data centres. It was first released in 2015.\n\n## How large is Titan\n\nTitan has a diameter of 3,200 miles [S2].",
			check: func(t *testing.T, v report.Verification) {
				if v.Coverage != 0.5 || v.Sentences[1].Factual == false {
					t.Errorf("coverage %v, sentence %+v", v.Coverage, v.Sentences[1])
				}
			},
			failWith: "states a fact without a citation",
		},
		{
			name:   "criterion not addressed",
			report: "## Default port\n\nThe default port is 7420 [S1].",
			check: func(t *testing.T, v report.Verification) {
				if v.CriteriaCoverage != 0.5 || v.Criteria[1].Answered || v.Criteria[1].Undetermined {
					t.Errorf("criteria %+v", v.Criteria)
				}
			},
			failWith: `Criterion not addressed: "How large is Titan?"`,
		},
		{
			name:     "empty report",
			report:   "## Summary\n\n",
			check:    func(t *testing.T, v report.Verification) {},
			failWith: "The report is empty",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := report.Verify(tt.report, verifySources, nil, verifyCriteria, report.DefaultVerifyOptions())
			if v.Passed || v.Warning == "" {
				t.Fatalf("passed (%+v)", v)
			}
			tt.check(t, v)
			if !strings.Contains(strings.Join(report.Feedback(v), "\n"), tt.failWith) {
				t.Errorf("feedback %q lacks %q", v.Failures, tt.failWith)
			}
			good := report.Verify(goodReport, verifySources, nil, verifyCriteria, report.DefaultVerifyOptions())
			if report.Score(v) >= report.Score(good) {
				t.Errorf("score %v not below the faithful report's %v", report.Score(v), report.Score(good))
			}
		})
	}
}

func TestVerifyNonFactualSentences(t *testing.T) {
	md := "## Default port\n\nThe default port is 7420 [S1]. Why would anyone change it? The sources do not say more about ports. " +
		"Teams that run several instances on one host probably change it (inference).\n\n" +
		"## How large is Titan\n\n" + research.Undetermined + "\n"
	v := report.Verify(md, verifySources, nil, verifyCriteria, report.DefaultVerifyOptions())
	if !v.Passed {
		t.Fatalf("failed: %s %q", v.Warning, v.Failures)
	}
	want := []struct{ factual, inference, undetermined bool }{{true, false, false}, {false, false, false}, {false, false, false}, {false, true, false}, {false, false, true}}
	for i, w := range want {
		s := v.Sentences[i]
		if s.Factual != w.factual || s.Inference != w.inference || s.Undetermined != w.undetermined {
			t.Errorf("sentence %d %q: factual %v inference %v undetermined %v", i, s.Text, s.Factual, s.Inference, s.Undetermined)
		}
	}
	if c := v.Criteria[1]; c.Answered || !c.Undetermined || c.Section != "How large is Titan" {
		t.Errorf("criterion %+v, want declared undetermined", c)
	}
}

func TestVerifyCitationForms(t *testing.T) {
	prior := []research.PriorSection{{ID: "P1", Heading: "Earlier findings", Text: "The cluster bus uses port 17420 for gossip between nodes [S3]."}}
	md := "## Findings\n\n" +
		"The default port is 7420 and Titan is 3,200 miles across [S1, S2].\n" +
		"The TCP port for client connections is 7420. [S1][S2]\n" +
		"- Nodes gossip over port 17420 on the cluster bus [P1].\n"
	v := report.Verify(md, verifySources, prior, nil, report.DefaultVerifyOptions())
	if !v.Passed {
		t.Fatalf("failed: %s %q", v.Warning, v.Failures)
	}
	if got := v.Sentences[0].Citations; len(got) != 2 || got[0] != "S1" || got[1] != "S2" {
		t.Errorf("citations %q", got)
	}
	if s := v.Sentences[2]; s.SourceID != "P1" || !strings.Contains(s.Passage, "17420") {
		t.Errorf("prior citation: %+v", s)
	}
	if v := report.Verify(md, verifySources, nil, nil, report.DefaultVerifyOptions()); v.Passed || v.Sentences[2].Valid {
		t.Error("[P1] must be invalid when the run has no prior sections")
	}
}

func TestVerifyOptions(t *testing.T) {
	md := "## Default port\n\nThe default port is 7420 [S1]. The server also supports clustering across three data centres.\n"
	if v := report.Verify(md, verifySources, nil, nil, report.VerifyOptions{}); v.Passed {
		t.Error("zero options must mean the strict defaults")
	}
	if v := report.Verify(md, verifySources, nil, nil, report.VerifyOptions{MinCoverage: -1}); !v.Passed {
		t.Errorf("a negative threshold disables its check: %s", v.Warning)
	}
	lenient := report.VerifyOptions{SupportThreshold: 0.2}
	claim := "## A\n\nThe default port changes with every major release and is chosen at random during installation [S1].\n"
	if v := report.Verify(claim, verifySources, nil, nil, lenient); !v.Sentences[0].Supported {
		t.Errorf("score %v under a 0.2 threshold should be supported", v.Sentences[0].Score)
	}
	if v := report.Verify(claim, verifySources, nil, nil, report.DefaultVerifyOptions()); v.Sentences[0].Supported {
		t.Errorf("score %v should fail the default threshold", v.Sentences[0].Score)
	}
}

// An answer-first Summary states each part in the question's order: a
// sentence there answers the part nothing else claims, however few of its
// words it repeats, and "None of the sources read states …" declares a
// part unanswered.
func TestVerifyAnswerFirstSummary(t *testing.T) {
	md := "## Summary\n\nThe server reads its settings from /etc/ember/ember.conf at start-up. [S1]\n\n" + research.NotStated("How large is Titan?") + "\n"
	v := report.Verify(md, verifySources, nil, verifyCriteria, report.DefaultVerifyOptions())
	if c := v.Criteria[0]; !c.Answered || len(c.Sentences) != 1 || c.Sentences[0] != 0 {
		t.Errorf("criterion %+v, want answered by the Summary's first sentence", c)
	}
	if c := v.Criteria[1]; c.Answered || !c.Undetermined {
		t.Errorf("criterion %+v, want declared undetermined", c)
	}
	if !v.Sentences[1].Undetermined || v.Sentences[1].Factual {
		t.Errorf("sentence %+v, want the unstated part read as undetermined", v.Sentences[1])
	}
	if v.CriteriaCoverage != 1 {
		t.Errorf("criteria coverage %v, want 1", v.CriteriaCoverage)
	}
}
