package extractive

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// synthesize plans q and writes its report over sources.
func synthesize(t *testing.T, q string, sources []research.Source, depth string) (research.TaskSpec, string) {
	t.Helper()
	e := New()
	spec, _, err := e.Plan(context.Background(), engine.PlanRequest{Question: q, Budget: research.Presets()[depth]})
	if err != nil {
		t.Fatal(err)
	}
	var streamed strings.Builder
	md, usage, err := e.Synthesize(context.Background(), engine.SynthesisRequest{
		Question: q, Spec: spec, Sources: sources, Budget: spec.Budget,
	}, func(d string) { streamed.WriteString(d) })
	if err != nil {
		t.Fatal(err)
	}
	if usage != (engine.Usage{}) {
		t.Errorf("usage = %+v, want zero", usage)
	}
	if strings.TrimRight(streamed.String(), "\n") != strings.TrimRight(md, "\n") {
		t.Errorf("streamed text differs from the report")
	}
	return spec, md
}

var synthesisQuestions = []string{
	"What is the default port of EmberDB and how do I change it?",
	"How do I set up replication in EmberDB?",
	"How large is Titan and what covers its surface?",
	"How much money will Alibaba raise in Hong Kong?",
	"What did NASA find above Europa's surface?",
	"What are the system requirements of EmberDB?",
}

func TestSynthesisQuotesSourcesVerbatimWithCitations(t *testing.T) {
	t.Parallel()
	sources := loadSources(t)
	byID := map[string]research.Source{}
	for _, s := range sources {
		byID[s.ID] = s
	}
	for _, q := range synthesisQuestions {
		t.Run(q, func(t *testing.T) {
			spec, md := synthesize(t, q, sources, research.DepthStandard)
			var headings []string
			for _, line := range strings.Split(md, "\n") {
				if h, ok := strings.CutPrefix(line, "## "); ok {
					headings = append(headings, h)
				}
			}
			if len(headings) == 0 || headings[0] != "Summary" || !inOrder(headings, spec.Sections) {
				t.Errorf("headings %q, want Summary then some of the spec's sections %q in order", headings, spec.Sections)
			}
			if strings.Contains(md, "## Sources") {
				t.Error("the report must not write its own Sources list")
			}
			sents := report.ReportSentences(md)
			if len(sents) == 0 {
				t.Fatal("empty report")
			}
			for _, s := range sents {
				if research.IsUndetermined(s.Plain) {
					if !strings.HasPrefix(s.Plain, research.NotStatedLead+" an answer to “") {
						t.Errorf("undetermined sentence %q", s.Plain)
					}
					continue
				}
				ids := research.Citations(s.Raw)
				if len(ids) == 0 {
					t.Errorf("uncited sentence %q", s.Plain)
					continue
				}
				for _, id := range ids {
					src, ok := byID[id]
					if !ok {
						t.Errorf("sentence %q cites unknown %s", s.Plain, id)
						continue
					}
					if !quotedFrom(s.Plain, src.Text) {
						t.Errorf("sentence %q is not verbatim from %s", s.Plain, id)
					}
				}
			}
		})
	}
}

// inOrder reports whether every one of sub is in all, in the same order.
func inOrder(sub, all []string) bool {
	j := 0
	for _, s := range sub {
		for j < len(all) && all[j] != s {
			j++
		}
		if j == len(all) {
			return false
		}
		j++
	}
	return true
}

// quotedFrom reports whether a report sentence (its option label and
// command aside) appears in text, white space aside.
func quotedFrom(sentence, body string) bool {
	norm := text.OneLine
	b := norm(body)
	for _, part := range strings.SplitN(sentence, ": ", 2) {
		if strings.Contains(b, norm(part)) {
			continue
		}
		// A sentence ending in ":" is quoted with the command below it.
		if i := strings.LastIndex(part, ": "); i >= 0 && strings.Contains(b, norm(part[:i+1])) {
			continue
		}
		if !strings.Contains(b, norm(sentence)) {
			return false
		}
	}
	return true
}

