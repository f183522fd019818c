package extractive

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// These tests cover questions of two parts ("how many …, and why …"):
// each part is a criterion of the plan that names what it is about, the
// report quotes a sentence for each, and coverage does not count a part
// answered by a sentence about something else.

// planCriteria returns the criteria the extractive planner writes for q.
func planCriteria(t *testing.T, q string) []string {
	t.Helper()
	spec, _, err := New().Plan(context.Background(), engine.PlanRequest{Question: q, Budget: research.Presets()[research.DepthStandard]})
	if err != nil {
		t.Fatal(err)
	}
	return spec.Criteria
}

// sectionOf returns the body of the report section whose heading starts
// with prefix.
func sectionOf(md, prefix string) string {
	_, rest, ok := strings.Cut(md, "## "+prefix)
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// A later part that points back at the first ("such a limit", "which
// one", "them"), leaves out its verb ("how long for …") or asks only a
// value or a reason ("and why?", "and what is the upper bound?") carries
// the first part in parentheses as its context; a part that stands on its
// own does not.
func TestPartLeansOnTheFirst(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q    string
		want string // the second criterion
	}{
		{"How many workers can a Tallyhall pool hold, and why is there such a limit?",
			"Why is there such a limit (how many workers can a Tallyhall pool hold)?"},
		{"Which compression codecs does Tallyhall ship, and which one is the default?",
			"Which one is the default (which compression codecs does Tallyhall ship)?"},
		{"How many replicas can a Tallyhall cluster have by default, and what is the upper bound?",
			"What is the upper bound (how many replicas can a Tallyhall cluster have by default)?"},
		{"What storage engine does Tallyhall pick for a new table, and why?",
			"Why (what storage engine does Tallyhall pick for a new table)?"},
		{"How long does tally prune keep snapshots by default, and how long for snapshots not referenced by any branch?",
			"How long for snapshots not referenced by any branch (how long does tally prune keep snapshots by default)?"},
		{"Are checksums verified by default in Tallyhall, and how do I turn them on?",
			"How do I turn them on (are checksums verified by default in Tallyhall)?"},
		// Stands on its own once "it" is replaced: no context.
		{"What is the default port of Tallyhall and how do I change it?",
			"How do I change the default port of Tallyhall?"},
	}
	for _, tt := range tests {
		got := planCriteria(t, tt.q)
		if len(got) < 2 || got[1] != tt.want {
			t.Errorf("%q:\n criteria %q\n want second %q", tt.q, got, tt.want)
		}
	}
}

// A leaning part is evidenced only by a sentence about what the part
// before it names: coverage does not count "and why is there such a
// limit?" answered while no fetched sentence gives that reason, and the
// report quotes the reason under the part once a source gives it.
func TestLeaningPartNeedsItsOwnSentence(t *testing.T) {
	t.Parallel()
	q := "How many workers can a Tallyhall pool hold, and why is there such a limit?"
	limit := "Limits\n\nA Tallyhall pool holds at most 32 workers. " +
		"Pools are created with the pool create command and named after their host.\n\n" +
		"Logging\n\nEach worker writes its log to the pool's log directory, rotated daily."
	reason := "Limits\n\nA Tallyhall pool holds at most 32 workers. " +
		"This limit arises from the fact that worker ids are stored in a five-bit field of every task record. " +
		"Pools are created with the pool create command and named after their host."
	spec, _, err := New().Plan(context.Background(), engine.PlanRequest{Question: q, Budget: research.Presets()[research.DepthStandard]})
	if err != nil {
		t.Fatal(err)
	}
	why := spec.Criteria[1]
	covered := func(text string) bool {
		for _, cc := range Coverage(spec, []research.Source{{ID: "S1", Title: "Pools — Tallyhall manual", Text: text}}) {
			if cc.Criterion == why {
				return len(cc.Sources) > 0
			}
		}
		t.Fatalf("no coverage for %q", why)
		return false
	}
	if covered(limit) {
		t.Errorf("%q counted covered without a reason on the page", why)
	}
	if !covered(reason) {
		t.Errorf("%q not covered by the page that gives the reason", why)
	}
	_, md := synthesize(t, q, []research.Source{{ID: "S1", Title: "Pools — Tallyhall manual", Text: reason}}, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "This limit arises from the fact that worker ids") || strings.Contains(md, research.NotStatedLead) {
		t.Errorf("the Summary does not give the reason:\n%s", md)
	}
}

