package extractive

import (
	"slices"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// A box line says one thing of its entry per key: "What happens when … is
// set to 0?" asks for none of Syntax, Default or Context, so the box is
// not quoted, and the entry's sentence that says what 0 does leads
// rather than its opening.
func TestBoxLinesAnswerOnlyTheirKey(t *testing.T) {
	t.Parallel()
	page := strings.Replace(directivesPage, "Caps the size of the body a client may send with one request. ",
		"Caps the size of the body a client may send with one request. The old name body_max is still read. ", 1)
	src := []research.Source{{ID: "S1", Title: "Module tally_http_core — Tallyweb", Text: page}}
	_, md := synthesize(t, "What happens when body_size_cap is set to 0?", src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "a cap of 0 turns the check off") {
		t.Errorf("the Summary does not open with what 0 does:\n%s", md)
	}
	for _, box := range []string{"syntax:", "context:", "default:"} {
		if strings.Contains(strings.ToLower(md), box) {
			t.Errorf("a box line (%s) is quoted for a question that does not ask for it:\n%s", box, md)
		}
	}
	_, md = synthesize(t, "In which contexts can the body_size_cap directive be used?", src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "`body_size_cap` context: http, server, location") {
		t.Errorf("the Summary does not quote the Context line asked for:\n%s", md)
	}
}

// An article names its subject in its opening ("… Telescope (FAST) …")
// and then calls it "the telescope": a sentence that says so answers a
// question that writes the name in capitals.
func TestCapitalNameFromThePageLead(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Giant radio dish opens to astronomers", Text: "The Wide Aperture Radio Dish (WARD) in the north has passed its final tests. " +
		"WARD will now take proposals from astronomers worldwide.\n\n" +
		"Its builders spent five years on the site. During the trial run, the telescope found more than 40 new pulsars. " +
		"Observers say the site is remote."}}
	_, md := synthesize(t, "How many pulsars did the WARD telescope find during its trial run?", src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "more than 40 new pulsars") {
		t.Errorf("the Summary does not state the count:\n%s", md)
	}
}

// A lead whose subject is what the sentence before named ("the dishes
// will …" after "… by adding 12 dishes"; "said this was the reason")
// is quoted with that sentence.
func TestLeadKeepsTheSentenceItRefersTo(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Upgrading the array", Text: "The array was finished in 2016.\n\n" +
		"Finding small planets in the wide beam is hard. But Ruiz's team wants to boost the array's resolving power by adding 12 dishes, each 4 metres wide. " +
		"Although the dishes are cheap products, together they will improve the array's spatial resolution tenfold, she says."}}
	_, md := synthesize(t, "How does Ruiz's team plan to improve the spatial resolution of the array?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "adding 12 dishes") {
		t.Errorf("the Summary quotes the lead without the sentence it refers to:\n%s", md)
	}
}

// A value is given outright only when a figure or literal follows, not
// when the sentence says what is done with it.
func TestGivesValue(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"The default suggested cache size is -2000, which means 2048000 bytes.": true,
		"The default is 64MB.": true,
		"The value of the default cache size is stored in the 4-byte integer at offset 48.": false,
		"The maximum page count is set at compile time.":                                    false,
		// A name given by default, closing the sentence.
		"By default, the viewer reports its kind to the peer as vt52.":    true,
		"By default, the viewer reports its kind as soon as it connects.": false,
		// A default in a relative clause after what the setting is for.
		"The assigned port for upload requests is 7071, which is used by default.": true,
		"The cache is 64MB, which is the default.":                                 true,
		"The port is chosen by the administrator, which is used by default.":       false,
	} {
		if got := givesValue(s); got != want {
			t.Errorf("givesValue(%q) = %v, want %v", s, got, want)
		}
	}
}

// What a figure measures is a thing, never the figure or a filler word.
func TestMeasuredSkipsValues(t *testing.T) {
	t.Parallel()
	got := measured("With a page size of 65536, this gives a database size of about 281 terabytes and a number of rows.")
	if len(got) != 1 || got[0] != "row" {
		t.Errorf("measured = %q, want [row]", got)
	}
}

// A page titled with the tool's name documents it: a sentence there
// answers about the tool's flag without repeating the tool's name.
func TestPageTitleNamesItsIdentifier(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "pack_tool", Text: "Description\n\npack_tool writes an archive of a data store.\n\n" +
			"Options\n\nThe most flexible output formats are the “bundle” format (-Fb) and the “folder” format (-Ff)."},
		{ID: "S2", Title: "Release notes", Text: "Changes\n\nAllow resetting unknown bundle parameters with reserved prefixes."},
	}
	_, md := synthesize(t, "What kind of archive does pack_tool -Fb produce?", src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "“bundle” format (-Fb)") {
		t.Errorf("the Summary does not quote the tool page's sentence on -Fb:\n%s", md)
	}
}

// A command laid out over several lines of a code block is quoted whole
// with the sentence that introduces it, not cut after its first line.
func TestCommandKeepsItsLines(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Partial indexes", "Partial Indexes\n\nTo create a partial index that suits our example, use a command such as this:\n\n" +
		"CREATE INDEX log_ip_ix ON log (ip)\nWHERE NOT (ip > inet '10.0.0.0' AND\nip < inet '10.0.0.255');\n\n" +
		"A typical query that can use this index would be a lookup of one address."})
	i := sentenceIndex(t, p, "To create a partial index")
	if want := "CREATE INDEX log_ip_ix ON log (ip) WHERE NOT (ip > inet '10.0.0.0' AND ip < inet '10.0.0.255');"; p.sents[i].code != want {
		t.Errorf("code = %q, want %q", p.sents[i].code, want)
	}
	for _, s := range p.sents {
		if strings.HasPrefix(s.text, "WHERE NOT") || strings.HasPrefix(s.text, "ip <") {
			t.Errorf("a line of the command is quoted on its own: %q", s.text)
		}
	}
}

// A definition list flattened onto lines, its names in capitals
// ("ZDOTDIR: The directory …"), is a list of entries: the entry named
// in the question answers it, and a lone "NOTE: …" (no entry within two
// paragraphs of it) is no entry.
func TestCapitalsDefinitionList(t *testing.T) {
	t.Parallel()
	page := "Parameters Used By The Shell\n\n" +
		"WORDLIST: The characters considered part of a word by the line editor, besides letters and digits. " +
		"Changing it changes where the editor stops when it moves by words, and which characters a word deletion removes along with the letters.\n\n" +
		"TIDEDIR: The directory to search for the shell's startup files, if not the home directory.\n\n" +
		"tide_paste: Many terminals can tell pasted text from typed text, and the editor uses that.\n\n" +
		"Startup files are read in a fixed order.\n\nEach file may set any of these parameters.\n\nThe next section lists the files.\n\n" +
		"NOTE: The shell reads these values at startup.\n\nThe order is described below."
	p := docPool([2]string{"Parameters", page})
	wantLabel(t, p, "The directory to search", "TIDEDIR")
	if i := sentenceIndex(t, p, "NOTE: The shell reads"); p.sents[i].label != "" {
		t.Errorf("a lone NOTE is labelled %q", p.sents[i].label)
	}
	src := []research.Source{{ID: "S1", Title: "Parameters", Text: page},
		{ID: "S2", Title: "Installing", Text: "Setup\n\nThe installer writes the parameter TIDEDIR into the startup files if the user asks it to set one."}}
	_, md := synthesize(t, "What does the TIDEDIR parameter set in the shell?", src, research.DepthStandard)
	if !strings.HasPrefix(answerTo(md, 0), "`TIDEDIR`: The directory to search") {
		t.Errorf("the Summary does not open with TIDEDIR's entry:\n%s", md)
	}
}

// A part that leans on another with a pronoun ("how do I stop tracking
// them?") is answered on the page titled with what it leans on.
func TestPronounPartOnTitledPage(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "tallyignore(5) Manual Page", Text: "DESCRIPTION\n\nA tallyignore file specifies intentionally untracked files that Tally should ignore. " +
			"Files already tracked by Tally are not affected.\n\nNOTES\n\nThe purpose of tallyignore files is to ensure that certain files not tracked by Tally remain untracked.\n\n" +
			"To stop tracking a file that is currently tracked, use tally rm --cached."},
		{ID: "S2", Title: "Tally User Manual", Text: "Line endings\n\nThis does not force normalization of text files, but does ensure that text files that you introduce to the repository are normalized when they are added.\n\n" +
			"Branches\n\nA branch is a movable pointer to a commit. Creating a branch is cheap, and switching between branches rewrites the working tree.\n\n" +
			"Merging\n\nA merge joins two histories. When both sides changed the same lines, the merge stops and asks the user to resolve the conflict.\n\n" +
			"Remotes\n\nA remote is another repository whose branches can be fetched. Pushing sends local commits to it."},
	}
	_, md := synthesize(t, "Why are files I added to .tallyignore still tracked, and how do I stop tracking them?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "tally rm --cached") {
		t.Errorf("the Summary does not say how to stop tracking:\n%s", md)
	}
}

// A short flag is every command's: "-f" of "tally clean" is not the
// "-f <file>" entry of another command's page.
func TestShortFlagOfAnotherCommand(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "tally-config(1) Manual Page", Text: "OPTIONS\n\n-f <config-file>, --file <config-file>\n\nFor writing options: write to the specified file rather than the repository config.\n\n" +
			"VARIABLES\n\nclean.requireForce: A boolean to make tally-clean do nothing unless given -f, -i or -n. Defaults to true."},
		{ID: "S2", Title: "Tally User Manual", Text: "Cleaning up\n\nUntracked files pile up in a working tree over time."},
	}
	_, md := synthesize(t, "Why does tally clean refuse to delete files unless I pass -f?", src, research.DepthStandard)
	if s := summaryOf(md); !strings.Contains(s, "requireForce") || strings.Contains(s, "write to the specified file") {
		t.Errorf("the Summary quotes another command's -f, or not the setting that requires it:\n%s", md)
	}
}

