package text

import (
	"strings"
	"testing"
)

// FuzzSentences checks the invariants every caller relies on: spans are in
// order, inside the text, trimmed, and say what the text says there.
func FuzzSentences(f *testing.F) {
	for _, s := range []string{
		"Dr. Smith went to the U.S. He left.", "a\n\nb", "To run, use the\n\n--x\n\nflag.",
		"今日は晴れ。明日は雨。", "1. One.\n2. Two.", "", "...", "\"Hi.\" \"Bye.\"", "x\u00a0y. Z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		end := 0
		for _, sp := range Sentences(s) {
			if sp.Start < end || sp.End <= sp.Start || sp.End > len(s) {
				t.Fatalf("bad span %+v after %d in %q", sp, end, s)
			}
			if s[sp.Start:sp.End] != sp.Text || strings.TrimSpace(sp.Text) != sp.Text {
				t.Fatalf("span text %q does not match [%d:%d] of %q", sp.Text, sp.Start, sp.End, s)
			}
			end = sp.End
		}
		Tokens(s)
		ExtractFacts(s)
		d := NewDocument("S1", s)
		p := d.BestPassage(Tokens(s))
		if p.Start < 0 || p.End > len(s) || p.Start > p.End {
			t.Fatalf("bad passage %+v", p)
		}
	})
}
