package extractive

import (
	"slices"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
)

// An API reference that heads each function's entry with its name and
// empty parentheses, then its C declaration, then its description and
// the parts every entry has ("Parameters", "Returns"), as a table of one
// row per parameter whose last cell may be empty.

const tallyStringsPage = "Tally Strings\n\n" +
	"Functions\n\n" +
	"gchar ** | t_strsplit ()\n\n" +
	"void | t_strfreev ()\n\n" +
	"guint | t_timeout_add ()\n\n" +
	"Description\n\n" +
	"Tally offers string utility functions and timers for its main loop.\n\n" +
	"Functions\n\n" +
	"t_strsplit ()\n\n" +
	"gchar **\nt_strsplit (const gchar *string,\nconst gchar *delimiter);\n\n" +
	"Splits a string into pieces, using the given delimiter as the place to cut.\n\n" +
	"Parameters\n\n" +
	"string | a string to split |\n\n" +
	"delimiter | a string which specifies the places at which to split the string |\n\n" +
	"Returns\n\n" +
	"a newly-allocated array of strings. Use t_strfreev() to free it.\n\n" +
	"t_strfreev ()\n\n" +
	"void\nt_strfreev (gchar **str_array);\n\n" +
	"Frees an array of strings, as well as each string it contains.\n\n" +
	"Parameters\n\n" +
	"str_array | an array of strings to free |\n\n" +
	"t_timeout_add ()\n\n" +
	"guint\nt_timeout_add (guint interval,\nTSourceFunc function);\n\n" +
	"Sets a function to be called at regular intervals, with the default priority.\n\n" +
	"Parameters\n\n" +
	"interval | the time between calls to the function, in milliseconds (1/1000ths of a second) |\n\n" +
	"function | function to call |\n\n" +
	"Returns\n\n" +
	"the ID (greater than 0) of the event source.\n\n" +
	"t_idle_add ()\n\n" +
	"guint\nt_idle_add (TSourceFunc function);\n\n" +
	"Adds a function to be called whenever there are no higher priority events pending.\n\n" +
	"Parameters\n\n" +
	"function | function to call |\n\n" +
	"Returns\n\n" +
	"the ID (greater than 0) of the event source.\n"

// The heading above a function's declaration names its entry, and the
// entry holds its parameter rows and what it returns, though
// "Parameters" and "Returns" stand as headings.
func TestDeclaredFunctionHeadsItsEntry(t *testing.T) {
	t.Parallel()
	p := newPool([]research.Source{{ID: "S1", Title: "Tally Strings", Text: tallyStringsPage}}, nil, nil)
	var row, ret string
	for _, s := range p.sents {
		if strings.Contains(s.text, "in milliseconds") {
			row = s.label
			if strings.HasSuffix(strings.TrimSuffix(s.text, "."), "|") {
				t.Errorf("the row keeps its empty cell's bar: %q", s.text)
			}
		}
		if strings.Contains(s.text, "newly-allocated") {
			ret = s.label
		}
	}
	if row != "t_timeout_add()" {
		t.Errorf("the interval row is labelled %q, want t_timeout_add()", row)
	}
	if ret != "t_strsplit()" {
		t.Errorf("what t_strsplit returns is labelled %q, want t_strsplit()", ret)
	}
	src := []research.Source{{ID: "S1", Title: "Tally Strings", Text: tallyStringsPage}}
	_, md := synthesize(t, "When I register a repeating callback with t_timeout_add, is the interval I pass in seconds or in some smaller unit?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "in milliseconds") {
		t.Errorf("the Summary does not quote the interval's row:\n%s", md)
	}
	_, md = synthesize(t, "What is the right way to free the array of strings I get back from t_strsplit?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "Use t\\_strfreev() to free it.") {
		t.Errorf("the Summary does not say how to free what t_strsplit returns:\n%s", md)
	}
}

// A short sentence that names a function by an empty call is prose, not
// code.
func TestNamedCallIsProse(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"Use t_strfreev() to free it.":   false,
		"t_strfreev(array);":             true,
		"tally.scan(s, sep)":             true,
		"Call t_reset() before t_run().": false,
	} {
		if got := codeLike(s); got != want {
			t.Errorf("codeLike(%q) = %v, want %v", s, got, want)
		}
	}
}

// A name of one word beside a prefix too short to be a token
// ("t_strsplit") is still a name an entry is labelled with.
func TestPrefixedNameIsAnIdentifier(t *testing.T) {
	t.Parallel()
	c := newCriterion("What does t_strsplit return?", "", nil, nil)
	if !slices.Contains(c.identNames, "t_strsplit") {
		t.Errorf("identNames = %v, want t_strsplit among them", c.identNames)
	}
}