// Each part of a question gets the sentence that answers it: a sentence
// that holds what another part asks ("… not referenced by any branch;
// defaults to 14 days") is not the answer to the first part, and two
// sentences that differ in their figures are not duplicates.
func TestEachPartGetsItsOwnSentence(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "tally-config(1) Manual Page", Text: "CONFIGURATION\n\n" +
			"prune.keepSnapshots, prune.<pattern>.keepSnapshots: tally prune removes snapshots older than this time and not referenced by any branch; defaults to 14 days.\n\n" +
			"prune.keepAll, prune.<pattern>.keepAll: tally prune removes snapshots older than this time; defaults to 60 days.\n\n" +
			"prune.quiet: Suppress the summary that tally prune prints when it is done."},
		{ID: "S2", Title: "tally-prune(1) Manual Page", Text: "DESCRIPTION\n\n" +
			"The prune subcommand removes old snapshots from the store. " +
			"It is usually run by tally gc rather than by hand."},
	}
	q := "How long does tally prune keep snapshots by default, and how long for snapshots not referenced by any branch?"
	_, md := synthesize(t, q, src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "defaults to 60 days") {
		t.Errorf("the first part does not lead with its own answer:\n%s", md)
	}
	if !strings.Contains(answerTo(md, 1), "defaults to 14 days") {
		t.Errorf("the second part lacks its answer:\n%s", md)
	}
}

// A list announced by a sentence ending in a colon whose entries are
// paragraphs (a bulleted list as extracted) is quoted entry by entry, and
// "which one is the default" is answered by the entry that says so in a
// short sentence of its own ("This is the default.").
func TestAnnouncedListOfParagraphs(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Compression in Tallyhall", Text: "4. Compression\n\n" +
			"Every table of a Tallyhall store may be compressed, chosen with the codec option. For example codec = 'zstd' selects a codec.\n\n" +
			"4.1 Codecs\n\n" +
			"Tallyhall features three built-in codec modules, described in the sections below:\n\n" +
			"The lz4 codec, tuned for speed. This is the default.\n\n" +
			"The zstd codec, which compresses best but uses more processor time.\n\n" +
			"The deflate codec, which stays readable by older releases of Tallyhall.\n\n" +
			"Writing your own codec is possible too, through the extension interface described later.\n\n" +
			"4.2 Codec options\n\n" +
			"A codec reads its options from the table's storage parameters when the table is opened."},
		{ID: "S2", Title: "Release notes — Tallyhall", Text: "Version 3.2\n\n" +
			"The codec of a table can now be changed by the codec option of ALTER TABLE without a rewrite."},
	}
	q := "Which built-in codecs does Tallyhall provide, and which one is the default?"
	_, md := synthesize(t, q, src, research.DepthStandard)
	first := answerTo(md, 0)
	for _, c := range []string{"The lz4 codec", "The zstd codec", "The deflate codec"} {
		if !strings.Contains(first, "- "+c) {
			t.Errorf("the list leaves out %q:\n%s", c, md)
		}
	}
	if !strings.Contains(summaryOf(md), "The lz4 codec, tuned for speed. This is the default.") || strings.Contains(md, research.NotStatedLead) {
		t.Errorf("the default is not stated with its codec:\n%s", md)
	}
}

// A short sentence that only says more of the one before it ("This is the
// default.") is quoted with it; one in a paragraph of its own is not.
func TestShortBackReferenceJoinsItsSentence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, want string
	}{
		{"The lz4 codec, tuned for speed. This is the default.\n\nThe zstd codec compresses best.", "The lz4 codec, tuned for speed. This is the default."},
		{"The deflate codec keeps old releases reading. It is optional.", "The deflate codec keeps old releases reading. It is optional."},
		{"The lz4 codec, tuned for speed.\n\nThis is the default.", "The lz4 codec, tuned for speed."},
		{"The lz4 codec, tuned for speed. This is the default one for every new table.", "The lz4 codec, tuned for speed."},
	}
	for _, tt := range tests {
		p := docPool([2]string{"Codecs", tt.text})
		i := sentenceIndex(t, p, "The ")
		if p.sents[i].text != tt.want {
			t.Errorf("%q: sentence %q, want %q", tt.text, p.sents[i].text, tt.want)
		}
	}
}

