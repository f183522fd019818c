package extractive

import (
	"slices"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// summaryOf returns the report's Summary, without its heading.
func summaryOf(md string) string {
	_, rest, _ := strings.Cut(md, "## Summary\n\n")
	s, _, _ := strings.Cut(rest, "\n## ")
	return strings.TrimSpace(s)
}

// answerTo returns the Summary's answer to part k of the question (from
// 0): its k-th paragraph with the list that follows it, or "".
func answerTo(md string, k int) string {
	var paras []string
	for _, block := range strings.Split(summaryOf(md), "\n\n") {
		if strings.HasPrefix(block, "- ") && len(paras) > 0 {
			paras[len(paras)-1] += "\n" + block
			continue
		}
		paras = append(paras, block)
	}
	if k >= len(paras) {
		return ""
	}
	return paras[k]
}

// A value stated in a sentence too short to quote on its own merits ("The
// default is 2.0.") leads the answer to a value question, with the setting
// it belongs to.
func TestValueQuestionLeadsWithShortValueSentence(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

func TestEnumNoun(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"Which journal modes does Quillstore support?":                    "mode",
		"Which types of objects does Quill store?":                        "object",
		"What does quill_level control, and what do the other levels do?": "level",
		"Which storage classes does Quillstore use?":                      "class",
		"List the built-in tokenizers of Quillstore":                      "token",
		"Which merge strategy does quill use by default?":                 "",
		"What is the default value of quill_buffers?":                     "",
		"Which process does the checkpointer run in?":                     "",
	}
	for q, want := range tests {
		got := enumNoun(q)
		if want == "token" {
			want = enumNoun("Which tokenizers does it have?")
		}
		if got != want {
			t.Errorf("enumNoun(%q) = %q, want %q", q, got, want)
		}
	}
}

// An enumeration question gets every member the best source lists, each
// with its description — not the one sentence that scores best.
func TestEnumerationCollectsEveryItem(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "PRAGMA Statements — Quillstore", Text: "PRAGMA journal_mode\n\n" +
			"This pragma queries or sets the journal mode for databases associated with the current connection.\n\n" +
			"The DELETE journaling mode is the normal behavior, in which the rollback journal is deleted at the end of each transaction.\n\n" +
			"The TRUNCATE journaling mode commits transactions by truncating the rollback journal to zero-length instead of deleting it.\n\n" +
			"The PERSIST journaling mode prevents the rollback journal from being deleted at the end of each transaction.\n\n" +
			"The MEMORY journaling mode stores the rollback journal in volatile RAM.\n\n" +
			"The WAL journaling mode uses a write-ahead log instead of a rollback journal to implement transactions.\n\n" +
			"PRAGMA page_size\n\n" +
			"Query or set the page size of the database, which must be a power of two between 512 and 65536."},
		{ID: "S2", Title: "Atomic Commit In Quillstore", Text: "Overview\n\n" +
			"The rollback journal mode is the default way Quillstore makes a transaction atomic on disk."},
	}
	_, md := synthesize(t, "Which journal modes does Quillstore support?", src, research.DepthStandard)
	for _, mode := range []string{"DELETE", "TRUNCATE", "PERSIST", "MEMORY", "WAL"} {
		if !strings.Contains(md, "The "+mode+" journaling mode") {
			t.Errorf("report leaves out the %s mode:\n%s", mode, md)
		}
	}
	if strings.Contains(md, "power of two") {
		t.Errorf("report lists a sentence from another section:\n%s", md)
	}
}

// After a sentence that announces a list, the list's entries follow it.
func TestEnumerationFollowsAnnouncedList(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Datatypes In Quillstore", Text: "Storage Classes and Datatypes\n\n" +
			"Each value stored in a Quillstore database has one of the following storage classes:\n\n" +
			"NULL. The value is a NULL value.\n\n" +
			"INTEGER. The value is a signed integer, stored in 0, 1, 2, 3, 4, 6, or 8 bytes.\n\n" +
			"REAL. The value is a floating point value, stored as an 8-byte IEEE floating point number.\n\n" +
			"TEXT. The value is a text string, stored using the database encoding.\n\n" +
			"BLOB. The value is a blob of data, stored exactly as it was input."},
	}
	_, md := synthesize(t, "Which storage classes does Quillstore use for stored values?", src, research.DepthStandard)
	for _, c := range []string{"`INTEGER`", "`REAL`", "`TEXT`", "`BLOB`"} {
		if !strings.Contains(md, c) {
			t.Errorf("report leaves out %s:\n%s", c, md)
		}
	}
}

// A sentence that says "the following" introduces the definition list
// after it, though it ends in a full stop; the list ends where the page's
// footnotes begin.
func TestFollowingIntroducesTheList(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Archive", Text: "Urgencies\n\n" +
			"Each upload must name an urgency, which the archive tools read from the changelog. " +
			"The following urgency levels are recognized by the archive tools.\n\n" +
			"low: The upload can wait; it migrates after ten days.\n\n" +
			"medium: The upload migrates after five days.\n\n" +
			"high: The upload fixes a grave bug and migrates after two days.\n\n" +
			"1: Urgencies were introduced with the second archive layout.\n\n" +
			"2: See the release notes for the history of the migration delays."},
	}
	_, md := synthesize(t, "Which urgency levels can an upload have?", src, research.DepthStandard)
	for _, c := range []string{"`low`", "`medium`", "`high`"} {
		if !strings.Contains(md, c) {
			t.Errorf("report leaves out %s:\n%s", c, md)
		}
	}
	if strings.Contains(md, "second archive layout") {
		t.Errorf("the list runs on into the footnotes:\n%s", md)
	}
}