// "What is the epoch used by the time module?" asks for a definition of
// the epoch, qualified; an attribute or a value is still asked as such.
func TestDefinitionWithQualifier(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]int{
		"What is the epoch used by the time module?":   styleDefinition,
		"What is a sparse index in the store?":         styleDefinition,
		"What is the default value of cache_size?":     styleValue,
		"What is the maximum length of an identifier?": styleValue,
	} {
		if got := newCriterion(q, "", nil, nil).style; got != want {
			t.Errorf("style of %q = %d, want %d", q, got, want)
		}
	}
	src := []research.Source{{ID: "S1", Title: "time — Time access and conversions", Text: "time\n\n" +
		"The functions in this module may not handle dates and times before the epoch or far in the future. " +
		"The epoch is the point where the time starts, the return value of time.gmtime(0). It is January 1, 1970, 00:00:00 (UTC) on all platforms."}}
	_, md := synthesize(t, "What is the epoch used by the time module?", src, research.DepthStandard)
	if first, _, _ := strings.Cut(answerTo(md, 0), "[S1]"); !strings.Contains(first, "The epoch is the point where the time starts") || !strings.Contains(summaryOf(md), "January 1, 1970") {
		t.Errorf("the Summary does not open with the definition and its date:\n%s", md)
	}
}

// A run of the question's own words, small ones included, tells the
// asked case from its neighbour: "merging more than one branch", not
// "merging one branch".
func TestPhraseTellsTheAskedCase(t *testing.T) {
	t.Parallel()
	if n := longestRun(phraseWords("when merging more than one branch into it"), phraseWords("when pulling or merging more than one branch.")); n != 5 {
		t.Errorf("longestRun = %d, want 5", n)
	}
	page := "Merge strategies\n\nresolve\n\nThis can only resolve two heads using a 3-way merge algorithm. This is the default merge strategy when pulling or merging one branch.\n\n" +
		"octopus\n\nThis resolves cases with more than two heads. This is the default merge strategy when pulling or merging more than one branch.\n\n" +
		"ours\n\nThis resolves any number of heads, keeping the current tree."
	src := []research.Source{{ID: "S1", Title: "tally-merge(1) Manual Page", Text: page}}
	_, md := synthesize(t, "Which merge strategy does tally merge use by default when merging more than one branch into the current one?", src, research.DepthStandard)
	if first, _, _ := strings.Cut(answerTo(md, 0), "[S1]"); !strings.Contains(first, "octopus") {
		t.Errorf("the Summary does not open with the octopus strategy:\n%s", md)
	}
}

// The members of a list asked of one entry are not other entries'
// sentences that use the same noun.
func TestMembersOfTheAskedEntryOnly(t *testing.T) {
	t.Parallel()
	page := "Options\n\nBARE_QUAL <Z>: In a glob pattern, treat a trailing set of parentheses as a qualifier list, if it contains no ‘|’, ‘(’ or ‘~’ characters.\n\n" +
		"BRACE_SET: Expand expressions in braces which would not otherwise undergo brace expansion to an ordered list of all the characters.\n\n" +
		"CASE_PATH: If CASE_PATH is not set (the default), CASE_GLOB affects every path component, whenever a special character appears in it.\n\n" +
		"WIDE_GLOB: Treat the ‘#’, ‘~’ and ‘^’ characters as part of patterns for filename generation. (An initial unquoted ‘~’ always produces named directory expansion.)\n\n" +
		"SUBST_GLOB <C>: Treat any characters resulting from parameter expansion as being eligible for filename expansion.\n\n" +
		"MULTI_BYTE: Respect multibyte characters when found in strings. If the option is off a single byte is always treated as a single character."
	src := []research.Source{{ID: "S1", Title: "Options", Text: page}}
	_, md := synthesize(t, "Which characters does the tally WIDE_GLOB option make part of patterns?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "‘#’") {
		t.Errorf("the Summary does not list the characters:\n%s", md)
	}
	for _, other := range []string{"brace expansion", "multibyte", "qualifier list", "parameter expansion", "path component"} {
		if strings.Contains(md, other) {
			t.Errorf("another entry's sentence (%q) is listed:\n%s", other, md)
		}
	}
}

// ofAnotherEntry is what keeps members to the asked entry: a sentence
// under another option's label is another entry's, unless it names the
// asked option itself.
func TestOfAnotherEntry(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Options", "Options\n\nBRACE_SET: Expand expressions in braces to an ordered list of all the characters.\n\n" +
		"WIDE_GLOB: Treat the ‘#’, ‘~’ and ‘^’ characters as part of patterns for filename generation.\n\n" +
		"COMPLETE_STYLE: During completion the WIDE_GLOB option is in effect, so the characters ‘#’, ‘~’ and ‘^’ have special meanings."})
	c := newCriterion("Which characters does the tally WIDE_GLOB option make part of patterns?", "", nil, nil)
	for prefix, want := range map[string]bool{"Expand expressions": true, "Treat the": false, "During completion": false} {
		if got := (picker{p}).ofAnotherEntry(c, sentenceIndex(t, p, prefix)); got != want {
			t.Errorf("ofAnotherEntry(%q…) = %v, want %v", prefix, got, want)
		}
	}
}

// "… of TLSSessionTimeout in mod_tls": the module named as the setting is
// the page's title, not the entry asked about, and the entry's box needs
// not repeat it.
func TestSettingNamesNoEntry(t *testing.T) {
	t.Parallel()
	page := "Module mod_tls\n\nDirectives\n\n" +
		"TLSCipherOrder Directive\n\nSyntax: TLSCipherOrder on|off\nDefault: TLSCipherOrder off\nContext: server config, virtual host\n\n" +
		"If mod_tls is linked against a library that supports it, the server's cipher order is used by default when this is on.\n\n" +
		"TLSSessionTimeout Directive\n\nSyntax: TLSSessionTimeout seconds\nDefault: TLSSessionTimeout 300\nContext: server config, virtual host\n\n" +
		"This directive sets the timeout in seconds for the information stored in the session cache."
	src := []research.Source{{ID: "S1", Title: "Module mod_tls — Tallyweb", Text: page}}
	_, md := synthesize(t, "What is the default value of TLSSessionTimeout in mod_tls?", src, research.DepthStandard)
	if !strings.HasPrefix(answerTo(md, 0), "`TLSSessionTimeout` default: TLSSessionTimeout 300") {
		t.Errorf("the Summary does not open with the asked entry's default:\n%s", md)
	}
}

// Two entries of a definition list compared: each side's definition is
// quoted, though the terms carry marks ("LINES <S>") and an entry runs
// on in a paragraph of its own.
func TestCompareTwoEntries(t *testing.T) {
	t.Parallel()
	page := "Parameters\n\nKEEPLINES <S>: The maximum number of events stored in the internal history list. " +
		"If you use the EXPIRE_FIRST option, setting this value larger than the SAVELINES size gives a cushion for duplicates.\n\n" +
		"If this is made local, it is not implicitly set to 0, but may be explicitly set locally.\n\n" +
		"NESTDIR <S>: The default argument for the cd command, used when none is given.\n\n" +
		"ROWS: The number of rows of the terminal, set by the shell when it starts.\n\n" +
		"SAVELINES: The maximum number of history events to save in the history file when the shell exits.\n\n" +
		"SPROMPT <S>: The prompt used for spelling correction, shown before the corrected line."
	p := docPool([2]string{"Parameters", page})
	wantLabel(t, p, "The maximum number of events", "KEEPLINES <S>")
	src := []research.Source{{ID: "S1", Title: "Parameters", Text: page},
		{ID: "S2", Title: "Builtins", Text: "fc\n\nIf a second argument is given, $KEEPLINES and $SAVELINES are both set to that number. A third argument sets $SAVELINES apart from $KEEPLINES."}}
	_, md := synthesize(t, "What is the difference between KEEPLINES and SAVELINES in the shell?", src, research.DepthStandard)
	if s := summaryOf(md); !strings.Contains(s, "internal history list") || !strings.Contains(s, "save in the history file") {
		t.Errorf("the Summary does not define both sides:\n%s", md)
	}
}

// A sentence that outscores all evidence and holds nearly enough of the
// criterion's words is evidence too: it says the asked thing in words of
// its own. One that scores lower, or holds too few words, is not.
func TestNearEvidenceOutscoringAll(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Options", "History\n\nHIST_SKIP_BLANK (-g): Remove command lines from the history list when the first character on the line is a space, or when an alias contains a leading space.\n\n" +
		"Prompts\n\nThe prompt is printed before each command line is read. Its colours come from the terminal. " +
		"The right prompt is shown at the other end of the screen. A prompt may hold the time of day. Long prompts wrap onto a second row."})
	q := "How do you stop saving command lines that begin with a space in the history?"
	c := layout(research.TaskSpec{Criteria: []string{q}}, q, nil, nil)[1].criteria[0]
	near, far := sentenceIndex(t, p, "Remove command lines"), sentenceIndex(t, p, "The prompt is printed")
	if p.isEvidence(c, near) || !p.isEvidenceAt(c, near, nearCover) {
		t.Fatalf("the sentence must hold nearly, not quite, enough of the criterion's words")
	}
	scores := make([]float64, len(p.sents))
	scores[near], scores[far] = 10, 12
	r := ranking{scores: scores, strictTop: 8}
	if !r.evidenceFor(p, c, near) {
		t.Errorf("a near sentence above every piece of evidence is no evidence")
	}
	if r.evidenceFor(p, c, far) {
		t.Errorf("a sentence holding too few of the criterion's words is evidence")
	}
	r.strictTop = 11
	if r.evidenceFor(p, c, near) {
		t.Errorf("a near sentence below the best evidence is evidence")
	}
}