// A why-part is answered by the sentence that gives the cause or the
// advice, not by one that only names the subject; "the documentation" and
// "advise" name the source, not the subject.
func TestWhyPartQuotesTheReason(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Tallyhall Autosnapshot", Text: "1. Summary\n\n" +
			"The AUTOSNAPSHOT keyword imposes extra disk space and write overhead and should be avoided if not strictly needed. " +
			"A table declared with AUTOSNAPSHOT keeps a snapshot of every row version. " +
			"Tallyhall keeps the list of snapshots in an internal table named tally_snapshots.\n\n" +
			"2. Background\n\n" +
			"AUTOSNAPSHOT was added in version 2.0 of Tallyhall and is allowed on ordinary tables only."},
	}
	q := "Why does the Tallyhall documentation advise against AUTOSNAPSHOT, and where does Tallyhall keep the list of snapshots?"
	_, md := synthesize(t, q, src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "should be avoided if not strictly needed") {
		t.Errorf("the advice does not answer its part:\n%s", md)
	}
	if !strings.Contains(answerTo(md, 1), "internal table named tally") {
		t.Errorf("the second part lacks its answer:\n%s", md)
	}
}

// "What is the upper bound" asks for a maximum the page states as "the
// maximum number of … cannot be raised above 64".
func TestUpperBoundIsAMaximum(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Limits In Tallyhall", Text: "Maximum Number Of Replicas\n\n" +
			"A replica is a read-only copy of a Tallyhall store kept up to date by streaming. " +
			"The number of replicas of one store is limited to TALLY_MAX_REPLICAS which is set to 3 by default. " +
			"The maximum number of replicas cannot be raised above 64. " +
			"Replicas may be added and dropped while the primary runs.\n\n" +
			"Maximum Row Size\n\n" +
			"A row may hold up to 1 gigabyte of data, counting every column."},
		{ID: "S2", Title: "Replication — Tallyhall", Text: "Setting up\n\n" +
			"A new replica is created with tally replica add, which copies the store and then follows its log. " +
			"Each replica keeps its own connection to the primary."},
	}
	q := "How many replicas can a Tallyhall store have by default, and what is the upper bound?"
	_, md := synthesize(t, q, src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "set to 3 by default") {
		t.Errorf("the first part lacks its answer:\n%s", md)
	}
	if strings.Contains(md, "A replica is a read-only copy") {
		t.Errorf("a definition answers no part of a value question:\n%s", md)
	}
	if !strings.Contains(answerTo(md, 1), "cannot be raised above 64") {
		t.Errorf("the upper bound is not quoted under its part:\n%s", md)
	}
}

// In a comparison, a quoted sentence about one side brings the sentence
// of its paragraph that says the same of the other side.
func TestComparisonQuotesTheCounterpart(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "SCAN — Tallyhall manual", Text: "Description\n\n" +
			"SCAN checks the blocks of a Tallyhall archive for damage.\n\n" +
			"Quick SCAN (without DEEP) only reads the block headers and reports blocks whose header is damaged. " +
			"This form of the command can run while the archive is in use, as no exclusive lock is taken. " +
			"Archives of any size are supported. " +
			"Deep SCAN reads every block into memory and verifies its checksum against the index. " +
			"This form is much slower and holds an exclusive lock on the archive while it runs.\n\n" +
			"Parameters\n\n" +
			"DEEP: Selects deep scanning, which finds more damage than a quick scan would."},
	}
	q := "What does deep SCAN do differently from quick SCAN?"
	_, md := synthesize(t, q, src, research.DepthStandard)
	t.Logf("report:\n%s", md)
	paired := 0
	for _, sec := range strings.Split("\n"+md, "\n## ")[1:] {
		quick := strings.Contains(sec, "Quick SCAN (without DEEP) only reads the block headers")
		deep := strings.Contains(sec, "Deep SCAN reads every block into memory")
		if quick != deep {
			t.Errorf("a section quotes one side without the other:\n## %s", sec)
		}
		if quick && deep {
			paired++
		}
	}
	if paired == 0 {
		t.Errorf("no section pairs the two sides:\n%s", md)
	}
}

