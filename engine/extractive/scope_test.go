package extractive

import (
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
)

// A box line says one thing of its entry per key: "What happens when … is
// set to 0?" asks for none of Syntax, Default or Context, so the box is
// not quoted, and the entry's sentence that says what 0 does leads
// rather than its opening.
func TestBoxLinesAnswerOnlyTheirKey(t *testing.T) {
	page := strings.Replace(directivesPage, "Caps the size of the body a client may send with one request. ",
		"Caps the size of the body a client may send with one request. The old name body_max is still read. ", 1)
	src := []research.Source{{ID: "S1", Title: "Module tally_http_core — Tallyweb", Text: page}}
	_, md := synthesize(t, "What happens when body_size_cap is set to 0?", src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "a cap of 0 turns the check off") {
		t.Errorf("the Summary does not open with what 0 does:\n%s", md)
	}
	for _, box := range []string{"syntax:", "context:", "default:"} {
		if strings.Contains(strings.ToLower(md), box) {
			t.Errorf("a box line (%s) is quoted for a question that does not ask for it:\n%s", box, md)
		}
	}
	_, md = synthesize(t, "In which contexts can the body_size_cap directive be used?", src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "`body_size_cap` context: http, server, location") {
		t.Errorf("the Summary does not quote the Context line asked for:\n%s", md)
	}
}

// An article names its subject in its opening ("… Telescope (FAST) …")
// and then calls it "the telescope": a sentence that says so answers a
// question that writes the name in capitals.
func TestCapitalNameFromThePageLead(t *testing.T) {
	src := []research.Source{{ID: "S1", Title: "Giant radio dish opens to astronomers", Text: "The Wide Aperture Radio Dish (WARD) in the north has passed its final tests. " +
		"WARD will now take proposals from astronomers worldwide.\n\n" +
		"Its builders spent five years on the site. During the trial run, the telescope found more than 40 new pulsars. " +
		"Observers say the site is remote."}}
	_, md := synthesize(t, "How many pulsars did the WARD telescope find during its trial run?", src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "more than 40 new pulsars") {
		t.Errorf("the Summary does not state the count:\n%s", md)
	}
}

// A lead whose subject is what the sentence before named ("the dishes
// will …" after "… by adding 12 dishes"; "said this was the reason")
// is quoted with that sentence.
func TestLeadKeepsTheSentenceItRefersTo(t *testing.T) {
	src := []research.Source{{ID: "S1", Title: "Upgrading the array", Text: "The array was finished in 2016.\n\n" +
		"Finding small planets in the wide beam is hard. But Ruiz's team wants to boost the array's resolving power by adding 12 dishes, each 4 metres wide. " +
		"Although the dishes are cheap products, together they will improve the array's spatial resolution tenfold, she says."}}
	_, md := synthesize(t, "How does Ruiz's team plan to improve the spatial resolution of the array?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "adding 12 dishes") {
		t.Errorf("the Summary quotes the lead without the sentence it refers to:\n%s", md)
	}
}