// "Which kinds of workers went on strike?", "In which cities is it
// available?" ask for a list, and in a news story its members are named
// in a series after the sentence that sets the scene.
func TestListAnsweredBySeries(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"Which kinds of workers went on strike at the port?":  "worker",
		"In which cities is the free ride program available?": "citi",
		"Through which channels does the worm spread?":        "channel",
	} {
		if got := enumNoun(q); got != want {
			t.Errorf("enumNoun(%q) = %q, want %q", q, got, want)
		}
	}
	src := []research.Source{{ID: "S1", Title: "Port workers go on strike", Text: "Heads up, shippers: Hundreds of workers are striking at the Harbourton port on Tuesday.\n\n" +
		"Crane operators, lashers, tally clerks and truck marshals are asking for a $25 hourly wage. Some currently make $18 an hour.\n\n" +
		"The striking workers will be joined by others protesting low wages at a noon rally outside the port."}}
	_, md := synthesize(t, "Which kinds of workers went on strike at the Harbourton port?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "Crane operators, lashers, tally clerks and truck marshals") {
		t.Errorf("the Summary does not name the strikers:\n%s", md)
	}
}

// A why-question answered in an entry: the sentence that states the
// asked effect leads, by its score rather than its form, and the next
// sentence, which says why, goes with it.
func TestWhyInAnEntryKeepsItsExplanation(t *testing.T) {
	t.Parallel()
	page := "Directives\n\nidle_wait Directive\n\nSyntax: idle_wait num[ms]\nDefault: idle_wait 5\nContext: server config, virtual host\n\n" +
		"The number of seconds the server will wait for a subsequent request before closing the connection. " +
		"By adding a postfix of ms the wait can be also set in milliseconds. " +
		"Setting idle_wait to a high value may cause performance problems in heavily loaded servers. " +
		"The higher the wait, the more server processes will be kept occupied waiting on connections with idle clients."
	src := []research.Source{{ID: "S1", Title: "Core features — Tallyweb", Text: page}}
	_, md := synthesize(t, "Why can setting idle_wait to a high value cause performance problems in Tallyweb?", src, research.DepthStandard)
	s := summaryOf(md)
	if !strings.Contains(s, "may cause performance problems") || !strings.Contains(s, "kept occupied waiting on connections with idle clients") {
		t.Errorf("the Summary does not give the effect with its reason:\n%s", md)
	}
}

// The module named as the question's setting ("in mod_tls") is no word a
// box value answers with: "Module: mod_tls" is not the asked default.
func TestSettingWordsAnswerNoBoxKey(t *testing.T) {
	t.Parallel()
	page := "Module mod_tls\n\nTLSSessionTimeout Directive\n\nDescription: Seconds before a session expires\nSyntax: TLSSessionTimeout seconds\nDefault: TLSSessionTimeout 300\n" +
		"Context: server config, virtual host\nModule: mod_tls\n\nThis directive sets the timeout in seconds for the information stored in the session cache."
	p := docPool([2]string{"Module mod_tls — Tallyweb", page})
	q := "What is the default value of TLSSessionTimeout in mod_tls?"
	p.context = contextWords(q)
	c := newCriterion(q, "", nil, nil)
	for prefix, want := range map[string]bool{"Module: mod_tls": false, "Default: TLSSessionTimeout 300": true} {
		if got := p.asksKeyOf(c, sentenceIndex(t, p, prefix)); got != want {
			t.Errorf("asksKeyOf(%q) = %v, want %v", prefix, got, want)
		}
	}
}

// An identifier that spells out what the question asks in its words
// ("default_transaction_isolation" for "which transaction isolation level
// is the default in Quillstore") is the asked entry, though the question
// never writes it; the question's setting names no entry.
func TestEntrySpelledOutByItsIdentifier(t *testing.T) {
	t.Parallel()
	page := "Client Connection Defaults\n\n" +
		"default_transaction_read_only (boolean): A read-only transaction cannot alter tables. This parameter controls the default read-only status of each new transaction. The default is off.\n\n" +
		"default_transaction_isolation (enum): Each transaction has an isolation level, which can be either “read uncommitted”, “read committed”, “repeatable read”, or “serializable”. " +
		"This parameter controls the default isolation level of each new transaction. The default is “read committed”."
	src := []research.Source{{ID: "S1", Title: "Client Connection Defaults — Quillstore manual", Text: page},
		{ID: "S2", Title: "Transaction Isolation — Quillstore manual", Text: "Transaction Isolation\n\nIn Quillstore, you can request any of the four standard transaction isolation levels, but internally only three distinct isolation levels are implemented."}}
	_, md := synthesize(t, "Which transaction isolation level is the default in Quillstore?", src, research.DepthStandard)
	if !strings.HasPrefix(answerTo(md, 0), "`default_transaction_isolation (enum)`: The default is “read committed”.") {
		t.Errorf("the Summary does not open with the default of the entry that spells the question out:\n%s", md)
	}
}

// A manual's parameter summary run into one paragraph ("name (default)
// Description.") is a row per parameter: each row is its own sentence,
// labelled with its name and default, and the label ends with the row.
func TestParameterSummaryRows(t *testing.T) {
	t.Parallel()
	body := "CONFIGURATION PARAMETERS The text below provides only a parameter summary. " +
		"lookup_sender_key (<>) The lookup key to be used in sender tables, instead of the null sender address. " +
		"address_delimiter (empty) The set of characters that can separate an email address localpart from its extension. " +
		"Available in version 2.3 and later: frozen_header (yes) Update the delivery agent's idea of the header only once. " +
		"FILES /var/spool/maildrop, maildrop queue"
	p := docPool([2]string{"local(8)", body})
	for prefix, label := range map[string]string{
		"The set of characters":       "address_delimiter (empty)",
		"The lookup key":              "lookup_sender_key (<>)",
		"Update the delivery agent's": "frozen_header (yes)",
	} {
		wantLabel(t, p, prefix, label)
	}
	src := []research.Source{{ID: "S1", Title: "local(8)", Text: body}}
	_, md := synthesize(t, "What does the address_delimiter parameter do, and what is its default?", src, research.DepthStandard)
	if !strings.HasPrefix(answerTo(md, 0), "`address_delimiter (empty)`: The set of characters") {
		t.Errorf("the Summary does not open with the parameter's row:\n%s", md)
	}
}

// A table announced as a list ("The following levels are available:")
// lists its rows as the members, though a cell ends with a full stop
// and the splitter would cut the row there.
func TestTableRowsAreMembers(t *testing.T) {
	t.Parallel()
	page := "LogMode Directive\n\nSyntax: LogMode level\nDefault: LogMode warn\nContext: server config, virtual host\n\n" +
		"LogMode adjusts the verbosity of the messages recorded in the error logs. " +
		"The following levels are available, in order of decreasing significance:\n\n" +
		"Level | Description | Example\n\n" +
		"emerg | Emergencies - system is unusable. | \"Child cannot open lock file. Exiting\"\n\n" +
		"alert | Action must be taken immediately. | \"getpwuid: could not determine user name\"\n\n" +
		"crit | Critical Conditions. | \"socket: Failed to get a socket, exiting child\"\n\n" +
		"notice | Normal but significant condition. | \"caught SIGBUS, attempting to dump core\"\n\n" +
		"When a particular level is specified, messages from all other levels of higher significance will be reported as well."
	p := docPool([2]string{"Core features — Tallyweb", page})
	if i := sentenceIndex(t, p, "Emerg: Emergencies - system is unusable;"); !p.sents[i].row {
		t.Errorf("the emerg row is not read as one row: %q", p.sents[i].text)
	}
	src := []research.Source{{ID: "S1", Title: "Core features — Tallyweb", Text: page}}
	_, md := synthesize(t, "Which log levels does the LogMode directive accept?", src, research.DepthStandard)
	for _, level := range []string{"Emerg:", "Alert:", "Crit:", "Notice:"} {
		if !strings.Contains(summaryOf(md), level) {
			t.Errorf("the Summary does not list %s:\n%s", level, md)
		}
	}
}

// An entry's name written onto the first line of its box ("cap-clients:
// Grammar: cap-clients <integer>;" over "Blocks: options") opens the entry:
// its box and the description after it, paragraphs on, are the entry's.
func TestTermOnTheBoxOpensTheEntry(t *testing.T) {
	t.Parallel()
	page := "Options\n\nwait-clients: Grammar: wait-clients <integer>;\n\nBlocks: options\n\nTags: query\n\n" +
		"Specifies the maximum number of clients waiting at once.\n\nThe default is 1000.\n\n" +
		"cap-clients: Grammar: cap-clients <integer>;\n\nBlocks: options\n\nTags: server\n\n" +
		"Specifies the maximum number of simultaneous client TCP connections accepted by the server.\n\n" +
		"This is the maximum number of simultaneous client TCP connections that the server accepts. The default is 150."
	p := docPool([2]string{"Configuration Reference", page})
	wantLabel(t, p, "This is the maximum number of simultaneous client TCP", "cap-clients")
	src := []research.Source{{ID: "S1", Title: "Configuration Reference", Text: page}}
	_, md := synthesize(t, "What is the default value of cap-clients in the server?", src, research.DepthStandard)
	if first, _, _ := strings.Cut(answerTo(md, 0), "[S1]"); !strings.Contains(first, "150") {
		t.Errorf("the Summary does not open with cap-clients' default:\n%s", md)
	}
}