// "… and why?" after a figure is answered by the sentence of the figure's
// paragraph that gives the mechanism ("works by copying …"), though it
// repeats none of the asked words; a cause stated on another page about
// something else is not evidence for it.
func TestWhyPartFindsTheMechanismBesideTheFigure(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "COMPACT — Tallyhall", Text: "COMPACT\n\n" +
			"The COMPACT command rebuilds the store file, repacking it into a minimal amount of disk space.\n\n" +
			"The COMPACT command works by copying the contents of the store into a scratch file and then overwriting the original with it. " +
			"While the original is overwritten, a rollback journal is kept as for any other transaction. " +
			"This means that when compacting a store, as much as twice the size of the original store file is required in free disk space.\n\n" +
			"COMPACT may change the row ids of tables without an explicit key."},
		{ID: "S2", Title: "Memory — Tallyhall", Text: "Allocation\n\n" +
			"The allocator rounds every request up to a power of two because the free lists are kept per size class. " +
			"Freed memory is returned to the operating system when a whole page is free."},
	}
	q := "How much free disk space can COMPACT need, and why?"
	_, md := synthesize(t, q, src, research.DepthStandard)
	why := answerTo(md, 1) + sectionOf(md, "Why")
	if !strings.Contains(why, "works by copying the contents of the store into a scratch file") {
		t.Errorf("the mechanism is not quoted under the why-part:\n%s", md)
	}
	if strings.Contains(why, "rounds every request") {
		t.Errorf("a cause about something else is quoted under the why-part:\n%s", md)
	}
	if !strings.Contains(md, "twice the size of the original store file") {
		t.Errorf("the figure is missing:\n%s", md)
	}
}

// The context in parentheses does not change what the part is searched
// for: the part keeps a search of its own words, as a clause criterion
// with its topic in parentheses does.
func TestLeaningPartKeepsItsOwnSearch(t *testing.T) {
	t.Parallel()
	q := "Which compression codecs does Tallyhall ship, and which one is the default?"
	spec, _, err := New().Plan(context.Background(), engine.PlanRequest{Question: q, Budget: research.Presets()[research.DepthStandard]})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range spec.Actions {
		if a.Reason == spec.Criteria[1] && strings.Contains(a.Query, "default") && !strings.Contains(a.Query, "codecs") {
			return
		}
	}
	t.Errorf("no search of the second part's own words in %+v", spec.Actions)
}

// The announced list is found on its page even when the sentences that
// score best for the question sit in another section of that page.
func TestAnnouncedListFoundAwayFromThePicks(t *testing.T) {
	t.Parallel()
	custom := "7. Custom codecs\n\n" +
		"The built-in codecs and the custom codecs described in this section all use the same codec interface. " +
		"A custom codec is provided by an extension that registers it with Tallyhall before the first table uses it. " +
		"Before a custom codec may be provided to Tallyhall, the extension must obtain the codec table of the store. " +
		"Each built-in codec is provided through that same table, so a custom codec can wrap a built-in codec. " +
		"The set of built-in codecs provided by Tallyhall may grow in future releases.\n\n"
	src := []research.Source{
		{ID: "S1", Title: "Compression in Tallyhall", Text: "4. Compression\n\n" +
			"Tallyhall features three built-in codec modules, described in the sections below:\n\n" +
			"The lz4 codec, tuned for speed. This is the default.\n\n" +
			"The zstd codec, which compresses best but uses more processor time.\n\n" +
			"The deflate codec, which stays readable by older releases of Tallyhall.\n\n" +
			"4.1 Codec options\n\n" +
			"A codec reads its options from the table's storage parameters when the table is opened.\n\n" + custom},
	}
	_, md := synthesize(t, "Which built-in codecs does Tallyhall provide?", src, research.DepthStandard)
	for _, c := range []string{"The lz4 codec", "The zstd codec", "The deflate codec"} {
		if !strings.Contains(md, c) {
			t.Errorf("the list leaves out %q:\n%s", c, md)
		}
	}
}

