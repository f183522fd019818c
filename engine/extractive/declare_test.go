package extractive

import (
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
)

// The pages of references for typed languages, which head each member's
// entry with its declaration: tags, return type, the class-qualified
// name, typed parameters with their default values ("[virtual] bool
// Tally::waitForIt(int msecs = 300)"), or a property's name and type
// ("maxSize : int").

// A declaration heading names the entry its paragraphs describe, and a
// default value among its parameters is quoted with the entry: it is the
// answer to what happens when the caller passes nothing.
func TestDeclarationHeadingNamesItsEntry(t *testing.T) {
	t.Parallel()
	page := "Tally Class\n\nThe Tally class counts the events of a stream.\n\n" +
		"Member Function Documentation\n\n" +
		"[virtual] bool Tally::waitForFlush(int msecs = 250)\n\n" +
		"Blocks until every counted event is written, up to msecs milliseconds. Returns true if the events were written; otherwise returns false.\n\n" +
		"If msecs is -1, this function will not time out.\n\n" +
		"See also flush().\n\n" +
		"bool Tally::waitForReady(int msecs = 9000) const\n\n" +
		"Blocks until the stream is ready to count, up to msecs milliseconds. Returns true if the stream became ready.\n\n" +
		"void Tally::reset()\n\n" +
		"Sets every count back to zero and forgets the stream's position.\n"
	src := []research.Source{{ID: "S1", Title: "Tally Class", Text: page}}
	_, md := synthesize(t, "My program calls waitForFlush() on a Tally without any argument. How long can the call block before it gives up?", src, research.DepthStandard)
	sum := summaryOf(md)
	if !strings.Contains(sum, "waitForFlush(int msecs = 250)") || !strings.Contains(sum, "Blocks until every counted event is written") {
		t.Errorf("the Summary does not quote the waitForFlush entry with its default:\n%s", md)
	}
	if strings.Contains(sum, "9000") {
		t.Errorf("the Summary quotes another function's entry:\n%s", md)
	}
	for line, want := range map[string]string{
		"[virtual] bool Tally::waitForFlush(int msecs = 250)": "waitForFlush(int msecs = 250)",
		"void Tally::reset()": "reset()",
		"const Name &Tally::name(const Name &n = Name()) const": "name(const Name &n = Name())",
		"QList<int> Tally::counts(int from, int to)":            "counts()",
		"maxSize : int":                  "maxSize",
		"socket->waitForFlush(1000)":     "",
		"else if (ready)":                "",
		"return count(x);":               "",
		"Invalid tally_free()":           "",
		"io::stdin()":                    "",
		"[virtual] Tally::~Tally()":      "~Tally()",
		"Tally::Tally()":                 "Tally()",
		"Required : NO":                  "",
		"for(int i = 0; i < n; i++)":     "",
		"Type of file (first character)": "",
		"Note : the counts are kept":     "",
	} {
		if got, _ := declarationLabel(line); got != want {
			t.Errorf("declarationLabel(%q) = %q, want %q", line, got, want)
		}
	}
}

// A property's heading ("maxSize : int") opens an entry that holds to the
// next heading: the default its last paragraph states is the property's.
func TestPropertyHeadingHoldsItsParagraphs(t *testing.T) {
	t.Parallel()
	page := "Property Documentation\n\n" +
		"autoFlush : bool\n\nThis property holds whether the tally writes each event as it is counted.\n\n" +
		"By default, this property is false.\n\n" +
		"maxSize : int\n\nThis property holds the largest number of events the tally keeps.\n\n" +
		"When the tally is full, the oldest events are dropped.\n\n" +
		"By default, this property contains a value of 4096.\n"
	checkLabels(t, "Tally Class", page, "autoFlush", map[string]string{
		"events the tally keeps": "maxSize", "oldest": "maxSize", "4096": "maxSize",
	})
}

// checkLabels reads page into a pool and checks each sentence's label:
// the label of a key of others the sentence holds, else def.
func checkLabels(t *testing.T, title, page, def string, others map[string]string) {
	t.Helper()
	for _, s := range newPool([]research.Source{{ID: "S1", Title: title, Text: page}}, nil, nil).sents {
		want := def
		for k, l := range others {
			if strings.Contains(s.text, k) {
				want = l
			}
		}
		if s.label != want {
			t.Errorf("%q: label %q, want %q", s.text, s.label, want)
		}
	}
}