// An option's entry that goes on to list the values is quoted with them.
func TestEnumerationKeepsTheEntryThatListsValues(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "quill-init(1)", Text: "OPTIONS\n\n" +
			"--object-format=<format>: Specify the given object format (hash algorithm) for the repository. The valid values are sha1 and (if enabled) sha256. sha1 is the default.\n\n" +
			"--template=<dir>: Specify the directory from which templates will be used."},
	}
	_, md := synthesize(t, "Which hash algorithms can quill init use for object names?", src, research.DepthStandard)
	if !strings.Contains(md, "The valid values are sha1 and (if enabled) sha256.") {
		t.Errorf("report leaves out the values the entry lists:\n%s", md)
	}
}

// A sentence that draws a consequence ("For this reason, …") is quoted
// with the sentence it draws it from: the reason a why-question asks for.
func TestConsequenceCarriesItsReason(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"quill-tag(1)", "DESCRIPTION\n\n" +
		"Annotated tags are meant for release while lightweight tags are meant for private or temporary object labels. " +
		"For this reason, some quill commands for naming objects will ignore lightweight tags by default. " +
		"Tags can be listed with a pattern."})
	i := sentenceIndex(t, p, "For this reason")
	got := picker{p}.withContinuations([]int{i})
	if len(got) != 2 || !strings.HasPrefix(p.sents[got[0]].text, "Annotated tags are meant") || got[1] != i {
		t.Errorf("withContinuations = %v, want the reason before the consequence", got)
	}
}

// The sentence that announces the list anchors the enumeration even when
// other paragraphs of its section, which only mention the group, rank
// above it.
func TestEnumerationFindsTheAnnouncementAmongMentions(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Datatypes In Quillstore", Text: "Storage Classes and Datatypes\n\n" +
			"Each value stored in a Quillstore database has one of the following storage classes:\n\n" +
			"NULL. The value is a NULL value.\n\n" +
			"REAL. The value is a floating point value, stored as an 8-byte IEEE floating point number.\n\n" +
			"BLOB. The value is a blob of data, stored exactly as it was input.\n\n" +
			"A storage class is more general than a datatype, and Quillstore uses storage classes for stored values.\n\n" +
			"Any column may be used to store a value of any storage class, and stored values keep their storage class.\n\n" +
			"Quillstore does not have a separate Boolean storage class for stored values.\n\n" +
			"Quillstore does not have a storage class set aside for storing dates and times as stored values."},
	}
	_, md := synthesize(t, "Which storage classes does Quillstore use for stored values?", src, research.DepthStandard)
	for _, c := range []string{"`REAL`", "`BLOB`"} {
		if !strings.Contains(md, c) {
			t.Errorf("report leaves out %s:\n%s", c, md)
		}
	}
}

// A sentence that names the group and lists its members after a colon is
// the direct answer to an enumeration question.
func TestInlineListAnswersEnumeration(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Quillstore User Manual", Text: "The Object Database\n\n" +
			"Newly created records are initially written to a file named after the record's hash (stored in .quill/records). " +
			"All records have a statically determined kind which identifies the format of the record and how it refers to other records. " +
			"Every record is compressed and carries a header that gives its kind and its size.\n\n" +
			"Quillstore keeps each record under the name of its hash, so two stores always name the same record alike. " +
			"There are four different kinds of records: \"page\", \"index\", \"journal\", and \"marker\".\n\n" +
			"A record named in the header of another record is never removed while that record exists."},
	}
	_, md := synthesize(t, "Which kinds of records does Quillstore keep?", src, research.DepthStandard)
	if !strings.HasPrefix(summaryOf(md), "There are four different kinds of records") {
		t.Errorf("the summary does not give the listed members:\n%s", md)
	}
}

// Members each with a description, between semicolons, are a list too.
func TestSemicolonListAnswersEnumeration(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Quillstore User Manual", Text: "Concepts\n\n" +
			"A Quillstore project normally keeps its data in a hidden directory at the top of the project, next to the files it tracks. " +
			"Indicates the record name for any kind of record.\n\n" +
			"The record store holds records of three main kinds: pages, which hold the bytes of one file; indexes, which point to pages and other indexes to build up folders; and journals, which each name a single index and the journals before it.\n\n" +
			"Every record is named by the hash of its contents, so two stores always name the same record alike."},
	}
	_, md := synthesize(t, "Which kinds of records does Quillstore keep?", src, research.DepthStandard)
	if !strings.HasPrefix(summaryOf(md), "The record store holds records of three main kinds") {
		t.Errorf("the summary does not give the listed members:\n%s", md)
	}
}

