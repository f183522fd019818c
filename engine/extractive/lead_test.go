package extractive

import (
	"slices"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// optionsPage documents a shell's options as a definition list, one entry
// per option; AUTO_ENTER's later sentences share more words with questions
// about it than its opening does, and two other entries name it in
// passing.
const optionsPage = "Changing Directories\n\n" +
	"AUTO_ENTER (-J): If a command is issued that cannot be executed as a normal command, and the command is the name of a directory, enter that directory. " +
	"This option only applies when commands are read from standard input. " +
	"The option is designed for interactive use; it is recommended that enter be used explicitly in scripts, as auto enter scripts are ambiguous.\n\n" +
	"ENTER_VARS (-T): If the argument to an enter command (or an implied enter with the AUTO_ENTER option set) is not a directory, try to expand it as a variable.\n\n" +
	"ENTER_SILENT: Never print the working directory after an enter (whether explicit or implied with the AUTO_ENTER option set).\n\n" +
	"KEYWAIT: The time the shell waits, in hundredths of seconds, for another key to be pressed when reading bound multi-character sequences.\n"

// "What does X do?" asks nothing of the entry but what it is: its opening
// answers however well its later sentences score, and the entries that
// name it in passing are about themselves.
func TestWhatItDoesIsTheOpening(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Options — Tallyshell manual", Text: optionsPage}}
	_, md := synthesize(t, "What does the AUTO_ENTER option do?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.Contains(got, "If a command is issued that cannot be executed") ||
		strings.Index(got, "If a command is issued") > strings.Index(got, "designed for interactive use") && strings.Contains(got, "designed for interactive use") {
		t.Errorf("the Summary does not open with AUTO_ENTER's opening:\n%s", md)
	}
	for _, other := range []string{"expand it as a variable", "Never print the working directory"} {
		if strings.Contains(md, other) {
			t.Errorf("another entry that names AUTO_ENTER in passing is quoted (%q):\n%s", other, md)
		}
	}
}

// The entry of a value asked describes the thing but states no value; a
// sentence elsewhere that names it and states the value answers.
func TestValueStatedOutsideTheEntry(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Options — Tallyshell manual", Text: optionsPage},
		{ID: "S2", Title: "Line editor — Tallyshell manual", Text: "Keymaps\n\n" +
			"A key sequence may be bound to a prefix of another. " +
			"The editor waits for the rest of the sequence; this wait is set by the KEYWAIT parameter, and its default is 0.4 sec. " +
			"There is no wait if the prefix is not bound itself."},
	}
	_, md := synthesize(t, "What is the default KEYWAIT in Tallyshell?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.HasPrefix(got, "The editor waits for the rest of the sequence; this wait is set by the KEYWAIT parameter, and its default is 0.4 sec.") {
		t.Errorf("the Summary does not open with the sentence that states the default:\n%s", md)
	}
}

// A figure the question names ("set to 0") chooses, of the entry's
// sentences, the one that says what it does.
func TestQuestionFigureChoosesTheSentence(t *testing.T) {
	t.Parallel()
	page := "Directives\n\n" +
		"ChildConnectionCap\n\n" +
		"Syntax: ChildConnectionCap number\nDefault: ChildConnectionCap 0\nContext: server config\n\n" +
		"The ChildConnectionCap directive sets the limit on the number of connections that an individual child process will handle. " +
		"If ChildConnectionCap is 0, then the process will never expire. " +
		"Setting ChildConnectionCap to a non-zero value limits the memory that a process can consume by leaks, and setting it is common.\n\n" +
		"ChildCount\n\n" +
		"Syntax: ChildCount number\nDefault: ChildCount 5\nContext: server config\n\n" +
		"The ChildCount directive sets how many child processes are started.\n"
	src := []research.Source{{ID: "S1", Title: "Module tally_mpm — Tallyweb", Text: page}}
	_, md := synthesize(t, "What happens when ChildConnectionCap is set to 0?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.Contains(got, "never expire") ||
		strings.Contains(got, "non-zero") && strings.Index(got, "non-zero") < strings.Index(got, "never expire") {
		t.Errorf("the Summary does not open with what 0 does:\n%s", md)
	}
}

// A figure the question writes itself ("kill -9") is not a value the
// answer states: a sentence that only repeats it is not of the form a
// value question asks for; one that gives a figure of its own is, beside
// the asked one or not.
func TestQuestionsOwnFigureIsNoAnswer(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Tallyd: ScoreboardFile", Text: "Scrubbing the Scoreboard\n\n" +
		"Administrators would use `kill -9' on some of tallyd's session processes, which means that they would not be able to remove their entries from the scoreboard. " +
		"By default, this scrubbing process occurs every 45 seconds. " +
		"A scrub after kill -9 takes 9 to 12 milliseconds."}}
	pl := newPool(src, nil, nil)
	c := newCriterion("How often does the daemon clean stale entries out of the scoreboard after kill -9?", "", nil, nil)
	if c.style != styleValue && !c.needsNum {
		t.Fatalf("%q asks no value (style %d)", c.text, c.style)
	}
	for i, s := range pl.sents {
		want := !strings.HasPrefix(s.text, "Administrators")
		if got := (picker{pl}).answersType(c, i); got != want {
			t.Errorf("answersType(%q) = %v, want %v", s.text, got, want)
		}
	}
}

