package extractive

import (
	"slices"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// A question that asks for so many of a measure, or which year, is
// answered by a figure of it: a sentence that names the subject well but
// states no figure is not its answer, and when no source states one the
// Summary says so.

func TestAsksMeasure(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"How many megabytes of memory does each worker use?": true,
		"In what year was Tallyhall first released?":         true,
		"How many seconds does the client wait?":             true,
		"How many jobs run by default?":                      false, // things counted, answered in words too
		"What TCP port does the server use?":                 false,
		"Which format should dates be written in?":           false,
		"How does the cache expire entries?":                 false,
	} {
		if got := asksMeasure(q); got != want {
			t.Errorf("asksMeasure(%q) = %v, want %v", q, got, want)
		}
	}
	// A figure is then required of evidence, not only preferred.
	for q, want := range map[string]bool{
		"How many megabytes of memory does each worker use by default?": true,
		"How many jobs run by default?":                                 false,
	} {
		if got := newCriterion(q, "", text.Tokens(q), nil).needsNum; got != want {
			t.Errorf("newCriterion(%q).needsNum = %v, want %v", q, got, want)
		}
	}
	if !asksYear("In what year was Tallyhall first released?") || asksYear("How many megabytes does it use?") {
		t.Error("asksYear: want true for a year asked, false for another measure")
	}
}

func TestManPageSectionIsNoFigure(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"The table is maintained by the verify(8) service.": false,
		"See crontab(5) and cron(8) for the syntax.":        false,
		"The verify(8) service waits 30 seconds.":           true,
		"Each worker uses 40 megabytes.":                    true,
		"Nothing here is counted.":                          false,
	} {
		if got := statesFigure(s, text.Tokens(s)); got != want {
			t.Errorf("statesFigure(%q) = %v, want %v", s, got, want)
		}
	}
}

// measureSources describe Tallyhall's workers and releases at length
// without the figures the tests below ask for.
func measureSources(extra string) []research.Source {
	return []research.Source{
		{ID: "S1", Title: "Workers — Tallyhall manual", Text: "Worker Processes\n\n" +
			"Each Tallyhall worker process serves the connections of one store. " +
			"The memory a worker process uses grows with the number of open connections. " +
			"A worker process is restarted after it has served MaxWorkerRequests requests. " +
			"By default, each Tallyhall worker process keeps the memory of its closed connections for reuse. " + extra},
		{ID: "S2", Title: "Release notes — Tallyhall", Text: "Releases\n\n" +
			"With Tallyhall 2.0 snapshot releases, the store format changed. " +
			"Stable releases of Tallyhall are named major.minor.patchlevel. " +
			"Tallyhall 2.0 was the first stable release, and it added replication."},
	}
}

// The figure, when a source states one, is the answer.
func TestMeasureAskedQuotesTheFigure(t *testing.T) {
	t.Parallel()
	q := "How many megabytes of memory does each Tallyhall worker process use by default?"
	_, md := synthesize(t, q, measureSources("A worker process uses about 40 megabytes of memory when idle."), research.DepthStandard)
	if summary := sectionOf(md, "Summary"); !strings.Contains(summary, "about 40 megabytes") {
		t.Errorf("the figure is not quoted in the Summary:\n%s", md)
	}
}

// A figure in another kind of unit does not answer: "MaxWorkerRequests
// 0" is a count of requests, not megabytes; one written in a unit of the
// kind asked, even abbreviated, does.
func TestUnitAskedNeedsAFigureOfItsKind(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"A worker uses about 40 megabytes.":          true,
		"Each worker needs 512KB.":                   true,
		"The maximal size in bytes of a message.":    true,
		"Set MaxWorkerRequests to 0 to keep memory.": false,
		"It waits 300 seconds.":                      false,
	} {
		if got := inUnits(s, askedUnits("How many megabytes does a worker use?")); got != want {
			t.Errorf("inUnits(%q, megabytes) = %v, want %v", s, got, want)
		}
	}
	if !inUnits("The timeout is 300s.", askedUnits("How many seconds does it wait?")) || !inUnits("It waits 5 minutes.", askedUnits("How many seconds does it wait?")) {
		t.Error("a figure in seconds or minutes does not answer how many seconds")
	}
	if !inUnits("It is valid for 365 days.", askedUnits("For how many days is the certificate valid?")) || inUnits("It requires TLS/1.0 or higher.", askedUnits("For how many days is the certificate valid?")) {
		t.Error("how many days: a figure in days does not answer, or one in no unit does")
	}
	if askedUnits("How many jobs run?") != nil || askedUnits("In what year was it released?") != nil {
		t.Error("askedUnits: want nil for things counted and for a year")
	}
	q := "How many megabytes of memory does each Tallyhall worker process use by default?"
	_, md := synthesize(t, q, measureSources("Set MaxWorkerRequests to 0 to keep the memory of each worker process by default."), research.DepthStandard)
	if summary := sectionOf(md, "Summary"); !strings.Contains(summary, "None of the sources read states") {
		t.Errorf("a count of requests answers how many megabytes:\n%s", md)
	}
}