// "How do I turn it on?" is answered by the manual's "activate … using the
// X statement", and a sentence that only points to another section for
// the steps does not take its place.
func TestTurnOnIsAnsweredByActivate(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Quillstore: checksums", Text: "Checksums\n\n" +
			"Section 4 describes the steps an application must take in order to enable record checksums in Quillstore (they are disabled by default). " +
			"Record checksums are used to detect pages damaged on disk.\n\n" +
			"Checksums cost a little time on every write, which is why they are off unless asked for."},
		{ID: "S2", Title: "Quillstore quirks", Text: "Quirks\n\n" +
			"To keep old stores readable, record checksums are turned off by default in Quillstore.\n\n" +
			"Applications can activate record checksums at run-time using the SET verify_pages statement. " +
			"A store opened once with checksums keeps them for every later session."},
	}
	_, md := synthesize(t, "Are record checksums used by default in Quillstore, and how do I turn them on?", src, research.DepthStandard)
	if !strings.HasPrefix(answerTo(md, 1), "Applications can activate record checksums") {
		t.Errorf("the how-to part is not answered with the manual's way to turn them on:\n%s", md)
	}
	if strings.Contains(md, "Section 4 describes") {
		t.Errorf("a pointer to another section is quoted:\n%s", md)
	}
}

func TestPhrasalVerbs(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"How do I turn them on?":          "How do I enable?",
		"how can I switch it off":         "how can I disable",
		"Turning on tracing":              "enable tracing",
		"Does the turnstile stay on top?": "Does the turnstile stay on top?",
	} {
		if got := phrasalRe.ReplaceAllStringFunc(in, phrasalVerb); got != want {
			t.Errorf("%q -> %q, want %q", in, got, want)
		}
	}
}

// A value question about "the number of columns" is answered by the
// sentence under the heading that names it, not by a figure for the
// number of something else; the items of a list a lead-in announces are
// no headings.
func TestValueOfTheMeasuredThing(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Limits In Quillstore", Text: "Maximum Number Of Columns\n\n" +
		"The QUILL_MAX_COLUMN compile-time parameter is used to set an upper bound on:\n\n" +
		"The number of columns in a table\n\n" +
		"The number of columns in an index\n\n" +
		"The number of values in an INSERT statement\n\n" +
		"The default setting for QUILL_MAX_COLUMN is 2000.\n\n" +
		"Maximum Number Of Pages\n\n" +
		"Since the maximum number of pages in a store file is 4294967294, this is also an upper bound on the number of tables in a schema."}}
	_, md := synthesize(t, "What is the default maximum number of columns in a Quillstore table?", src, research.DepthStandard)
	if !strings.HasPrefix(answerTo(md, 0), "The default setting for QUILL\\_MAX\\_COLUMN is 2000. [S1]") || strings.Contains(md, "4294967294") {
		t.Errorf("the answer is not the columns' default alone:\n%s", md)
	}
	p := docPool([2]string{src[0].Title, src[0].Text})
	if i := sentenceIndex(t, p, "The default setting"); !p.sents[i].head[text.Stem("columns")] {
		t.Errorf("the list items replaced the heading: head %v", p.sents[i].head)
	}
}

// A list the page announces for the asked group ("The following levels
// are used") answers a list question, not a table after a sentence that
// only names the group ("… grouped by level and contain the following:"),
// and the sentences beside it that merely mention the group are no
// members. A colour mark after a term ("Warn (yellow)") keeps it a term.
func TestListAnnouncedForTheGroup(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Findings — Netscope User's Guide", Text: "7.4.1. Finding Entries\n\n" +
		"Finding entries are grouped by severity level (described below) and contain the following:\n\n" +
		"Packet # | Summary | Group\n\n592 | TCP: retransmission | Sequence\n\n1202 | DNS: response | Protocol\n\n" +
		"7.4.1.1. Severity\n\n" +
		"Every finding has a severity level. The following levels are used, from lowest to highest. Netscope marks them using different colors, which are shown in parentheses:\n\n" +
		"Chat (blue): Information about usual workflow, e.g., a packet with the SYN flag set.\n\n" +
		"Note (cyan): Notable events, e.g., an application returned a common error code.\n\n" +
		"Warn (yellow): Warnings, e.g., an application returned an unusual error code.\n\n" +
		"Error (red): Serious problems, such as malformed packets.\n\n" +
		"7.4.1.2. Group\n\n" +
		"Along with severity levels, findings are categorized by group."}}
	_, md := synthesize(t, "What severity levels can a finding in Netscope have?", src, research.DepthStandard)
	sum := summaryOf(md)
	for _, want := range []string{"The following levels are used", "`Chat (blue)`", "`Note (cyan)`", "`Warn (yellow)`", "`Error (red)`"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	for _, bad := range []string{"contain the following:", "592", "categorized by group"} {
		if strings.Contains(sum, bad) {
			t.Errorf("summary quotes %q, which lists no level:\n%s", bad, md)
		}
	}
}

func TestAnnouncesGroup(t *testing.T) {
	t.Parallel()
	levels := newCriterion("Which priority levels can a package have?", "", nil, nil)
	classes := newCriterion("Which storage classes does the store offer?", "", nil, nil)
	modes := newCriterion("Which journal modes does the store support?", "", nil, nil)
	for _, tt := range []struct {
		s    string
		c    criterion
		want bool
	}{
		{"The following levels are used, from lowest to highest.", levels, true},
		{"The following priority levels are recognized.", levels, true},
		{"Entries are grouped by severity level (described below) and contain the following:", levels, false},
		{"Set it to one of two storage classes:", classes, true},
		{"Entries are grouped by level and hold these fields:", levels, false},
		{"The M parameter must be a valid checkpoint mode:", modes, false},
		{"The journal mode is one of these modes:", modes, true},
	} {
		if got := announcesGroup(tt.s, tt.c); got != tt.want {
			t.Errorf("announcesGroup(%q, %s) = %v, want %v", tt.s, tt.c.enum, got, tt.want)
		}
	}
}