// settingsPage writes each setting as its name on a line of its own, its
// description, and then a key/value box below the description
// ("Minimum: 1" / "Default: 10"), as many Sphinx references do.
const settingsPage = "Server options\n\n" +
	"read-idle-limit\n\n" +
	"Maximum idle time (in seconds) between requests on an inbound connection. " +
	"When nothing arrives for that long, the connection is closed by the server.\n\n" +
	"Minimum: 1\n\nDefault: 10\n\n" +
	"write-io-limit\n\n" +
	"Maximum time (in milliseconds) to send one message over an inbound connection. Set to 0 for infinity.\n\n" +
	"Note\n\nThe time is measured from the first byte sent.\n\n" +
	"Default: 500 (milliseconds)\n\n" +
	"lazy-start\n\n" +
	"If enabled, the server does not wait for the stores to be loaded and answers at once.\n\n" +
	"Default: off\n\n" +
	"Public servers\n\n" +
	"Note: Set the limits low on public servers.\n\n" +
	"Keep: lower limits"

// A box written after its entry's description is the entry's, as one
// above it is, though a callout ("Note") stands between them: its
// Default line answers the default of that entry, and no other entry's
// value is quoted. A section heading ends the entry.
func TestBoxAfterTheDescription(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Configuration Reference", settingsPage})
	wantBoxLine(t, p, "Default: 500", "write-io-limit")
	for _, s := range p.sents {
		if (strings.HasPrefix(s.text, "Note:") || strings.HasPrefix(s.text, "Keep:")) && s.label == "lazy-start" {
			t.Errorf("a line under another heading (%q) is read as the box of the entry above it", s.text)
		}
	}
	src := []research.Source{{ID: "S1", Title: "Configuration Reference", Text: settingsPage}}
	_, md := synthesize(t, "What is the default read-idle-limit in Tallyd?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.HasPrefix(got, "`read-idle-limit` default: 10 [S1]") {
		t.Errorf("the Summary does not open with the entry's Default line:\n%s", md)
	}
	for _, other := range []string{"500", "off"} {
		if strings.Contains(md, other) {
			t.Errorf("another entry's value (%q) is quoted:\n%s", other, md)
		}
	}
}

// An entry's name and its whole box on one line ("queue_cap Use: main
// Type: integer Default: 5", a one-row table flattened) opens the entry:
// each key is a box line of it, and the description below is its.
func TestBoxOnTheNameLine(t *testing.T) {
	t.Parallel()
	page := "Main options\n\n" +
		"queue_cap Use: main Type: integer Default: 5\n\n" +
		"This controls the maximum number of queue runner processes that the daemon can run at once.\n\n" +
		"Setting this option to zero disables the limit.\n\n" +
		"queue_only_load Use: main Type: fixed-point Default: unset\n\n" +
		"If the system load average is higher than this value, incoming messages are queued and not delivered."
	p := docPool([2]string{"Main configuration", page})
	wantBoxLine(t, p, "Default: 5", "queue_cap")
	wantLabel(t, p, "Setting this option to zero", "queue_cap")
	src := []research.Source{{ID: "S1", Title: "Main configuration", Text: page}}
	_, md := synthesize(t, "What is the default value of queue_cap?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.HasPrefix(got, "`queue_cap` default: 5 [S1]") {
		t.Errorf("the Summary does not open with the entry's Default:\n%s", md)
	}
	_, md = synthesize(t, "What type of value does the queue_only_load option take?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.HasPrefix(got, "`queue_only_load` type: fixed-point [S1]") {
		t.Errorf("the Summary does not open with the entry's Type:\n%s", md)
	}
}

// "What happens when …" about a name of hyphenated parts asks what
// happens, not for a maximum: the parts of "store-db-max-size" are no
// words of the question. The entry is found by that name, its sentences
// say what happens, and its name is written once before them.
func TestHyphenatedNameIsNoAttribute(t *testing.T) {
	t.Parallel()
	if c := newCriterion("What happens when the store reaches store-db-max-size?", "", nil, nil); c.style == styleValue || len(c.identNames) != 1 {
		t.Errorf("style %d, names %q: want no value question, one name", c.style, c.identNames)
	}
	page := "Database options\n\n" +
		"store-db-max-size\n\n" +
		"The hard limit for the store database size. There is no cleanup logic to recover from reaching this limit. " +
		"The store simply starts refusing writes across all zones.\n\n" +
		"Default: 20G\n\n" +
		"cache-db-max-size\n\n" +
		"The hard limit for the cache database size. Old entries are evicted when it is reached.\n\n" +
		"Default: 1G"
	src := []research.Source{{ID: "S1", Title: "Configuration Reference", Text: page}}
	_, md := synthesize(t, "What happens when the store reaches store-db-max-size?", src, research.DepthStandard)
	sum := answerTo(md, 0)
	if !strings.Contains(sum, "refusing writes") || strings.Contains(md, "evicted") {
		t.Errorf("the Summary does not say what happens, from the asked entry only:\n%s", md)
	}
	if n := strings.Count(sum, "`store-db-max-size`"); n != 1 {
		t.Errorf("the entry's name is written %d times in one paragraph:\n%s", n, md)
	}
}

// A sentence states an attribute of the identifier asked when it writes
// the identifier, or its parts as words in a row ("the default cache
// size"); the parts spread over other settings' names ("pool_low …
// pool_high … maximum") do not name "pool_max".
func TestAttributeOfTheNamedIdentifier(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Tuning", "Tuning\n\n" +
		"On a running server the show command displays the actual minimum or maximum of pool_low and pool_high.\n\n" +
		"The default suggested pool size is 2000, which limits the pool to 2 MB.\n\n" +
		"The default pool_max is 500."})
	c := newCriterion("What is the default value of pool_max?", "", nil, nil)
	for prefix, want := range map[string]bool{
		"On a running server":             false,
		"The default pool_max is 500.":    true,
		"The default suggested pool size": false,
	} {
		if got := p.statesAttribute(c, sentenceIndex(t, p, prefix)); got != want {
			t.Errorf("statesAttribute(%q) = %v, want %v", prefix, got, want)
		}
	}
	c = newCriterion("What is the default value of pool_size?", "", nil, nil)
	if !p.statesAttribute(c, sentenceIndex(t, p, "The default suggested pool size")) {
		t.Errorf("the parts of pool_size written as words do not name it")
	}
}

// A label names what each of its comma-separated parts starts with: "200
// pool_min", a line of a command's printed output, is no entry of pool_min,
// and "pool_min overflows" names a counter after pool_min, not pool_min.
func TestLabelNamesItsFirstTerms(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		label, name string
		want        bool
	}{
		{"pool_min", "pool_min", true},
		{"--sort, --no-sort", "--no-sort", true},
		{"`pool_min` (integer)", "pool_min", true},
		{"200 pool_min", "pool_min", false},
		{"pool_max minimum", "minimum", false},
		{"pool_min overflows", "pool_min", false},
		{"pool_min (default: 5 days)", "pool_min", true},
		{"-t, --timeout seconds", "--timeout", true},
	} {
		if got := labelNames(tt.label, tt.name); got != tt.want {
			t.Errorf("labelNames(%q, %q) = %v, want %v", tt.label, tt.name, got, tt.want)
		}
	}
}

// An entry that lists its values as paragraphs of their own ("robust –
// …", "1 - Issue warning.") after a lead-in keeps them: "What are the
// possible values of X?" and "Which behaviours can X select?" are
// answered by that list, short items included, without the entry's name
// on every item.
func TestEntryListsItsOwnValues(t *testing.T) {
	t.Parallel()
	page := "Database options\n\n" +
		"store-sync-mode\n\n" +
		"Specifies the store backend configuration, which influences performance and durability.\n\n" +
		"Possible values:\n\n" +
		"robust – The store disk synchronization ensures durability but is generally slower.\n\n" +
		"asynchronous – The store disk synchronization is optimized for better performance.\n\n" +
		"Default: robust\n\n" +
		"over_limit_action\n\n" +
		"Default: 1\n\nMinimum: 0\n\n" +
		"Behaviour when attempting to exceed the loaded program limit.\n\n" +
		"0 - Ignore the limit.\n\n1 - Issue warning.\n\n2 - Refuse loading programs.\n\n" +
		"store-cache-size\n\n" +
		"Possible values:\n\n" +
		"small – A cache of one megabyte.\n\nlarge – A cache of one gigabyte."
	src := []research.Source{{ID: "S1", Title: "Configuration Reference", Text: page}}
	_, md := synthesize(t, "What are the possible values of store-sync-mode?", src, research.DepthStandard)
	sum := answerTo(md, 0)
	for _, want := range []string{"- robust – The store disk", "- asynchronous – The store disk"} {
		if !strings.Contains(md, want) {
			t.Errorf("the entry's value %q is not listed:\n%s", want, md)
		}
	}
	if strings.Contains(md, "small –") || strings.Count(md, "`store-sync-mode`") != 1 {
		t.Errorf("another entry's values are listed, or the name is repeated:\n%s\n%s", md, sum)
	}
	_, md = synthesize(t, "Which behaviours can over_limit_action select?", src, research.DepthStandard)
	for _, want := range []string{"0 - Ignore the limit.", "1 - Issue warning.", "2 - Refuse loading programs."} {
		if !strings.Contains(md, want) {
			t.Errorf("the item %q is not quoted:\n%s", want, md)
		}
	}
}

