package handlers

import (
	"strings"
	"testing"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
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

// TestReportEvidenceFromData: each citation link opens the verdict the
// verifier stored for its own sentence and source, in document order; a
// sentence whose marker sits in code has no link and is passed over; the
// source list counts the links.
func TestReportEvidenceFromData(t *testing.T) {
	sources := []research.Source{
		{ID: "S1", Text: "Alpha is first in the list of letters. Epsilon comes fifth in the list."},
		{ID: "S2", Text: "Beta is second. Unrelated text about other things."},
	}
	md := "## Letters\n\nAlpha is first in the list [S1]. Beta is second [S1][S2].\n\n" +
		"Gamma is written as `gamma [S1]` here.\n\n- Epsilon comes fifth in the list [S1].\n"
	doc := report.Parse(md)
	doc.Verify(sources, nil, nil, report.DefaultVerifyOptions())
	doc.Render(report.RenderOptions{Known: map[string]bool{"S1": true, "S2": true}, Evidence: true})
	rows := []db.Source{{SID: 1, Title: "Letters", Host: "a.example", Text: sources[0].Text}, {SID: 2, Host: "b.example", Text: sources[1].Text}}
	ev := reportEvidence(doc, rows, nil)
	want := []struct {
		id, cite, claim, passage string
		supported                bool
		note                     bool
	}{
		{"ev-1", "S1", "Alpha is first in the list.", "Alpha is first in the list of letters.", true, false},
		{"ev-2", "S1", "Beta is second.", "", false, true},
		{"ev-3", "S2", "Beta is second.", "Beta is second.", true, false},
		{"ev-4", "S1", "Epsilon comes fifth in the list.", "Epsilon comes fifth in the list.", true, false},
	}
	if len(ev.list) != len(want) {
		t.Fatalf("%d evidence entries, want %d: %+v", len(ev.list), len(want), ev.list)
	}
	for i, w := range want {
		e := ev.list[i]
		if e.ID != w.id || e.Link != "cite-"+w.id[3:] || e.Cite != w.cite || e.Claim != w.claim || e.Supported != w.supported || !e.Checked || (e.Note != "") != w.note {
			t.Errorf("entry %d: %+v, want %+v", i, e, w)
		}
		if w.passage != "" && e.Passage != w.passage {
			t.Errorf("entry %d passage %q, want %q", i, e.Passage, w.passage)
		}
	}
	if ev.list[0].Title != "Letters" || ev.list[2].Title != "b.example" || ev.cited["S1"] != 3 || ev.firstEv["S2"] != "ev-3" || ev.sentenceEv[3] != "ev-4" {
		t.Errorf("sources: %+v %+v %+v %+v", ev.list[0], ev.cited, ev.firstEv, ev.sentenceEv)
	}
}
