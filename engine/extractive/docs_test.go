package extractive

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// These tests cover how the engine reads reference documentation: settings
// described in definition lists, reference tables, figures stated without
// the question's words, and a product named by every page of its manual.

// docPool builds a pool from (title, text) pairs, as S1, S2, ….
func docPool(pages ...[2]string) *pool {
	var srcs []research.Source
	for i, pg := range pages {
		srcs = append(srcs, research.Source{ID: fmt.Sprintf("S%d", i+1), Title: pg[0], Text: pg[1]})
	}
	return newPool(srcs, nil, nil)
}

// sentenceIndex returns the index of the pool sentence that starts with prefix.
func sentenceIndex(t *testing.T, p *pool, prefix string) int {
	t.Helper()
	for i, s := range p.sents {
		if strings.HasPrefix(s.text, prefix) {
			return i
		}
	}
	t.Fatalf("no sentence %q in pool", prefix)
	return -1
}

func TestInlineLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, term, rest string
	}{
		{"shared_buffers (integer): Sets the amount of memory used.", "shared_buffers (integer)", "Sets the amount of memory used."},
		{"-v, --verbose: Use verbose output.", "-v, --verbose", "Use verbose output."},
		{"payload: The string sent with the notification.", "payload", "The string sent with the notification."},
		{"Note: This setting is deprecated.", "", ""},                    // a capitalised word, not code
		{"There are two variants of VACUUM: standard and full.", "", ""}, // prose before the colon
		{"timeout: set it low", "", ""},                                            // the rest is not a sentence
		{"a very long name of a setting that goes on and on: It is long.", "", ""}, // too many words
		{"max_wal_size (integer): The maximum size the WAL grows to.", "max_wal_size (integer)", "The maximum size the WAL grows to."},
	}
	for _, tt := range tests {
		term, rest, ok := inlineLabel(tt.in)
		if ok != (tt.term != "") || term != tt.term || rest != tt.rest {
			t.Errorf("inlineLabel(%q) = %q, %q, %v; want %q, %q", tt.in, term, rest, ok, tt.term, tt.rest)
		}
	}
}

// A definition list flattened to "term: definition" labels every sentence
// of its paragraph with the term, and only that paragraph.
func TestPoolInlineLabelParagraph(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Resource Consumption", "Memory\n\n" +
		"shared_buffers (integer): Sets the amount of memory the server uses for buffers. The default is typically 128 megabytes (128MB).\n\n" +
		"On small systems a lower value of memory is appropriate for the cache."})
	first := sentenceIndex(t, p, "Sets the amount")
	def := sentenceIndex(t, p, "The default is typically")
	other := sentenceIndex(t, p, "On small systems")
	for _, i := range []int{first, def} {
		if s := p.sents[i]; s.label != "shared_buffers (integer)" || !s.head[text.Stem("buffers")] {
			t.Errorf("sentence %q: label %q, head %v; want the setting", s.text, s.label, s.head)
		}
	}
	if s := p.sents[other]; s.label != "" {
		t.Errorf("next paragraph kept label %q", s.label)
	}
	c := newCriterion("What is the default value of shared_buffers?", "Default value of shared_buffers", text.Tokens("default value of shared_buffers"), nil)
	if !p.isEvidence(c, def) {
		t.Errorf("%q is not evidence for %q", p.sents[def].text, c.text)
	}
	if got := quote(p, def); !strings.HasPrefix(got, "`shared_buffers (integer)`: The default is typically 128 megabytes") {
		t.Errorf("quote = %q", got)
	}
}

// A figure answers "maximum size" without repeating the words; the same
// sentence without one does not.
func TestValueWordsImpliedByFigure(t *testing.T) {
	t.Parallel()
	const q = "What is the maximum size of a NOTIFY payload?"
	goal := text.Tokens(q)
	c := newCriterion(q, "Maximum size of a NOTIFY payload", goal, nil)
	for _, tt := range []struct {
		sentence string
		want     bool
	}{
		{"In the default configuration it must be shorter than 8000 bytes.", true},
		{"In the default configuration it must be a simple string literal.", false},
	} {
		p := docPool(
			[2]string{"NOTIFY", "Parameters\n\npayload\n\n" + tt.sentence + "\n\nThe NOTIFY command sends a notification event with a payload string."},
			[2]string{"LISTEN", "LISTEN registers the current session as a listener on the notification channel."},
		)
		i := sentenceIndex(t, p, "In the default configuration")
		if got := p.isEvidence(c, i); got != tt.want {
			t.Errorf("isEvidence(%q) = %v, want %v", tt.sentence, got, tt.want)
		}
	}
}