func TestFrontedPhraseQualifiesTheQuestion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ msg, ask string }{
		{"By default, how many headers can a request carry before Tallyproxy rejects it?", "How many headers can a request carry before Tallyproxy rejects it, by default?"},
		{"By default, how long does the cache keep negative answers (max-neg-ttl)?", "How long does the cache keep negative answers, by default (max-neg-ttl)?"},
		{"On Debian, which port does the daemon listen on?", "Which port does the daemon listen on, on Debian?"},
		// A condition before the question, however many "and"s it holds.
		{"If a download stalls and no bytes move, how many seconds does the server wait?", "How many seconds does the server wait, if a download stalls and no bytes move?"},
		{"When I kill its processes with kill -9, how often is the scoreboard cleaned?", "How often is the scoreboard cleaned, when I kill its processes with kill -9?"},
		// A place or time before the question, however long.
		{"Inside a function that takes ..., how do I count the arguments passed?", "How do I count the arguments passed, inside a function that takes ...?"},
		{"In a numeric for loop over a table, does Tally evaluate the limit once?", "Does Tally evaluate the limit once, in a numeric for loop over a table?"},
		// Not a phrase before a question word: left as written.
		{"What is the default port, and how do I change it?", "What is the default port, and how do I change it?"},
		{"Tallyproxy and Tallyweb, how do they differ?", "Tallyproxy and Tallyweb, how do they differ?"},
	} {
		q := analyse(tc.msg)
		if q.ask != tc.ask {
			t.Errorf("analyse(%q).ask = %q, want %q", tc.msg, q.ask, tc.ask)
		}
		if (strings.HasPrefix(tc.msg, "By default") || strings.HasPrefix(tc.msg, "If")) && len(q.clauses) != 1 {
			t.Errorf("analyse(%q) splits into %q: the opening phrase is no part of its own", tc.msg, q.clauses)
		}
	}
}

func TestDifferBetweenComparesTheSides(t *testing.T) {
	t.Parallel()
	if sides, aspect := comparison("How do the base permissions differ between newly created files and newly created directories"); !slices.Equal(sides, []string{"newly created files", "newly created directories"}) || aspect != "the base permissions" {
		t.Errorf("comparison = %q, %q", sides, aspect)
	}
	page := "Umask\n\nThe Tallyftp daemon always starts with a base-mode of 0666 when creating files. " +
		"Note that Umask can only take away permissions granted by the base-mode. " +
		"This is a conscious security design decision. " +
		"For directories, a different base-mode of 0777 is used. " +
		"The umask used for directories can be configured with the second parameter of the Umask directive.\n"
	src := []research.Source{{ID: "S1", Title: "Tallyftp: Umask", Text: page}}
	_, md := synthesize(t, "How do the base permissions Tallyftp starts from before applying its Umask differ between newly created files and newly created directories?", src, research.DepthStandard)
	if sum := answerTo(md, 0); !strings.Contains(sum, "0666") || !strings.Contains(sum, "0777") {
		t.Errorf("the Summary does not give both base modes:\n%s", md)
	}
}

// An "and" between two title-case words joins the words of one name; an
// "and" between two phrases still splits the question.
func TestAndWithinANameDoesNotSplit(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]int{
		"How did Tallyland's 2019 growth compare with the projection of its Economic Recovery and Growth Plan?": 1,
		"Which towns did the Harbour Trade and Shipping Guild visit?":                                           1,
		"What is the default listen port and the maximum number of connections of Tallyweb?":                    2,
		// The last item of a series of single words.
		"How do I round a timestamp down to its day, dropping the hours, minutes and seconds, with Tallytime?": 1,
		// Examples of the one thing asked about.
		"How do I read command-line flags like -q and --log FILE in a Tally script?": 1,
		"How do I archive files such as logs and dumps with Tallypack?":              1,
		"What does a tool like tallyd do and how do I install it?":                   2,
	} {
		if got := analyse(msg).clauses; len(got) != want {
			t.Errorf("analyse(%q).clauses = %q, want %d", msg, got, want)
		}
	}
}

