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