// A word every page holds (the product a manual documents) counts as found
// on the sentence's page even when the sentence does not repeat it.
func TestTopicalWordCoverage(t *testing.T) {
	t.Parallel()
	p := docPool(
		[2]string{"Table Basics", "Quillstore tables hold rows of named columns. There is a limit on how many columns a table can contain."},
		[2]string{"Data Types", "Quillstore has many built-in data types for columns."},
		[2]string{"Constraints", "Constraints in Quillstore restrict the values of a column."},
		[2]string{"Indexes", "An index in Quillstore speeds up lookups on a table."},
	)
	if !p.topical["quillstor"] && !p.topical[text.Stem("quillstore")] {
		t.Fatalf("topical = %v, want quillstore", p.topical)
	}
	i := sentenceIndex(t, p, "There is a limit")
	core := text.Tokens("columns quillstore table")
	with := p.coverage(core, i)
	p.topical = text.Set{}
	without := p.coverage(core, i)
	if with <= without || with < coverThreshold {
		t.Errorf("coverage with topical word %.2f, without %.2f; want more, and at least %.2f", with, without, coverThreshold)
	}
	if few := topicalWords(p.docs[:2]); len(few) != 0 {
		t.Errorf("topical words of two documents = %v, want none", few)
	}
}

// A sentence whose subject is a pronoun after an opening phrase finishes
// the thought of the one before it.
func TestPronounSubjectContinues(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Table Basics", "There is a limit on how many columns a table can contain. " +
		"Depending on the column types, it is between 250 and 1600. " +
		"Depending on the workload, indexes can help a great deal."})
	i := sentenceIndex(t, p, "There is a limit")
	got := picker{p}.withContinuations([]int{i})
	if len(got) != 2 || !strings.HasPrefix(p.sents[got[1]].text, "Depending on the column types") {
		t.Errorf("withContinuations = %v, want the limit and its figure", got)
	}
	j := sentenceIndex(t, p, "Depending on the column types")
	if got := (picker{p}).withContinuations([]int{j}); len(got) != 1 {
		t.Errorf("a sentence with its own subject was taken as a continuation: %v", got)
	}
}

func TestTableRowQuality(t *testing.T) {
	t.Parallel()
	row := quality("identifier length | 63 bytes | can be increased by recompiling Quillstore")
	prose := quality("identifier length can be increased by recompiling Quillstore")
	header := quality("Item | Upper Limit | Comment | Notes")
	if row < 0.9 || row <= prose {
		t.Errorf("table row quality %.2f, prose fragment %.2f; want a row ≥ 0.9 and above the fragment", row, prose)
	}
	if header >= row {
		t.Errorf("header row quality %.2f ≥ data row %.2f", header, row)
	}
	if isTableRow("A sentence. | Another sentence.") {
		t.Error("two sentences joined by a bar taken for a table row")
	}
}

