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