// When the asked entry states the value asked of it, what other pages say
// while naming the entry ("By default, … 1.5*$spool_size_limit") tells of
// something else: the report quotes the entry alone.
func TestStatedValueIsTheEntrys(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Tallymail parameters", Text: "spool_size_limit (10240000)\n\n" +
			"The maximal size in bytes of a spooled message, including envelope information.\n\n" +
			"bounce_notice_limit (50000)\n\n" +
			"The maximal amount of original message text that is sent in a bounce notice.\n"},
		{ID: "S2", Title: "Tallymail tuning", Text: "Queue space\n\n" +
			"By default, the Tallymail server rejects new mail when the free queue space is less than 1.5*$spool_size_limit. " +
			"NOTE: This feature raises the minimum free queue space by $spool_size_limit by default."},
	}
	_, md := synthesize(t, "What is the default spool_size_limit in Tallymail?", src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "The maximal size in bytes of a spooled message") {
		t.Errorf("the Summary does not quote the entry:\n%s", md)
	}
	if strings.Contains(md, "[S2]") {
		t.Errorf("another page's sentence that names the entry is quoted:\n%s", md)
	}
}

// A sentence that counts the members of the asked group ("Currently,
// four kinds of statistics are supported.") announces them: the next
// four entries are the list, however alike their descriptions read.
func TestCountedMembersFollow(t *testing.T) {
	t.Parallel()
	page := "Monitoring Commands\n\n" +
		"stats name…: Enables writing of statistics records. Currently, four kinds of name statistics are supported.\n\n" +
		"clockstats: Enables recording of clock driver statistics information. Each update appends a line to the file clockstats.\n\n" +
		"loopstats: Enables recording of loop filter statistics information. Each update appends a line to the file loopstats.\n\n" +
		"peerstats: Enables recording of peer statistics information. Each update appends a line to the file peerstats.\n\n" +
		"usestats: Enables recording of resource usage statistics. Each update appends a line to the file usestats.\n\n" +
		"statsdir directory_path: Indicates the full path of a directory where statistics files should be created.\n"
	src := []research.Source{{ID: "S1", Title: "Monitoring options — Tallytime", Text: page}}
	_, md := synthesize(t, "Which kinds of statistics can Tallytime's stats command record?", src, research.DepthStandard)
	for _, m := range []string{"`clockstats`", "`loopstats`", "`peerstats`", "`usestats`"} {
		if !strings.Contains(summaryOf(md), m) {
			t.Errorf("the Summary lacks the member %s:\n%s", m, md)
		}
	}
	c := criterion{enum: "bit"}
	for s, want := range map[string]int{
		"There are three more special permission bits.": 3,
		"Two bits are spare.":                           2,
		"The bits 2 and 3 are spare.":                   0,
		"There are 1.5 bits per item.":                  0,
	} {
		if got := countsMembers(c, s); got != want {
			t.Errorf("countsMembers(%q) = %d, want %d", s, got, want)
		}
	}
	if got := enumNoun("Which special permission bits besides read and write does the guide describe?"); got != "bit" {
		t.Errorf("enumNoun of a group asked 'besides' others = %q, want bit", got)
	}
}

// A product's name written before an identifier ("the Tallyshell
// AUTO_ENTER option") is the setting, not part of the identifier: the
// page that documents the option need not name the product in its text.
func TestProductNameBeforeAnIdentifier(t *testing.T) {
	t.Parallel()
	if got := entities("What does the Tallyshell AUTO_ENTER option do?"); len(got) != 2 || got[0] != "Tallyshell" || got[1] != "AUTO_ENTER" {
		t.Errorf("entities = %q, want the name and the identifier apart", got)
	}
	src := []research.Source{{ID: "S1", Title: "Options — Tallyshell manual", Text: optionsPage}}
	_, md := synthesize(t, "What does the Tallyshell AUTO_ENTER option do?", src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "If a command is issued that cannot be executed") {
		t.Errorf("the Summary does not quote AUTO_ENTER's entry:\n%s", md)
	}
}

// A table's rows are statements, however short: "990 | used as the
// default for the target archive" under "Priority | effect" is no heading,
// and is read under its table's first row, as under a heading.
func TestShortTableRowsAreStatements(t *testing.T) {
	t.Parallel()
	page := "Pinning\n\nThe priority value of each package is defined by entries in the preferences file or uses its default value.\n\n" +
		"Table 2.18. List of notable priority values for pinning.\n\n" +
		"Pin-Priority | pinning effects to the package\n\n" +
		"1001 | install the package even if this constitutes a downgrade of the package\n\n" +
		"990 | used as the default for the target release archive\n\n" +
		"500 | used as the default for the normal archive\n\n" +
		"1 | used as the default for the NotAutomatic archive\n\n" +
		"The target release archive can be set by several methods.\n\n" +
		"Table 9.12. List of notable command keys\n\n" +
		"key following Alt-SysRq | description of action\n\n" +
		"k | kill all processes on the current virtual console\n\n" +
		"u | remount all mounted filesystems read-only\n"
	p := docPool([2]string{"Tallypkg reference", page})
	i := sentenceIndex(t, p, "990: used as the default for the target release archive.")
	if s := &p.sents[i]; !s.row || !s.head["prioriti"] {
		t.Errorf("the row under the table's first row: row=%v, head %v, want a row read under Pin-Priority", s.row, s.head)
	}
	if s := &p.sents[sentenceIndex(t, p, "U: remount all mounted filesystems")]; !s.head["sysrq"] {
		t.Errorf("a row is not read under its table's first row: head %v", s.head)
	}
	src := []research.Source{{ID: "S1", Title: "Tallypkg reference", Text: page}}
	_, md := synthesize(t, "Which Pin-Priority value is used as the default for the target release archive?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "990: used as the default for the target release archive.") {
		t.Errorf("the Summary does not quote the row that answers:\n%s", md)
	}
}