// "Why does X show bad or invalid Y": a sentence that says one of the
// alternatives says what is asked, and "many" says how much, not what.
// Of two sentences with a cause marker, the one whose asked words follow
// "causes" gives the cause; "invalid sums may lead to …" gives an effect.
func TestWhyReadsAlternativesAndCauseDirection(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Checksums — Netscope User's Guide", Text: "7.10.2. Checksum offloading\n\n" +
		"As mentioned above, invalid checksums may lead to unreassembled packets, making the analysis of the packet data much harder.\n\n" +
		"Checksum offloading often causes confusion as the network packets to be transmitted are handed over to Netscope before the checksums are actually calculated. " +
		"Netscope gets these empty checksums and displays them as invalid, even though the packets will contain valid checksums when they leave the network hardware.\n\n" +
		"7.11. Time zones\n\nEvery capture stores its time stamps in UTC."}}
	_, md := synthesize(t, "Why does Netscope show bad or invalid checksums on many of the packets that my own computer sends?", src, research.DepthStandard)
	if lead := answerTo(md, 0); !strings.Contains(lead, "Checksum offloading often causes confusion") {
		t.Errorf("the answer does not give the cause:\n%s", md)
	}
	c := newCriterion("Why does Netscope show bad or invalid checksums on many of the packets?", "", nil, nil)
	pl := newPool(src, nil, nil)
	for i, s := range pl.sents {
		effect := strings.Contains(s.text, "may lead to")
		cause := strings.Contains(s.text, "often causes")
		if got := pl.givesReason(c, i); (effect || cause) && got != cause {
			t.Errorf("givesReason(%q) = %v, want %v", s.text, got, cause)
		}
	}
	if slices.Contains(c.core, text.Stem("many")) {
		t.Errorf("core %v holds the quantifier", c.core)
	}
	if got := c.alts[text.Stem("bad")]; !slices.Contains(got, text.Stem("invalid")) {
		t.Errorf("alts of bad = %v, want invalid", got)
	}
}

// "Why would I turn on X?" asks what the act is for: "X leads to Y"
// answers it though the asked words stand before the marker, while "why
// does X show Y" keeps the direction of the cause.
func TestWhyOfTheAskersActTakesWhatItLeadsTo(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Routing — Example Router Guide", Text: "6.3. Options\n\n" +
		"Turning on the stable ordering option leads to a route choice that does not depend on the order in which routes arrived.\n\n" +
		"Routes are kept in tables."}}
	pl := newPool(src, nil, nil)
	purpose := newCriterion("Why would I turn on the stable ordering option?", "", nil, nil)
	state := newCriterion("Why does the router turn on the stable ordering option?", "", nil, nil)
	if !purpose.purpose || state.purpose {
		t.Fatalf("purpose = %v, %v; want true, false", purpose.purpose, state.purpose)
	}
	for i, s := range pl.sents {
		if !strings.Contains(s.text, "leads to") {
			continue
		}
		if !pl.givesReason(purpose, i) {
			t.Errorf("givesReason(%q) for the asker's act = false, want true", s.text)
		}
		if pl.givesReason(state, i) {
			t.Errorf("givesReason(%q) for a state = true, want false", s.text)
		}
	}
}

// A program's help output in a code block, each flag on one line and what
// it does on the next, labels the description with its flags: "… with -B"
// is answered by the line under "-B <buffer size>".
func TestHelpOutputLabelsItsFlags(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "capd: Capturing packets", Text: "D.2. capd: Capturing Packets\n\n" +
		"This is the help information capd prints.\n\n" +
		"-s <snaplen>, --snapshot-length <snaplen>\npacket snapshot length (def: appropriate maximum)\n" +
		"-p, --no-promiscuous-mode\ndon't capture in promiscuous mode\n" +
		"-B <buffer size>, --buffer-size <buffer size>\nsize of kernel buffer in MiB (def: 2MiB)\n" +
		"-C <byte_limit> maximum number of bytes used for buffering packets\nwithin capd\n\n" +
		"Capd can benefit from an enabled JIT compiler if available."}}
	pl := newPool(src, nil, nil)
	labels := map[string]string{}
	for _, s := range pl.sents {
		labels[s.text] = s.label
	}
	if got := labels["size of kernel buffer in MiB (def: 2MiB)"]; got != "-B <buffer size>, --buffer-size <buffer size>" {
		t.Errorf("label of the -B line = %q", got)
	}
	if got := labels["Capd can benefit from an enabled JIT compiler if available."]; got != "" {
		t.Errorf("prose after the help output is labelled %q", got)
	}
	_, md := synthesize(t, "How big is the kernel buffer capd uses by default when I don't set one with -B?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "2MiB") {
		t.Errorf("the summary does not state the -B default:\n%s", md)
	}
}

