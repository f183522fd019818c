package handlers

import (
	"testing"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

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
	doc.AddContext(map[string]string{"S1": sources[0].Text, "S2": sources[1].Text})
	rows := []db.Source{{SID: 1, Title: "Letters", Host: "a.example"}, {SID: 2, Host: "b.example"}}
	ev := reportEvidence(doc, rows)
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
	if ev.list[0].After != " Epsilon comes fifth in the list." || ev.list[3].Before != "Alpha is first in the list of letters. " {
		t.Errorf("context: %q / %q", ev.list[0].After, ev.list[3].Before)
	}
	if ev.list[0].Title != "Letters" || ev.list[2].Title != "b.example" || ev.cited["S1"] != 3 || ev.firstEv["S2"] != "ev-3" || ev.sentenceEv[3] != "ev-4" {
		t.Errorf("sources: %+v %+v %+v %+v", ev.list[0], ev.cited, ev.firstEv, ev.sentenceEv)
	}
}