// A box written as a table of one header row and one value row under the
// entry's name ("type | default | mandatory" over "word | 514 | no") is
// the entry's box, a line per column; a table of several rows is not.
func TestColumnBoxUnderTheName(t *testing.T) {
	t.Parallel()
	page := "Action Parameters\n\n" +
		"Target\n\ntype | default | mandatory | obsolete legacy directive\n\nword | none | no | none\n\n" +
		"Name or IP-Address of the system that shall receive messages.\n\n" +
		"Port\n\ntype | default | mandatory | obsolete legacy directive\n\nword | 514 | no | none\n\n" +
		"Name or numerical value of port to use when connecting to target.\n\n" +
		"startmsg.regex\n\ntype | default | mandatory | obsolete legacy directive\n\nstring | none | no | none\n\n" +
		"This permits the processing of multi-line messages.\n\n" +
		"Limits\n\nname | value | unit\n\nqueue size | 1000 | messages\n\nbatch size | 32 | messages"
	p := docPool([2]string{"omfwd: syslog Forwarding Output Module", page})
	wantBoxLine(t, p, "Default: 514", "Port")
	wantLabel(t, p, "Type: string", "startmsg.regex")
	for _, s := range p.sents {
		if s.box && (strings.Contains(s.text, "1000") || strings.Contains(s.text, "32")) {
			t.Errorf("a row of a table of several rows (%q) is read as a box", s.text)
		}
	}
	src := []research.Source{{ID: "S1", Title: "omfwd: syslog Forwarding Output Module", Text: page}}
	_, md := synthesize(t, "What is the default Port of omfwd?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.HasPrefix(got, "`Port` default: 514 [S1]") {
		t.Errorf("the Summary does not open with the entry's default:\n%s", md)
	}
}

// A question that names its entry in a plain word ("the ort merge
// strategy", "the default severity") finds the entry labelled with that
// word on a page of several entries: the rarest such word of the
// question, never a word that asks for a value ("default").
func TestEntryLabelledWithAPlainWord(t *testing.T) {
	t.Parallel()
	page := "MERGE STRATEGIES\n\n" +
		"ort\n\nThis is the default merge strategy when pulling or merging one branch. " +
		"The name for this algorithm is an acronym (\"Ostensibly Recursive's Twin\").\n\n" +
		"resolve\n\nThis can only resolve two heads using a 3-way merge algorithm.\n\n" +
		"default\n\nThe strategy used when none is given. Merge strategies are chosen with -s."
	p := docPool([2]string{"git-merge - Join two development histories", page})
	c := newCriterion("What does the name of the ort merge strategy stand for?", "", nil, nil)
	if e := (finder{p}).entryOf(c); e.name != "ort" || len(e.sents) != 2 {
		t.Errorf("entry = %q (%d sentences), want ort's two", e.name, len(e.sents))
	}
	c = newCriterion("What is the default merge strategy?", "", nil, nil)
	if e := (finder{p}).entryOf(c); e.name == "default" {
		t.Errorf("a word that asks for a value picked the entry %q", e.name)
	}
	// A label alone on its page names the page, not an entry.
	p = docPool([2]string{"time — Time access", "time\n\nThe functions in this module may not handle dates before the epoch."})
	if e := (finder{p}).entryOf(newCriterion("What is the epoch used by the time module?", "", nil, nil)); len(e.sents) > 0 {
		t.Errorf("entry = %q on a page of one label", e.name)
	}
}

// The second part of a question leans on the first ("How old is the lost
// city …, and how far is it from Athens?"): a sentence that calls the
// city otherwise answers it on a page whose opening names the city.
func TestLeanedPartOnThePageAboutIt(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Archaeologists Discovered a 2,500-Year-Old Lost City Atop a Mountain Peak",
		Text: "Now, a similar discovery has been made in Thessaly, on the Strongilovouni hill.\n\n" +
			"An international team of archaeologists discovered the remains of a former metropolis located 190 miles north of Athens. " +
			"The 2,500-year-old lost city is buried underground, yet it is high in the sky on the Strongilovouni hill."}}
	_, md := synthesize(t, "How old is the lost city found on the Strongilovouni hill, and how far is it from Athens?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "190 miles north of Athens") {
		t.Errorf("the Summary does not say how far it is:\n%s", md)
	}
}

// "How many rats …" is answered by a figure of rats ("roughly 6,000 black
// rats"), not by a figure of something else in a sentence about rats
// ("more than 12 islands").
func TestHowManyCountsTheAskedNoun(t *testing.T) {
	t.Parallel()
	c := newCriterion("How many rats had to be removed from the island?", "", nil, nil)
	if n := c.counted; n != text.Stem("rats") {
		t.Fatalf("counted = %q", n)
	}
	if !countsAsked(c, "The group was also tasked with eradicating the roughly 6,000 black rats that had infested the island.") {
		t.Errorf("a figure of rats is not read as the count asked")
	}
	if countsAsked(c, "They have eradicated rats from more than 12 islands in the area.") {
		t.Errorf("a figure of islands is read as a count of rats")
	}
}

// A sentence that goes on after the lead is kept when it bears on what
// was asked (a word of the question, a figure, "It is …" of the thing,
// "That is, …"), and left out when it only goes on about the thing.
func TestContinuationBearsOnTheQuestion(t *testing.T) {
	t.Parallel()
	page := "Local delivery\n\n" +
		"The biff parameter controls whether or not to use the local biff service. " +
		"It then sends notifications to users who have asked for them.\n\n" +
		"Specify biff = no in the main file to disable the local biff service.\n\n" +
		"Queue\n\nThe queue keeps a copy of every message. It is 10 MB by default."
	src := []research.Source{{ID: "S1", Title: "Postal configuration parameters", Text: page}}
	_, md := synthesize(t, "How do you disable the local biff service?", src, research.DepthStandard)
	if strings.Contains(summaryOf(md), "sends notifications") {
		t.Errorf("a sentence that only goes on about the service is quoted:\n%s", md)
	}
	if !strings.Contains(md, "biff = no") {
		t.Errorf("the answer is missing:\n%s", md)
	}
}

// numberedPage is a reference page whose generator numbers every entry's
// heading ("3.142. poll_idle") above its "Type: / Default:" box.
const numberedPage = "3.141. poll_fast\n\nType: boolean\nDefault: no\n\n" +
	"When set, the client asks the server to push new messages instead of asking for them.\n\n" +
	"3.142. poll_idle\n\nType: number\nDefault: 300\n\n" +
	"This variable specifies the maximum time in seconds that tallymail waits before polling an open connection, " +
	"to keep the server from closing it. Reduce this number if the server drops idle connections.\n\n" +
	"3.143. poll_list\n\nType: boolean\nDefault: yes\n\n" +
	"This variable configures whether folder browsing lists only subscribed folders.\n"

// A section number before an entry's heading is not part of its name; and
// when a question describes an entry without naming it ("how often … by
// default?"), the box line of the entry whose description answers states
// the value asked.
func TestNumberedEntryAnsweredByItsBox(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Reference — Tallymail", numberedPage})
	wantBoxLine(t, p, "Default: 300", "poll_idle")
	wantLabel(t, p, "This variable specifies the maximum time", "poll_idle")
	for h, want := range map[string]string{"3.142. poll_idle": "poll_idle", "4. Hooks": "Hooks", "A.1. Limits": "Limits",
		"200 thread_pool_min": "200 thread_pool_min", "A Guide": "A Guide"} {
		if got := entryName(h); got != want {
			t.Errorf("entryName(%q) = %q, want %q", h, got, want)
		}
	}
	src := []research.Source{{ID: "S1", Title: "Reference — Tallymail", Text: numberedPage}}
	_, md := synthesize(t, "How often does Tallymail poll an open connection by default to keep the server from closing it?", src, research.DepthStandard)
	if got := sectionOf(md, "Summary"); !strings.Contains(got, "`poll_idle` default: 300") || !strings.Contains(got, "maximum time in seconds") {
		t.Errorf("the Summary lacks the description or the Default line of the entry that answers:\n%s", md)
	}
	if strings.Contains(md, "Default: no") || strings.Contains(md, "default: yes") {
		t.Errorf("another entry's box is quoted:\n%s", md)
	}
}

// scorePage has an entry named with a plain word ("score") beside the
// entries whose descriptions answer questions asked "at what score".
const scorePage = "3.295. score\n\nType: boolean\nDefault: yes\n\n" +
	"When this variable is unset, scoring in tallymail is turned off.\n\n" +
	"3.296. score_threshold_delete\n\nType: number\nDefault: -1\n\n" +
	"Messages which have been assigned a score equal to or lower than the value of this variable are automatically marked for deletion by tallymail. " +
	"Since tallymail scores are always greater than or equal to zero, the default setting of this variable will never mark a message for deletion.\n\n" +
	"3.297. score_threshold_flag\n\nType: number\nDefault: 9999\n\n" +
	"Messages which have been assigned a score greater than or equal to this variable's value are automatically marked \"flagged\" by tallymail.\n\n" +
	"3.298. delete\n\nType: quadoption\nDefault: ask-yes\n\n" +
	"If set to yes, messages marked for deleting will automatically be purged by tallymail without prompting.\n"

