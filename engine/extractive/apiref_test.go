package extractive

import (
	"slices"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
)

// The pages of API references that name each member by its signature
// ("tally.scan (s, sep [, keep])") or by its name above its declaration
// ("toCount" / "public static int toCount(String str)").

// A function's signature written as a heading names the entry its
// paragraphs describe; a question that names the function finds it.
func TestSignatureHeadingNamesItsEntry(t *testing.T) {
	t.Parallel()
	page := "6.4 – Text Handling\n\n" +
		"This library provides generic functions for text handling, such as finding and extracting substrings.\n\n" +
		"tally.count (s, sep)\n\n" +
		"Returns the number of pieces of s between the separators sep. A separator at either end counts no piece.\n\n" +
		"tally.scan (s, sep [, keep [, raw]])\n\n" +
		"Looks for the first piece of s that ends with sep. A third, optional argument keep tells whether the separator is kept. " +
		"A value of true as a fourth, optional argument raw turns off the pattern facilities, so the function does a raw search, with no character of sep being considered special.\n\n" +
		"tally.split (s, sep)\n\n" +
		"Splits s at every pattern sep and returns the pieces. Each character of sep is a pattern item, and a dot matches any character.\n"
	src := []research.Source{{ID: "S1", Title: "Tally Reference Manual", Text: page}}
	_, md := synthesize(t, "I'm calling tally.scan on a line with a dot in the separator, but the dot matches any character. How do I make it search for the separator as it is?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "turns off the pattern facilities") {
		t.Errorf("the Summary does not quote the scan entry:\n%s", md)
	}
	if strings.Contains(summaryOf(md), "Splits s at every pattern") {
		t.Errorf("the Summary quotes another function's entry:\n%s", md)
	}
	// A call written inside a description is an example: the entry of
	// the function above goes on.
	example := "tally.plot (y, fmt)\n\nDraws the values of y. Many combinations of arguments are possible. The simplest form is\n\n" +
		"tally.plot (y)\n\nwhere y is a vector of values to draw, one point per value.\n"
	for _, s := range newPool([]research.Source{{ID: "S1", Title: "Tally plotting", Text: example}}, nil, nil).sents {
		if s.label != "tally.plot()" || s.section != 1 {
			t.Errorf("%q: label %q in section %d, want tally.plot() in section 1", s.text, s.label, s.section)
		}
	}
	for line, want := range map[string]bool{
		"tally.plot (y, 1.5)":                  false,
		"tally.scan (s, sep [, keep [, raw]])": true,
		"collect ()":                           true,
		"spool_size_limit (default: 10240000)": false,
		"spool_size_limit (10240000)":          false,
		"Tally (the counting tool)":            false,
	} {
		if _, got := signatureName(line); got != want {
			t.Errorf("signatureName(%q) = %v, want %v", line, got, want)
		}
	}
}

// A call with arguments in the question ("tally.gc("count")") names the
// function whose signature heads its entry.
func TestCallWithArgumentsNamesTheFunction(t *testing.T) {
	t.Parallel()
	page := "tally.gc ([opt [, arg]])\n\n" +
		"This function is a generic interface to the collector. It performs different functions according to its first argument, opt.\n\n" +
		"\"count\": returns the memory held by the tally in kilobytes and a second value with the rest in bytes.\n\n" +
		"\"step\": performs a collection step of the size given by arg.\n\n" +
		"tally.load (chunk)\n\n" +
		"Loads a chunk and returns it as a function, counting 2 bytes per character of its text.\n"
	src := []research.Source{{ID: "S1", Title: "Tally Reference Manual", Text: page}}
	_, md := synthesize(t, "What does tally.gc(\"count\") return?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "kilobytes") {
		t.Errorf("the Summary does not quote the gc entry:\n%s", md)
	}
	if strings.Contains(md, "counting 2 bytes") {
		t.Errorf("another function's entry is quoted:\n%s", md)
	}
}