func TestNothingBesideAStatedAnswer(t *testing.T) {
	t.Parallel()
	page := "Standalone modules\n\n" +
		"Tallyc has always emitted a module together with its loader script. " +
		"To emit a standalone module without the loader script, run:\n\n" +
		"tallyc -O3 add.c -o add.mod -s STANDALONE\n\n" +
		"The module then runs by itself in any runtime that supports the standard interface.\n\n" +
		"Loading it yourself\n\n" +
		"One nice thing about a standalone module is that you can write a custom loader script for it, which can be very small. " +
		"Okay, so far so good: Tallyc can emit a module with its loader script as it always did, and now it can also emit a standalone module by itself. " +
		"A standalone module without a loader script is easier to ship in a package."
	src := []research.Source{{ID: "S1", Title: "Standalone modules in Tallyc", Text: page}}
	_, md := synthesize(t, "How do you make Tallyc emit a standalone module without its loader script?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.Contains(got, "tallyc -O3 add.c -o add.mod -s STANDALONE") {
		t.Fatalf("the Summary does not give the command:\n%s", md)
	}
	quotesNone(t, md, md, "a sentence that adds nothing to the command is quoted", "so far so good", "easier to ship", "custom loader script")
}

func TestIndexRowIsAPointer(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"| ZDOTDIR: | 15.6 Parameters Used By The Shell.":          true,
		"AUTO_CD | 16.2.1 Changing Directories":                    true,
		"Emerg: Emergencies (e.g. the system is unusable).":        false,
		"The default page size is 4096 bytes.":                     false,
		"990 | used as the default for the target release archive": false,
	} {
		if got := pointerRe.MatchString(s); got != want {
			t.Errorf("pointerRe(%q) = %v, want %v", s, got, want)
		}
	}
}

// A comparison is answered by what is said of its sides: a sentence names
// a side by the words that set it apart, in its text or its entry's
// label, and one that names neither is about something else.
func TestNamesSide(t *testing.T) {
	t.Parallel()
	page := "Parameters\n\nHISTLINES: The maximum number of events stored in the internal history list.\n\n" +
		"Idioms\n\nHowever, there is a shell idiom (available in all versions since 3.0) for printing the history list with fc.\n\n" +
		"Base modes\n\nFor directories, a different base-mode of 0777 is used when new entries are created.\n"
	p := docPool([2]string{"Tallyshell manual", page})
	for _, tc := range []struct {
		prefix string
		sides  []string
		want   bool
	}{
		{"HISTLINES: The maximum number", []string{"HISTLINES", "KEEPLINES"}, true},
		{"However, there is a shell idiom", []string{"HISTLINES", "KEEPLINES"}, false},
		{"For directories, a different", []string{"newly created files", "newly created directories"}, true},
		{"However, there is a shell idiom", []string{"newly created files", "newly created directories"}, false},
	} {
		if got := (picker{p}).namesSide(sentenceIndex(t, p, tc.prefix), tc.sides); got != tc.want {
			t.Errorf("namesSide(%q, %q) = %v, want %v", tc.prefix, tc.sides, got, tc.want)
		}
	}
}

// answerFirst: once a second gives the instruction the lead, an entry's
// description, only led up to, it comes first, and what adds nothing to
// it is left out.
func TestAnswerFirst(t *testing.T) {
	t.Parallel()
	page := "Whether or not to use the local chime service. " +
		"This service rings a bell for users who asked to be told of new mail.\n\n" +
		"Specify \"chime = no\" in main.conf to disable the local chime service."
	p := docPool([2]string{"Tallymail configuration parameters", page})
	c := newCriterion("How do you disable the local chime service?", "", nil, nil)
	whether, rings, specify := sentenceIndex(t, p, "Whether or not"), sentenceIndex(t, p, "This service rings"), sentenceIndex(t, p, "Specify")
	if got := (picker{p}).answerFirst(c, []int{whether, specify, rings}); !slices.Equal(got, []int{specify}) {
		t.Errorf("answerFirst = %v, want only the instruction %d", got, specify)
	}
	if got := (picker{p}).answerFirst(c, []int{specify, whether}); !slices.Equal(got, []int{specify, whether}) {
		t.Errorf("answerFirst of a lead that gives the answer = %v, want it unchanged", got)
	}
}

// Beside an article's answer to a question of no form the engine
// recognises, a sentence adds only a word of the question the page's
// headline does not hold, or a figure or quoted term of its own beside
// half the question's words.
func TestWhatAddsToAnArticlesAnswer(t *testing.T) {
	t.Parallel()
	page := "HARBOURTON — After years of dispute, the council plans to lift the river tolls, officials said late Thursday.\n\n" +
		"A shipping historian said he was appalled that the council was lifting the tolls.\n\n" +
		"The guild's hall by the quay was built in 1832.\n\n" +
		"Harbourton is one of the busiest river ports in the region, and for years the tolls have weighed on its trade.\n\n" +
		"In return, the shipping guild will fund the dredging of the channel and repair the old lock.\n\n" +
		"The second step, which the guild calls \u201cthe long haul\u201d, will take until spring."
	p := docPool([2]string{"Harbourton to lift river tolls", page})
	c := newCriterion("What did the shipping guild agree to do in return for the lifting of the Harbourton river tolls?", "", nil, nil)
	if c.style != stylePlain {
		t.Fatalf("style %v, want plain", c.style)
	}
	answer := sentenceIndex(t, p, "In return")
	for prefix, want := range map[string]bool{
		"Harbourton is one of": false, // the headline's words again
		"A shipping historian": false,
		"The second step":      true,  // a quoted term of its own
		"The guild's hall":     false, // a figure of its own, but little of what was asked
	} {
		if got := (picker{p}).addsToAnswer(c, sentenceIndex(t, p, prefix), []int{answer}, []int{answer}); got != want {
			t.Errorf("addsToAnswer(%q) = %v, want %v", prefix, got, want)
		}
	}
}