// The noun a question asks for ("At what score …") is the kind of its
// answer, not the entry it is asked of; the entry whose description
// answers brings its Default line, and other entries' sentences that do
// not name it are left out.
func TestAskedNounNamesNoEntry(t *testing.T) {
	t.Parallel()
	src := []research.Source{{ID: "S1", Title: "Reference — Tallymail", Text: scorePage}}
	_, md := synthesize(t, "At what score does Tallymail automatically mark messages as flagged by default?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.HasPrefix(got, "`score_threshold_flag`: Messages which have been assigned a score greater") ||
		!strings.Contains(got, "`score_threshold_flag` default: 9999") {
		t.Errorf("the Summary does not open with the answering entry and its Default line:\n%s", md)
	}
	for _, other := range []string{"scoring in tallymail is turned off", "never mark a message for deletion", "purged by tallymail"} {
		if strings.Contains(md, other) {
			t.Errorf("another entry's sentence (%q) is quoted:\n%s", other, md)
		}
	}
}

// quicPage writes each entry's box below its description ("Default:"
// after the prose), one entry's name a part of another's.
const quicPage = "quic\n\nIf enabled, DNS over QUIC is processed with XDP workers.\n\nDefault: off\n\n" +
	"quic-port\n\nDNS over QUIC will listen on the interfaces configured by listen, but on a different port, configured by this option.\n\nDefault: 853\n\n" +
	"tcp-port\n\nDNS over TCP will listen on this port.\n\nDefault: 53\n"

// "On which port …" asks for a port: the Default line of an entry that
// names no port is not its answer, the Default line of the entry whose
// description answers is.
func TestAskedNounChoosesTheBox(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Configuration — tallyd", quicPage})
	wantBoxLine(t, p, "Default: 853", "quic-port")
	src := []research.Source{{ID: "S1", Title: "Configuration — tallyd", Text: quicPage}}
	_, md := synthesize(t, "On which port does tallyd serve DNS over QUIC by default?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.Contains(got, "`quic-port` default: 853") {
		t.Errorf("the Summary lacks the port's Default line:\n%s", md)
	}
	if strings.Contains(md, "default: off") {
		t.Errorf("the Default line of an entry that names no port is quoted:\n%s", md)
	}
}

// optionPage writes every line of an entry as a box line, its name too
// ("Option: …" over "Default: …" over "Description: …").
const optionPage = "Configuration file reference\n\n" +
	"Option: Tally::Always-Safe\n\nDefault: false\n\nDescription: If this option is true, tally always uses the safe resolver.\n\n" +
	"Option: Tally::Get-Root-Command\n\nDefault: su:/bin/su\n\nDescription: This option sets the external command that tally will use to switch to the root user. " +
	"It has the form protocol:command. protocol must be either su or sudo; it determines how tally invokes the program when it wants to gain root privileges.\n\n" +
	"Option: Tally::Ignore-Old-Tmp\n\nDefault: false\n\nDescription: If the directory exists and this option is true, tally will ask you whether to remove it.\n"

// The key that named one entry ("Option: X") names the next: each entry's
// box and description are its own, not the first entry's.
func TestKeyThatNamedAnEntryNamesTheNext(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Configuration file reference", optionPage})
	wantBoxLine(t, p, "Default: su:/bin/su", "Tally::Get-Root-Command")
	wantLabel(t, p, "It has the form protocol:command.", "Tally::Get-Root-Command")
	wantLabel(t, p, "Description: If the directory exists", "Tally::Ignore-Old-Tmp")
	wantLabel(t, p, "Description: If this option is true, tally always", "Tally::Always-Safe")
	if got := nameKey("Option: Tally::Theme"); got != "Option" {
		t.Errorf(`nameKey("Option: Tally::Theme") = %q, want "Option"`, got)
	}
	if got := nameKey("Default: 300 seconds"); got != "" {
		t.Errorf(`nameKey("Default: 300 seconds") = %q, want ""`, got)
	}
}

// wantLabel asserts that the sentence of p starting with prefix is
// written under label.
func wantLabel(t *testing.T, p *pool, prefix, label string) {
	t.Helper()
	if got := p.sents[sentenceIndex(t, p, prefix)].label; got != label {
		t.Errorf("label of %q… = %q, want %q", prefix, got, label)
	}
}

// wantBoxLine asserts that the sentence of p starting with prefix is a
// line of the key/value box of entry label.
func wantBoxLine(t *testing.T, p *pool, prefix, label string) {
	t.Helper()
	if s := p.sents[sentenceIndex(t, p, prefix)]; !s.box || s.label != label {
		t.Errorf("%+v, want a box line of %s", s, label)
	}
}

// A sentence that opens on a pronoun is read under the subject of the
// sentence before it in its paragraph, as under a heading; one that opens
// a paragraph of its own is not.
func TestPronounReadUnderItsSubject(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Records", "Records\n\nRecord titles must consist only of letters and digits. " +
		"They must be at most forty characters long. Its body may be empty.\n\n" +
		"They are stored in the journal, which is written on every change."})
	long := sentenceIndex(t, p, "They must be at most")
	if h := p.sents[long].head; !h["titl"] || !h["record"] {
		t.Errorf("head of %q = %v, want the subject's words", p.sents[long].text, keysOf(h))
	}
	if h := p.sents[sentenceIndex(t, p, "Its body may")].head; !h["titl"] {
		t.Errorf("a second pronoun loses the subject: head %v", keysOf(h))
	}
	if h := p.sents[sentenceIndex(t, p, "They are stored")].head; h["titl"] {
		t.Errorf("a pronoun opening a paragraph takes the subject of another: head %v", keysOf(h))
	}
}

func keysOf(s text.Set) []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// A term written as code may open a definition that starts with its type,
// in lower case; a word of prose may not.
func TestCodeTermOpensLowerCaseDefinition(t *testing.T) {
	t.Parallel()
	if term, _, ok := inlineLabel("'backup' 'bk': boolean (default off) global Make a backup before overwriting a file."); !ok || term != "'backup' 'bk'" {
		t.Errorf("inlineLabel = %q, %v", term, ok)
	}
	if _, _, ok := inlineLabel("note: see the next section for the rest of the keys."); ok {
		t.Error("a word of prose before a colon is taken for a term")
	}
}

// The unit a "how many milliseconds" question counts in, and the product
// every page is about, name no subject: a sentence that says only them
// does not answer "how long does it take to start up"; one that names
// what is measured does.
func TestUnitAndProductNameNoSubject(t *testing.T) {
	t.Parallel()
	p := docPool(
		[2]string{"Tally documentation: indent", "Tally Indent Settings\n\nThe indent script reads a few settings. It defaults to 100 (milliseconds). On Linux the clock is read every 20 milliseconds."},
		[2]string{"Tally documentation: starting", "Starting Tally\n\nTally reads its startup file first. A cold start up takes 80 milliseconds."},
		[2]string{"Tally documentation: options", "Options\n\nTally has many options. Each Tally option has a default."},
	)
	q := "How many milliseconds does Tally usually take to start up on Linux?"
	p.context = contextWords(q)
	c := newCriterion(q, "", nil, nil)
	if i := sentenceIndex(t, p, "It defaults to 100"); p.namesSubject(c, i) {
		t.Errorf("%q names the subject of %q", p.sents[i].text, q)
	}
	if i := sentenceIndex(t, p, "On Linux the clock"); p.namesSubject(c, i) {
		t.Errorf("%q names the subject of %q by its platform", p.sents[i].text, q)
	}
	if i := sentenceIndex(t, p, "A cold start up takes"); !p.namesSubject(c, i) {
		t.Errorf("%q does not name the subject of %q", p.sents[i].text, q)
	}
}

// An acronym a page defines ("Lease file cleanup (LFC)") stands for its
// words wherever a page read writes it, inside a name too
// ("lfc-interval"); parentheses whose initials do not spell the words
// before them define nothing.
func TestDefinedAcronymStandsForItsWords(t *testing.T) {
	t.Parallel()
	defined := map[string][]string{}
	definedAcronyms("Lease file cleanup (LFC) removes old entries. The daemon speaks plain text (HTTP) to its peers.", defined)
	if got := defined["lfc"]; !slices.Equal(got, text.Tokens("lease file cleanup")) {
		t.Errorf("LFC = %v", got)
	}
	if _, ok := defined["http"]; ok {
		t.Error("(HTTP) after words that do not spell it is taken for a definition")
	}
	src := []research.Source{
		{ID: "S1", Title: "Lease storage", Text: "Lease storage\n\nLease file cleanup (LFC) removes all previous entries for each client. " +
			"The default value of 0 disables the row limit and lets the server read the entire file.\n\n" +
			"Timers\n\nThe default value of the lfc-interval is 3600 seconds. The server checks its timers once a second."},
	}
	_, md := synthesize(t, "What is the default interval of the lease file cleanup?", src, research.DepthStandard)
	if first, _, _ := strings.Cut(summaryOf(md), "[S1]"); !strings.Contains(first, "3600") {
		t.Errorf("the Summary does not open with the interval:\n%s", md)
	}
}

// A sentence that states a value without saying of what ("The default
// value is “myhost”.") is read under the words of the sentences before it
// under its heading, outside an entry; in an entry its label says it.
func TestBareValueReadUnderTheSentenceBefore(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Names", "Generated names\n\nThe prefix used in the generation of a name is specified by the name-prefix parameter. " +
		"The default value is “myhost”.\n\n" +
		"The default value is kept when the file is reloaded."})
	if h := p.sents[sentenceIndex(t, p, "The default value is “myhost”")].head; !h["prefix"] || !h["generat"] {
		t.Errorf("head = %v, want the words of the sentence before", keysOf(h))
	}
	if h := p.sents[sentenceIndex(t, p, "The default value is kept")].head; !h["generat"] {
		t.Errorf("a value that opens a paragraph lacks the words of the paragraph before it: %v", keysOf(h))
	}
	q := docPool([2]string{"Names", "Generated names\n\nThe prefix used in the generation of a name is specified by the name-prefix parameter.\n\n" +
		"Reloading\n\nThe default value is kept when the file is reloaded."})
	if h := q.sents[sentenceIndex(t, q, "The default value is kept")].head; h["generat"] {
		t.Errorf("a value under another heading takes the words of the section before: %v", keysOf(h))
	}
}