// A question's "it" names the one code name of the statement before it,
// or else the subject of the last statement.
func TestPronounNamesTheStatementsCodeName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ ask, context, want string }{
		{"How do I make it search literally?", "I'm calling tally.scan on a line.", "How do I make tally.scan search literally?"},
		{"Why does it fail?", "I run tally.scan and tally.split on a line.", "Why does it fail?"},
		{"Why does it fail?", "Scanning gets slow on \"1.5\".", "Why does it fail?"},
		// No code name: the subject of the statement just before.
		{"How do I turn it off?", "I run tally.scan on logs. The cache is meant for tests only.", "How do I turn the cache off?"},
		{"Why does it fail?", "I'm calling tally.scan and tally.split. My scan is slow on \"1.5\".", "Why does the scan fail?"},
		// What the asker acted on, before a name written as code.
		{"How do I get rid of it?", "I removed a class from my code, but it still shows up in the HTML.", "How do I get rid of the class?"},
		{"How do I keep it?", "I create a widget with tally_widget_new() and drop it.", "How do I keep the widget?"},
		{"Why does tally.split fail?", "I'm calling tally.scan.", "Why does tally.split fail?"},
		// A name qualified with "::", after the product's possessive, and
		// a name with its quoted key, are one code name each.
		{"How do I make it stop after 5 seconds?", "My Tally program calls Tally's Net::Fetcher on a slow site.", "How do I make Net::Fetcher stop after 5 seconds?"},
		{"How do I read it with a default?", `CONF["HOME_DIR"] raises when the key is missing.`, `How do I read CONF["HOME_DIR"] with a default?`},
	} {
		if got := pronounNamed(tt.ask, tt.context); got != tt.want {
			t.Errorf("pronounNamed(%q, %q) = %q, want %q", tt.ask, tt.context, got, tt.want)
		}
	}
}

// A javadoc-style member: its name alone on a line above its declaration
// opens its entry, on the page of its class; a qualified name in the
// question ("Counters.toCount") finds it there, and the lines that show a
// call with its result are examples, not labels.
func TestMemberNameAboveItsDeclaration(t *testing.T) {
	t.Parallel()
	page := "Class Counters\n\n" +
		"Provides extra functionality for counting.\n\n" +
		"Method Details\n\n" +
		"toCount\n\n" +
		"public static int toCount(String str)\n\n" +
		"Convert a String to a count, returning zero if the conversion fails.\n\n" +
		"Counters.toCount(null) = 0\nCounters.toCount(\"1\") = 1\n\n" +
		"Parameters: str - the string to convert, may be null\n\n" +
		"toTally\n\n" +
		"public static long toTally(String str)\n\n" +
		"Convert a String to a tally, returning minus one if the conversion fails.\n\n" +
		"Counters.toTally(\"1\") = 1\n\n" +
		"Parameters: str - the string to convert\n"
	other := "Class Tallies\n\n" +
		"toCount\n\n" +
		"public static int toCount(Object obj)\n\n" +
		"Counts the fields of an object, returning minus one for null.\n"
	src := []research.Source{
		{ID: "S1", Title: "Class Counters", Text: page},
		{ID: "S2", Title: "Class Tallies", Text: other},
	}
	_, md := synthesize(t, "What does Counters.toCount give back when the string is not a number at all?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "returning zero if the conversion fails") {
		t.Errorf("the Summary does not quote the toCount entry:\n%s", md)
	}
	if strings.Contains(md, "[S2]") || strings.Contains(md, "returning minus one") {
		t.Errorf("another member's entry is quoted:\n%s", md)
	}
	p := newPool(src, nil, nil)
	for _, s := range p.sents {
		if strings.Contains(s.label, "=") {
			t.Errorf("an example line labels %q: %q", s.text, s.label)
		}
		if strings.Contains(s.text, "returning zero") && s.label != "toCount()" {
			t.Errorf("the description is labelled %q, want toCount()", s.label)
		}
	}
}

