package handlers

import (
	"strings"
	"testing"

	"github.com/quarryhq/quarry/pipeline"
)

func TestPassageWindow(t *testing.T) {
	long := strings.Repeat("word ", 100)
	tests := []struct {
		name                string
		body                string
		start, end          int
		passage             string
		before, mid, after  string
		beforeCut, afterCut bool
	}{
		{name: "at the offsets", body: "One. Two three. Four.", start: 5, end: 15, passage: "Two three.", before: "One. ", mid: "Two three.", after: " Four."},
		{name: "offsets stale, found by search", body: "One. Two three. Four.", start: 0, end: 3, passage: "Two three.", before: "One. ", mid: "Two three.", after: " Four."},
		{name: "not in the text", body: "One.", start: 0, end: 4, passage: "Gone.", mid: "Gone."},
		{name: "cut at words with ellipses", body: long + "MID." + long, start: len(long), end: len(long) + 4, passage: "MID.", mid: "MID.", beforeCut: true, afterCut: true},
		{name: "multibyte context", body: strings.Repeat("é", 300) + " X " + strings.Repeat("ü", 300), start: 601, end: 602, passage: "X", mid: "X", beforeCut: true, afterCut: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, mid, after := passageWindow(tt.body, tt.start, tt.end, tt.passage)
			if mid != tt.mid {
				t.Errorf("passage %q, want %q", mid, tt.mid)
			}
			if tt.beforeCut || tt.afterCut {
				if !strings.HasPrefix(before, "…") || !strings.HasSuffix(after, "…") || len(before) > contextBytes+8 || len(after) > contextBytes+8 {
					t.Errorf("context %q / %q: want cut with ellipses, at most %d bytes", before, after, contextBytes)
				}
				if !strings.Contains(tt.body, strings.Trim(before, "…")) || !strings.Contains(tt.body, strings.Trim(after, "…")) {
					t.Errorf("context is not text of the body (split a character?): %q / %q", before, after)
				}
				return
			}
			if before != tt.before || after != tt.after {
				t.Errorf("context %q / %q, want %q / %q", before, after, tt.before, tt.after)
			}
		})
	}
}

// TestCiteMatcher pairs links with sentences in order, skipping
// sentences whose citations were not linked, and prefers the sentence the
// link's paragraph contains.
func TestCiteMatcher(t *testing.T) {
	checks := []pipeline.SentenceCheck{
		{Text: "Alpha is first.", Citations: []string{"S1"}},
		{Text: "Beta cites two.", Citations: []string{"S1", "S2"}},
		{Text: "Gamma has none."},
		{Text: "Delta cites a group that was not linked.", Citations: []string{"S3"}},
		{Text: "Epsilon cites one again.", Citations: []string{"S1"}},
	}
	links := []struct {
		id, block string
		want      int
	}{
		{"S1", "Alpha is first. [S1] Beta cites two. [S1][S2]", 0},
		{"S1", "Alpha is first. [S1] Beta cites two. [S1][S2]", 1},
		{"S2", "Alpha is first. [S1] Beta cites two. [S1][S2]", 1},
		{"S1", "Epsilon cites one again. [S1]", 4},
		{"S9", "Unknown [S9]", -1},
	}
	m := newCiteMatcher(checks)
	for i, l := range links {
		if got := m.match(l.id, l.block); got != l.want {
			t.Errorf("link %d (%s): sentence %d, want %d", i, l.id, got, l.want)
		}
	}
	// A paragraph that skips a sentence's link (say the model wrote it in a
	// form the renderer does not link) still finds its own sentence.
	m = newCiteMatcher(checks)
	if got := m.match("S1", "Epsilon cites one again. [S1]"); got != 4 {
		t.Errorf("text match: sentence %d, want 4", got)
	}
}