// An identifier written in another convention names it: "ErrorLog"
// names "error_log".
func TestIdentifierInAnotherConvention(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Logging", "Logging\n\nLogLevel sets how much the ErrorLog file records, from none to everything.\n\n" +
		"The access log records each request to the scheduler."})
	c := newCriterion("What logging level does the scheduler use for its error_log?", "", nil, nil)
	if i := sentenceIndex(t, p, "LogLevel sets how much"); !p.namesIdentifiers(c, i) {
		t.Errorf("%q does not name error_log", p.sents[i].text)
	}
	if i := sentenceIndex(t, p, "The access log records"); p.namesIdentifiers(c, i) {
		t.Errorf("%q names error_log", p.sents[i].text)
	}
}

// A name in capitals that every page read says ("an HTTP request" of a
// web server's manual) goes without saying: the sentence that states the
// value need not repeat it.
func TestCapitalsEveryPageSaysGoWithoutSaying(t *testing.T) {
	t.Parallel()
	p := docPool(
		[2]string{"Tally manual: limits", "Limits\n\nSets the maximum number of headers in a request. The default value is 101, which is enough for all usages.\n\n" +
			"Messages\n\nA message larger than the buffer is refused. Long lines are cut. Empty lines end the headers. Tally limits what an HTTP message may hold."},
		[2]string{"Tally manual: HTTP", "HTTP\n\nTally speaks HTTP to its clients. Every HTTP request is logged."},
		[2]string{"Tally manual: proxying", "Proxying\n\nTally forwards each HTTP request to a server. HTTP keep-alive is on."},
	)
	c := newCriterion("How many headers can an HTTP request carry by default?", "", nil, nil)
	if i := sentenceIndex(t, p, "The default value is 101"); !p.namesSubject(c, i) {
		t.Errorf("%q does not name the subject: %v topical %v", p.sents[i].text, c.caps, p.topical)
	}
}

// A definition list flattened onto paragraphs ("TAG: The TAG tag …"),
// each description running over several paragraphs: the paragraphs
// between two terms written as code are the first one's, a "Note:"
// among them included, so the same "The default value is: png." under
// two terms is two statements, each of its own entry.
func TestCodeTermHoldsItsParagraphs(t *testing.T) {
	t.Parallel()
	page := "Configuration options related to the drawing tool\n\n" +
		"FORMULA_FORMAT: If the FORMULA_FORMAT option is set to svg, the converter tool is used to render formulas.\n\n" +
		"The default value is: png.\n\n" +
		"LEGEND_PANEL: If the LEGEND_PANEL tag is set to YES the tool draws a legend beside every diagram it makes.\n\n" +
		"The default value is: YES.\n\n" +
		"PICTURE_TYPE: The PICTURE_TYPE tag can be used to set the file type of the pictures generated by the drawing tool.\n\n" +
		"Note: If you choose svg you need to set the extension to xhtml in order to make the files visible.\n\n" +
		"Possible values are: png, jpg, gif and svg.\n\n" +
		"The default value is: png.\n\n" +
		"This tag requires that the tag HAVE_TOOL is set to YES.\n\n" +
		"TOOL_PATH: The TOOL_PATH tag can be used to specify the path where the drawing tool can be found.\n\n" +
		"Other settings are read from the environment.\n\nThe order is described below."
	p := docPool([2]string{"Configuration", page})
	wantLabel(t, p, "Possible values are", "PICTURE_TYPE")
	wantLabel(t, p, "Note: If you choose svg", "PICTURE_TYPE")
	wantLabel(t, p, "This tag requires", "PICTURE_TYPE")
	if i := sentenceIndex(t, p, "Other settings are read"); p.sents[i].label != "" {
		t.Errorf("prose after the last term is labelled %q", p.sents[i].label)
	}
	wantCopies(t, p, "The default value is: png.", 2)
	src := []research.Source{{ID: "S1", Title: "Configuration", Text: page}}
	_, md := synthesize(t, "In which picture type does the drawing tool write the pictures it generates, unless I pick another?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "The default value is: png.") || !strings.Contains(answerTo(md, 0), "PICTURE_TYPE") {
		t.Errorf("the Summary does not give PICTURE_TYPE's default:\n%s", md)
	}
}

// A question names an entry in its own words when every word of the
// entry's name is one of the question's, but a word that asks for a
// value ("max"): "How many nodes … in a dot graph …" names
// DOT_GRAPH_MAX_NODES; and a "how many" that names no attribute asks for
// the figure the entry holds unless set, its default.
func TestQuestionSpellsTheEntryName(t *testing.T) {
	t.Parallel()
	page := "Configuration options related to the dot tool\n\n" +
		"DOT_GRAPH_MAX_NODES: The DOT_GRAPH_MAX_NODES tag can be used to set the maximum number of nodes that will be shown in the graph. " +
		"If the number of nodes in a graph becomes larger than this value, the tool will truncate the graph.\n\n" +
		"Minimum value: 0, maximum value: 10000, default value: 50.\n\n" +
		"MAX_DOT_GRAPH_DEPTH: The MAX_DOT_GRAPH_DEPTH tag can be used to set the maximum depth of the graphs generated by dot. " +
		"Nodes that lay further from the root node will be omitted.\n\n" +
		"Minimum value: 0, maximum value: 1000, default value: 0.\n\n" +
		"UML_LIMIT_NUM_FIELDS: If there are many fields or methods and many nodes the graph may become too big to be useful. " +
		"The UML_LIMIT_NUM_FIELDS threshold limits the number of items for each type to make the size more manageable.\n\n" +
		"Minimum value: 0, maximum value: 100, default value: 10.\n\n" +
		"CLASS_GRAPH: In case HAVE_DOT is set as well dot will be used to draw the graph, otherwise the built-in generator will be used.\n\n" +
		"The default value is: YES."
	src := []research.Source{{ID: "S1", Title: "Configuration", Text: page}}
	_, md := synthesize(t, "How many nodes will the tool draw in a dot graph before it starts cutting the graph short?", src, research.DepthStandard)
	if s := summaryOf(md); !strings.Contains(s, "default value: 50") || strings.Contains(s, "default value: 10.") {
		t.Errorf("the Summary does not give DOT_GRAPH_MAX_NODES's default:\n%s", md)
	}
}

// A name written as code alone on its line ("TALLY_DEFAULT_URI") names
// the entry its paragraphs describe, so two entries that open with the
// same sentence keep both; a "which environment variable" question asks
// for a variable's name, not for an entry labelled "variable"; and
// "without my passing -c every time" asks what holds by default.
func TestCodeNameHeadingNamesItsEntry(t *testing.T) {
	t.Parallel()
	man := "ENVIRONMENT\n\nThe following environment variables can be set to alter the behaviour of tally.\n\n" +
		"TALLY_DEBUG\n\nTurn on verbose debugging of tally commands.\n\n" +
		"TALLY_DEFAULT_CONNECT_URI\n\nThe hypervisor to connect to by default. Set this to a URI, in the same format as accepted by the connect option. " +
		"This environment variable is deprecated in favour of the global TALLYLIB_DEFAULT_URI variable which serves the same purpose.\n\n" +
		"TALLYLIB_DEFAULT_URI\n\nThe hypervisor to connect to by default. Set this to a URI, in the same format as accepted by the connect option. " +
		"This overrides the default URI set in any client config file.\n\n" +
		"AUTHOR\n\nWritten by the tally team."
	xml := "Time keeping\n\nvariable\n\nThe guest clock will have an arbitrary offset applied relative to UTC or localtime, depending on the basis attribute. " +
		"The guest is free to adjust the clock over time.\n\nutc\n\nThe guest clock will always be synchronized to UTC when booted."
	uri := "Connection URIs\n\nIn tally use the -c or --connect option: tally -c test:///default list\n\n" +
		"If tally finds the environment variable TALLY_DEFAULT_CONNECT_URI set, it will try this URI by default."
	p := docPool([2]string{"tally", man})
	wantCopies(t, p, "The hypervisor to connect to by default.", 2)
	wantLabel(t, p, "This overrides the default URI", "TALLYLIB_DEFAULT_URI")
	src := []research.Source{{ID: "S1", Title: "Connection URIs", Text: uri}, {ID: "S2", Title: "Domain XML format", Text: xml}, {ID: "S3", Title: "tally", Text: man}}
	_, md := synthesize(t, "Which environment variable can I set so that tally connects to the right hypervisor without my passing -c every time?", src, research.DepthStandard)
	if s := summaryOf(md); !strings.Contains(s, "DEFAULT\\_URI") && !strings.Contains(s, "DEFAULT\\_CONNECT\\_URI") || strings.Contains(s, "guest clock") || strings.Contains(s, "-c or --connect") {
		t.Errorf("the Summary does not name the variable:\n%s", md)
	}
}

