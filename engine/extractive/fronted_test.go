package extractive

import (
	"slices"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
)

// A phrase written before the question word qualifies the question: it is
// no part of its own, and the question it opens is asked with it.
func TestFrontedPhraseQualifiesTheQuestion(t *testing.T) {
	for _, tc := range []struct{ msg, ask string }{
		{"By default, how many headers can a request carry before Tallyproxy rejects it?", "How many headers can a request carry before Tallyproxy rejects it, by default?"},
		{"By default, how long does the cache keep negative answers (max-neg-ttl)?", "How long does the cache keep negative answers, by default (max-neg-ttl)?"},
		{"On Debian, which port does the daemon listen on?", "Which port does the daemon listen on, on Debian?"},
		// A condition before the question, however many "and"s it holds.
		{"If a download stalls and no bytes move, how many seconds does the server wait?", "How many seconds does the server wait, if a download stalls and no bytes move?"},
		{"When I kill its processes with kill -9, how often is the scoreboard cleaned?", "How often is the scoreboard cleaned, when I kill its processes with kill -9?"},
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

// referencePage documents a proxy's tuning keywords one section per
// keyword, with no key/value box: each states its default in a sentence of
// its own ("The default value is …"), which names nothing the question
// asks.
const referencePage = "3.2. Performance tuning\n\n" +
	"tune.bufsize <number>\n\n" +
	"Sets the buffer size to this size (in bytes). If an HTTP request is larger than (tune.bufsize - tune.maxrewrite), Tallyproxy will return HTTP 400 (Bad Request) error. The default value is 16384 and can be changed at build time.\n\n" +
	"tune.http.logurilen <number>\n\n" +
	"Sets the maximum length of request URI in logs. This prevents truncating long request URIs with valuable query strings in log lines. The default value is 1024.\n\n" +
	"tune.http.maxhdr <number>\n\n" +
	"Sets the maximum number of headers in a request. When a request comes with a number of headers greater than this value (including the first line), it is rejected with a \"400 Bad Request\" status code. " +
	"The default value is 101, which is enough for all usages, considering that the widely deployed servers use the same limit. " +
	"It can be useful to push this limit further to temporarily allow a buggy application to work by the time it gets fixed.\n\n" +
	"tune.idle-pool.shared { on | off }\n\n" +
	"Enables ('on') or disables ('off') sharing of idle connection pools between threads for a same server. The default is to share them between threads.\n"

// A question that does not name the keyword is answered by the entry that
// describes what it asks, with that entry's own statement of the value —
// not by another entry's "The default value is 1024".
func TestValueStatedInTheEntrysOwnSentence(t *testing.T) {
	src := []research.Source{{ID: "S1", Title: "Configuration Manual — Tallyproxy", Text: referencePage}}
	_, md := synthesize(t, "By default, how many headers can an HTTP request carry before Tallyproxy rejects it with a 400 error?", src, research.DepthStandard)
	got := answerTo(md, 0)
	if !strings.Contains(got, "When a request comes with a number of headers greater than this value") || !strings.Contains(got, "The default value is 101") {
		t.Errorf("the Summary does not give the headers entry with its default:\n%s", md)
	}
	if strings.Contains(md, "1024") || strings.Contains(md, "16384") {
		t.Errorf("another entry's default is quoted:\n%s", md)
	}
}

// A lead that states the answer in the form asked (here the command) is
// the answer: a sentence further on that shares the question's words but
// adds none of its own is left out.
func TestNothingBesideAStatedAnswer(t *testing.T) {
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
	for _, extra := range []string{"so far so good", "easier to ship", "custom loader script"} {
		if strings.Contains(md, extra) {
			t.Errorf("a sentence that adds nothing to the command is quoted (%q):\n%s", extra, md)
		}
	}
}

// attributeNoun finds the noun an attribute qualifies, before or after
// it, not the question's setting.
func TestAttributeNoun(t *testing.T) {
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

// A one-page reference of a megabyte and more is read to its end: the
// entry asked about may be its last.
func TestLongReferenceReadToItsEnd(t *testing.T) {
	_, md := synthesize(t, "By default, how many headers can an HTTP request carry before Tallyproxy rejects it with a 400 error?", []research.Source{longReference()}, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "The default value is 101") {
		t.Errorf("the last entry of a long reference is not read:\n%s", md)
	}
}

// The product a manual's pages are titled with ("TallyFTPD module
// mod_xfer") is the setting of a question that names it, not an entry
// the answer must name: "What is the longest command TallyFTPD accepts
// by default?" is answered by the entry that never writes "TallyFTPD".
func TestProductNameIsTheSetting(t *testing.T) {
	src := []research.Source{
		{ID: "S1", Title: "TallyFTPD module mod_core", Text: "The mod_core module of TallyFTPD handles the core settings of every FTP client session.\n\nDirectives\n\nCommandBufferSize\n\nSyntax: CommandBufferSize size\nDefault: CommandBufferSize 512\nContext: server config\nModule: mod_core\n\n" +
			"The CommandBufferSize directive controls the maximum command size (in bytes) permitted to be sent to the server. This allows you to effectively control the longest command the server may accept.\n\n" +
			"DebugLevel\n\nSyntax: DebugLevel level\nDefault: DebugLevel 0\nContext: server config\nModule: mod_core\n\nThe DebugLevel directive configures the debugging level the server will use when logging.\n"},
		{ID: "S2", Title: "TallyFTPD module mod_xfer", Text: "The mod_xfer module of TallyFTPD handles the file transfers of FTP clients.\n\nDirectives\n\nTimeoutStalled\n\nSyntax: TimeoutStalled seconds\nDefault: 3600 seconds\nContext: server config\nModule: mod_xfer\n\n" +
			"The TimeoutStalled directive sets the maximum number of seconds a data connection can exist but have no actual data transferred.\n"},
		{ID: "S4", Title: "TallyFTPD: Logging", Text: "Logging\n\nTallyFTPD writes its log to syslog unless told otherwise, one line per FTP client event.\n"},
		{ID: "S5", Title: "TallyFTPD: Virtual hosts", Text: "Virtual hosts\n\nTallyFTPD serves several hosts to FTP clients from one daemon, each in its own section of the configuration.\n"},
		{ID: "S3", Title: "TallyFTPD: Frequently Asked Questions", Text: "Questions\n\nTallyFTPD is an FTP server for Unix systems, configured in one file.\n"},
	}
	_, md := synthesize(t, "What is the longest command, in bytes, that TallyFTPD accepts from an FTP client by default?", src, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "512") {
		t.Errorf("the Summary does not give CommandBufferSize's default:\n%s", md)
	}
}

// A table's rows are its statements however short ("crit | Critical
// conditions"), and a row among rows names no entry: the last rows are
// not read as an entry's name and box.
func TestRowsAmongRowsAreStatements(t *testing.T) {
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

// "How do X differ between A and B?" compares A and B; the sentence
// about one side is answered by the nearest one of its paragraph about
// the other, though neither opens with its side ("For directories, …").
func TestDifferBetweenComparesTheSides(t *testing.T) {
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

// An index's row names the section that tells, not what it tells.
func TestIndexRowIsAPointer(t *testing.T) {
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