// A quoted table row reads as the sentence it states, never as a fragment
// of escaped pipes.
func TestTableRowQuotedAsSentence(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Appendix K. Limits", "Item | Upper Limit | Comment\n\n" +
		"identifier length | 63 bytes | can be increased by recompiling Quillstore\n\n" +
		"columns per table | 1600 | further limited by tuple size fitting on a single page"})
	i := sentenceIndex(t, p, "Identifier length")
	got := quote(p, i)
	if want := "Identifier length: 63 bytes; can be increased by recompiling Quillstore. [S1]"; got != want {
		t.Errorf("quote = %q, want %q", got, want)
	}
	if strings.Contains(quote(p, sentenceIndex(t, p, "Columns per table")), "|") {
		t.Error("a quoted row kept its pipes")
	}
	for _, tt := range []struct{ in, want string }{
		{"max_connections | 100 | -", "max_connections: 100."},
		{"Default: | 4.0", "Default: 4.0."},
		{"a | b | c.", "A: b; c."},
	} {
		if got := rowSentence(tt.in); got != tt.want {
			t.Errorf("rowSentence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A page titled with the question's subject is relevant even when another
// page repeats the question's commoner words more often.
func TestTitleRelevance(t *testing.T) {
	t.Parallel()
	p := docPool(
		[2]string{"Index-Only Scans", "The maximum size of an index tuple is limited. A larger size makes the index bigger. " +
			"Payload columns increase the size of the index up to the maximum size."},
		[2]string{"NOTIFY", "NOTIFY sends a notification event with an optional payload string to listeners."},
	)
	q := text.Query{}
	q.Add(text.Tokens("What is the maximum size of a NOTIFY payload?"), 1)
	p.setRelevance(q)
	if p.docRel[1] <= p.docRel[0] {
		t.Errorf("docRel NOTIFY page %.2f, other page %.2f; want the NOTIFY page higher", p.docRel[1], p.docRel[0])
	}
}

func TestDiffersFromIsComparison(t *testing.T) {
	t.Parallel()
	tests := []struct{ q, a, b string }{
		{"What does VACUUM FULL do differently from plain VACUUM?", "VACUUM FULL", "plain VACUUM"},
		{"How does a hard link differ from a symbolic link?", "hard link", "symbolic link"},
		{"How is TRUNCATE different from DELETE?", "TRUNCATE", "DELETE"},
	}
	for _, tt := range tests {
		q := analyse(tt.q)
		if q.kind != kindCompare || len(q.compare) != 2 || q.compare[0] != tt.a || q.compare[1] != tt.b {
			t.Errorf("analyse(%q): kind %s, sides %q; want compare %q and %q", tt.q, q.kind, q.compare, tt.a, tt.b)
		}
	}
	// "differently" is how the question asks, not what the answer says.
	c := newCriterion("What does VACUUM FULL do differently?", "VACUUM FULL", nil, nil)
	for _, w := range c.core {
		if w == text.Stem("differently") || w == text.Stem("different") {
			t.Errorf("core %v holds %q", c.core, w)
		}
	}
}

// A sentence that gives the asked value outright ("The default is …")
// ranks first in the value section and leads the summary, above sentences
// that repeat the question's words around other figures; a figure about
// another subject gets no such lift.
func TestDirectValueLeads(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Resource Consumption", "Memory\n\n" +
		"shared_buffers (integer): If this value is specified without units, it is taken as blocks, typically 8kB. " +
		"The default is typically 128 megabytes (128MB), but might be less if your kernel settings will not support it.\n\n" +
		"If you have a dedicated database server with 1GB or more of RAM, a reasonable starting value for shared_buffers is 25% of the memory in your system.\n\n" +
		"MAX_RATE rate: Limit the maximum amount of data transferred per unit of time, from 32 kB through 1 GB."})
	q := "What is the default value of shared_buffers?"
	goal := text.Tokens(q)
	c := newCriterion(q, "Default value of shared_buffers", goal, nil)
	r := scorer{p}.rankSection(section{heading: "Default value of shared_buffers", criteria: []criterion{c}}, exactTerms(q), nil)
	direct := sentenceIndex(t, p, "The default is typically")
	for _, other := range []string{"If this value", "If you have a dedicated"} {
		if i := sentenceIndex(t, p, other); r.scores[i] >= r.scores[direct] {
			t.Errorf("%q scores %.2f, not below the direct answer's %.2f", p.sents[i].text, r.scores[i], r.scores[direct])
		}
	}
	m := newCriterion("What is the maximum size of a NOTIFY payload?", "Maximum size", text.Tokens("maximum size NOTIFY payload"), nil)
	if rate := sentenceIndex(t, p, "Limit the maximum"); p.statesAttribute(m, rate) {
		t.Errorf("%q states the maximum of a NOTIFY payload", p.sents[rate].text)
	}
}

// A word of an identifier is a topic word even when alone it is filler
// ("work" in "work_mem"), so the criterion is not generic.
func TestIdentifierWordsAreNotSoft(t *testing.T) {
	t.Parallel()
	q := "What is the default value of work_mem?"
	c := newCriterion(q, "Default value of work_mem", text.Tokens(q), nil)
	if c.generic {
		t.Errorf("%q is generic; core %v", q, c.core)
	}
	if !slices.Contains(c.core, text.Stem("work")) {
		t.Errorf("core %v lacks the identifier's word", c.core)
	}
	if g := newCriterion("How does it work?", "How it works", text.Tokens("SQLite locking"), nil); slices.Contains(g.core, text.Stem("work")) {
		t.Errorf("filler word kept in core %v", g.core)
	}
}

func TestContainsTerm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s, term string
		want    bool
	}{
		{"work_mem (integer): the default value is 4mb.", "work_mem", true},
		{"autovacuum_work_mem (integer): it defaults to -1.", "work_mem", false},
		{"set work_mem_limit instead", "work_mem", false},
		{"raise work_mem, then autovacuum_work_mem", "work_mem", true},
		{"pg_dump -fc writes a custom archive", "pg_dump -fc", true},
	}
	for _, tt := range tests {
		if got := containsTerm(tt.s, tt.term); got != tt.want {
			t.Errorf("containsTerm(%q, %q) = %v", tt.s, tt.term, got)
		}
	}
}

func TestContextWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q    string
		want []string
	}{
		{"What is a deque in Python?", []string{"python"}},
		{"How do I install it on Debian 12?", []string{"debian", "12"}},
		{"What is the default value of shared_buffers?", nil},
	}
	for _, tt := range tests {
		got := contextWords(tt.q)
		if len(got) != len(tt.want) {
			t.Errorf("contextWords(%q) = %v, want %v", tt.q, got, tt.want)
			continue
		}
		for _, w := range tt.want {
			if !got[text.Stem(w)] {
				t.Errorf("contextWords(%q) = %v, want %v", tt.q, got, tt.want)
			}
		}
	}
}

// Asked "What is a deque in Python?" of the Python manual, a sentence that
// only says "Python" is no answer, and neither is one that merely sits on
// a page about deques; the definition of deques is, and it alone has the
// form of a definition.
// API headings ("namedtuple() Factory Function …") end the section above.
func TestSettingAloneIsNoAnswer(t *testing.T) {
	t.Parallel()
	p := docPool(
		[2]string{"collections — Container datatypes", "deque objects\n\n" +
			"Deques are a generalization of stacks and queues. When the deque is not empty, rotating it moves elements. Otherwise, the deque is bounded to its maximum length.\n\n" +
			"namedtuple() Factory Function for Tuples with Named Fields\n\n" +
			"Any valid Python identifier may be used for a fieldname."},
		[2]string{"Data Structures", "Python lists can be used as stacks, and appending to a deque is fast at both ends."},
		[2]string{"What's New in Python 2.4", "Python 2.4 runs the benchmark faster than Python 2.3. The deque type was added."},
	)
	q := "What is a deque in Python?"
	p.context = contextWords(q)
	c := newCriterion(q, "Deque in Python", text.Tokens(q), nil)
	ident := sentenceIndex(t, p, "Any valid Python identifier")
	if p.isEvidence(c, ident) {
		t.Errorf("%q (head %v) answers %q", p.sents[ident].text, p.sents[ident].head, q)
	}
	if bench := sentenceIndex(t, p, "Python 2.4 runs"); p.isEvidence(c, bench) {
		t.Errorf("%q answers %q", p.sents[bench].text, q)
	}
	def := sentenceIndex(t, p, "Deques are a generalization")
	if !p.isEvidence(c, def) {
		t.Errorf("the definition is not evidence")
	}
	// Only the definition has the form the question asks for: not a
	// condition, a lead-in clause or a passive.
	if p.styled(c, def) <= 1 {
		t.Errorf("the definition gets no lift")
	}
	for _, prefix := range []string{"When the deque is not empty", "Otherwise, the deque is bounded", "The deque type was added"} {
		if i := sentenceIndex(t, p, prefix); p.styled(c, i) != 1 {
			t.Errorf("%q read as a definition", p.sents[i].text)
		}
	}
}

// An API reference heading that opens with the documented name
// ("namedtuple() Factory Function …") starts a new section: the sentences
// under it are not read as still belonging to the setting above.
func TestAPIHeadingStartsSection(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"collections", "Memory\n\n" +
		"max_buffers (integer): The buffers are counted in pages.\n\n" +
		"Rotating them is cheap.\n\n" +
		"namedtuple() Factory Function for Tuples with Named Fields\n\n" +
		"Any valid identifier may be used for a fieldname."})
	s := p.sents[sentenceIndex(t, p, "Any valid identifier")]
	if !s.head[text.Stem("tuples")] || s.head[text.Stem("buffers")] || s.head[text.Stem("memory")] {
		t.Errorf("head of %q = %v, want the namedtuple heading's words", s.text, s.head)
	}
}