// A short line of its own ending in a colon ("On Unix-like systems:")
// sets where the paragraphs below it hold: they read under its words.
func TestSettingLeadInQualifiesTheParagraphsBelow(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Folders — Netscope User's Guide", Text: "B.2. Configuration Folders\n\n" +
		"On Windows:\n\nThe personal configuration folder is %APPDATA%\\Netscope.\n\n" +
		"On Unix-like systems:\n\nThe personal configuration folder is $XDG_CONFIG_HOME/netscope.\n\n" +
		"Every folder may be overridden with an environment variable."}}
	pl := newPool(src, nil, nil)
	for _, s := range pl.sents {
		unix := s.head[text.Stem("unix")]
		windows := s.head[text.Stem("windows")]
		switch {
		case strings.Contains(s.text, "XDG") && (!unix || windows):
			t.Errorf("%q reads under %v, want the Unix lead-in's words", s.text, keysOf(s.head))
		case strings.Contains(s.text, "APPDATA") && (!windows || unix):
			t.Errorf("%q reads under %v, want the Windows lead-in's words", s.text, keysOf(s.head))
		case strings.HasPrefix(s.text, "On "):
			t.Errorf("the lead-in %q is quoted as a sentence", s.text)
		}
	}
}

// A sentence that says what is asked through a setting it names ("If a
// file was not seen in FILES_TTL backups, its entry is removed.") leads,
// with the sentence that states the setting's default, over a figure of
// something else that shares a word ("drops python 3.4 support").
func TestValueThroughTheSettingNamed(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Data structures — Vault internals", Text: "Files cache\n\n" +
			"Its age grows by one with every backup run that does not see it. " +
			"If a file was not seen in VAULT_FILES_TTL backups, its cache entry is removed."},
		{ID: "S2", Title: "General — Vault usage", Text: "Environment variables\n\n" +
			"VAULT_FILES_TTL: When set to a numeric value, this sets the largest age of its entries (default: 20).\n\n" +
			"VAULT_SHOW_SYSINFO: When set to no (default: yes), system information is shown."},
		{ID: "S3", Title: "Changes — Vault", Text: "Version 1.1.15\n\n1.1.15 drops python 3.4 support, minimum requirement is 3.5 now."},
	}
	_, md := synthesize(t, "By default, after how many backups in which it has not seen a file does Vault drop that file from its files cache?", src, research.DepthStandard)
	sum := summaryOf(md)
	if !strings.HasPrefix(sum, "If a file was not seen in VAULT") || !strings.Contains(sum, "(default: 20)") {
		t.Errorf("the answer is not the setting's rule with its default:\n%s", md)
	}
	if strings.Contains(sum, "python") {
		t.Errorf("the summary quotes another figure:\n%s", md)
	}
}

// A repair pass after two sentences gave different values drops the
// second, not the first, which was the better ranked answer.
func TestRepairKeepsTheFirstOfTwoValues(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Lease storage — Dhcpd manual", Text: "9.2.2.1. Lease file cleanup\n\n" +
		"lfc-interval: specifies the interval, in seconds, at which the server will perform a lease file cleanup (LFC). The default value of the lfc-interval is 3600.\n\n" +
		"max-row-errors: specifies the number of row errors before the server stops loading a lease file. The default value of 0 disables the limit."}}
	q := "How often does the Dhcpd server run its lease file cleanup by default?"
	md := "## Summary\n\nThe default value of the lfc-interval is 3600. [S1] The default value of 0 disables the limit. [S1]\n"
	v := report.Verify(md, src, nil, []string{q}, report.VerifyOptions{})
	if len(v.Contradictions) != 1 {
		t.Fatalf("want one contradiction, got %+v (failures %q)", v.Contradictions, v.Failures)
	}
	banned := bannedSentences(v.Failures, md)
	if !banned[text.Fold("The default value of 0 disables the limit.")] {
		t.Errorf("the second value is not banned: %v", banned)
	}
	if banned[text.Fold("The default value of the lfc-interval is 3600.")] {
		t.Errorf("the repair bans the answer (feedback %q)", v.Failures)
	}
}

// A run of paragraphs that each open with a key in lower case and a
// description in lower case ("lfc-interval: specifies …") is a definition
// list: each key labels its paragraph. A lone "note: …" is not.
func TestLowerCaseKeysLabelTheirParagraphs(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Lease storage — Dhcpd manual", Text: "Lease storage\n\n" +
		"The following list gives additional optional parameters that can be used to configure the memfile backend.\n\n" +
		"lfc-interval: specifies the interval, in seconds, at which the server will perform a lease file cleanup. The default value of the lfc-interval is 3600.\n\n" +
		"max-row-errors: specifies the number of row errors before the server stops loading a lease file. The default value of 0 disables the limit.\n\n" +
		"Other notes\n\nnote: this paragraph opens with a word and a colon but stands alone."}}
	pl := newPool(src, nil, nil)
	for _, s := range pl.sents {
		var want string
		switch {
		case strings.Contains(s.text, "lfc-interval is 3600"):
			want = "lfc-interval"
		case strings.Contains(s.text, "0 disables the limit"):
			want = "max-row-errors"
		case strings.Contains(s.text, "stands alone"), strings.Contains(s.text, "following list"):
		default:
			continue
		}
		if s.label != want {
			t.Errorf("label of %q = %q, want %q", s.text, s.label, want)
		}
	}
}