func TestYearAskedNeedsAYear(t *testing.T) {
	t.Parallel()
	q := "In what year was Tallyhall first released?"
	_, md := synthesize(t, q, measureSources(""), research.DepthStandard)
	if summary := sectionOf(md, "Summary"); !strings.Contains(summary, "None of the sources read states") {
		t.Errorf("a version number is not a year, yet the Summary answers:\n%s", md)
	}
	src := measureSources("")
	src[1].Text += " Tallyhall was first released in 2009 by its two authors."
	_, md = synthesize(t, q, src, research.DepthStandard)
	if summary := sectionOf(md, "Summary"); !strings.Contains(summary, "first released in 2009") {
		t.Errorf("the year is not quoted in the Summary:\n%s", md)
	}
}

// A figure in the asked units that the lead's paragraph goes on to give
// ("“1m” is taken to mean “31d”.") shares no word with the question, yet
// says how many days a month counts as.
func TestFigureInTheAskedUnitsAfterTheLead(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "tally-trim — Tally manual", Text: "tally-trim\n\n" +
		"The --keep-within option of tally-trim takes an interval of the form <int><char>, where char is one of the letters d, w, m and y for days, weeks, months and years. " +
		"For example, --keep-within 2d keeps every snapshot made within the past 48 hours. " +
		"“1m” is taken to mean “31d”. Snapshots older than the interval are removed.\n\n" +
		"The --keep-last option keeps the given number of snapshots, whatever their age."}}
	q := "How many days does tally-trim count as one month, when I give --keep-within a value in months?"
	_, md := synthesize(t, q, src, research.DepthStandard)
	summary := sectionOf(md, "Summary")
	if !strings.Contains(summary, "31d") {
		t.Errorf("the figure in days after the lead is not in the Summary:\n%s", md)
	}
	if strings.Contains(summary, "--keep-last") {
		t.Errorf("another option's sentence joins the lead:\n%s", md)
	}
}

// A question that opens with a preposition ("In which version …", "On
// what port …") asks for a value as "Which version …" does: a year
// another product was released in, on a page of this one, is no answer.
func TestPrepositionBeforeWhichAsksAValue(t *testing.T) {
	t.Parallel()
	for _, q := range []string{"In what year was Tallyhall first released?", "In which version was the TallyFold option first introduced?", "On which port does Tallyhall listen?"} {
		if c := newCriterion(q, "", nil, nil); c.style != styleValue {
			t.Errorf("style of %q = %d, want styleValue", q, c.style)
		}
	}
	src := append(measureSources("The first worker process starts before the others, and the release of its lock lets the rest start."),
		research.Source{ID: "S3", Title: "Curves — Tallyhall manual", Text: "Curves\n\n" +
			"Tallyhall accepts the curves its TLS library offers. The first curve listed is the one preferred. " +
			"OtherSSL 1.0.2 released in January 2015 was the first release to implement negotiation of supported curves in TLS servers."})
	_, md := synthesize(t, "In what year was Tallyhall first released?", src, research.DepthStandard)
	if summary := sectionOf(md, "Summary"); !strings.Contains(summary, "None of the sources read states") {
		t.Errorf("another product's first release answers the year Tallyhall was first released:\n%s", md)
	}
}