// A name in capitals that labels no entry ("a TALLY guest", "a virtio
// RNG device") is a word of the question like any other: the entry its
// plain words name ("the random backend") is still found; and "… and
// don't name a source file" in a condition asks for the default.
func TestCapitalsNameThatLabelsNothing(t *testing.T) {
	t.Parallel()
	page := "Entropy device\n\nThe virtual entropy device allows the host to pass through entropy to guest operating systems.\n\n" +
		"model\n\nThe required model attribute specifies what type of RNG device is provided.\n\n" +
		"random\n\nThis backend type expects a non-blocking character device as input. The file name is specified as contents of the backend element. " +
		"When no file name is specified, the hypervisor default is used. For TALLY, the default is /dev/random.\n\n" +
		"builtin\n\nThis backend uses the tally builtin generator, which uses the getrandom() syscall as the source of entropy.\n\n" +
		"egd\n\nThis backend connects to a source using the EGD protocol."
	if c := newCriterion("Which host device does it read, if I give it a device and don't name a source file?", "", nil, nil); !slices.Contains(c.core, defaultToken) {
		t.Errorf("core %v: \"and don't name\" in a condition does not ask for the default", c.core)
	}
	// Beside other pages, as a search finds it: "random" is a rare word.
	src := append(loadSources(t), research.Source{ID: "S8", Title: "Domain XML format", Text: page})
	_, md := synthesize(t, "If I give a TALLY guest a virtio RNG device with the random backend and don't name a source file, which host device does it read entropy from?", src, research.DepthStandard)
	if !strings.Contains(summaryOf(md), "/dev/random") {
		t.Errorf("the Summary does not give the random backend's default:\n%s", md)
	}
}

// wantCopies fails t unless the pool holds sentence s as often as want:
// once under each entry that writes it.
func wantCopies(t *testing.T, p *pool, s string, want int) {
	t.Helper()
	n := 0
	for i := range p.sents {
		if p.sents[i].text == s {
			n++
		}
	}
	if n != want {
		t.Errorf("%d sentences %q, want %d, one per entry", n, s, want)
	}
}

// A name the question writes in capitals ("for NTS") names an entry only
// as a label in capitals does: the lower-case option "nts" of another
// command is not the entry "Which AEAD algorithm … for NTS" asks about.
func TestCapitalsNameIsNoPlainEntryWord(t *testing.T) {
	t.Parallel()
	page := "Server commands\n\n" +
		"nts: Use Network Time Security (NTS) for authentication.\n\n" +
		"noval: Do not check the certificate of the server against the local store of trusted roots.\n\n" +
		"Key exchange commands\n\n" +
		"cookie location: Use the file specified by location to store the keys used to make and decode cookies. The default is /var/lib/tally/nts-keys.\n\n" +
		"aead string: Specify the crypto algorithm to be used on the wire. It is the server default if the remote client does not request a valid choice. The default is AES_SIV_CMAC_256.\n\n" +
		"tlsciphers string: An OpenSSL cipher suite list that configures the allowed TLS cipher suites."
	src := append(loadSources(t), research.Source{ID: "S8", Title: "Network Time Security", Text: page})
	p := newPool(src, nil, nil)
	c := newCriterion("Which AEAD algorithm does Tally use for NTS by default?", "", nil, nil)
	if w := p.entryWord(c); w == "nts" {
		t.Errorf("entryWord = %q: a name in capitals taken for an option's plain word", w)
	}
}

// The line that closes a code listing ("}") stands alone above prose like
// an option's name does, but names nothing: the prose after it is the
// page's, not an entry's.
func TestClosingBraceLabelsNothing(t *testing.T) {
	t.Parallel()
	page := "Numeric Operations\n\nRust supports the basic mathematical operations you would expect for all of the number types. " +
		"The following code shows how you would use each numeric operation in a let statement:\n\nFilename: src/main.rs\n\n" +
		"fn main() {\n// addition\nlet sum = 5 + 10;\n// remainder\nlet remainder = 43 % 5;\n}\n\n" +
		"Each expression in these statements uses a mathematical operator and evaluates to a single value, which is then bound to a variable. " +
		"Appendix B contains a list of all operators that Rust provides.\n\nThe Character Type\n\nThe char type is four bytes in size."
	p := docPool([2]string{"Data Types", page})
	wantLabel(t, p, "Each expression in these", "")
}

// On a page of option entries whose names stand as labels ("-density
// width" above its paragraphs), the paragraphs up to the next option's
// name are the option's: "The default resolution is 72 dots per inch" is
// a statement about -density, which the question never names; the PDF
// its description names is what the question asks about; "rasterise" is
// "rasterize"; and the site's name, which opens every page's title
// ("PixelKit - Formats"), names no entry of its own.
func TestFlagEntryHoldsItsParagraphs(t *testing.T) {
	t.Parallel()
	options := "Annotated List of Command-line Options\n\nBelow is the list of command-line options recognized by the PixelKit command-line tools.\n\n" +
		"-delay ticks\n\nDisplay the next image after pausing. The default is no delay between each showing of the image sequence.\n\n" +
		"-density width\n-density widthxheight\n\nSet the horizontal and vertical resolution of an image for rendering to devices.\n\n" +
		"This option specifies the image resolution to store while encoding a raster image or the canvas resolution while rendering (reading) vector formats such as Postscript, PDF, WMF, and SVG into a raster image. " +
		"The default unit of measure is in dots per inch (DPI).\n\n" +
		"The default resolution is 72 dots per inch, which is equivalent to one point per pixel (Macintosh and Postscript standard). " +
		"Computer screens are normally 72 or 96 dots per inch.\n\n" +
		"-depth value\n\nDepth of the image. This is the number of bits in a color sample within a pixel.\n\n" +
		"-page geometry\n\nSet the size and location of an image canvas. The default page dimensions for a TEXT image is 612x792."
	p := docPool([2]string{"PixelKit - Command-line Options", options})
	wantLabel(t, p, "The default resolution is 72", "-density width, -density widthxheight")
	formats := "Supported Image Formats\n\nPixelKit uses an ASCII string known as magick (e.g. GIF) to identify file formats. " +
		"PDF: Portable Document Format. Requires Ghostscript to read. To convert multiple JPEG images to individual PDF pages, use a single command."
	src := []research.Source{
		{ID: "S1", Title: "PixelKit - Formats", Text: formats},
		{ID: "S2", Title: "PixelKit - Command-line Options", Text: options},
		{ID: "S3", Title: "PixelKit - Changelog", Text: "Changelog\n\nAdded option pdf:fit-page to scale a pdf to the specified size. Only set PDF page size when explicitly requested."},
	}
	pl := newPool(src, nil, nil)
	c := newCriterion("At what resolution does PixelKit rasterise a PDF page when I don't tell it one?", "", nil, nil)
	if e := (finder{pl}).pageEntry(c); len(e.sents) > 0 {
		t.Errorf("the site's name names a page entry %q", e.name)
	}
	_, md := synthesize(t, "At what resolution does PixelKit rasterise a PDF page when I don't tell it one?", src, research.DepthStandard)
	if s := summaryOf(md); !strings.Contains(s, "72 dots per inch") {
		t.Errorf("the Summary does not give the default resolution:\n%s", md)
	}
}

// An API reference gives a property's type and default on a line before
// its prose ("<number> Default: 2000" under "server.maxHeadersCount"):
// the line states a value, it names no entry, and the prose after it in
// its section is what the value is of.
func TestTypedDefaultLineBeforeItsProse(t *testing.T) {
	t.Parallel()
	page := "HTTP\n\nClass: http.Server\n\nserver.maxHeadersCount\n\nAdded in: v0.7.0\n\n<number> Default: 2000\n\n" +
		"Limits maximum incoming headers count. If set to 0, no limit will be applied.\n\n" +
		"server.keepAliveTimeout\n\nAdded in: v8.0.0\n\n<number> Timeout in milliseconds. Default: 5000 (5 seconds).\n\n" +
		"The number of milliseconds of inactivity a server needs to wait for additional incoming data, after it has finished writing the last response, before a socket will be destroyed. " +
		"If the server receives new data before the keep-alive timeout has fired, it will reset the regular inactivity timeout.\n\n" +
		"server.setTimeout([msecs][, callback])\n\nBy default, the Server does not timeout sockets. If a callback is assigned to the Server's 'timeout' event, timeouts must be handled explicitly."
	p := docPool([2]string{"HTTP", page})
	wantLabel(t, p, "Limits maximum incoming headers count", "")
	i := sentenceIndex(t, p, "Default: 5000")
	if !p.valueEntryWords(i)["inact"] && !p.valueEntryWords(i)[text.Stem("inactivity")] {
		t.Errorf("%q is not read as the value of the prose after it: %v", p.sents[i].text, p.valueEntryWords(i))
	}
}

// The verb of the act a how-question asks how to do ("How do I stop …")
// names no entry, though a page labels one with it (a completion style
// called "stop"): the entry asked about is named by the rest of the
// question, if at all.
func TestTheAskersVerbNamesNoEntry(t *testing.T) {
	t.Parallel()
	page := "Completion styles\n\n" +
		"stop\n\nIf set to true, the word completer stops once when it reaches the beginning of the history.\n\n" +
		"prefix-hidden\n\nIf true, the prefix of each match is left out of the list.\n\n" +
		"History options\n\n" +
		"IGNORE_SPACE\n\nRemove command lines from the history list when the first character on the line is a space."
	p := docPool([2]string{"Tallysh manual", page})
	c := newCriterion("How do you stop tallysh from saving command lines that begin with a space in the history?", "", nil, nil)
	if e := (finder{p}).entryOf(c); e.name == "stop" {
		t.Errorf("the asker's verb picked the entry %q", e.name)
	}
	// As the name of the thing asked about, the same word names its entry.
	c = newCriterion("What does the stop style do at the beginning of the history?", "", nil, nil)
	if e := (finder{p}).entryOf(c); e.name != "stop" {
		t.Errorf("entry = %q, want stop", e.name)
	}
}
