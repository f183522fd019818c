package extractive

import (
	"slices"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
)

// Questions that ask a count or a default in the asker's own words: the
// noun counted, the asker's next step, "without saying anything about
// it", "with its default settings", and a name in capitals that
// qualifies the thing asked about.

// "How many Tesla workers": the count is of workers, whatever else the
// word before them may mean (a tesla is a unit).
func TestCountedNounIsTheHeadOfItsPhrase(t *testing.T) {
	t.Parallel()
	if u := askedUnits("How many Tesla workers can one pool keep alive at once?"); u != nil {
		t.Errorf("askedUnits = %v, want none", u)
	}
	if u := askedUnits("How many seconds does a worker wait?"); !slices.Contains(u, "second") && !slices.Contains(u, "seconds") {
		t.Errorf("askedUnits = %v, want the units of time", u)
	}
}

// What the asker must do past the limit is no word the sentence stating
// the limit must say.
func TestAskersNextStepIsNotAsked(t *testing.T) {
	t.Parallel()
	c := newCriterion("How many workers can one pool keep alive before I need to raise the limit with a flag?", "", nil, nil)
	for _, w := range []string{"rais", "flag"} {
		if slices.Contains(c.core, w) {
			t.Errorf("core %v holds %q", c.core, w)
		}
	}
}

// "without saying anything about access rights" and "with its default
// settings" ask what holds by default.
func TestSayingNothingAsksTheDefault(t *testing.T) {
	t.Parallel()
	for _, q := range []string{
		"If I create a tally table without saying anything about access rights, can other processes write to it?",
		"How many retries does a tally client make with its default settings?",
	} {
		c := newCriterion(q, "", nil, nil)
		if !slices.Contains(c.core, defaultToken) {
			t.Errorf("%q: core %v lacks %q", q, c.core, defaultToken)
		}
		if slices.Contains(c.core, "anyth") || slices.Contains(c.core, "set") {
			t.Errorf("%q: core %v keeps the words of the clause", q, c.core)
		}
	}
}

// A name in capitals that qualifies a noun ("an ACME supervisor") is
// named by the page titled with that noun.
func TestCapitalsQualifierAndCountedUnits(t *testing.T) {
	t.Parallel()
	pages := []research.Source{
		{ID: "S1", Title: "Supervisor Behaviour", Text: "Supervisor Behaviour\n\n" +
			"A supervisor restarts its children when they fail, up to a limit.\n\n" +
			"Tuning the intensity and period\n\n" +
			"The default values are 1 restart per 5 seconds.\n\n" +
			"If more restarts occur within the period, the supervisor terminates all its children and then itself.\n"},
		{ID: "S2", Title: "Time units", Text: "Time units\n\n" +
			"seconds\n\nSame as second.\n\n" +
			"millis\n\nSame as millisecond.\n\n" +
			"A timer keeps its children waiting for 2 seconds by default.\n"},
		{ID: "S3", Title: "Release notes", Text: "Release notes\n\n" +
			"ACME 2 put the runtime on a new scheduler and put the old one aside.\n\n" +
			"ACME 3 put a limit on the number of atoms a node may create.\n\n" +
			"ACME 4 put every supervisor report into the system log.\n"},
	}
	_, md := synthesize(t, "How many restarts within how many seconds does an ACME supervisor put up with before it shuts down its children, with its default settings?", pages, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "1 restart per 5 seconds") {
		t.Errorf("the Summary does not state the default limit:\n%s", md)
	}
}

// Two words of the question that the pages write as one ("host names",
// "hostnames") are said by the sentence that writes the one; a name
// written as code ("notes.hostNames") writes no such word.
func TestClosedCompoundSaysBothWords(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Tally naming rules", Text: "Tally naming rules\n\n" +
		"Tally keeps a name for every client it serves, as the client sends it.\n\n" +
		"Only letters, digits and hyphens may appear in hostnames; every other character is replaced.\n\n" +
		"Names of zones may hold any character the records of the zone use.\n"}}
	_, md := synthesize(t, "Which characters may appear in host names that Tally keeps?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "letters, digits and hyphens") {
		t.Errorf("the Summary does not quote the sentence that writes hostnames:\n%s", md)
	}
	p := finder{newPool([]research.Source{{ID: "S1", Title: "Notes", Text: "Notes\n\nThe option notes.mergeStrategy picks how notes are merged by default.\n"}}, nil, nil)}
	c := newCriterion("Which merge strategy does tally use by default?", "", nil, nil)
	p.closedCompounds(&c)
	if len(c.compounds) > 0 {
		t.Errorf("compounds %v taken from a name written as code", c.compounds)
	}
}

// A lead whose subject phrase names, with "the", what the sentence
// before it described ("… to avoid the slowness is …" after "…, which is
// slow …") is quoted with that sentence: there is the reason.
func TestLeadRefersBackByItsObject(t *testing.T) {
	t.Parallel()
	page := "Tally Lists\n\n" +
		"Tally keeps lists of elements, each linked to the next one and the one before it.\n\n" +
		"t_list_append ()\n\n" +
		"TList *\nt_list_append (TList *list, void *data);\n\n" +
		"Adds a new element on to the end of the list.\n\n" +
		"Note that t_list_append() has to walk the whole list to find its end, which is slow when adding many elements. " +
		"A common idiom to avoid the slowness is to prepend the elements and reverse the list once all elements have been added.\n\n" +
		"t_list_reverse ()\n\n" +
		"TList *\nt_list_reverse (TList *list);\n\n" +
		"Reverses a list in place and returns its new start.\n"
	src := []research.Source{{ID: "S1", Title: "Tally Lists", Text: page}}
	_, md := synthesize(t, "Why do Tally programs build lists by prepending elements and reversing them instead of appending?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "walk the whole list") {
		t.Errorf("the Summary does not give the reason the lead refers back to:\n%s", md)
	}
}

// A variable written with its sigil is a name written as code; a sum of
// money is not.
func TestSigilName(t *testing.T) {
	for w, want := range map[string]string{
		"$outbox": "outbox", "${TALLY_HOME}": "TALLY_HOME", "$read_inc": "read_inc",
		"$5": "", "$": "", "${}": "", "$out-box": "", "outbox": "",
	} {
		if got := sigilName(w); got != want {
			t.Errorf("sigilName(%q) = %q, want %q", w, got, want)
		}
		if got := isTechnical(w); got != (want != "") {
			t.Errorf("isTechnical(%q) = %v", w, got)
		}
	}
}
