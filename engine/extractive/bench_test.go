package extractive

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

// benchSources builds n sources from the fixtures: each page with its
// paragraphs rotated, so that pages differ in order and length.
func benchSources(b *testing.B, n int) []research.Source {
	base := loadSources(b)
	out := make([]research.Source, n)
	for i := range out {
		src := base[i%len(base)]
		paras := strings.Split(src.Text, "\n\n")
		k := i % len(paras)
		src.Text = strings.Join(append(paras[k:], paras[:k]...), "\n\n")
		src.ID = fmt.Sprintf("S%d", i+1)
		out[i] = src
	}
	return out
}

func BenchmarkSynthesize20Sources(b *testing.B) {
	sources := benchSources(b, 20)
	e := New()
	spec, _, _ := e.Plan(context.Background(), engine.PlanRequest{Question: "How large is Titan and what is the default port of EmberDB?", Budget: research.Presets()[research.DepthStandard]})
	req := engine.SynthesisRequest{Question: spec.Goal, Spec: spec, Sources: sources, Budget: spec.Budget}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := e.Synthesize(context.Background(), req, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerify20Sources(b *testing.B) {
	sources := benchSources(b, 20)
	e := New()
	spec, _, _ := e.Plan(context.Background(), engine.PlanRequest{Question: "How large is Titan and what is the default port of EmberDB?", Budget: research.Presets()[research.DepthStandard]})
	md, _, _ := e.Synthesize(context.Background(), engine.SynthesisRequest{Question: spec.Goal, Spec: spec, Sources: sources, Budget: spec.Budget}, nil)
	b.ReportAllocs()
	for b.Loop() {
		report.Verify(md, sources, nil, spec.Criteria, report.DefaultVerifyOptions())
	}
}

// longReference is a manual's one-page configuration reference of about
// 1.5 MB: thousands of keyword sections, the asked one last.
func longReference() research.Source {
	var b strings.Builder
	b.WriteString("Configuration Manual\n\n")
	for i := 0; b.Len() < 1_500_000; i++ {
		fmt.Fprintf(&b, "tune.option-%d <number>\n\nSets the number of widgets kept for option %d, which matters to busy sites with many widgets in flight. The default value is %d, which suits most sites.\n\n", i, i, i+7)
	}
	b.WriteString(referencePage)
	return research.Source{ID: "S1", Title: "Configuration Manual — Tallyproxy", Text: b.String()}
}

func BenchmarkSynthesizeLongReference(b *testing.B) {
	src := []research.Source{longReference()}
	e := New()
	q := "By default, how many headers can an HTTP request carry before Tallyproxy rejects it with a 400 error?"
	spec, _, _ := e.Plan(context.Background(), engine.PlanRequest{Question: q, Budget: research.Presets()[research.DepthStandard]})
	req := engine.SynthesisRequest{Question: q, Spec: spec, Sources: src, Budget: spec.Budget}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := e.Synthesize(context.Background(), req, nil); err != nil {
			b.Fatal(err)
		}
	}
}
