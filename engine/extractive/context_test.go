package extractive

import (
	"strings"
	"testing"

	"github.com/quarryhq/quarry/research"
)

// The question's setting ("… in Tally UPS Tools") is where a thing is
// asked about. On one product's documentation site a page need not name
// the product to answer, and a capitals name in the setting is not the
// thing asked.

func TestContextIsACapitalisedName(t *testing.T) {
	t.Parallel()
	got := contextWords("In which format should dates be written in Tally UPS Tools?")
	for _, w := range []string{"talli", "up", "tool"} {
		if !got[w] {
			t.Errorf("contextWords: %v lacks %q", got, w)
		}
	}
	if got := contextWords("What is the default port in Python?"); !got["python"] || len(got) != 1 {
		t.Errorf("contextWords(… in Python) = %v, want python alone", got)
	}
}

func TestSitePageNeedNotNameTheProduct(t *testing.T) {
	t.Parallel()
	src := []research.Source{
		{ID: "S1", URL: "http://docs.test/manual/appendix-c1.html", Title: "C.1. Time and Date format", Text: "C.1. Time and Date format\n\n" +
			"When possible, dates should be expressed in ISO 8601 compatible calendar format, that is to say \"YYYY-MM-DD\". " +
			"Separators for the date (hyphen) and time (colon) components are required."},
		{ID: "S2", URL: "http://docs.test/manual/intro.html", Title: "Introduction — Tally UPS Tools", Text: "Introduction\n\n" +
			"Tally UPS Tools monitors power devices and shuts systems down safely. " +
			"Tally UPS Tools writes its logs through syslog."},
		{ID: "S3", URL: "http://docs.test/manual/config.html", Title: "Configuration — Tally UPS Tools", Text: "Configuration\n\n" +
			"Every Tally UPS Tools program reads its settings from a file in the configuration directory. " +
			"When possible, time-stamps and dates should be written as detailed in the Time and Date format chapter."},
	}
	_, md := synthesize(t, "In which format should dates be expressed in Tally UPS Tools?", src, research.DepthStandard)
	if got := sectionOf(md, "Summary"); !strings.Contains(got, "ISO 8601 compatible calendar format") {
		t.Errorf("the answering page of the product's site is not quoted:\n%s", md)
	}
}

// A part that refers back to what the first part asks ("… what exit
// status do I get when that hook is not defined?") is answered by the
// page's sentence that refers back the same way ("If that hook is not
// defined, …") right after the one that names it, though it repeats
// none of the first part's words; a sentence about exit statuses in
// general is not its answer.
func TestBackReferenceAnswersThePartThatLeansOn(t *testing.T) {
	t.Parallel()
	page := "Tallysh is an interactive shell for small devices. It reads its settings from ~/.tallyrc at startup. " +
		"It keeps a history of what was typed in ~/.tally_history.\n\n" +
		"Lookup\n\n" +
		"When a command is given, Tallysh looks it up in the directories of its search path. " +
		"If a command is not found in the search path, Tallysh tries to run a hook named on_missing_command. " +
		"If that hook exists, it is invoked with the original command and its arguments. " +
		"If that hook is not defined, the shell prints an error message and returns an exit status of 127.\n\n" +
		"Exit status\n\n" +
		"The exit status of a hook is the exit status of the last command run in its body. " +
		"A command that succeeds returns an exit status of zero."
	src := []research.Source{{ID: "S1", Title: "Tallysh manual", Text: page}}
	_, md := synthesize(t, "What does Tallysh do when a command cannot be found: which hook does it try to run, and what exit status do I get when that hook is not defined?", src, research.DepthStandard)
	if got := answerTo(md, 1); !strings.Contains(got, "127") {
		t.Errorf("the second part is not answered by the sentence that refers back to the hook:\n%s", md)
	}
}
