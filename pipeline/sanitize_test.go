package pipeline_test

import (
	"testing"

	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// TestSanitizeAction: a proposed action is cleaned on its own (no plan
// around it) or refused with a reason.
func TestSanitizeAction(t *testing.T) {
	engines := []string{"bing", "duckduckgo"}
	got, err := pipeline.SanitizeAction(research.ActionSpec{Kind: " Search ", Engine: "google", Query: "  rust\n ownership ", Priority: 42}, engines)
	if err != nil {
		t.Fatal(err)
	}
	want := research.ActionSpec{Kind: research.ActionSearch, Engine: "bing", Query: "rust ownership"}
	if got != want {
		t.Errorf("search: got %+v, want %+v", got, want)
	}
	got, err = pipeline.SanitizeAction(research.ActionSpec{Kind: "navigate", Engine: "bing", Query: "q", URL: " https://example.org/a "}, engines)
	if err != nil || got.URL != "https://example.org/a" || got.Query != "" || got.Engine != "" {
		t.Errorf("navigate: got %+v, %v", got, err)
	}
	for _, bad := range []research.ActionSpec{
		{Kind: "search", Query: "   "},
		{Kind: "navigate", URL: "javascript:alert(1)"},
		{Kind: "navigate", URL: "/relative"},
		{Kind: "click", Query: "x"},
	} {
		if a, err := pipeline.SanitizeAction(bad, engines); err == nil {
			t.Errorf("%+v accepted as %+v", bad, a)
		}
	}
}