// A question that spells out a camelCase name in its own words, one
// after another ("its maximum size" for maxSize), finds the entry that
// name labels, though it never writes the name.
func TestQuestionSpellsCamelCaseName(t *testing.T) {
	t.Parallel()
	page := "Tally Class\n\nThe Tally class counts the events of a stream.\n\n" +
		"Property Documentation\n\n" +
		"autoFlush : bool\n\nThis property holds whether the tally writes each event as it is counted.\n\n" +
		"By default, this property is false.\n\n" +
		"maxSize : int\n\nThis property holds the largest number of events the tally keeps.\n\n" +
		"When the tally is full, the oldest events are dropped.\n\n" +
		"By default, this property contains a value of 4096.\n\n" +
		"Member Function Documentation\n\n" +
		"Tally::Tally(QObject *parent = nullptr)\n\n" +
		"Constructs a tally that keeps up to 512 events of its own buffer size before the first flush.\n"
	src := []research.Source{{ID: "S1", Title: "Tally Class", Text: page}}
	_, md := synthesize(t, "How many events will a Tally keep if I never change its maximum size?", src, research.DepthStandard)
	if sum := summaryOf(md); !strings.Contains(sum, "4096") {
		t.Errorf("the Summary does not quote the maxSize entry's default:\n%s", md)
	}
	// The same name on the page of a class the question does not ask
	// about is another class's member.
	spool := "Spool Class\n\nA spool holds the events a tally hands it until a reader takes them.\n\n" +
		"Property Documentation\n\n" +
		"size : int\n\nThis property holds how many events the spool keeps before the oldest are dropped.\n\n" +
		"By default, this property contains a value of 100 events.\n\n" +
		"name : QString\n\nThis property holds the spool's name, shown to readers.\n"
	src = []research.Source{{ID: "S1", Title: "Tally Class", Text: page}, {ID: "S2", Title: "Spool Class", Text: spool}}
	_, md = synthesize(t, "How many events will a Spool keep if I never change its maximum size?", src, research.DepthStandard)
	if sum := summaryOf(md); strings.Contains(sum, "4096") || !strings.Contains(sum, "100 events") {
		t.Errorf("the Summary quotes another class's maxSize or misses the spool's own size:\n%s", md)
	}
}

// A camelCase label spells the question's words only on a page titled
// with something else the question names: "defaultMode" on the page of
// another module is that module's member.
func TestCamelLabelOnItsOwnPage(t *testing.T) {
	t.Parallel()
	pl := newPool([]research.Source{
		{ID: "S1", Title: "acmeread: File Reader Module", Text: "acmeread: File Reader Module\n\nReads files.\n"},
		{ID: "S2", Title: "acmenet: Network Module", Text: "acmenet: Network Module\n\nReads sockets.\n"},
	}, nil, nil)
	c := newCriterion("What is the default mode that acmeread uses for the files it reads?", "", nil, nil)
	f := finder{pl}
	if !f.camelOnItsPage(c, "defaultMode", 0) {
		t.Error("defaultMode on the page of the module the question names does not count")
	}
	if f.camelOnItsPage(c, "defaultMode", 1) {
		t.Error("defaultMode on another module's page counts")
	}
	if !f.camelOnItsPage(c, "mode", 1) {
		t.Error("a label that is no camelCase name is held back")
	}
}

// A remark inside a member's entry ("Warning: …", "Note: …"), written as
// a term of one title word, is the member's: it and the paragraphs after
// it stay in the entry, to the next member.
func TestRemarkStaysInItsEntry(t *testing.T) {
	t.Parallel()
	page := "Member Function Documentation\n\n" +
		"[slot] void Tally::halt()\n\nHalts the tally at once. Use Tally::wait() after halt(), to be sure.\n\n" +
		"Warning: This function is dangerous and its use is discouraged. The tally can be halted while it writes a count.\n\n" +
		"Halting can be turned off by calling Tally::setHaltable().\n\n" +
		"Note: This function is thread-safe.\n\n" +
		"See also setHaltable().\n\n" +
		"[virtual] Tally::~Tally()\n\nDestroys the tally.\n"
	checkLabels(t, "Tally Class", page, "halt()", map[string]string{"Destroys the tally.": "~Tally()"})
}

// A heading that ends with a call ("Member Function flush()") above the
// line that declares it ("bool flush();") opens the member's entry; its
// "Returns:" and "Throws:" paragraphs are the member's.
func TestHeadingAboveDeclarationOpensEntry(t *testing.T) {
	t.Parallel()
	page := "Class tally\n\ntally public member functions\n\n" +
		"Member Function flush()\n\nbool flush();\n\n" +
		"Effects: Writes every count held to the stream.\n\n" +
		"Returns: true when at least one count was written, false otherwise.\n\n" +
		"Throws: Nothing.\n\n" +
		"Member Function reset()\n\nvoid reset();\n\n" +
		"Effects: Sets every count back to zero.\n"
	checkLabels(t, "Class tally", page, "flush()", map[string]string{"back to zero": "reset()"})
}
