package extractive

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
)

// directivesPage is a reference page of the kind many generators write:
// one entry per directive, its name on a line of its own, a key/value box
// ("Syntax", "Default", "Context"), then its description.
const directivesPage = "Module tally_http_core\n\n" +
	"Directives\n\n" +
	"body_read_timeout\n\n" +
	"Syntax: body_read_timeout time;\n" +
	"Default: body_read_timeout 45s;\n" +
	"Context: http, server, location\n\n" +
	"Limits how long Tallyweb waits between two reads of a request body from the client. " +
	"When the client sends nothing for that long, the request is closed with an error.\n\n" +
	"body_size_cap\n\n" +
	"Syntax: body_size_cap size;\n" +
	"Default: body_size_cap 2m;\n" +
	"Context: http, server, location\n\n" +
	"Caps the size of the body a client may send with one request. " +
	"A request whose body is larger is refused with status 413, and a cap of 0 turns the check off.\n\n" +
	"header_pool_size\n\n" +
	"Syntax: header_pool_size size;\n" +
	"Default: header_pool_size 2k;\n" +
	"Context: http, server\n\n" +
	"This directive specifies the number of bytes kept for reading the headers of a request body. " +
	"Larger headers get buffers from a second pool."

// A key/value box under an entry's name is a statement about that entry:
// "What is the default …" is answered by its Default line, quoted with
// the entry's name, and the other entries' sentences, which do not name
// the asked directive, are left out.
func TestEntryBoxAnswersTheDefault(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", Title: "Module tally_http_core — Tallyweb", Text: directivesPage},
		{ID: "S2", Title: "Tallyweb tuning", Text: "Tuning\n\nLarge uploads need a larger body cap and a longer read timeout than the defaults. " +
			"The header pool rarely needs changing."},
	}
	_, md := synthesize(t, "What is the default value of body_size_cap in Tallyweb?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.HasPrefix(got, "`body_size_cap` default: body\\_size\\_cap 2m; [S1]") {
		t.Errorf("the Summary does not open with the entry's Default line:\n%s", md)
	}
	t.Logf("report:\n%s", md)
	for _, other := range []string{"45s", "2k", "This directive specifies", "Limits how long"} {
		if strings.Contains(md, other) {
			t.Errorf("a sentence of another entry (%q) is quoted:\n%s", other, md)
		}
	}
}

// "What does X do?" is answered by the entry's description, not its box,
// and a table row form of the box ("Default: | 2m;") is read the same way.
func TestEntryDescriptionAnswersWhatItDoes(t *testing.T) {
	t.Parallel()
	page := strings.NewReplacer("Syntax: ", "Syntax: | ", "Default: ", "Default: | ", "Context: ", "Context: | ").Replace(directivesPage)
	p := docPool([2]string{"Module tally_http_core — Tallyweb", page})
	i := sentenceIndex(t, p, "Default: body_size_cap 2m;")
	if s := p.sents[i]; !s.box || s.label != "body_size_cap" {
		t.Errorf("box line %+v, want a box line of body_size_cap", s)
	}
	if got := quote(p, i); got != "`body_size_cap` default: body\\_size\\_cap 2m; [S1]" {
		t.Errorf("quote = %q", got)
	}
	_, md := synthesize(t, "What does the body_size_cap directive of Tallyweb do?", []research.Source{{ID: "S1", Title: "Module tally_http_core — Tallyweb", Text: page}}, research.DepthStandard)
	if !strings.HasPrefix(answerTo(md, 0), "`body_size_cap`: Caps the size of the body a client may send with one request. [S1]") {
		t.Errorf("the Summary does not open with the entry's description:\n%s", md)
	}
	if strings.Contains(md, "This directive specifies") {
		t.Errorf("another entry's description answers:\n%s", md)
	}
}

