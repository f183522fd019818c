package extractive

import (
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
)

// A manual page's definition list of directives: each term gives the
// directive's syntax ("TraceLevel debug"), several terms may stand above
// one description, and the description states the default in quotes.
const traceManual = "tallyd.conf(5)\n\n" +
	"TraceHistory number\n\n" +
	"Specifies the number of debugging messages that are kept for tracing if an error occurs in a job. Debug messages are traced regardless of the TraceLevel setting.\n\n" +
	"TraceLevel none\n\nTraceLevel warn\n\nTraceLevel info\n\nTraceLevel debug\n\n" +
	"Specifies the level of tracing for the TraceFile file. The value \"none\" stops all tracing while \"debug\" traces everything. The default is \"warn\".\n\n" +
	"TimeFormat standard\n\nTimeFormat usecs\n\n" +
	"Specifies the format of the date and time in the trace files. The value \"standard\" is the default and traces whole seconds while \"usecs\" traces microseconds.\n\n" +
	"MaxPeers number\n\n" +
	"Specifies the maximum number of simultaneous peers that are allowed by the daemon. The default is \"100\".\n"

func TestSyntaxHeading(t *testing.T) {
	t.Parallel()
	for h, want := range map[string]string{
		"TraceLevel debug2":       "TraceLevel",
		"MaxPeers number":         "MaxPeers",
		"trace_level {on|off}":    "trace_level",
		"OpenTally Support":       "", // a title's words
		"TALLY daemon":            "", // a name in capitals
		"TraceLevel":              "", // no syntax
		"Introduction to tracing": "",
	} {
		got, ok := syntaxHeading(h)
		if ok != (want != "") || got != want {
			t.Errorf("syntaxHeading(%q) = %q, %v; want %q", h, got, ok, want)
		}
	}
}

// The terms of the list name the entries their descriptions describe: a
// question that spells a directive's name in its own words ("tracing
// level" for TraceLevel) gets that directive's description and its
// default, not another directive's.
func TestSyntaxTermNamesItsEntry(t *testing.T) {
	t.Parallel()
	p := newPool([]research.Source{{ID: "S1", Title: "tallyd.conf(5)", Text: traceManual}}, nil, nil)
	for _, s := range p.sents {
		if strings.HasPrefix(s.text, "Specifies the level of tracing") && s.label != "TraceLevel" {
			t.Errorf("the description of TraceLevel is labelled %q", s.label)
		}
		if strings.HasPrefix(s.text, "Specifies the maximum number of simultaneous peers") && s.label != "MaxPeers" {
			t.Errorf("the description of MaxPeers is labelled %q", s.label)
		}
	}
	src := []research.Source{
		{ID: "S1", Title: "Tally Design Description", Text: "Tally Design Description\n\nThe Tally daemon keeps three trace files: one for requests, one for errors and progress, one for pages.\n\nThe error trace file lists messages from the daemon - errors, warnings, etc.\n"},
		{ID: "S2", Title: "tallyd.conf(5)", Text: traceManual},
	}
	_, md := synthesize(t, "What tracing level does the Tally daemon use for its error trace file, unless I change it?", src, research.DepthStandard)
	sum := summaryOf(md)
	if !strings.Contains(sum, "Specifies the level of tracing") || !strings.Contains(sum, `The default is "warn"`) {
		t.Errorf("the Summary does not give TraceLevel's description and default:\n%s", md)
	}
	if strings.Contains(sum, `"100"`) {
		t.Errorf("another directive's default is quoted:\n%s", md)
	}
}

// A camelCase label that spells the question's words and labels an entry
// on one page alone is that entry, though the page's title names nothing
// the question does; a question that names another page of one entry
// asks about that page's.
func TestCamelLabelOfOnePage(t *testing.T) {
	t.Parallel()
	pl := newPool([]research.Source{
		{ID: "S1", Title: "tallyd.conf(5)", Text: traceManual},
		{ID: "S2", Title: "Tally Design Description", Text: "Tally Design Description\n\nThe daemon keeps trace files.\n"},
		{ID: "S3", Title: "tallyfile: File Input Module", Text: "tallyfile: File Input Module\n\nReads files line by line.\n"},
	}, nil, nil)
	f := finder{pl}
	c := newCriterion("What tracing level does the Tally daemon use by default?", "", nil, nil)
	if !f.camelOnItsPage(c, "TraceLevel", 0) {
		t.Error("TraceLevel, labelled on one page alone, does not count")
	}
	c = newCriterion("What tracing level does tallyfile use by default?", "", nil, nil)
	if f.camelOnItsPage(c, "TraceLevel", 0) {
		t.Error("TraceLevel counts for a question that names another page's module")
	}
}

// A value in quotes answers a part that asks for a value though it is no
// figure ("The default is "warn"."); a phrase that is no value written as
// a setting takes it does not.
func TestQuotedValueStatesTheAskedAttribute(t *testing.T) {
	t.Parallel()
	page := traceManual + "\nHoldTime number\n\nSpecifies how long the daemon holds a peer. The default is one third of the trace time.\n"
	p := newPool([]research.Source{{ID: "S1", Title: "tallyd.conf(5)", Text: page}}, nil, nil)
	c := newCriterion("What tracing level does the Tally daemon use by default?", "", nil, nil)
	if c.style != styleValue {
		t.Fatalf("the part is of style %d, not a value's; the case this test is about does not arise", c.style)
	}
	if i := sentenceIndex(t, p, `The default is "warn"`); !(picker{p}).statesAskedAttribute(c, i) {
		t.Errorf("%q does not state the default asked", p.sents[i].text)
	}
	if i := sentenceIndex(t, p, "The default is one third"); (picker{p}).statesAskedAttribute(c, i) {
		t.Errorf("%q states the default asked", p.sents[i].text)
	}
}