// A sentence that says every word of what was asked, in the question's
// words or their irregular forms, and gives the figure asked states the
// answer whole.
func TestWholeStatementGivesTheAnswer(t *testing.T) {
	t.Parallel()
	page := "The Lakeside mill bought the Orchard bakery in May 2019 for $2 million, its largest purchase so far.\n\n" +
		"The mill has bought flour from the valley for decades."
	p := docPool([2]string{"A year after the deal", page})
	c := newCriterion("When did the Lakeside mill buy the Orchard bakery?", "", nil, nil)
	if !(picker{p}).givesAnswer(c, sentenceIndex(t, p, "The Lakeside mill bought")) {
		t.Errorf("the whole statement with its date does not give the answer")
	}
	if (picker{p}).givesAnswer(c, sentenceIndex(t, p, "The mill has bought")) {
		t.Errorf("a sentence that names neither the bakery nor a date gives the answer")
	}
}

// An entry's description leads up to the instruction a how-question
// asks for; once a sentence of the entry gives it, it comes first, and
// what adds nothing to it is left out.
func TestInstructionBeforeTheEntrysDescription(t *testing.T) {
	t.Parallel()
	page := "chime (default: yes)\n\n" +
		"Whether or not to use the local chime service. " +
		"This service rings a bell for users who asked to be told of new mail. " +
		"On systems with many interactive users, the chime service can slow delivery down.\n\n" +
		"Specify \"chime = no\" in main.conf to disable the local chime service.\n\n" +
		"listen_ports (default: 25)\n\n" +
		"Selectively disable listener ports by service name and type."
	src := []research.Source{{ID: "S1", Title: "Tallymail configuration parameters", Text: page}}
	_, md := synthesize(t, "How do you disable the local chime service in Tallymail?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.HasPrefix(strings.TrimLeft(got, "`chime`: "), "Specify \"chime = no\"") {
		t.Errorf("the Summary does not open with the instruction:\n%s", md)
	}
	if strings.Contains(md, "Selectively disable listener ports") {
		t.Errorf("another entry's sentence that adds nothing is quoted:\n%s", md)
	}
}

// A question of no form the engine recognises ("What did the guild agree
// to do …") is answered by what says more than the page's headline: an
// article's opening and its background, which only repeat the headline's
// words, are left out.
func TestBesideAnArticlesAnswerOnlyWhatAdds(t *testing.T) {
	t.Parallel()
	page := "HARBOURTON — After years of dispute, the council plans to lift the river tolls, officials said late Thursday.\n\n" +
		"Harbourton is one of the busiest river ports in the region, and for years the tolls have weighed on its trade.\n\n" +
		"In return, the shipping guild will fund the dredging of the channel, repair the old lock and stop blocking the quay.\n\n" +
		"A shipping historian said he was appalled that the council was lifting the tolls."
	src := []research.Source{{ID: "S1", Title: "Harbourton to lift river tolls", Text: page}}
	_, md := synthesize(t, "What did the shipping guild agree to do in return for the lifting of the Harbourton river tolls?", src, research.DepthStandard)
	s := summaryOf(md)
	if !strings.Contains(s, "In return, the shipping guild will fund the dredging") {
		t.Fatalf("the Summary does not give what the guild will do:\n%s", md)
	}
	quotesNone(t, s, md, "a sentence that only repeats the headline is quoted", "busiest river ports", "appalled")
}

// A sentence that says the whole of what was asked and gives the figure
// asked ("… bought the bakery in May 2019 for $2 million") answers it:
// beside it go only sentences that add to it, not every one that has a
// figure and a word of the question.
func TestWholeStatementWithItsFigureAnswers(t *testing.T) {
	t.Parallel()
	page := "The Lakeside mill bought the Orchard bakery in May 2019 for $2 million, its largest purchase so far. " +
		"The bakery kept its name and its staff. Customers noticed few changes at first.\n\n" +
		"While he doesn't buy flour much — he has a barn full of it — the baker, 43 years at the oven, keeps an eye on the mill's prices.\n\n" +
		"Then came the mill's delivery club, a $99-a-year programme that its owner said had passed 10,000 members."
	src := []research.Source{{ID: "S1", Title: "A year after the deal, the Orchard bakery's customers see few changes", Text: page}}
	_, md := synthesize(t, "When did the Lakeside mill buy the Orchard bakery, and for how much?", src, research.DepthStandard)
	s := summaryOf(md)
	if !strings.Contains(s, "in May 2019 for $2 million") {
		t.Fatalf("the Summary does not give the purchase:\n%s", md)
	}
	quotesNone(t, s, md, "a sentence that adds nothing to the stated answer is quoted", "barn full", "delivery club")
}

