package handlers

import (
	"slices"
	"testing"
)

func TestScopeEngines(t *testing.T) {
	configured := []string{"duckduckgo", "kb", "wikipedia"}
	cases := []struct {
		scope   string
		ticked  []string
		want    []string
		comment string
	}{
		{"web", nil, []string{"duckduckgo", "wikipedia"}, "web engines only"},
		{"library", nil, []string{"kb"}, "the library only"},
		{"both", nil, []string{"kb", "duckduckgo", "wikipedia"}, "the library first"},
		{"both", []string{"wikipedia"}, []string{"kb", "wikipedia"}, "the ticked web engine after the library"},
		{"", []string{"wikipedia"}, []string{"wikipedia"}, "no choice: as ticked"},
	}
	for _, c := range cases {
		if got := scopeEngines(c.scope, c.ticked, configured); !slices.Equal(got, c.want) {
			t.Errorf("%s (%s %v): %v, want %v", c.comment, c.scope, c.ticked, got, c.want)
		}
	}
	if got := scopeEngines("library", nil, []string{"duckduckgo"}); got != nil {
		t.Errorf("no library configured: %v", got)
	}
}