// "Why be careful with X?" is answered by what X leads to: a sentence
// that states a consequence gives the reason.
func TestWhyAnsweredByAConsequence(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Tallymail parameters", Text: "spool_size_limit (default: 10240000)\n\n" +
			"The maximal size in bytes of a spooled message, including envelope information.\n\n" +
			"bounce_notice_limit (default: 50000)\n\n" +
			"The maximal amount of original message text that is sent in a bounce notice. " +
			"Excessively small values of spool_size_limit will result in the loss of bounce notices, when a bounce notice exceeds the spool size limit of another server.\n"},
	}
	for _, s := range []string{"Excessively small values will result in the loss of bounce notices.", "A long timeout leads to idle workers."} {
		if !reasonRe.MatchString(s) {
			t.Errorf("reasonRe does not take %q for a reason", s)
		}
	}
	_, md := synthesize(t, "Why should you be careful when making spool_size_limit small in Tallymail?", src, research.DepthStandard)
	if got := sectionOf(md, "Summary"); !strings.Contains(got, "will result in the loss of bounce notices") {
		t.Errorf("the consequence that answers why is not quoted:\n%s", md)
	}
}

func TestAttributeNoun(t *testing.T) {
	t.Parallel()
	for q, want := range map[string][]string{
		"What is the default page size of a new database?":                {"page"},
		"What is the default size of the session cache?":                  {"session", "cach"},
		"Which transaction isolation level is the default in Quillstore?": nil,
		"What is the maximum length of an identifier?":                    {"identifi"},
	} {
		c := newCriterion(q, "", nil, nil)
		if got := attributeNoun(c); !slices.Equal(got, want) {
			t.Errorf("attributeNoun(%q) = %q, want %q", q, got, want)
		}
	}
}

// A sentence of the entry the question asks about states the asked
// attribute of it, though it names none of the question's words: the
// entry stands for its subject, even when every page says "transaction"
// and "isolation" and no word of the question sets the subject apart.
func TestEntryStandsForItsSubject(t *testing.T) {
	t.Parallel()
	entry := "Client Connection Defaults\n\n" +
		"default_transaction_isolation (enum): Each transaction has an isolation level, which can be either “read uncommitted”, “read committed”, “repeatable read”, or “serializable”. " +
		"This parameter controls the default isolation level of each new transaction. The default is “read committed”.\n"
	p := docPool(
		[2]string{"Client Connection Defaults — Quillstore", entry},
		[2]string{"Transaction Isolation — Quillstore", "Isolation\n\nThe SQL standard defines four kinds of transaction isolation, and each kind of isolation prevents some phenomena between transactions.\n"},
		[2]string{"SET TRANSACTION — Quillstore", "SET TRANSACTION\n\nThe SET TRANSACTION command sets the characteristics of the current transaction, its isolation mode among them.\n"},
		[2]string{"BEGIN — Quillstore", "BEGIN\n\nBEGIN initiates a transaction block; the isolation of the transaction can be given with it.\n"},
	)
	q := "Which transaction isolation level is the default in Quillstore?"
	p.context = contextWords(q)
	c := newCriterion(q, "", nil, nil)
	if i := sentenceIndex(t, p, "The default is “read committed”"); !p.statesAttribute(c, i) {
		t.Errorf("the asked entry's %q does not state the asked default", p.sents[i].text)
	}
}