func TestSynthesisFindsTheKeyFacts(t *testing.T) {
	t.Parallel()
	sources := loadSources(t)
	tests := []struct {
		q    string
		want []string // facts that must appear in the summary
	}{
		{"What is the default port of EmberDB and how do I change it?", []string{"7420", "set port in ember.conf"}},
		{"How large is Titan and what covers its surface?", []string{"3,200 miles", "65 percent"}},
		{"How much money will Alibaba raise in Hong Kong?", []string{"$12.9bn"}},
		{"How do I install EmberDB on Debian?", []string{"sudo apt install emberdb-server"}},
		{"How do I set up replication in EmberDB?", []string{"replicaof 10.0.0.5 7420"}},
		{"What does max_clients do in EmberDB?", []string{"`max_clients`: ", "The maximum number of simultaneous client connections. [S2]"}},
		{"What is the default maxmemory_policy?", []string{"noeviction"}},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			_, md := synthesize(t, tt.q, sources, research.DepthStandard)
			summary, _, _ := strings.Cut(strings.TrimPrefix(md, "## Summary"), "\n## ")
			for _, w := range tt.want {
				if !strings.Contains(summary, w) && !strings.Contains(md, w) {
					t.Errorf("report lacks %q:\n%s", w, md)
				} else if !strings.Contains(summary, w) {
					t.Logf("%q is in the report but not the summary", w)
				}
			}
		})
	}
}