// The sides of "the X values may and encrypt" are the values, not the
// setting they share; sides that both name identifiers stay whole.
func TestSidesAfterASharedName(t *testing.T) {
	t.Parallel()
	for q, want := range map[string][]string{
		"What is the difference between the tls_security_level values may and encrypt in Tallymail?": {"may", "encrypt"},
		"What is the difference between max-cache-ttl and max-ncache-ttl in Tallyresolver?":          {"max-cache-ttl", "max-ncache-ttl"},
		"What is the difference between a hard link and a symbolic link?":                            {"hard link", "symbolic link"},
	} {
		if sides, _ := comparison(q); !slices.Equal(sides, want) {
			t.Errorf("comparison(%q) sides = %q, want %q", q, sides, want)
		}
	}
}

// A side of no words of its own ("may") is named only as a value is
// written, not by the verb prose uses.
func TestValueSideNamedAsAValue(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"TLS support — Tallymail", "Security levels\n\n" +
		"With tls_security_level = may, the server announces STARTTLS but does not require it.\n\n" +
		"It may however be useful to offer AUTH only over TLS."})
	sides := []string{"may", "encrypt"}
	if !(picker{p}).namesSide(sentenceIndex(t, p, "With tls_security_level = may"), sides) {
		t.Error("the sentence that sets the value may does not name the side")
	}
	if (picker{p}).namesSide(sentenceIndex(t, p, "It may however"), sides) {
		t.Error("the verb may names the side")
	}
}

// "According to X" names whose word is asked for: fronted, it is no part
// of its own; closing, its words are the question's context, not words
// a sentence must say.
func TestAttributionIsContext(t *testing.T) {
	t.Parallel()
	q := analyse("According to the Tallyfile Handbook, how long can a record's short title be?")
	if len(q.clauses) != 1 {
		t.Errorf("clauses = %q: the attribution is no part of its own", q.clauses)
	}
	if q.ask != "How long can a record's short title be, according to the Tallyfile Handbook?" {
		t.Errorf("ask = %q", q.ask)
	}
	c := newCriterion(q.ask, "", nil, nil)
	for _, w := range []string{"accord", "handbook", "tallyfil"} {
		if slices.Contains(c.core, w) {
			t.Errorf("core %v holds %q of the attribution", c.core, w)
		}
	}
	if ctx := contextWords(q.ask); !ctx["handbook"] {
		t.Errorf("context = %v, want the handbook's words", ctx)
	}
	page := "Records\n\nEvery record carries a title and a body. " +
		"Record titles must consist only of letters and digits. They must be at most forty characters long and start with a letter.\n\n" +
		"Bodies\n\nA body may hold any text. The handbook describes how bodies are stored."
	src := []research.Source{{ID: "S1", Title: "Tallyfile Handbook: Records", Text: page}}
	_, md := synthesize(t, "How short can the title of a record be, according to the Tallyfile Handbook?", src, research.DepthStandard)
	if sum := answerTo(md, 0); !strings.Contains(sum, "forty characters long") {
		t.Errorf("the Summary does not state the length:\n%s", md)
	}
}

// "How short …" asks a measure as "how long …" does: WordNet's attributes
// say which adjectives are values of a measure, and a quality asks none.
func TestQuantityAdjectivesFromWordNet(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"short", "long", "heavy", "large", "old", "many", "often"} {
		if !asksQuantity(w) {
			t.Errorf("how %s … asks no quantity", w)
		}
	}
	for _, w := range []string{"important", "good", "does", "easy"} {
		if asksQuantity(w) {
			t.Errorf("how %s … asks a quantity: %v", w, quantityHints(w))
		}
	}
	hints := quantityHints("short")
	for _, w := range []string{"length", "long"} {
		if !slices.Contains(hints, text.Stem(w)) {
			t.Errorf("quantityHints(short) = %v, want %q", hints, w)
		}
	}
	if h := quantityHints("large"); !slices.Contains(h, text.Stem("largest")) {
		t.Errorf("quantityHints(large) = %v, want the superlative", h)
	}
}

