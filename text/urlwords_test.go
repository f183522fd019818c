package text

import "testing"

func TestURLWords(t *testing.T) {
	tests := map[string]string{
		"http://docs.test/docs/sql-vacuum.html": "docs sql vacuum html",
		"http://docs.test/a%20b/c_d?q=x&y=z":    "a b c d q x y z",
		"http://docs.test/":                     "",
		"::not a url":                           "",
	}
	for in, want := range tests {
		if got := URLWords(in); got != want {
			t.Errorf("URLWords(%q) = %q, want %q", in, got, want)
		}
	}
}
