package text

import (
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	cases := []struct {
		in    string
		n     int
		clip  string
		short string
	}{
		{"hello world", 20, "hello world", "hello world"},
		{"hello world", 6, "hello", "hello…"},
		{"héllo wörld", 4, "héll", "hél…"},
		{"", 3, "", ""},
		{"abc", 0, "", "abc"},
	}
	for _, c := range cases {
		if got := Clip(c.in, c.n); got != c.clip {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.n, got, c.clip)
		}
		if got := Shorten(c.in, c.n); got != c.short {
			t.Errorf("Shorten(%q, %d) = %q, want %q", c.in, c.n, got, c.short)
		}
	}
}

func TestClipBytesKeepsCharacters(t *testing.T) {
	s := "añb€c"
	for n := 0; n <= len(s)+1; n++ {
		got := ClipBytes(s, n)
		if len(got) > n || !utf8.ValidString(got) {
			t.Errorf("ClipBytes(%q, %d) = %q: too long or split a character", s, n, got)
		}
	}
}

func TestOneLine(t *testing.T) {
	if got := OneLine("  a\n\tb   c \n"); got != "a b c" {
		t.Errorf("OneLine = %q", got)
	}
}