// "How much memory does X take up?" asks an amount that units of memory
// measure (WordNet's computer memory units): "four bytes" answers it
// though the sentence never says "memory", and "single" qualifies the
// thing asked about without naming it; sentences about memory that give
// no amount do not answer.
func TestHowMuchAsksAnAmountInItsUnits(t *testing.T) {
	t.Parallel()
	// Every page names the glyph type, and most say "take", as pages found
	// by searching for the question's words do.
	src := []research.Source{
		{ID: "S1", Title: "Data Types", Text: "Data Types\n\nThe Character Type\n\nTandem's glyph type is the language's most primitive alphabetic type. " +
			"Declaring one takes a single line. Note that we specify glyph literals with single quotes, as opposed to string literals, which use double quotes. " +
			"Tandem's glyph type is four bytes in size and represents a Unicode scalar value, which means it can represent a lot more than just ASCII."},
		{ID: "S2", Title: "What Is Ownership?", Text: "What Is Ownership?\n\nTo ensure memory safety, after the line let s2 = s1, Tandem considers s1 as no longer valid. " +
			"Tandem takes a different path: the memory is automatically returned once the variable that owns it goes out of scope. A glyph is copied, not moved."},
		{ID: "S3", Title: "Storing Text with Strings", Text: "Storing Text with Strings\n\nA String in Tandem is a wrapper over a vector of bytes. " +
			"Calling glyphs on a string separates out and returns values of type glyph, and you can iterate over the result to access each element."},
		{ID: "S4", Title: "Pattern Syntax", Text: "Pattern Syntax\n\nRanges of glyph values are allowed in Tandem patterns. A range matches when the value takes one of the values in it."},
	}
	_, md := synthesize(t, "How much memory does a single glyph value take up in Tandem?", src, research.DepthStandard)
	if s := summaryOf(md); !strings.Contains(s, "four bytes") || strings.Contains(s, "memory safety") {
		t.Errorf("the Summary does not give the amount:\n%s", md)
	}
}

// The words of a condition ("… when the string isn't a valid number")
// and the parts of a name written with an operator ("string->number")
// ask for no figure: "What does X return when …?" is answered by the
// sentence that says what X returns then, though it holds no number.
func TestConditionAsksNoFigure(t *testing.T) {
	t.Parallel()
	page := "Numerical input and output\n\n" +
		"Returns a number of the maximally precise representation expressed by the given string. " +
		"Radix must be an exact integer, either 2, 8, 10, or 16. If radix is not supplied, then the default radix is 10. " +
		"If string is not a syntactically valid notation for a number, then string->number returns #f."
	src := []research.Source{{ID: "S1", Title: "Numbers — Tally Scheme", Text: page}}
	_, md := synthesize(t, "What does string->number return when the string isn't a valid number?", src, research.DepthStandard)
	if !strings.HasPrefix(answerTo(md, 0), "If string is not a syntactically valid notation") {
		t.Errorf("the Summary does not open with what it returns then:\n%s", md)
	}
	for q, want := range map[string]bool{
		"What does string->number return when the string isn't a valid number?": false,
		"What is the largest number a tally can hold when it is full?":          true,
	} {
		if c := newCriterion(q, "", nil, nil); (c.style == styleValue || c.needsNum) != want {
			t.Errorf("%q asks for a value: %v, want %v", q, !want, want)
		}
	}
}

// A sentence that describes the situation the asker states before the
// question answers it with fewer of the question's own words: "… the
// transfer will abort rather than retry forever" says which option makes
// the copy abort, in the words of the asker's statement, not the
// question's.
func TestSentenceEchoingTheStatementAnswers(t *testing.T) {
	t.Parallel()
	page := "Options\n\n" +
		"The --verbose option makes drumsync print the name of every file it copies. " +
		"The --bwlimit option sets the largest rate in kilobytes per second. " +
		"With --strict, when the remote disk fills up during an unattended backup, the transfer will abort rather than retry forever. " +
		"Files are compared by size and modification time."
	src := []research.Source{{ID: "S1", Title: "drumsync manual", Text: page}}
	q := "My unattended backup with DrumSync keeps retrying forever once the remote disk fills up. Which option makes it abort the copy instead?"
	_, md := synthesize(t, q, src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "--strict") {
		t.Errorf("the Summary does not name the option the page gives for that situation:\n%s", md)
	}
	// The sentence before it may describe the situation: "With --strict it
	// aborts at once." after "During an unattended backup the remote disk
	// may fill up …".
	page = "Options\n\n" +
		"The --verbose option makes drumsync print the name of every file it copies. " +
		"The --bwlimit option sets the largest rate in kilobytes per second. " +
		"During an unattended backup the remote disk may fill up, and drumsync then keeps retrying forever. " +
		"With --strict it aborts at once. " +
		"Files are compared by size and modification time."
	src = []research.Source{{ID: "S1", Title: "drumsync manual", Text: page}}
	_, md = synthesize(t, q, src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "--strict") {
		t.Errorf("the Summary does not name the option given after the sentence describing that situation:\n%s", md)
	}
}