// A sentence that says every word of a "which" question but the noun it
// asks for names the answer by a member, and adds to what is quoted.
func TestSaysAllButTheAskedNoun(t *testing.T) {
	t.Parallel()
	page := "By default, the MAKE INDEX command makes hash indexes, which fit the most common situations. " +
		"An index tuple may not exceed the page size."
	p := docPool([2]string{"Tallybase indexes", page})
	c := newCriterion("Which index type does the MAKE INDEX command make by default?", "", nil, nil)
	if !p.saysAllBut(c, sentenceIndex(t, p, "By default")) {
		t.Errorf("the sentence that names the default index type does not say the question")
	}
	if p.saysAllBut(c, sentenceIndex(t, p, "An index tuple")) {
		t.Errorf("a sentence about index tuples says the question")
	}
}

// A line of the asked entry's key/value box adds to an answer only by
// what it says: "Default: index.html" adds nothing to how the search for
// an index is turned off; the entry's prose may still follow its lead.
func TestBoxLineAddsOnlyWhatItSays(t *testing.T) {
	t.Parallel()
	page := "Directives\n\nindex_list Directive\n\nSyntax: index_list disabled | local-url [local-url] ...\n" +
		"Default: index_list index.html\nContext: server config, virtual host\n\n" +
		"The index_list directive sets the list of resources to look for when the client asks for a directory. " +
		"A single argument of \"disabled\" stops the search for an index."
	p := docPool([2]string{"Module mod_dirlist — Tallyweb", page})
	c := newCriterion("How do you turn off the search for an index file with the index_list directive?", "", nil, nil)
	var def, ctx int = -1, -1
	for i, s := range p.sents {
		if s.box && strings.HasPrefix(s.text, "Default") {
			def = i
		}
		if s.box && strings.HasPrefix(s.text, "Context") {
			ctx = i
		}
	}
	if def < 0 || ctx < 0 {
		t.Fatalf("no box lines read from the entry: %+v", p.sents)
	}
	lead := sentenceIndex(t, p, "The index_list directive sets")
	for _, i := range []int{def, ctx} {
		if (picker{p}).addsToAnswer(c, i, []int{lead}, []int{lead}) {
			t.Errorf("the box line %q adds to the answer", p.sents[i].text)
		}
	}
}

// An article written a sentence to a paragraph gives the cause of what
// its opening states in the next paragraph: a why-question whose lead only
// restates what was asked takes it.
func TestWhyTakesTheNextParagraphOfAOneSentenceLead(t *testing.T) {
	t.Parallel()
	page := "This article first appeared in the Valley Courier.\n\n" +
		"In the middle of the day on Monday, the sky above Tallyville went dark.\n\n" +
		"The town, along with parts of the valley, was blanketed by smoke from fires raging in the hills, according to local reports.\n\n" +
		"Earlier this month, the county declared a state of emergency over the rising number of fires."
	src := []research.Source{{ID: "S1", Title: "The hills are on fire and the smoke can be seen from space", Text: page}}
	_, md := synthesize(t, "Why did the sky above Tallyville go dark in the middle of the day?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "blanketed by smoke") {
		t.Errorf("the Summary does not give the cause:\n%s", md)
	}
}

// A lead that counts the members asked ("… in four towns") announces
// them: the series that names them follows it, though the lead holds a
// series of something else.
func TestCountedMembersAnnounceTheirSeries(t *testing.T) {
	t.Parallel()
	page := "Tallyride isn’t waiting until the end of April to decide on its free scooter rides for nurses. " +
		"The firm has extended its Tallyride Scooter Program through May, giving free rides to nurses, cooks and drivers in four towns another month.\n\n" +
		"The program is currently available in Alden, Brill, Corran and the Dunmore metro area. " +
		"Tallyride has also promised stricter cleaning."
	p := docPool([2]string{"Tallyride extends free scooter rides", page})
	c := newCriterion("In which towns is Tallyride's free scooter program for nurses available?", "", nil, nil)
	lead := sentenceIndex(t, p, "The firm has extended")
	series := sentenceIndex(t, p, "The program is currently available")
	if got := (picker{p}).withSeries(c, []int{lead}, map[int]bool{}); !slices.Contains(got, series) {
		t.Errorf("withSeries = %v, want the towns' sentence %d after the lead", got, series)
	}
}

// A list question is answered by the sentence that names its members in
// a series; an article's opening about the same people is not.
func TestSeriesGivesAListsAnswer(t *testing.T) {
	t.Parallel()
	page := "Heads up, shippers: Hundreds of workers are striking at the Harbourton port on Tuesday.\n\n" +
		"Crane operators, lashers, tally clerks and truck marshals are asking for a $25 hourly wage."
	p := docPool([2]string{"Port workers go on strike", page})
	c := newCriterion("Which kinds of workers went on strike at the Harbourton port?", "", nil, nil)
	opening, series := sentenceIndex(t, p, "Heads up"), sentenceIndex(t, p, "Crane operators")
	if !(picker{p}).givesAnswer(c, series) {
		t.Errorf("the series of workers does not give the answer")
	}
	if (picker{p}).givesAnswer(c, opening) {
		t.Errorf("the article's opening gives the answer")
	}
	if got := (picker{p}).answerFirst(c, []int{opening, series}); len(got) == 0 || got[0] != series {
		t.Errorf("answerFirst = %v, want the series %d first", got, series)
	}
}