func TestFlagTokens(t *testing.T) {
	t.Parallel()
	got := flagTokens("-O, --optimize (see -X): non-default values; a-b and -1 are not flags")
	want := []string{"flag-O", "flag--optimize", "flag-X"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("flagTokens = %v, want %v", got, want)
	}
}

// "What does the -O option do?": the tokenizer drops one-letter words, so
// the flag is kept as a token of its own, and the description under the
// flag's label outranks a sentence about another flag that repeats the
// question's other words.
func TestFlagQuestionFindsItsLabel(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Command line and environment", "Miscellaneous options\n\n" +
		"-O: Remove assert statements and any code conditional on the value of __debug__.\n\n" +
		"-X: Reserved for various implementation-specific options. For example, the -X utf8 command line option enables the UTF-8 Mode."})
	q := "What does the -O command line option do?"
	c := newCriterion(q, "The -O option", text.Tokens(q), nil)
	r := scorer{p}.rankSection(section{heading: "The -O option", criteria: []criterion{c}}, exactTerms(q), nil)
	o := sentenceIndex(t, p, "Remove assert statements")
	x := sentenceIndex(t, p, "For example, the -X utf8")
	if !r.accept(o) {
		t.Fatalf("%q (label %q) is not evidence for %q", p.sents[o].text, p.sents[o].label, q)
	}
	if r.scores[o] <= r.scores[x] {
		t.Errorf("-O description scores %.2f, the -X example %.2f", r.scores[o], r.scores[x])
	}
}

// A manual page's option with two names on lines of their own ("--sort",
// "--no-sort") labels the description below them with both, even when
// the page's inline markup cut the description short.
func TestStackedTermsLabelACutDescription(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, prefix, label string
	}{
		{"OPTIONS\n\n--sort\n\n--no-sort\n\nWhen the entries of the index begin with \"keep! …\" or \"drop! …\", and a matching entry is already in the list\n\n...\n\n, reorder the list.",
			"When the entries of the index begin", "--sort, --no-sort"},
		{"OPTIONS\n\n-q\n\n--quiet\n\nSuppress all output except errors.", "Suppress all output", "-q, --quiet"},
		{"OPTIONS\n\n--verbose\n\nPrint every step of the indexing run as it happens.", "Print every step", "--verbose"},
	}
	for _, tt := range tests {
		p := docPool([2]string{"tally-index(1) Manual Page", tt.text})
		i := sentenceIndex(t, p, tt.prefix)
		if p.sents[i].label != tt.label {
			t.Errorf("%q: label %q, want %q", tt.prefix, p.sents[i].label, tt.label)
		}
	}
	p := docPool([2]string{"tally-index(1) Manual Page", tests[0].text})
	c := newCriterion("What does the --sort option of tally index do?", "The --sort option", nil, nil)
	if i := sentenceIndex(t, p, "When the entries"); !p.namesFlag(c, i) {
		t.Errorf("the cut description does not name --sort")
	}
}