// The items of a numbered list, one per line, are statements, not
// numbered headings.
func TestNumberedListItemsAreStatements(t *testing.T) {
	t.Parallel()
	page := "Class Timer\n\n" +
		"The methods protect against inappropriate calls:\n\n" +
		"Thus you cannot now call stop before begin.\n" +
		"1. pause() cannot be invoked twice\n" +
		"2. resume() may only be called if the timer has been paused\n" +
		"3. begin() cannot be called twice without calling clear()\n\n" +
		"This class is not thread-safe.\n"
	p := newPool([]research.Source{{ID: "S1", Title: "Class Timer", Text: page}}, nil, nil)
	found := false
	for _, s := range p.sents {
		if strings.Contains(s.text, "without calling clear()") {
			found = true
		}
		if s.head["paus"] || s.head["resum"] {
			t.Errorf("a list item heads %q", s.text)
		}
	}
	if !found {
		t.Errorf("the list item is no sentence: %v", p.sents)
	}
}

// A reference's one-sentence list of values, its clauses parted by
// semicolons, is prose to quote; statements of code on one line are not.
func TestClauseListIsProse(t *testing.T) {
	t.Parallel()
	list := `Returns the state of timer t, as a string: "ticking", if the timer is ticking (that is, it called state); ` +
		`"paused", if the timer is paused in a call to pause, or if it has not started ticking yet; ` +
		`"waiting" if the timer is active but not ticking (that is, it has resumed another timer); ` +
		`and "done" if the timer has finished its body function, or if it has stopped with an error that it raised.`
	if n := len(strings.Fields(list)); n <= 70 {
		t.Fatalf("the sentence has %d words; it must be longer than the old bound", n)
	}
	if q := quality(list); q == 0 {
		t.Errorf("quality(%q) = 0, want a quotable sentence", list)
	}
	for _, code := range []string{"a = 1; b = 2; c = 3; d = 4.", "cd /srv; make; make install; make clean"} {
		if !codeLike(code) {
			t.Errorf("codeLike(%q) = false", code)
		}
	}
}

// What the asker will do with the answer ("so that I can put it in a log
// message") is no word the answering page must say.
func TestAskersPurposeIsNoCoreWord(t *testing.T) {
	t.Parallel()
	c := newCriterion("How do I get the stack trace of an exception as a String so that I can put it in a log message?", "", nil, nil)
	for _, w := range []string{"log", "messag", "put"} {
		if slices.Contains(c.core, w) {
			t.Errorf("core %v holds %q of the asker's purpose", c.core, w)
		}
	}
	for _, w := range []string{"stack", "trace", "string"} {
		if !slices.Contains(c.core, w) {
			t.Errorf("core %v lacks %q", c.core, w)
		}
	}
}

// A set written in braces in prose ("equal to {1..n}") is no code.
func TestSetNotationIsProse(t *testing.T) {
	t.Parallel()
	s := "Unless a hook is given, the size of a list l is only defined if the list is dense, that is, the set of its keys is equal to {1..n} for some integer n."
	if quality(s) == 0 {
		t.Errorf("quality(%q) = 0, want a quotable sentence", s)
	}
	if !codeLike("if (n > 0) { total = total + n; }") {
		t.Errorf("a block of code in braces reads as prose")
	}
}

// A sentence of another entry that names the asked class in the plural
// ("TickCounters will warn …" for TickCounter) names it.
func TestPluralNamesTheClass(t *testing.T) {
	t.Parallel()
	page := "Class: TickCounter\n\nThe TickCounter class is defined by the tally module.\n\n" +
		"counter.setMaxTicks(n)\n\nAdded in: v0.3.5\n\n" +
		"By default TickCounters will print a warning if more than 12 ticks are added for a particular slot. This is a useful default that helps finding leaks.\n\n" +
		"counter.reset()\n\nAdded in: v0.4.0\n\nClears every slot of the counter.\n"
	src := []research.Source{{ID: "S1", Title: "Counters | Tally", Text: page}}
	_, md := synthesize(t, "How many ticks can I add to one slot of a TickCounter before Tally starts warning about a possible leak?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "more than 12 ticks") {
		t.Errorf("the Summary does not quote the sentence that names TickCounters:\n%s", md)
	}
}