func TestSynthesisUndeterminedCriterion(t *testing.T) {
	t.Parallel()
	sources := loadSources(t)
	e := New()
	spec := research.TaskSpec{
		Goal:     "What is the default port of EmberDB?",
		Criteria: []string{"What is the default port of EmberDB?", "Which licence is EmberDB released under?"},
		Sections: []string{"Summary", "Default port", "Licence"},
		Budget:   research.Presets()[research.DepthStandard],
	}
	md, _, err := e.Synthesize(context.Background(), engine.SynthesisRequest{Question: spec.Goal, Spec: spec, Sources: sources, Budget: spec.Budget}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if answerTo(md, 1) != research.NotStated("Which licence is EmberDB released under?") || strings.Contains(md, "## Licence") {
		t.Errorf("the licence part is not said to be unstated in the Summary, with no section of its own:\n%s", md)
	}
	if !strings.Contains(md, "The default port is 7420. [S2]") {
		t.Errorf("port answer missing:\n%s", md)
	}
	v := report.Verify(md, sources, nil, spec.Criteria, report.DefaultVerifyOptions())
	if !v.Passed || !v.Criteria[1].Undetermined {
		t.Errorf("verification %+v %+v", v.Warning, v.Criteria)
	}
}

func TestSynthesisFallbackPlan(t *testing.T) {
	t.Parallel()
	// The pipeline's fallback plan (pipeline.FallbackSpec; the pipeline
	// imports this engine, so its shape is written out here): the
	// question as goal and only criterion, one "Answer" section.
	q := "What is the default port of EmberDB?"
	spec := research.TaskSpec{Route: research.RouteResearch, Goal: q, Criteria: []string{q}, Sections: []string{"Answer"},
		Actions: []research.ActionSpec{{Kind: research.ActionSearch, Engine: "duckduckgo", Query: q}}, Clarity: 0.5}
	md, _, err := New().Synthesize(context.Background(), engine.SynthesisRequest{Question: spec.Goal, Spec: spec, Sources: loadSources(t), Budget: research.Presets()[research.DepthQuick]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md, "## Answer\n\n") || strings.Count(md, "## ") != 1 || !strings.Contains(md, "The default port is 7420. [S2]") {
		t.Errorf("fallback report:\n%s", md)
	}
}

func TestSynthesisNoSources(t *testing.T) {
	t.Parallel()
	spec, md := synthesize(t, "What is the default port of EmberDB?", nil, research.DepthQuick)
	if got := strings.Count(md, research.NotStatedLead); got != len(spec.Criteria) || strings.Count(md, "## ") != 1 {
		t.Errorf("%d unstated parts for %d criteria, want one each and the Summary alone:\n%s", got, len(spec.Criteria), md)
	}
}

// TestVerifyPassesExtractiveOutput is the property the design relies on:
// the extractive engine's citations are correct by construction.
func TestVerifyPassesExtractiveOutput(t *testing.T) {
	t.Parallel()
	sources := loadSources(t)
	questions := append(synthesisQuestions, "kubernetes", "Compare Titan and Europa", "Why is Europa a target in the search for life?")
	for _, depth := range []string{research.DepthQuick, research.DepthStandard, research.DepthDeep} {
		if depth != research.DepthStandard {
			questions = questions[:2] // the sentence budget changes little else
		}
		for _, q := range questions {
			spec, md := synthesize(t, q, sources, depth)
			v := report.Verify(md, sources, nil, spec.Criteria, report.DefaultVerifyOptions())
			if !v.Passed || v.Validity != 1 || v.Support != 1 || v.Coverage != 1 || v.Grounding != 1 {
				t.Errorf("%s %q: verification %s %v\n%s", depth, q, v.Warning, v.Failures, md)
			}
		}
	}
}

// The length of a report follows its evidence, not the depth's budget:
// a one-fact question gets a short report, the same at every depth, with
// its answer first.
func TestSynthesisLengthFollowsEvidence(t *testing.T) {
	t.Parallel()
	sources := loadSources(t)
	q := "What is the default port of EmberDB?"
	_, quick := synthesize(t, q, sources, research.DepthQuick)
	_, deep := synthesize(t, q, sources, research.DepthDeep)
	if quick != deep {
		t.Errorf("the depth changed the report:\nquick:\n%s\ndeep:\n%s", quick, deep)
	}
	if !strings.HasPrefix(answerTo(deep, 0), "`port`: The default port is 7420. [S2]") {
		t.Errorf("the report does not open with the answer:\n%s", deep)
	}
	words := 0
	for _, s := range report.ReportSentences(deep) {
		words += len(strings.Fields(s.Plain))
	}
	if words > 150 {
		t.Errorf("%d words for a one-fact question:\n%s", words, deep)
	}
}

func TestSynthesisRepairDropsFlaggedSentences(t *testing.T) {
	t.Parallel()
	sources := loadSources(t)
	e := New()
	spec, first := synthesize(t, "How large is Titan and what covers its surface?", sources, research.DepthStandard)
	flagged := "Titan, with a diameter of 3,200 miles (5,150 km), is the Solar System's second-biggest moon behind Jupiter's Ganymede."
	if !strings.Contains(first, flagged) {
		t.Fatalf("first draft lacks the sentence to flag:\n%s", first)
	}
	feedback := []string{`Sentence 1 is not supported by [S7] (support 0.40, needs 0.60); say only what the source says, cite the source that says it, or remove it: "` + flagged + `"`}
	second, _, err := e.Synthesize(context.Background(), engine.SynthesisRequest{
		Question: spec.Goal, Spec: spec, Sources: sources, Budget: spec.Budget, Feedback: feedback, Previous: first,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(second, flagged) {
		t.Errorf("repair kept the flagged sentence:\n%s", second)
	}
	if !strings.Contains(second, "65 percent") {
		t.Errorf("repair lost unflagged evidence:\n%s", second)
	}
}

func TestSynthesisCitesPriorSections(t *testing.T) {
	t.Parallel()
	prior := []research.PriorSection{{
		ID: "P1", Heading: "EmberDB ports",
		Text: "The default port is 7420 [S4]. The cluster bus uses port 17420 for gossip between nodes [S4].",
	}}
	e := New()
	spec, _, _ := e.Plan(context.Background(), engine.PlanRequest{Question: "Which port does the EmberDB cluster bus use?"})
	md, _, err := e.Synthesize(context.Background(), engine.SynthesisRequest{Question: spec.Goal, Spec: spec, Prior: prior, Budget: spec.Budget}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`17420 for gossip between nodes\. \[P1\]`).MatchString(md) {
		t.Errorf("prior section not cited:\n%s", md)
	}
	if strings.Contains(md, "[S4]") {
		t.Errorf("the parent's source ids leaked into the report:\n%s", md)
	}
	v := report.Verify(md, nil, prior, spec.Criteria, report.DefaultVerifyOptions())
	if !v.Passed {
		t.Errorf("verification: %s %v", v.Warning, v.Failures)
	}
}

func TestSynthesisCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := New().Synthesize(ctx, engine.SynthesisRequest{Question: "x", Sources: loadSources(t)}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestEscapeMarkdown(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Use max_connections and *care*.", `Use max\_connections and \*care\*.`},
		{"1. Install it.", `1\. Install it.`},
		{"# not a heading", `\# not a heading`},
		{"a <b> [c]", `a \<b\> \[c\]`},
	}
	for _, tt := range tests {
		if got := escapeMarkdown(tt.in); got != tt.want {
			t.Errorf("escapeMarkdown(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A why-question's summary carries its best reason, even when the reason
// shares few words with the question ("the regulator's questions include
// whether …" answers "why is the regulator investigating …").
func TestSynthesisWhySummaryGivesTheReason(t *testing.T) {
	t.Parallel()
	sources := []research.Source{{ID: "S1", Title: "Harbour board reportedly investigating Quillship", URL: "https://news.example.org/quillship",
		Text: "Quillship is reportedly being investigated by the Harbour Board of Westport. " +
			"Quillship is headquartered in Westport. " +
			"The Harbour Board's office had no comment. " +
			"According to the Westport Gazette, the board's questions include whether Quillship's founder and former chief executive Ada Marlow engaged in self-dealing. " +
			"This comes a week after the ferry company cancelled its share listing."},
		{ID: "S2", Title: "Quillship to cut jobs", URL: "https://news.example.org/cuts",
			Text: "Quillship is preparing to cut 400 jobs at its Westport yards, the Gazette reported on Sunday."}}
	_, md := synthesize(t, "Why is the Westport harbour board investigating Quillship?", sources, "quick")
	summary, _, _ := strings.Cut(strings.TrimPrefix(md, "## Summary\n\n"), "\n## ")
	if !strings.Contains(summary, "engaged in self-dealing. [S1]") {
		t.Errorf("the summary misses the reason:\n%s", md)
	}
}

// A heading the plan names without a criterion (one a person added on
// review) stays in the report, and says so when no source states it; the
// question's own parts answer in the Summary.
func TestSynthesisKeepsANamedHeading(t *testing.T) {
	t.Parallel()
	spec := research.TaskSpec{Goal: "What is the default port of EmberDB?",
		Criteria: []string{"What is the default port of EmberDB?"}, Sections: []string{"Summary", "Default port", "Timeline"}}
	md, _, err := New().Synthesize(context.Background(), engine.SynthesisRequest{Question: spec.Goal, Spec: spec, Sources: loadSources(t),
		Budget: research.Presets()[research.DepthQuick]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md, "## Timeline\n\n"+research.NotStated("Timeline")) {
		t.Errorf("the named heading is missing or filled:\n%s", md)
	}
	if !strings.HasPrefix(answerTo(md, 0), "`port`: The default port is 7420. [S2]") {
		t.Errorf("the Summary does not answer first:\n%s", md)
	}
}

// When no source read answers, the report says so once per part and
// quotes nothing: no "Key facts" filled with whatever the pages held.
func TestSynthesisNothingRelevantQuotesNothing(t *testing.T) {
	t.Parallel()
	sources := []research.Source{
		{ID: "S1", Title: "Senator posts about the harbour budget", Text: "The senator wrote on Tuesday that the harbour budget would grow by 4 percent next year. " +
			"Her office said the figure was agreed with the city council in March."},
		{ID: "S2", Title: "Westport Rovers win again", Text: "The Rovers beat Halden 31-17 on Sunday, their sixth win in a row. " +
			"Their quarterback threw for 312 yards and three touchdowns."},
	}
	q := "What change to like counts did Pictogram begin testing?"
	spec, md := synthesize(t, q, sources, research.DepthStandard)
	if strings.Contains(md, "[S") {
		t.Errorf("an unrelated sentence is quoted:\n%s", md)
	}
	if got := strings.Count(md, research.NotStatedLead); got != len(spec.Criteria) || strings.Count(md, "## ") != 1 {
		t.Errorf("%d unstated parts for %d criteria, want one each under the Summary alone:\n%s", got, len(spec.Criteria), md)
	}
}

// The one sentence that answers is quoted once, first, and nothing that
// does not bear on the question follows it.
func TestSynthesisQuotesTheAnswerOnce(t *testing.T) {
	t.Parallel()
	sources := []research.Source{
		{ID: "S1", Title: "Tallyhall downloads", Text: "Downloads\n\nThe current release of Tallyhall is 4.2, published on 3 May 2025. " +
			"Packages are built for Debian, Fedora and Alpine.\n\n" +
			"Upgrading from version 3.9.1 is only needed on NetBSD."},
		{ID: "S2", Title: "Tallyhall news", Text: "News\n\nThe project thanks its sponsors for the new build servers. " +
			"A meetup is planned for the autumn in Westport."},
	}
	_, md := synthesize(t, "What is the current release of Tallyhall?", sources, research.DepthDeep)
	answer := "The current release of Tallyhall is 4.2, published on 3 May 2025."
	if n := strings.Count(md, answer); n != 1 || !strings.HasPrefix(answerTo(md, 0), answer) {
		t.Errorf("the answer is quoted %d times, or not first:\n%s", n, md)
	}
	for _, stray := range []string{"NetBSD", "sponsors", "meetup"} {
		if strings.Contains(md, stray) {
			t.Errorf("%q does not bear on the question:\n%s", stray, md)
		}
	}
}

// quotesAll fails t for each of wants that text (of report md) lacks:
// what a report must quote, and why.
func quotesAll(t *testing.T, text, md, why string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s (%q):\n%s", why, want, md)
		}
	}
}

// quotesNone fails t for each of extras that text (of report md) holds:
// what a report must leave out, and why.
func quotesNone(t *testing.T, text, md, why string, extras ...string) {
	t.Helper()
	for _, extra := range extras {
		if strings.Contains(text, extra) {
			t.Errorf("%s (%q):\n%s", why, extra, md)
		}
	}
}
