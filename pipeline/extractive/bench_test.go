package extractive

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/pipeline"
)

// benchSources builds n sources from the fixtures: each page with its
// paragraphs rotated, so that pages differ in order and length.
func benchSources(b *testing.B, n int) []pipeline.Source {
	base := loadSources(b)
	out := make([]pipeline.Source, n)
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
	spec, _, _ := e.Plan(context.Background(), pipeline.PlanRequest{Question: "How large is Titan and what is the default port of EmberDB?", Budget: pipeline.Presets()[pipeline.DepthStandard]})
	req := pipeline.SynthesisRequest{Question: spec.Goal, Spec: spec, Sources: sources, Budget: spec.Budget}
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
	spec, _, _ := e.Plan(context.Background(), pipeline.PlanRequest{Question: "How large is Titan and what is the default port of EmberDB?", Budget: pipeline.Presets()[pipeline.DepthStandard]})
	md, _, _ := e.Synthesize(context.Background(), pipeline.SynthesisRequest{Question: spec.Goal, Spec: spec, Sources: sources, Budget: spec.Budget}, nil)
	b.ReportAllocs()
	for b.Loop() {
		pipeline.Verify(md, sources, nil, spec.Criteria, pipeline.DefaultVerifyOptions())
	}
}