// A sentence that a page's inline markup broke into paragraphs of their own
// is put back together, and only there: headings, commands after a
// lead-in and whole sentences keep their blank lines.
func TestRejoinFragments(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Specify the checksum kind. The valid values are\n\ncrc32\n\nand (if enabled)\n\nsha256\n\n.\n\ncrc32\n\nis the default.",
			"Specify the checksum kind. The valid values are crc32 and (if enabled) sha256 .\n\ncrc32 is the default."},
		{"When the entry matches the same\n\n...\n\n, reorder the list of\n\ntally index -i\n\n, so that it comes first.",
			"When the entry matches the same ... , reorder the list of tally index -i , so that it comes first."},
		// A heading, a lead-in with its colon, a command and whole sentences stay apart.
		{"Setting up a mirror\n\ntally mirror add origin\n\nTo add one, run:\n\ntally mirror add\n\nMirrors are read-only.\n\nThey follow the primary.",
			"Setting up a mirror\n\ntally mirror add origin\n\nTo add one, run:\n\ntally mirror add\n\nMirrors are read-only.\n\nThey follow the primary."},
		{"OPTIONS\n\n--sort\n\n--no-sort\n\nSort the entries.", "OPTIONS\n\n--sort\n\n--no-sort\n\nSort the entries."},
		{"tally.auto\n\nWhen there are more than this many loose entries in the store,\n\ntally gc --auto\n\nwill pack them. The default value is 6700.",
			"tally.auto\n\nWhen there are more than this many loose entries in the store, tally gc --auto will pack them. The default value is 6700."},
		// A numbered heading above a setting's own paragraph.
		{"20.4.1. Memory\n\ncache_pages (integer): Sets the cache size. The default is 64MB.",
			"20.4.1. Memory\n\ncache_pages (integer): Sets the cache size. The default is 64MB."},
		{"cache_pages\n\ncache_pages (integer): Sets the cache size.", "cache_pages\n\ncache_pages (integer): Sets the cache size."},
	}
	for _, tt := range tests {
		if got := rejoinFragments(tt.in); got != tt.want {
			t.Errorf("rejoinFragments(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// Commas and ellipses standing alone in a put-together sentence are not
// words: a long option description stays quotable.
func TestQualityCountsWordsNotMarks(t *testing.T) {
	t.Parallel()
	s := "When the entry matches the same ... , reorder the list of tally index -i , so that the entry marked for moving comes right after " +
		"the entry to be changed , and change the action of the moved entry from keep to drop or squash or fixup respectively , " +
		"unless the list is locked … , … , … , … , … , … or … the entry was already moved by an earlier run of the reorder step ."
	if n := len(strings.Fields(s)); n <= maxQuoteWords {
		t.Fatalf("example has %d fields, want more than %d", n, maxQuoteWords)
	}
	if quality(s) == 0 {
		t.Errorf("quality = 0, want the sentence quotable")
	}
}

// A page template repeated with its names lost is no sentence; prose
// that repeats a few words is.
func TestQualityDropsARepeatedTemplate(t *testing.T) {
	t.Parallel()
	if q := quality("Fields inherited from Fields inherited from Fields inherited from , , , , , , ."); q != 0 {
		t.Errorf("quality of a repeated template = %v, want 0", q)
	}
	if q := quality("The reader reads the file, and the writer writes the file when the reader is done."); q == 0 {
		t.Errorf("quality of prose that repeats some words = 0, want it quotable")
	}
}

// A short value statement that closes a paragraph on its figure is whole
// without a full stop, as definition lists often write it; one cut
// before its value is not.
func TestValueStatementEndingOnItsFigure(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"The default is 20.0":         true,
		"The default is 300 s":        true,
		"Default: none":               true,
		"The default is the value of": false,
		"The default is 20.0 when":    false,
		"The default is off.":         true,
		// A long sentence whose word after "is" holds no figure says
		// something about the default, not what it is.
		"The default is well within the RFC-specified minimum amount of time (30 minutes) before a server is allowed to do this.": false,
	} {
		if got := statesValue(s); got != want {
			t.Errorf("statesValue(%q) = %v, want %v", s, got, want)
		}
	}
	if quality("The default is 20.0") == 0 {
		t.Error("quality(The default is 20.0) = 0, want it quotable")
	}
}

// Words in parentheses are prose: a sentence that glosses every unit
// ("s (seconds), m (minutes)") is quotable, while code stays out.
func TestParenthesesAroundWordsAreProse(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"Time units: s (seconds), m (minutes), h (hours), d (days), w (weeks).": false,
		"Call foo(bar) then baz(qux) and quux(x, y) with (a) (b) (c) [d] {e}.":  true,
		"cache_size(32) = max(x, y);":                                           true,
		// A power written as TeX writes it and a web address in a
		// sentence's reference are prose too.
		"To compute the sequence, rand uses the Mersenne Twister with a period of 2^{19937}-1 (See M. Matsumoto and T. Nishimura, ACM Trans. on Modeling and Computer Simulation Vol. 8, No. 1, pp. 3–30, January 1998, http://www.math.example.ac.jp/~m-mat/MT/emt.html).": false,
		"if (x) { return y; }": true,
	} {
		if got := codeLike(s); got != want {
			t.Errorf("codeLike(%q) = %v, want %v", s, got, want)
		}
	}
}

// "What does the --sort option do?" is answered first by the manual's own
// entry for --sort, however many shorter sentences mention the option.
func TestOptionQuestionLeadsWithItsEntry(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "tally-index(1) Manual Page", Text: "OPTIONS\n\n" +
			"--sort\n\n--no-sort\n\n" +
			"When an entry of the list begins with \"keep! …\" or \"drop! …\" and another entry of the list matches the same name, " +
			"automatically move the marked entry right after the entry it names and change its action from keep to drop or squash, " +
			"so that one run of tally index applies every marked change in order.\n\n" +
			"--quiet\n\nSuppress the summary printed at the end of the run."},
		{ID: "S2", Title: "tally-config(1) Manual Page", Text: "CONFIGURATION\n\n" +
			"index.sort: If set to true enable the --sort option of tally index by default.\n\n" +
			"index.keep: Entries kept by tally index --sort are listed first."},
	}
	_, md := synthesize(t, "What does the --sort option of tally index do?", src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "When an entry of the list begins with") {
		t.Errorf("the option's own entry does not lead:\n%s", md)
	}
}