// tallyDirectives is a reference page with one section per directive,
// each opening with its Syntax / Default / Context box, then prose.
const tallyDirectives = "Directives\n\n" +
	"BodyCap\n\n" +
	"Syntax: BodyCap bytes\nDefault: BodyCap 1048576\nMinimum: BodyCap 1024\nContext: server config, virtual host\n\n" +
	"The BodyCap directive specifies the number of bytes that are allowed in a request body. " +
	"(The body is read into memory before a handler sees it.) " +
	"The BodyCap directive lets an administrator choose how much of it is kept.\n\n" +
	"Large uploads are common on file sharing sites. " +
	"Setting BodyCap to a value above the default lets such sites accept them, and it is common to raise it.\n\n" +
	"If BodyCap is 0, then the body is not limited at all.\n\n" +
	"ChildCount\n\n" +
	"Syntax: ChildCount number\nDefault: ChildCount 5\nContext: server config\n\n" +
	"The ChildCount directive sets how many child processes are started.\n\n" +
	"queue_depth\n\n" +
	"Units: requests\n\nDefault: 5000\n\nMinimum: 10\n\nFlags: delayed\n\n" +
	"The depth of the queue of requests each listener keeps waiting.\n\n" +
	"Raising it lets bursts through at the cost of memory.\n"

// When the question names the entry and asks its default, the box line
// is the answer: not the description that led to it, nor the sentences
// of the entry after it, which tell of other things.
func TestBoxLineAnswersTheNamedEntrysValue(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Module tally_core — Tallyweb", Text: tallyDirectives}}
	_, md := synthesize(t, "What is the default BodyCap?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.HasPrefix(got, "`BodyCap` default: BodyCap 1048576") {
		t.Errorf("the Summary does not open with the entry's default:\n%s", md)
	}
	quotesNone(t, md, md, "a sentence of the entry that does not state the default is quoted",
		"specifies the number of bytes", "read into memory", "lets an administrator choose")
	_, md = synthesize(t, "What is the default value of the queue_depth parameter?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.HasPrefix(got, "`queue_depth` default: 5000") {
		t.Errorf("the Summary does not open with the entry's default:\n%s", md)
	}
	quotesNone(t, md, md, "a sentence after the default that does not state it is quoted",
		"each listener keeps waiting", "Raising it")
}

// A second attribute asked of the entry ("the minimum") is its box's
// other line, beside the first.
func TestBoxLinesOfEveryAskedAttribute(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Module tally_core — Tallyweb", Text: tallyDirectives}}
	_, md := synthesize(t, "What are the default and the minimum value of BodyCap?", src, research.DepthStandard)
	quotesAll(t, summaryOf(md), md, "the Summary lacks an asked attribute", "default: BodyCap 1048576", "minimum: BodyCap 1024")
	quotesNone(t, md, md, "a line of the box not asked is quoted", "context: server config")
}

// A figure the question sets as its condition ("set to 0") scopes what is
// quoted beside the answer: the entry's sentence about another value is
// about the entry under another condition.
func TestQuestionFigureIsTheCondition(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Module tally_core — Tallyweb", Text: tallyDirectives}}
	_, md := synthesize(t, "What happens when BodyCap is set to 0?", src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "the body is not limited at all") {
		t.Errorf("the Summary does not say what 0 does:\n%s", md)
	}
	quotesNone(t, md, md, "a sentence about another value of the entry is quoted", "above the default", "Large uploads")
}

// boxLine returns the pool index of the box line of entry label that
// starts with key.
func boxLine(t *testing.T, p *pool, label, key string) int {
	t.Helper()
	for i, s := range p.sents {
		if s.box && s.label == label && strings.HasPrefix(s.text, key) {
			return i
		}
	}
	t.Fatalf("no box line %q of %q in pool", key, label)
	return -1
}

// Once a line of the entry's box states the value asked, the entry's
// prose and what follows the line tell of other things; another line of
// the box adds when it states another attribute the question asks for in
// its own words, not in the entry's name ("min" of "pool_min").
func TestWhatAddsBesideAStatedValue(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Module tally_core — Tallyweb", tallyDirectives})
	c := newCriterion("What is the default value of the queue_depth parameter?", "", nil, nil)
	def := boxLine(t, p, "queue_depth", "Default")
	if !(picker{p}).givesAnswer(c, def) {
		t.Fatalf("the Default line does not give the answer to %q", c.text)
	}
	for _, prefix := range []string{"The depth of the queue", "Raising it"} {
		if (picker{p}).addsToAnswer(c, sentenceIndex(t, p, prefix), []int{def}, []int{def}) {
			t.Errorf("%q adds to the stated default", prefix)
		}
	}
	if (picker{p}).addsToAnswer(c, boxLine(t, p, "queue_depth", "Minimum"), []int{def}, []int{def}) {
		t.Error("the Minimum line adds to a question that asks no minimum")
	}

	c = newCriterion("What is the default BodyCap?", "", nil, nil)
	def = boxLine(t, p, "BodyCap", "Default")
	for _, prefix := range []string{"(The body is read into memory", "The BodyCap directive lets"} {
		if (picker{p}).addsToAnswer(c, sentenceIndex(t, p, prefix), []int{def}, []int{def}) {
			t.Errorf("the entry's prose %q adds to its stated default", prefix)
		}
	}

	c = newCriterion("What are the default and the minimum value of queue_depth?", "", nil, nil)
	def = boxLine(t, p, "queue_depth", "Default")
	if !(picker{p}).addsToAnswer(c, boxLine(t, p, "queue_depth", "Minimum"), []int{def}, []int{def}) {
		t.Error("the Minimum line does not add to a question that asks the minimum")
	}
	if (picker{p}).addsToAnswer(c, boxLine(t, p, "queue_depth", "Flags"), []int{def}, []int{def}) {
		t.Error("the Flags line adds to a question that asks no flags")
	}
	if (picker{p}).addsToAnswer(c, boxLine(t, p, "BodyCap", "Minimum"), []int{def}, []int{def}) {
		t.Error("another entry's Minimum line adds to queue_depth's default")
	}
}