// A single "Key: value" line under a heading is no box.
func TestOneKeyLineIsNoBox(t *testing.T) {
	t.Parallel()
	p := docPool([2]string{"Install", "Installation\n\nNote: the installer needs a network connection.\n\nThe installer copies the files into the data directory of the store."})
	for _, s := range p.sents {
		if s.box {
			t.Errorf("%q read as a box line", s.text)
		}
	}
}

// An entry whose heading names it ("TallyTimeout Directive") above a box
// of table rows, one of them a long description, is found by its camel
// case name; its later paragraphs belong to it, and so do the other
// entries' paragraphs to them.
func TestCamelCaseEntryUnderItsHeading(t *testing.T) {
	t.Parallel()
	entry := func(name, desc, def, body string) string {
		return name + " Directive\n\n" +
			"Description: | " + desc + "\n\n" +
			"Syntax: | " + name + " num\n\n" +
			"Default: | " + name + " " + def + "\n\n" +
			"Context: | server config, virtual host\n\n" + body + "\n\n"
	}
	page := "Tallyweb Core Features\n\n" +
		entry("TallyTimeout", "Amount of time the server waits for the next request on a connection that stays open for the client", "5",
			"The number of seconds Tallyweb waits before it closes an idle connection.\n\nSetting TallyTimeout high keeps more workers busy.") +
		entry("TallyWorkers", "Upper limit on the number of workers", "16",
			"The number of workers the server starts at most.\n\nThe default value differs between the process models of the server.")
	src := []research.Source{{ID: "S1", Title: "Tallyweb Core Features", Text: page}}
	_, md := synthesize(t, "What is the default value of the TallyTimeout directive in Tallyweb?", src, research.DepthStandard)
	if !strings.HasPrefix(answerTo(md, 0), "`TallyTimeout` default: TallyTimeout 5 [S1]") {
		t.Errorf("the Summary does not open with the entry's default:\n%s", md)
	}
	if strings.Contains(md, "differs between") || strings.Contains(md, "16") {
		t.Errorf("another entry's paragraph is quoted:\n%s", md)
	}
}

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

