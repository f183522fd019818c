package extractive

import (
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
)

// summaryOf returns the report's summary paragraph.
func summaryOf(md string) string {
	_, rest, _ := strings.Cut(md, "## Summary\n\n")
	s, _, _ := strings.Cut(rest, "\n\n")
	return s
}

// A value stated in a sentence too short to quote on its own merits ("The
// default is 2.0.") leads the answer to a value question, with the setting
// it belongs to.
func TestValueQuestionLeadsWithShortValueSentence(t *testing.T) {
	src := []research.Source{
		{ID: "S1", Title: "Genetic Query Optimizer — Quillstore 4 manual", Text: "Planner Settings\n\n" +
			"quill_selection_bias (floating point): Controls the selection bias used by the genetic optimizer. " +
			"The selection bias is the selective pressure within the population. Values can be from 1.50 to 2.00. The default is 2.0.\n\n" +
			"quill_seed (floating point): Controls the initial value of the random number generator. The default is 0.0."},
		{ID: "S2", Title: "Release 4.2 — Quillstore 4 manual", Text: "Changes\n\n" +
			"The selection bias of the genetic optimizer now accepts values from 1.50 to 2.00, and the planner uses it when joining more than twelve tables."},
	}
	_, md := synthesize(t, "What is the default value of quill_selection_bias?", src, research.DepthStandard)
	lead := summaryOf(md)
	if !strings.HasPrefix(lead, "`quill_selection_bias (floating point)`: The default is 2.0. [S1]") {
		t.Errorf("summary does not lead with the stated default:\n%s", md)
	}
}

// "Default: off" and "Defaults to 4." state a value too.
func TestShortValueForms(t *testing.T) {
	for _, s := range []string{"The default is 4.0.", "Default: off", "Defaults to 4.", "Maximum value is 4095.", "The maximum is 64 kB."} {
		if quality(s) == 0 {
			t.Errorf("quality(%q) = 0, want it quotable", s)
		}
	}
	for _, s := range []string{"The default.", "Default", "Is it 4?"} {
		if quality(s) != 0 {
			t.Errorf("quality(%q) = %.2f, want 0", s, quality(s))
		}
	}
}

// A list item that opens with its name as a sentence of its own ("REAL.
// The value is …") labels its description with that name.
func TestTermSentenceLabelsItsDescription(t *testing.T) {
	p := docPool([2]string{"Datatypes In Quillstore", "Each value has one of the following storage classes:\n\n" +
		"NULL. The value is a NULL value.\n\n" +
		"REAL. The value is a floating point value, stored as an 8-byte number.\n\n" +
		"BLOB. The value is a blob of data, stored exactly as it was input."})
	i := sentenceIndex(t, p, "The value is a floating point")
	if got := quote(p, i); !strings.HasPrefix(got, "`REAL`: The value is a floating point value") {
		t.Errorf("quote = %q, want it labelled REAL", got)
	}
	j := sentenceIndex(t, p, "The value is a blob")
	if p.sents[j].label != "BLOB" {
		t.Errorf("label = %q, want BLOB", p.sents[j].label)
	}
}