// A count asked in a unit ("How many bytes …") is answered by the entry's
// box line, which writes no unit, when the entry's prose names it ("the
// number of bytes that are allowed").
func TestBoxLineCountsInTheEntrysUnit(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Module tally_core — Tallyweb", Text: tallyDirectives}}
	_, md := synthesize(t, "How many bytes of a request body does BodyCap allow by default?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.HasPrefix(got, "`BodyCap` default: BodyCap 1048576") {
		t.Errorf("the Summary does not open with the entry's default:\n%s", md)
	}
}

// tallyResolver documents options named by two hyphenated words, each
// entry opening with its grammar line, then prose that states the
// default.
const tallyResolver = "Options\n\n" +
	"peer-count: Grammar: peer-count <integer>;\n\n" +
	"Blocks: options\n\n" +
	"Specifies the maximum number of simultaneous peer connections accepted by the resolver.\n\n" +
	"This is the maximum number of peer connections that the resolver accepts. The default is 150.\n\n" +
	"store: Grammar: store <string>;\n\n" +
	"Blocks: zone\n\n" +
	"Specifies the type of store used for the zone. The default is tree, Tallyresolver's native in-memory store.\n\n" +
	"pull-in: Grammar: pull-in <integer>;\n\n" +
	"Blocks: options\n\n" +
	"This is the maximum number of inbound pulls that can be running concurrently. The default value is 10. " +
	"Increasing pull-in may speed up the convergence of secondary zones, but it also may increase the load on the local system.\n"

// A name of two hyphenated words ("peer-count") is a word of prose as
// often as a name; the pages say which: an entry labelled with it is the
// entry asked, and another entry's default does not answer.
func TestLabelledTwoWordName(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Configuration reference — Tallyresolver", tallyResolver})
	c := newCriterion("Is peer-count a read-only value of the peer-count option?", "", nil, nil)
	finder{p}.labelledNames(&c)
	if !slices.Equal(c.identNames, []string{"peer-count"}) {
		t.Errorf("identNames = %q, want [peer-count] (read-only labels no entry)", c.identNames)
	}
	src := []research.Source{{ID: "S1", Title: "Configuration reference — Tallyresolver", Text: tallyResolver}}
	_, md := synthesize(t, "What is the default value of peer-count in Tallyresolver?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.Contains(got, "The default is 150.") {
		t.Errorf("the Summary does not give peer-count's default:\n%s", md)
	}
	quotesNone(t, md, md, "another entry's default is quoted", "The default is tree")
}

// A second part whose lead an earlier part quotes already ("The default
// value is 10.") is answered by another sentence of the entry that says
// what it asks.
func TestLaterPartTakesAnotherSentenceOfTheEntry(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Configuration reference — Tallyresolver", Text: tallyResolver}}
	_, md := synthesize(t, "What is the default pull-in value in Tallyresolver, and what can increasing it speed up?", src, research.DepthStandard)
	quotesAll(t, summaryOf(md), md, "the Summary lacks a part's answer", "The default value is 10.", "speed up the convergence of secondary zones")
}

// When no sentence of the asked entry says what is asked of it
// ("originally named"), a sentence beside the entry that says all of it
// leads.
func TestAnswerBesideTheEntry(t *testing.T) {
	t.Parallel()
	page := "Commands\n\n" +
		"deep-clean: Removes every cached package file and every partial download, then rebuilds the index. " +
		"It also removes the lists of packages no source offers any more.\n\n" +
		"| Note\n\n" +
		"This command was originally named purge-all for historical reasons, and tallypkg still recognizes purge-all as a synonym for deep-clean.\n\n" +
		"quick-clean: Removes only the package files that can no longer be downloaded.\n"
	src := []research.Source{{ID: "S1", Title: "tallypkg reference", Text: page}}
	_, md := synthesize(t, "What was tallypkg's deep-clean command originally named?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.HasPrefix(strings.TrimPrefix(got, "`| Note`: "), "This command was originally named purge-all") {
		t.Errorf("the Summary does not open with the note that answers:\n%s", md)
	}
}

// "Which file records …" asks for a name, as "Which file does …" does;
// the sentence that says most of what the question names the thing with
// ("the exact versions of dependencies in your project"), though every
// page says those words, names it; and its demonstrative subject ("This
// file keeps …") needs the sentence before it, which names the file.
func TestWhichThingDoesAnswerWithItsName(t *testing.T) {
	t.Parallel()
	q := "Which file records the exact versions of my project's dependencies, so that a build next month uses the same ones?"
	if !asksName(q) {
		t.Error("\"Which file records …\" does not ask for a name")
	}
	hello := "Hello, Crate!\n\nThis command creates an executable file in target/debug/hello. " +
		"Running crate build for the first time also causes Crate to create a new file at the top level: Crate.lock. " +
		"This file keeps track of the exact versions of dependencies in your project."
	game := "Programming a Guessing Game\n\nWhen you build your project for the first time, Crate figures out the versions of the dependencies and writes them to a file."
	work := "Crate Workspaces\n\nThe workspace has one lock file, so every crate in the project build uses the same version of all dependencies."
	p := newPool([]research.Source{{ID: "S1", Title: "Hello, Crate!", Text: hello}, {ID: "S2", Title: "Programming a Guessing Game", Text: game}, {ID: "S3", Title: "Crate Workspaces", Text: work}}, nil, nil)
	i := sentenceIndex(t, p, "This file keeps track")
	if c := newCriterion(q, "", nil, nil); !p.namesSubject(c, i) {
		t.Errorf("%q does not name the subject of %q", p.sents[i].text, q)
	}
	if !(picker{p}).refersBack(i) {
		t.Errorf("%q does not refer back to the sentence before it", p.sents[i].text)
	}
}