// "How do A and B differ" compares A and B; a side written as a name is
// no soft word, and the definition list's entries of the sides answer.
func TestHowDoTwoFieldsDiffer(t *testing.T) {
	t.Parallel()
	if sides, _ := comparison("How do Requires and Prefers differ for the Tallyunit manual"); !slices.Equal(sides, []string{"Requires", "Prefers"}) {
		t.Errorf("comparison = %q", sides)
	}
	page := "Dependencies\n\nA unit may declare that it needs other units, and how strongly.\n\n" +
		"Requires: This declares a hard dependency; the unit is not started without the units listed.\n\n" +
		"Prefers: A weak dependency, by contrast, starts the listed units when they are available, and their absence never stops the unit.\n\n" +
		"Conflicts: This declares that the units listed may not run together with this one.\n\n" +
		"Changes\n\nEach preferred change is discussed on the list first. The maintainers prefer proposals in writing."
	p := docPool([2]string{"Tallyunit manual", page})
	wantLabel(t, p, "This declares a hard dependency", "Requires")
	wantLabel(t, p, "A weak dependency, by contrast", "Prefers")
	src := []research.Source{{ID: "S1", Title: "Tallyunit manual", Text: page}}
	_, md := synthesize(t, "What is the difference between Requires and Prefers in the Tallyunit manual?", src, research.DepthStandard)
	if s := summaryOf(md); !strings.Contains(s, "hard dependency") || !strings.Contains(s, "weak dependency") {
		t.Errorf("the Summary does not define both sides:\n%s", md)
	}
}

// "What is the highest weight …" asks for a limit: the superlative of a
// measure (WordNet) makes the part a value question whose answer need not
// repeat it ("the maximal value is 256"); a superlative that is no
// "what is the …" value question ("what was the greatest frustration")
// keeps its word.
func TestSuperlativeAsksForALimit(t *testing.T) {
	t.Parallel()
	c := newCriterion("What is the highest weight I can give a server?", "", nil, nil)
	if c.style != styleValue || slices.Contains(c.core, text.Stem("highest")) || c.query[text.Stem("maximal")] == 0 {
		t.Errorf("style %d, core %v: want a value question ranking limits", c.style, c.core)
	}
	if c := newCriterion("What did she tell the paper was the greatest frustration of her term?", "", nil, nil); !slices.Contains(c.core, text.Stem("greatest")) {
		t.Errorf("core %v lost the superlative of a question that asks no value", c.core)
	}
	src := []research.Source{{ID: "S1", Title: "Server options", Text: "weight <weight>\n\n" +
		"The weight parameter is used to adjust the server's weight relative to other servers. " +
		"All servers will receive a load proportional to their weight, so the higher the weight, the higher the load. " +
		"The default weight is 1, and the maximal value is 256.\n\n" +
		"backup\n\nWhen backup is present on a server line, the server is only used when all other servers are unavailable."}}
	_, md := synthesize(t, "What is the highest weight I can give a server?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "256") {
		t.Errorf("the Summary does not state the limit:\n%s", md)
	}
}

// Two question phrases joined by "and" of which the first has no verb
// share the predicate of the second: each part asks it of its own noun,
// and a pronoun in the shared predicate points where the first's does,
// so the second part neither renames it nor leans on the first.
func TestCoordinatedPhrasesShareThePredicate(t *testing.T) {
	t.Parallel()
	for q, want := range map[string][]string{
		"What buffer size and what queue length does the gateway's relay module use if I give it no options?": {
			"What buffer size does the gateway's relay module use if I give it no options?",
			"What queue length does the gateway's relay module use if I give it no options?",
		},
		"On which IP address and TCP port does Tallyproxy listen for browsers?": {
			"On which IP address does Tallyproxy listen for browsers?",
			"On which TCP port does Tallyproxy listen for browsers?",
		},
	} {
		if got := planCriteria(t, q); !slices.Equal(got, want) {
			t.Errorf("%q: criteria %q, want %q", q, got, want)
		}
	}
}
