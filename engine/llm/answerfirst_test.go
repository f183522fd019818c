package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
)

// identifierSources: a page that answers both parts, a page whose words
// overlap the question's but that answers neither, and an unrelated one.
var identifierSources = []research.Source{
	{ID: "S1", URL: "https://docs.example.org/limits.html", Title: "Limits",
		Text: "The maximum length of an identifier is 63 bytes.\n\nLonger identifiers are truncated, because the identifier length is limited by NAMEDATALEN, which is 64 bytes including the terminating zero byte.\n\nA table can have at most 1600 columns."},
	{ID: "S2", URL: "https://docs.example.org/kernel.html", Title: "Kernel resources",
		Text: "Upgrading the kernel is only needed on NetBSD.\n\nShared memory segments are allocated at server start."},
	{ID: "S3", URL: "https://garden.example.org/tomatoes", Title: "Growing tomatoes",
		Text: "Tomatoes grow best in soil with a pH of 6.2 to 6.8.\n\nWater them deeply twice a week."},
}

// TestSynthesisAnswerFirst: through the real SDKs, the model is given each
// part of the question with the passages that bear on it (not the
// unrelated page), and its report is held to the answer-first rules: the
// Summary opens with each part's answer in the question's order (quoting
// the evidence where the model left a part out of the Summary), says which
// part no source states, and sentences that bear on no part are gone, with
// a section left empty.
func TestSynthesisAnswerFirst(t *testing.T) {
	reply := "## Summary\nTomatoes grow best in slightly acidic soil [S3]. The identifier length is limited by NAMEDATALEN, which is 64 bytes including the terminating zero byte [S1].\n\n" +
		"## Details\nUpgrading the kernel is only needed on NetBSD [S2]. Identifiers longer than that are truncated [S1].\n\n" +
		"## Gardening\nWater tomatoes deeply twice a week [S3].\n"
	providers(t, func(t *testing.T, protocol string) {
		f := newFakeAPI(t, protocol, step{chunks: split(reply, 6)})
		e, _ := newTestEngine(t, f, "local", nil)
		md, _, err := e.Synthesize(context.Background(), engine.SynthesisRequest{
			Question: "What is the maximum length of an identifier and why?",
			Spec: research.TaskSpec{Goal: "What is the maximum length of an identifier and why?",
				Criteria: []string{"maximum length of an identifier", "why the identifier length is limited", "the release that raised the identifier limit"},
				Sections: []string{"Summary", "Details", "Gardening"}},
			Sources: identifierSources}, nil)
		if err != nil {
			t.Fatal(err)
		}
		prompt := userText(f.body(0))
		for _, want := range []string{"Part 1: maximum length of an identifier", "[S1] The maximum length of an identifier is 63 bytes.",
			"Part 3: the release that raised the identifier limit\nNo source read states this part."} {
			if !strings.Contains(prompt, want) {
				t.Errorf("prompt lacks %q:\n%s", want, prompt)
			}
		}
		if strings.Contains(prompt, "garden.example.org") || strings.Contains(prompt, "Tomatoes") {
			t.Errorf("the prompt carries a source that bears on no part:\n%s", prompt)
		}

		t.Logf("held report:\n%s", md)
		summary, rest, _ := strings.Cut(strings.TrimPrefix(md, "## Summary\n"), "\n\n## ")
		first := "The maximum length of an identifier is 63 bytes [S1]."
		if !strings.HasPrefix(summary, first) {
			t.Errorf("Summary = %q, want it to open with %q", summary, first)
		}
		why := strings.Index(summary, "NAMEDATALEN")
		none := strings.Index(summary, "“the release that raised the identifier limit”: "+research.Undetermined)
		if why < 0 || none < why {
			t.Errorf("Summary = %q, want the reason second and the unstated release third", summary)
		}
		for _, gone := range []string{"Tomatoes", "tomatoes", "NetBSD", "## Gardening"} {
			if strings.Contains(md, gone) {
				t.Errorf("report keeps %q, which bears on no part:\n%s", gone, md)
			}
		}
		if !strings.Contains(rest, "Details\nIdentifiers longer than that are truncated [S1].") {
			t.Errorf("Details lost its relevant sentence:\n%s", md)
		}
	})
}