// A question that describes the default without the word ("when I start
// it without arguments", "when I don't set one", "unless I change it")
// asks for the default, which a manual states as "default to …".
func TestUnsetClauseAsksForTheDefault(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		q    string
		want bool
	}{
		{"Which address and port does the viewer listen on when I start it without arguments?", true},
		{"Which name does the daemon use when I don't set one in its configuration?", true},
		{"How many files go into each batch unless I change it?", true},
		{"Which key file does a server use when nothing tells it which file to read?", true},
		{"How many clients will the proxy serve at once unless I raise its limit?", true},
		{"On which port does the proxy listen out of the box?", true},
		{"If I leave idle-timeout out of my config, how long does a connection wait?", true},
		{"What length does the filter use if I give it no options?", true},
		{"Which port does the daemon use if I don't change anything?", true},
		{"How many lines does the viewer keep if I haven't changed any settings?", true},
		{"Which address does the viewer listen on?", false},
	} {
		c := newCriterion(tt.q, "", nil, nil)
		if got := slices.Contains(c.core, text.Stem("default")); got != tt.want {
			t.Errorf("%q: default in core %v = %v, want %v", tt.q, c.core, got, tt.want)
		}
		if slices.Contains(c.core, text.Stem("settings")) || slices.Contains(c.core, "one") {
			t.Errorf("%q: the settings left alone, or a pronoun, in core %v", tt.q, c.core)
		}
	}
	// "the oldest ones" names nothing by "ones".
	if c := newCriterion("How many lines does the viewer keep before the oldest ones are dropped?", "", nil, nil); slices.Contains(c.core, "one") {
		t.Errorf("the pronoun \"ones\" is in core %v", c.core)
	}
}

// A soft word that names a thing as the first word of a compound ("what
// hold time", "the supporting actor") is a word of the part, while one
// before another soft word or used as a verb stays soft.
func TestSoftWordOfACompoundIsCore(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		q    string
		word string
		core bool
	}{
		{"By default, what hold time does the router use for a peering session?", "hold", true},
		{"Who won the supporting actor prize?", "support", true},
		{"What are the key facts about the release?", "key", false},
		{"Does the rule hold for every session?", "hold", false},
	} {
		c := newCriterion(tt.q, "", nil, nil)
		if got := slices.Contains(c.core, text.Stem(tt.word)); got != tt.core {
			t.Errorf("%q: %q in core %v = %v, want %v", tt.q, tt.word, c.core, got, tt.core)
		}
	}
}

// A question for the name of a file is answered by a sentence that
// writes a file name ("prof.out.<pid>"), though it holds no figure, not
// by one that only says where else the data may go.
func TestFileNameAnswersWhatAFileIsCalled(t *testing.T) {
	t.Parallel()
	manual := "5.2 Profiling\n\n" +
		"As well as printing summary information, Profiler also writes more detailed profiling information to a file. " +
		"By default this file is named prof.out.<pid> (where <pid> is the program's process ID), but its name can be changed with the --prof-out-file option.\n\n" +
		"5.5 prof_merge Command-line Options\n\n" +
		"-o outfile: Write the profile data to outfile rather than to standard output.\n"
	src := []research.Source{{ID: "S1", Title: "Profiler: a cache profiler", Text: manual}}
	_, md := synthesize(t, "By default, what is the file called that Profiler writes its profile data to?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.Contains(got, "prof.out") {
		t.Errorf("the Summary does not name the file:\n%s", md)
	}
}

// A part that names something no page read mentions ("a Confluence
// space", "Bazel BUILD files") is stated by none of them, however much they say beside it;
// a name in the question's setting ("on Linux") need not be read.
func TestNameNoPageReadIsNotStated(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Output formats", Text: "Output formats\n\nThe tool can publish its generated pages as HTML, LaTeX and man pages. " +
			"If the SEPARATE_PAGES tag is set to YES then the tool will produce a new page for each member of a space."},
		{ID: "S2", Title: "Starting", Text: "Startup\n\nWhen the tool launches it reads the file .toolrc in the home directory, then the file named by TOOLRC."},
	}
	_, md := synthesize(t, "How can the tool publish its generated pages straight into a Confluence space?", src, research.DepthStandard)
	if s := summaryOf(md); !strings.HasPrefix(s, research.NotStatedLead) || strings.Contains(md, "[S1]") {
		t.Errorf("the report answers a question about something no page names:\n%s", md)
	}
	_, md = synthesize(t, "Which startup file does the tool read when it launches on Linux?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), ".toolrc") {
		t.Errorf("a name in the question's setting silenced the answer:\n%s", md)
	}
	// A name of several words is read only where all of them are: pages
	// that say "generated pages" name no "Bazel BUILD" files.
	src = append(src, research.Source{ID: "S3", Title: "Building", Text: "Building\n\nRun the build step to make the tool write its generated pages and their index files into the output directory."})
	_, md = synthesize(t, "How do I make the tool write Bazel BUILD files for its generated pages?", src, research.DepthStandard)
	if s := summaryOf(md); !strings.HasPrefix(s, research.NotStatedLead) || strings.Contains(md, "[S3]") {
		t.Errorf("the report answers a question about a name no page holds all of:\n%s", md)
	}
}

// A bare "Why?" after a statement takes the statement's words as its
// own: the sentence that only says them again (a FAQ entry's question)
// does not answer it alone.
func TestWhyAfterAStatementIsNotAnsweredByItsRestatement(t *testing.T) {
	t.Parallel()
	faq := "Frequently Asked Questions\n\n" +
		"How to get information on the index page in HTML?\n\nYou should use the mainpage command inside a comment block.\n\n" +
		"When I set EXTRACT_ALL to NO none of my functions are shown in the documentation.\n\n" +
		"In order for global functions, variables, enums, typedefs, and defines to be documented you should document the file in which these commands are located using a comment block containing a file command.\n\n" +
		"How can I make tally ignore some code fragment?\n\nYou can use the cond command around the fragment."
	src := append(loadSources(t), research.Source{ID: "S8", Title: "Frequently Asked Questions", Text: faq})
	_, md := synthesize(t, "I set EXTRACT_ALL to NO and now none of my global C functions appear in the generated documentation. Why?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "you should document the file") {
		t.Errorf("the Summary does not give the reason:\n%s", md)
	}
}