func TestValueStatedInTheEntrysOwnSentence(t *testing.T) {
	t.Parallel()
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

func TestLongReferenceReadToItsEnd(t *testing.T) {
	t.Parallel()
	_, md := synthesize(t, "By default, how many headers can an HTTP request carry before Tallyproxy rejects it with a 400 error?", []research.Source{longReference()}, research.DepthStandard)
	if !strings.Contains(answerTo(md, 0), "The default value is 101") {
		t.Errorf("the last entry of a long reference is not read:\n%s", md)
	}
}

func TestProductNameIsTheSetting(t *testing.T) {
	t.Parallel()
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

// An option entry of a definition list whose description says what the
// option is and whose last sentence states its default ("Default: 120
// seconds."): the default is a statement about the entry, so it answers a
// question that describes the option without naming it, and the
// description is quoted before it.
func TestEntryDefaultAnswersAQuestionThatDescribesTheEntry(t *testing.T) {
	t.Parallel()
	page := "6.3. Peering protocol\n\n" +
		"connect delay time number: Delay in seconds between protocol startup and the first attempt to connect. Default: 5 seconds.\n\n" +
		"connect retry time number: Time in seconds to wait before retrying a failed attempt to connect. Default: 120 seconds.\n\n" +
		"error wait time number,number: Minimum and maximum delay in seconds between a protocol failure and automatic restart. Default: 60, 300.\n"
	src := []research.Source{{ID: "S1", Title: "Protocols — Example Router User's Guide", Text: page}}
	_, md := synthesize(t, "How many seconds does the router wait before it retries a connection attempt that failed?", src, research.DepthStandard)
	got := answerTo(md, 0)
	if !strings.Contains(got, "Time in seconds to wait before retrying") || !strings.Contains(got, "Default: 120 seconds.") {
		t.Errorf("the Summary does not give the retry entry with its default:\n%s", md)
	}
	if strings.Contains(md, "5 seconds") || strings.Contains(md, "300") {
		t.Errorf("another entry's default is quoted:\n%s", md)
	}
}

// The entry's words are all its prose before the value: "Default: 100."
// answers what its second sentence describes ("a route received through
// eXR", a protocol named in mixed case).
func TestEntryDefaultSaysEveryWordOfItsEntry(t *testing.T) {
	t.Parallel()
	page := "6.3. Peering protocol\n\n" +
		"allow local_rank switch: A standard implementation does not send the Local Rank attribute to external neighbors and ignores it when received from external neighbors. Default: off.\n\n" +
		"default local_rank number: A default value for the Local Rank attribute. It is used when a new Local Rank attribute is attached to a route by the protocol itself (for example, if a route is received through eXR). Default: 100.\n"
	src := []research.Source{{ID: "S1", Title: "Protocols — Example Router User's Guide", Text: page}}
	_, md := synthesize(t, "What Local Rank does the router give by default to a route it received over eXR?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.Contains(got, "Default: 100.") {
		t.Errorf("the Summary does not give the entry's default:\n%s", md)
	}
}

// On a page of one entry, a sentence of prose that states the value
// unset ("If that variable has not been set, the initial value will be
// 8.") is a statement about the entry its title and the sentences before
// it describe, and answers a question that asks for the default without
// the word.
func TestPageEntryInitialValueAnswersTheDefault(t *testing.T) {
	t.Parallel()
	entry := "CHUNK_LIMIT\n\nSpecifies the maximum number of records that can be packed into any one archive chunk when packing is enabled by the PACK property. " +
		"The original records will be spread across as many chunks as necessary to honor this limit.\n\n" +
		"The initial value for this property is taken from the DEFAULT_CHUNK_LIMIT variable when the target is created. If that variable has not been set, the initial value will be 12.\n"
	other := "PACK\n\nWhen this property is set to true, the records of the target are packed into chunks for faster transfer. " +
		"Projects should not set this property directly; it is a control for the person who runs the build.\n"
	src := []research.Source{
		{ID: "S1", Title: "PACK", Text: other},
		{ID: "S2", Title: "CHUNK_LIMIT", Text: entry},
	}
	_, md := synthesize(t, "With packing switched on, how many records does the tool put into each archive chunk unless I change it?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.Contains(got, "the initial value will be 12") {
		t.Errorf("the Summary does not give the entry's initial value:\n%s", md)
	}
}

// A page of one entry, titled with the name of the command a question
// writes as a call ("option()"), is that command's entry: its sentence
// that states the default answers, though it names neither the file the
// question declares it in nor the question's verbs.
func TestCallFormFindsThePageOfItsEntry(t *testing.T) {
	t.Parallel()
	option := "option\n\nProvide a boolean option that the user can optionally select.\n\n" +
		"If no initial <value> is provided, boolean OFF is the default value. If <variable> is already set as a normal or cache variable, then the command does nothing.\n"
	tutorial := "Step 2: Adding a Library\n\nFirst create a variable USE_MYMATH using the option() command in the top-level BuildList.txt file. " +
		"Then update BuildList.txt to declare the library and start the build with it. " +
		"The first step is to add an option to the top-level BuildList.txt file, and to give it a value.\n"
	src := []research.Source{
		{ID: "S1", Title: "Step 2: Adding a Library", Text: tutorial},
		{ID: "S2", Title: "option", Text: option},
	}
	_, md := synthesize(t, "If I declare an option() in my BuildList.txt without giving it a value, what value does it start with?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.Contains(got, "boolean OFF is the default value") {
		t.Errorf("the Summary does not quote the option page's default:\n%s", md)
	}
}

// A term that states its entry's value in brackets ("--hold-vol=<number>
// [default: 5000]") is the label of all of it, colon inside the brackets
// and all, and the value answers a question that the entry's sentences
// together describe, though no one of them says it all.
func TestBracketedDefaultInATermAnswersForItsEntry(t *testing.T) {
	t.Parallel()
	page := "Memory checker options\n\nThese options apply to the memory checker only; the core options apply to every tool.\n\n" +
		"--hold-vol=<number> [default: 5000]: When the program releases memory, that memory is not immediately made available for re-allocation. " +
		"Instead, it is marked inaccessible and placed in a queue of freed blocks. " +
		"The purpose is to defer as long as possible the point at which freed memory comes back into circulation. " +
		"This increases the chance that the checker will be able to detect invalid accesses to blocks after they have been freed.\n\n" +
		"--hold-count=<number> [default: 7]: Sets how many stack frames the checker records for each block it allocates, which makes its reports more precise.\n"
	if term, _, ok := inlineLabel("--hold-vol=<number> [default: 5000]: When the program releases memory, that memory is not made available."); !ok || term != "--hold-vol=<number> [default: 5000]" {
		t.Errorf("inlineLabel term = %q, %v; want the whole term", term, ok)
	}
	faq := "Frequently asked questions\n\nWhy does the program still catch errors in code I did not write? " +
		"Libraries reuse buffers, and errors in them are still caught and reported. " +
		"You can catch fewer of them with a suppression file, which the tool reads at start.\n"
	src := []research.Source{{ID: "S1", Title: "Frequently asked questions", Text: faq}, {ID: "S2", Title: "Memory checker manual", Text: page}}
	_, md := synthesize(t, "How much freed memory does the checker hold back from reuse by default, so that it can still catch accesses to freed blocks?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.Contains(got, "[default: 5000]") {
		t.Errorf("the Summary does not give the entry's bracketed default:\n%s", md)
	}
}

// A "Default: …" line closing an entry's description answers a question
// for the default of what the entry's label names ("router id"), but not
// one about an entry whose label names another attribute ("min keepalive
// time" is no answer for the keepalive time).
func TestDefaultLineAnswersForTheEntryItsLabelNames(t *testing.T) {
	t.Parallel()
	page := "3.2 Global options\n\n" +
		"router id IPv4 address: Set the router ID, a world-wide unique identification of your router, usually one of the router's IPv4 addresses. Default: the lowest IPv4 address of a non-loopback interface.\n\n" +
		"graceful restart wait number: How long to wait for protocols to reach their full state after a restart. Default: 240 seconds.\n\n" +
		"min keepalive time number: Lower bound on the keepalive time the neighbour may propose. Default: none.\n\n" +
		"keepalive time number: Delay in seconds between sending of two consecutive keepalive messages. Default: One third of the hold time.\n"
	src := []research.Source{{ID: "S1", Title: "Configuration — Example Router User's Guide", Text: page}}
	_, md := synthesize(t, "Which router ID does the router use when I don't set one in its configuration?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.Contains(got, "the lowest IPv4 address") {
		t.Errorf("the Summary does not give the router ID's default:\n%s", md)
	}
	_, md = synthesize(t, "How often does the router send keepalive messages by default?", src, research.DepthStandard)
	if got := answerTo(md, 0); strings.Contains(got, "Default: none.") {
		t.Errorf("another entry's default answers the keepalive time:\n%s", md)
	}
}

// A part that names an option by a word too common to name an entry
// alone ("noise") and its section by a rare word of the section's
// heading ("the hushdetect filter") is answered by the option of that
// section, not by the option of the same name under another heading.
func TestEntryUnderTheSectionItsHeadingNames(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("Audio Filters\n\n")
	for i, f := range []string{"afade", "deconvolve", "echo", "hushdetect", "gate"} {
		fmt.Fprintf(&b, "8.%d %s\n\n", i+1, f)
		if f == "hushdetect" {
			b.WriteString("Detect quiet in an audio stream. This filter logs a message when the input volume stays below a noise tolerance for a while.\n\n" +
				"The filter accepts the following options:\n\n" +
				"noise, n: Set noise tolerance. Can be given in dB or as an amplitude ratio. Default is -60dB, or 0.001.\n\n" +
				"duration, d: Set quiet duration until notification (default is 2 seconds).\n\n")
			continue
		}
		fmt.Fprintf(&b, "Apply the %s effect to the noise floor of the input audio.\n\nThe filter accepts the following options:\n\n", f)
		fmt.Fprintf(&b, "noise: Set noise when doing divisions in the %s filter. Default is 0.000%d.\n\n", f, i+1)
		fmt.Fprintf(&b, "mode, m: Set the %s mode. Default is auto.\n\n", f)
	}
	src := []research.Source{
		{ID: "S1", Title: "Audio Filters Documentation", Text: b.String()},
		{ID: "S2", Title: "Audio Filters Documentation (all)", Text: "Noise\n\nMany filters take a noise option; the noise level is written in dB. A level of noise below the tolerance is quiet.\n"},
	}
	_, md := synthesize(t, "What noise level does the hushdetect filter use to decide that a stretch of audio is quiet, if I give it no options?", src, research.DepthStandard)
	if got := summaryOf(md); !strings.Contains(got, "-60dB") || strings.Contains(got, "divisions") {
		t.Errorf("the Summary does not give the hushdetect filter's noise default:\n%s", md)
	}
}

// An option whose term is only its short names ("TP, tp") is the entry
// its one-line description says ("Set maximum true peak."), under the
// section a rare word of the question's heading names ("the loudnorm
// filter"): its default answers, not another section's "peak" option
// or an entry that mentions the words in passing.
func TestShortNamedOptionIsTheEntryItsDescriptionSays(t *testing.T) {
	t.Parallel()
	page := "Audio filters\n\n" +
		"29.91 compand\n\nCompress or expand the audio's dynamic range.\n\nThe filter accepts the following options:\n\n" +
		"peak: Set the target peak value of the compander. Default is 0.9.\n\n" +
		"29.92 loudnorm\n\nEBU R128 loudness normalization. Includes both dynamic and linear normalization modes.\n\n" +
		"The filter accepts the following options:\n\n" +
		"I, i: Set integrated loudness target. Range is -70.0 - -5.0. Default value is -24.0.\n\n" +
		"LRA, lra: Set loudness range target. Range is 1.0 - 50.0. Default value is 7.0.\n\n" +
		"TP, tp: Set maximum true peak. Range is -9.0 - +0.0. Default value is -2.0.\n\n" +
		"linear: Normalize by linearly scaling the source audio. Target LRA shouldn't be lower than source LRA and the change in integrated loudness shouldn't result in a true peak which exceeds the target TP. Default is true.\n"
	src := []research.Source{{ID: "S1", Title: "Audio Filters Documentation", Text: page}}
	_, md := synthesize(t, "Which true peak does the loudnorm filter aim for when I don't set any targets?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.Contains(got, "Default value is -2.0") || strings.Contains(got, "0.9") {
		t.Errorf("the Summary does not give the TP option's default:\n%s", md)
	}
}

// A code the asker saw ("Runtime error 217") names the entry a list of
// codes labels with it, whatever the label says after the number.
func TestCodeTheAskerSawNamesItsEntry(t *testing.T) {
	t.Parallel()
	page := "Runtime errors\n\n" +
		"Applications generated by the Tally compiler generate run-time errors when certain abnormal conditions are detected in the application. This appendix lists the possible run-time errors and gives information on why they might be produced.\n\n" +
		"204 Invalid pointer operation: This error is generated when a block of memory is freed twice, which the memory manager reports when it checks its blocks.\n\n" +
		"215 Arithmetic overflow error: This error is reported when the result of an operation does not fit in its type, and checking is on.\n\n" +
		"216 Stack fault: The application ran out of stack space, usually in a recursion that never ends.\n\n" +
		"217 Unhandled exception occurred: This error means that an exception was raised and no handler caught it, so the application stops and prints the exception's message.\n"
	src := []research.Source{{ID: "S1", Title: "Tally User's Guide", Text: page}}
	_, md := synthesize(t, "My Tally program died with \"Runtime error 217\". What does that error number mean?", src, research.DepthStandard)
	sum := summaryOf(md)
	if !strings.Contains(sum, "no handler caught it") {
		t.Errorf("the Summary does not quote the entry of error 217:\n%s", md)
	}
	quotesNone(t, sum, md, "the Summary quotes another code's entry", "Stack fault", "freed twice")
}

// A variable the question writes with its sigil ("$outbox") names the
// entry a reference page labels with its bare name ("outbox"): its box
// answers the default, not the box of another entry whose label is a
// word of the question ("mailboxes").
func TestSigilNamesTheVariablesEntry(t *testing.T) {
	t.Parallel()
	page := "Configuration variables\n\n" +
		"mailboxes\n\n" +
		"Type: string list\n" +
		"Default: (empty)\n\n" +
		"Lists the mailboxes Tallymail polls for new mail.\n\n" +
		"outbox\n\n" +
		"Type: path\n" +
		"Default: “~/Letters”\n\n" +
		"Specifies the default location of your mailboxes. " +
		"A “+” at the beginning of a pathname is expanded to the value of this variable.\n\n" +
		"outbox_format\n\n" +
		"Type: string\n" +
		"Default: “%n %s”\n\n" +
		"Sets how the file browser shows each mailbox."
	src := []research.Source{{ID: "S1", Title: "Reference — Tallymail manual", Text: page}}
	_, md := synthesize(t, "What is the default location of my mailboxes in Tallymail, the default value of $outbox?", src, research.DepthStandard)
	if got := answerTo(md, 0); !strings.Contains(got, "~/Letters") {
		t.Errorf("the Summary does not give $outbox's default:\n%s", md)
	}
	if strings.Contains(md, "(empty)") {
		t.Errorf("another entry's default is quoted:\n%s", md)
	}
}

// The values of an entry defined one a line ("TallyTokens Full: …" over
// "TallyTokens Terse: …") are statements of the entry, each quoted whole:
// neither headings (they end without a full stop) nor the boxes of
// entries of their own (the first looks like a name above a box).
func TestValueDefinitionsOneALineAreTheEntrys(t *testing.T) {
	t.Parallel()
	page := "Core Directives\n\nTallyTokens Directive\n\n" +
		"Description: Configures the Banner line of Tallyweb's replies\n" +
		"Syntax: TallyTokens Full|Terse|Major\n" +
		"Default: TallyTokens Full\n\n" +
		"This directive controls how much the Banner line of each reply tells about the server.\n\n" +
		"TallyTokens Full (or not specified): Tallyweb sends (e.g.): Banner: Tallyweb/3.1.4 (Unix)\n\n" +
		"TallyTokens Terse: Tallyweb sends (e.g.): Banner: Tallyweb\n\n" +
		"TallyTokens Major: Tallyweb sends (e.g.): Banner: Tallyweb/3\n\n" +
		"This setting applies to the whole server.\n\n" +
		"TallyLog Directive\n\nDescription: Names the log file\nSyntax: TallyLog path\n\nThe log is written by one process."
	p := docPool([2]string{"Core — Tallyweb", page})
	want := map[string]bool{
		"TallyTokens Full (or not specified): Tallyweb sends (e.g.): Banner: Tallyweb/3.1.4 (Unix)": true,
		"TallyTokens Terse: Tallyweb sends (e.g.): Banner: Tallyweb":                                true,
		"TallyTokens Major: Tallyweb sends (e.g.): Banner: Tallyweb/3":                              true,
		"This setting applies to the whole server.":                                                 true,
	}
	for _, s := range p.sents {
		if want[s.text] {
			delete(want, s.text)
			if s.label != "TallyTokens" || s.box {
				t.Errorf("%q: label %q, box %v; want a sentence of TallyTokens", s.text, s.label, s.box)
			}
		}
	}
	for s := range want {
		t.Errorf("%q is not a sentence of the page", s)
	}
}