// An enumeration answered by an option's entry quotes the entry's sentence
// that lists the values it allows.
func TestEnumerationQuotesTheValuesOfTheEntry(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "tally-init(1) Manual Page", Text: "OPTIONS\n\n" +
			"--checksum=<kind>\n\n" +
			"Specify the given checksum kind (digest algorithm) for the new store. The valid values are\n\ncrc32\n\nand (if enabled)\n\nblake3\n\n.\n\n" +
			"--quiet\n\nOnly print error and warning messages; all other output will be suppressed."},
		{ID: "S2", Title: "tally-config(1) Manual Page", Text: "CONFIGURATION\n\n" +
			"core.digest: The digest algorithm tally uses to name blocks, which older stores kept in their header.\n\n" +
			"diff.algorithm: Choose a diff algorithm. The variants are as follows:\n\n" +
			"default, myers: The basic greedy diff algorithm.\n\npatience: Use the patience diff algorithm when generating patches."},
	}
	_, md := synthesize(t, "Which digest algorithms can tally init use for new stores?", src, research.DepthStandard)
	if !strings.Contains(md, "The valid values are crc32 and (if enabled) blake3") {
		t.Errorf("the values of the option's entry are not quoted:\n%s", md)
	}
}

// The entry of another setting whose name starts like the asked one
// ("cache.sizeLimit" for "cache.size") is never quoted for it, so its
// value does not stand beside the asked setting's as if both were one.
func TestEntryOfALongerSettingIsNotQuoted(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "tally-config(1) Manual Page", Text: "CONFIGURATION\n\n" +
			"cache.size\n\nThe number of blocks the cache keeps in memory before it evicts the oldest. The default value is 6400.\n\n" +
			"cache.sizeLimit\n\nThe most blocks any one store may hold in the cache at a time. The default value is 40.\n\n" +
			"cache.sizeLog\n\nWhere the cache writes its statistics. The default value is cache.log in the store."},
	}
	_, md := synthesize(t, "What is the default value of cache.size?", src, research.DepthStandard)
	if !strings.Contains(md, "The default value is 6400.") {
		t.Errorf("the asked setting's default is missing:\n%s", md)
	}
	if strings.Contains(md, "The default value is 40.") {
		t.Errorf("cache.sizeLimit's default is quoted for cache.size:\n%s", md)
	}
}

func TestRowsAmongRowsAreStatements(t *testing.T) {
	t.Parallel()
	page := "SyslogLevel\n\nSyntax: SyslogLevel level\nDefault: SyslogLevel notice\nContext: server config\n\n" +
		"The SyslogLevel directive adjusts the verbosity of the messages recorded via syslog. The following levels are available, in order of decreasing significance:\n\n" +
		"Level | Description\n\nemerg | Emergencies (e.g. the system is unusable)\n\nalert | Action must be taken immediately\n\ncrit | Critical conditions\n\n" +
		"error | Error conditions\n\nwarn | Warning conditions\n\nnotice | Normal but significant conditions\n\ninfo | Informational\n\ndebug | Debug-level messages\n\n" +
		"See also the Log Levels docs.\n"
	p := docPool([2]string{"Tallyftp module mod_core", page})
	for _, row := range []string{"Emerg:", "Crit: Critical conditions", "Warn: Warning conditions", "Notice: Normal but significant conditions", "Info: Informational", "Debug: Debug-level messages"} {
		i := sentenceIndex(t, p, row)
		if s := p.sents[i]; !s.row || strings.Contains(s.label, "|") {
			t.Errorf("%q: row %v, label %q; want a row of SyslogLevel's table", row, s.row, s.label)
		}
	}
}