// A bare "Why?" after a statement is answered by the sentence a
// consequence restating the statement is drawn from ("… holds a
// half-open handle … It follows that an attempt to write to a file …
// opened by load will usually fail"), though the cause shares few of the
// statement's words.
func TestWhyIsTheCauseAConsequenceIsDrawnFrom(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", URL: "http://tally.test/io.html", Title: "Tally.IO", Text: "Tally.IO\n\n" +
		"Files and handles\n\n" +
		"The load operation reads a whole file lazily, as its text is consumed.\n\n" +
		"Warning: the load operation holds a half-open handle on the file until the entire contents of the file have been consumed. " +
		"It follows that an attempt to write to a file (using save, for example) that was earlier opened by load will usually result in failure with an in-use error.\n\n" +
		"The save operation writes a string to a file, replacing what was there.\n\n" +
		"Handles are closed when they are no longer referenced."}}
	_, md := synthesize(t, "I read a config file with load, change the text and save it back to the same path, but the write fails because the file is still in use. Why?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "half-open handle") {
		t.Errorf("the Summary does not give the cause:\n%s", md)
	}
}

// "Key: value" lines after a sentence that announces them are its list:
// each an entry of its own, quoted under it, not a box of an entry the
// first line names. A list question asks for them, whatever the
// classifier it asks with ("container types"), and whatever it leaves
// out ("Besides Row and Table"); a count whose noun phrase ends before
// the group's noun ("three primary cursors almost every container
// should provide") counts something else.
func TestAnnouncedKeyLinesAnswerAListQuestion(t *testing.T) {
	t.Parallel()
	src := append(loadSources(t), research.Source{ID: "S99", URL: "http://tally.test/containers/", Title: "Module tally::containers", Text: "Module tally::containers\n\n" +
		"Tally’s standard container library provides efficient implementations of the most common general purpose data structures.\n\n" +
		"To get this out of the way: you should probably just use Row or Table.\n\n" +
		"Tally’s containers can be grouped into four major categories:\n\n" +
		"Sequences: Row, Ring, Chain\n\nMaps: Table, Tree\n\nSets: Bag, TreeBag\n\nMisc: Heap\n\n" +
		"When Should You Use Which Container?\n\n" +
		"These are fairly high-level and quick break-downs of when each container should be considered.\n\n" +
		"The three primary cursors almost every container of the standard library should provide are walk, walk_mut, and into_walk.\n\n" +
		"walk provides a cursor of shared references to all the contents of a container in its natural order.\n\n" +
		"walk_mut provides a cursor of mutable references in the same order as walk.\n\n" +
		"into_walk turns the container itself into a cursor over its contents by value."})
	_, md := synthesize(t, "Besides Row and Table, which container types does Tally's standard library provide?", src, research.DepthStandard)
	sum := summaryOf(md)
	quotesAll(t, sum, md, "the Summary lacks", "four major categories", "`Sequences`: Row, Ring, Chain", "`Sets`: Bag, TreeBag", "`Misc`: Heap")
	if strings.Contains(sum, "walk_mut") {
		t.Errorf("the Summary lists the cursors:\n%s", md)
	}
}

// Rows of a table after a sentence that announces it ("The horizontal
// flags are:" / "Tally::AlignLeft | 0x0001 | Aligns with the left
// edge.") are no "Key: value" items: a qualified name is not a key.
func TestAnnouncedTableRowsAreNoKeyItems(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Tally Namespace", "Tally Namespace\n\n" +
		"The horizontal flags that align a widget are:\n\n" +
		"Tally::AlignLeft | 0x0001 | Aligns with the left edge.\n\n" +
		"Tally::AlignRight | 0x0002 | Aligns with the right edge.\n\n" +
		"Tally::AlignCenter | 0x0004 | Centers in the available space.\n\n" +
		"The vertical flags follow."})
	for _, s := range p.sents {
		if s.label == "Tally" {
			t.Errorf("a table row was read as an item keyed %q: %q", s.label, s.text)
		}
	}
}

// Two entries compared, their descriptions worded alike: the Summary
// quotes each side's own description, though one side's mentions the
// other's word ("… in the server's pool" of max-npool-ttl) and its
// default sits in its box.
func TestComparedEntriesEachGiveTheirDescription(t *testing.T) {
	t.Parallel()
	entry := func(name, desc, def string) string {
		return name + ": Grammar: " + name + " <duration>;\n\nBlocks: options, view\n\nTags: server\n\n" + desc + "\n\nThe default " + name + " is " + def + ".\n\n"
	}
	src := append(loadSources(t), research.Source{ID: "S99", URL: "http://tally.test/reference.html", Title: "Tally Configuration Reference", Text: "Tally Configuration Reference\n\n" +
		"The pool options\n\n" +
		entry("min-pool-ttl", "Specifies the minimum time (in seconds) that the server pools ordinary (positive) answers.", "0 (no minimum)") +
		entry("max-npool-ttl", "Specifies the maximum retention time (in seconds) for storage of negative answers in the server's pool.", "10800 seconds (3 hours)") +
		entry("max-pool-ttl", "Specifies the maximum time (in seconds) that the server pools ordinary (positive) answers.", "604800 (one week)") +
		"attach-pool: The current implementation requires the following options be consistent among these views: max-pool-ttl, max-npool-ttl and min-pool-ttl."})
	_, md := synthesize(t, "What is the difference between max-pool-ttl and max-npool-ttl in Tally?", src, research.DepthStandard)
	sum := summaryOf(md)
	quotesAll(t, sum, md, "the Summary lacks", "storage of negative answers", "pools ordinary (positive) answers")
}