// TestReasonBelowTheBestAnswersABareWhy: a bare "Why?" after a statement
// takes its words from the statement, and the page's reason says few of
// them. When no sentence holds half, the best-scored sentence that gives
// a reason and holds nearly enough answers, though another scores above
// it with too few of the statement's words.
func TestReasonBelowTheBestAnswersABareWhy(t *testing.T) {
	t.Parallel()
	page := "Rendering\n\n" +
		"A render of chart.aux fails because chart.aux has no series. " +
		"Run inkplot render with the name of a chart file. " +
		"When a render fails, the temporary files stay in the folder since they show what went wrong. " +
		"Colours are taken from the palette file."
	src := []research.Source{{ID: "S1", Title: "inkplot manual", Text: page}}
	q := "After a failed inkplot render, files like chart.tmp and chart.aux were left in my output folder. Why are they there?"
	_, md := synthesize(t, q, src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "temporary files stay in the folder since") {
		t.Errorf("the Summary does not give the page's reason:\n%s", md)
	}
}

// TestLeadThatAddsBringsItsAntecedent: a lead that opens by adding to the
// sentence before it ("In addition, …") is quoted after that sentence, as
// the page wrote them: here the sentence before is the answer.
func TestLeadThatAddsBringsItsAntecedent(t *testing.T) {
	t.Parallel()
	page := "Copying\n\n" +
		"Quillsync copies the files of the source folder to the target. " +
		"You can copy dotfiles and other concealed entries by adding --all to the switches. " +
		"In addition, you can add --no-hidden to also skip any hidden file that has the private mark. " +
		"The --dry-run switch lists what would be copied."
	src := []research.Source{{ID: "S1", Title: "quillsync manual", Text: page}}
	q := "quillsync only copies my visible files. How do I get it to copy my hidden files as well?"
	_, md := synthesize(t, q, src, research.DepthStandard)
	a := answerTo(md, 0)
	if !strings.Contains(a, "--all") || strings.Index(a, "--all") > strings.Index(a, "In addition") {
		t.Errorf("the Summary does not quote the sentence the lead adds to, before it:\n%s", md)
	}
}

// TestValueUnderTheIdentifierTheStatementNames: a part that leans on a
// statement naming an identifier ("I wrapped a File in Quill::open …")
// is answered by a sentence under that identifier's heading, though the
// sentence repeats none of the statement's other words.
func TestValueUnderTheIdentifierTheStatementNames(t *testing.T) {
	t.Parallel()
	reader := "Quill::open\n\n" +
		"Opens a new reader with a default buffer capacity. " +
		"The default is currently 16 KB, but may change in the future.\n\n" +
		"Quill::with_capacity\n\n" +
		"Opens a new reader with the specified buffer capacity."
	writer := "LineWriter\n\n" +
		"Wraps a writer and buffers output to it, flushing whenever a newline is detected. " +
		"The buffer of a writer grows to the longest line written."
	src := []research.Source{
		{ID: "S1", Title: "Quill reader", Text: reader},
		{ID: "S2", Title: "LineWriter", Text: writer},
	}
	q := "I wrapped a File in Quill::open to read it faster. How big a buffer does it use if I don't ask for a particular size?"
	_, md := synthesize(t, q, src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "16 KB") {
		t.Errorf("the Summary does not state the size given under the identifier the statement names:\n%s", md)
	}
}

// "The port for X is V, which is used by default" states a default
// outright, as "The default port for X is V" does (TestGivesValue): it
// answers over a default stated of another port.
func TestValueUsedByDefaultIsStatedOutright(t *testing.T) {
	t.Parallel()
	page := "Ports\n\n" +
		"The default is to bind to the wildcard address at the port specified in tallyd_port, or the standard tallyd port (7070). " +
		"The assigned port for upload requests is 7071, which is used by default. " +
		"Tallyd accepts upload requests on every address it binds."
	src := []research.Source{{ID: "S1", Title: "tallyd.conf — Tally server configuration", Text: page}}
	_, md := synthesize(t, "Which port does tallyd listen on for upload requests when I don't configure one?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.HasPrefix(got, "The assigned port for upload requests is 7071") || strings.Contains(got, "7070") {
		t.Errorf("the Summary does not open with the upload port, or gives the other port too:\n%s", md)
	}
}
