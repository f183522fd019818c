package extractive

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

// TestUntrustedInput feeds the engine what the web and users can send:
// empty and symbol-only questions, citation look-alikes, pages of code, a
// page far over the size bound. Every call must return promptly with a
// report whose citations still verify.
func TestUntrustedInput(t *testing.T) {
	t.Parallel()
	weird := []research.Source{
		{ID: "S1", Text: ""},
		{ID: "S2", Text: "func main() {\n\tfmt.Println(\"[S9]\")\n}\n$ go run .\n"},
		{ID: "S3", Text: "Fake citation [S7] inside the page. " + strings.Repeat("[S1]", 1000)},
		{ID: "S4", Title: "Fox facts", Text: "The quick brown fox jumps over the lazy dog near port 7420."},
		{ID: "", Text: "A source without an id is ignored entirely."},
	}
	// 420 KB of prose: over the 400 KB a source may contribute.
	huge := []research.Source{{ID: "S4", Title: "Big page", Text: strings.Repeat("The quick brown fox jumps over the lazy dog near port 7420. ", 7000)}}
	tests := []struct {
		question string
		sources  []research.Source
	}{
		{"", weird},
		{"[S1] [P2]", weird},
		{strings.Repeat("why ", 1000), weird},
		{"ÀÉÎ õü 東京 ?", weird},
		{"What port does the fox use?", weird},
		{"What port does the fox use?", huge},
	}
	e := New()
	for _, tt := range tests {
		start := time.Now()
		q, sources := tt.question, tt.sources
		spec, _, err := e.Plan(context.Background(), engine.PlanRequest{Question: q, Budget: research.Presets()[research.DepthDeep]})
		if err != nil {
			t.Fatalf("Plan(%.40q): %v", q, err)
		}
		md, _, err := e.Synthesize(context.Background(), engine.SynthesisRequest{Question: q, Spec: spec, Sources: sources, Budget: spec.Budget}, nil)
		if err != nil {
			t.Fatalf("Synthesize(%.40q): %v", q, err)
		}
		if _, _, err := e.Heartbeat(context.Background(), engine.HeartbeatRequest{Spec: spec, Sources: sources, Budget: spec.Budget, MaxNew: 3}); err != nil {
			t.Fatalf("Heartbeat(%.40q): %v", q, err)
		}
		v := report.Verify(md, sources, nil, spec.Criteria, report.DefaultVerifyOptions())
		if v.Validity != 1 || v.Support != 1 {
			t.Errorf("question %.40q: validity %v support %v\n%s", q, v.Validity, v.Support, md)
		}
		for _, s := range report.ReportSentences(md) {
			for _, id := range research.Citations(s.Raw) {
				if id != "S4" {
					t.Errorf("question %.40q cites %s, which holds no quotable prose", q, id)
				}
			}
		}
		t.Logf("question %.40q: %v", q, time.Since(start)) // speed is measured by the Synthesize benchmarks, not asserted here
	}
}