// A part's closing adjunct sets the scene ("in a running Tally 4 desktop
// session"): a sentence that says the rest of the part answers it without
// the scene's words. A condition, a list or a reason has no such head.
func TestSceneOfAPartIsNotWhatItAsks(t *testing.T) {
	t.Parallel()
	p := docPool(
		[2]string{"Running and debugging Tally applications", "Running and debugging Tally applications\n\n" +
			"Tally includes an interactive debugger, called the Tally Probe, which lets you explore the widget tree of any Tally application at runtime.\n\n" +
			"To enable the Tally Probe, you can use the Control+Shift+P keyboard shortcut, or set the TALLY_DEBUG=probe environment variable."},
		[2]string{"Desktop sessions", "Desktop sessions\n\n" +
			"A desktop session starts when the user logs in. Each session runs its own compositor."},
		[2]string{"Tally 4", "Tally 4\n\nTally 4 is the current series, built on a new toolkit. Version 4 removed the old event model. Each window opens faster than it did in Tally 3, and a dialog opens in place. The built-in themes were redrawn."})
	c := newCriterion("Is there a keyboard shortcut that opens Tally's built-in probe in a running Tally 4 desktop session?", "", nil, nil)
	if want := []string{"keyboard", "shortcut", "open", "talli", "built", "probe"}; !slices.Equal(c.head, want) {
		t.Fatalf("head %v, want %v", c.head, want)
	}
	i := sentenceIndex(t, p, "To enable the Tally Probe")
	if p.coverage(c.core, i) >= coverThreshold {
		t.Fatalf("the sentence holds %.2f of the whole part: no test of the head", p.coverage(c.core, i))
	}
	if !p.isEvidence(c, i) {
		t.Errorf("%q does not answer %q", p.sents[i].text, c.text)
	}
	for _, q := range []string{
		"What happens if I run tally undefine on a guest that is still running?",
		"Which external program does the Tally mail client invoke for spell checking by default?",
		"Which transports can Tally use to reach a remote hypervisor on another machine?",
		"Why can't chrooted Tally FTP users follow symbolic links in their home directory?",
	} {
		if c := newCriterion(q, "", nil, nil); c.head != nil {
			t.Errorf("%q has head %v", q, c.head)
		}
	}
}

// A command line that substitutes commands in backticks ("$ cc
// `pkg-config --cflags tally4` hello.c …") is the command its sentence
// announces, as any other line of code is.
func TestCommandWithBackticksIsCode(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Compiling Tally applications", "Compiling Tally applications\n\n" +
		"The simplest way to compile a program is to use the backticks feature of the shell. So to compile a Tally Hello, World, you would type the following:\n\n" +
		"$ cc `pkg-config --cflags tally4` hello.c -o hello `pkg-config --libs tally4`\n\n" +
		"Deprecated Tally functions are annotated to make the compiler emit warnings when they are used."})
	if s := p.sents[sentenceIndex(t, p, "So to compile")]; !strings.Contains(s.code, "pkg-config --cflags tally4") {
		t.Errorf("sentence %q has code %q, want the command line", s.text, s.code)
	}
}

// A sentence that ends its paragraph in a colon ("If set, selects the
// renderer to use. The following renderers can be selected …:") announces
// the value lines below it, names in lower case each with its
// description ("cairo: Selects the fallback Cairo renderer"): they are
// the members of the list asked for, though the question names TLY and
// they do not.
func TestAnnouncedValueLinesAnswerAListQuestion(t *testing.T) {
	t.Parallel()
	src := append(loadSources(t), research.Source{ID: "S99", URL: "http://tally.test/running/", Title: "Running TLY applications", Text: "Running TLY applications\n\n" +
		"Environment variables\n\n" +
		"TLY_RENDERER\n\n" +
		"If set, selects the TLY renderer to use. The following renderers can be selected, provided they are included in the TLY library you are using:\n\n" +
		"help: Prints information about available options\n\n" +
		"cairo: Selects the fallback Cairo renderer\n\n" +
		"opengl: Selects the default OpenGL renderer\n\n" +
		"vulkan: Selects the Vulkan renderer\n\n" +
		"TLY_SCALE\n\n" +
		"Set this variable to 1 or 2 to override the scale factor of the window."})
	_, md := synthesize(t, "Which renderers can I pick for a TLY 4 application?", src, research.DepthStandard)
	sum := summaryOf(md)
	quotesAll(t, sum, md, "the Summary lacks", "The following renderers can be selected", "`cairo`: Selects the fallback Cairo renderer", "`vulkan`: Selects the Vulkan renderer")
}