// A comparison whose lead loses every sentence, none naming either side,
// states nothing: the Summary says that no source read states it rather
// than stay empty. (Two paragraphs of the Racket documentation, MIT or
// Apache-2.0, where "let" is a stop word and "let*" no term.)
func TestEmptiedLeadSaysNothingIsStated(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Racket Documentation", URL: "https://docs.example.org/", Text: "This is an installation-specific listing. Running raco docs (or Racket Documentation on Windows or Mac OS) may open a different page with local and user-specific documentation, including documentation for installed packages. Searching or following a “top” link will go to a different starting point that includes user-specific information. [Go to user-specific start] [Forget user-specific start]"},
		{ID: "S2", Title: "3 Libraries Provided With Typed Racket", URL: "https://docs.example.org/typed.html", Text: "To adapt a Racket library not included with Typed Racket, the following steps are required:\n- Determine the data manipulated by the library, and how it will be represented in Typed Racket.\n- Specify that data in Typed Racket, using require/typed and #:opaque and/or #:struct.\n- Use the data types to import the various functions and constants of the library.\n- Provide all the relevant identifiers from the new adapter module."},
	}
	_, md := synthesize(t, "What is the difference between let and let* in Racket?", src, research.DepthStandard)
	if sum := summaryOf(md); !strings.Contains(sum, "None of the sources read states") {
		t.Errorf("the Summary is not the statement that nothing read states it:\n%s", md)
	}
}

// An entry's description lends it the value its entry states in a
// sentence of its own ("The default value is 101, …") whether or not
// that sentence is evidence itself: when it is, but ranks too low to be
// among the candidates, the description still leads as the statement of
// the value asked, not another entry's description whose value sentence
// is no evidence.
func TestDescriptionLendsItsEntrysValueSentence(t *testing.T) {
	t.Parallel()
	p := newPool([]research.Source{{ID: "S1", Title: "Configuration Manual — Tallyproxy", Text: referencePage}}, nil, nil)
	q := "By default, how many headers can an HTTP request carry before Tallyproxy rejects it with a 400 error?"
	c := newCriterion(q, "", text.Tokens(q), nil)
	r := scorer{p}.rankSection(section{heading: "Headers", criteria: []criterion{c}}, exactTerms(q), nil)
	headers := sentenceIndex(t, p, "When a request comes with a number of headers")
	value := sentenceIndex(t, p, "The default value is 101")
	buffer := sentenceIndex(t, p, "If an HTTP request is larger than")
	if !r.evidenceFor(p, c, value) {
		t.Fatalf("%q is no evidence; the case this test is about does not arise", p.sents[value].text)
	}
	// The candidates a large page gives: the two descriptions, not the
	// value sentence, which ranks far below them.
	got, tier := picker{p}.typedLead(c, r, []int{buffer, headers})
	if got != headers || tier < 2 {
		t.Errorf("typedLead = %q (tier %d), want the headers entry's description (tier 2 or more)", p.sents[got].text, tier)
	}
}

// A page states a value in a short sentence of its own between the one
// that says what it is of and the one that says how to change it; ranked
// below both, it is not among the candidates a large page gives, and yet
// it is the answer: a sentence beside a candidate that states the value
// in the asked form is weighed with them.
func TestValueBesideACandidateLeads(t *testing.T) {
	t.Parallel()
	page := "Host names\n\n" +
		"When a client sends no host name, Tallyd generates one for the client from its address and updates DNS with it. " +
		"The prefix put at the start of the host names Tallyd generates is specified by the tally-host-prefix parameter. " +
		"The default value is “tallyhost”. " +
		"To change the prefix of generated host names, set tally-host-prefix to the desired string:\n\n" +
		"Leases\n\nA lease is renewed when half of its lifetime has passed."
	p := docPool([2]string{"Tallyd — DNS updates", page})
	q := "Unless I configure a prefix, what does Tallyd put at the start of the host names it generates for clients?"
	c := newCriterion(q, "", text.Tokens(q), nil)
	r := scorer{p}.rankSection(section{heading: "Host names", criteria: []criterion{c}}, exactTerms(q), nil)
	value := sentenceIndex(t, p, "The default value is")
	change := sentenceIndex(t, p, "To change the prefix")
	generates := sentenceIndex(t, p, "When a client sends no host name")
	// The candidates a large page gives: the sentences around the value,
	// not the value sentence itself.
	if !r.relevant(value, minRelative) {
		t.Fatalf("%q is not relevant; the case this test is about does not arise", p.sents[value].text)
	}
	if got := (picker{p}).leadOf(c, r, entry{}, []int{change, generates}); got != value {
		t.Errorf("lead = %d, want %d, the sentence that states the default", got, value)
	}
}
