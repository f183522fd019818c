package report

import (
	"strings"
	"testing"
)

func TestPassageContext(t *testing.T) {
	long := strings.Repeat("word ", 100)
	tests := []struct {
		name                string
		body                string
		start, end          int
		passage             string
		before, after       string
		beforeCut, afterCut bool
	}{
		{name: "at the offsets", body: "One. Two three. Four.", start: 5, end: 15, passage: "Two three.", before: "One. ", after: " Four."},
		{name: "offsets stale, found by search", body: "One. Two three. Four.", start: 0, end: 3, passage: "Two three.", before: "One. ", after: " Four."},
		{name: "not in the text", body: "One.", start: 0, end: 4, passage: "Gone."},
		{name: "cut at words with ellipses", body: long + "MID." + long, start: len(long), end: len(long) + 4, passage: "MID.", beforeCut: true, afterCut: true},
		{name: "multibyte context", body: strings.Repeat("é", 300) + " X " + strings.Repeat("ü", 300), start: 601, end: 602, passage: "X", beforeCut: true, afterCut: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, after := passageContext(tt.body, tt.start, tt.end, tt.passage)
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

// TestAddContext: each stored passage keeps the text around it.
func TestAddContext(t *testing.T) {
	r := &Report{Sentences: []SentenceCheck{{Evidence: []Evidence{
		{Cite: "S1", Passage: "Two three.", PassageStart: 5, PassageEnd: 15},
		{Cite: "S2", Passage: "Absent."},
		{Cite: "S3"},
	}}}}
	r.AddContext(map[string]string{"S1": "One. Two three. Four.", "S2": "Other text."})
	ev := r.Sentences[0].Evidence
	if ev[0].Before != "One. " || ev[0].After != " Four." || ev[1].Before != "" || ev[1].After != "" || ev[2].Before != "" {
		t.Errorf("context: %+v", ev)
	}
}
