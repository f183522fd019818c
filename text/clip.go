package text

import (
	"strings"
	"unicode/utf8"
)

// OneLine collapses every run of whitespace, line breaks included, to one
// space and trims the ends.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Clip cuts s to at most n runes and trims the space the cut leaves.
func Clip(s string, n int) string {
	if n < 0 {
		n = 0
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return strings.TrimSpace(s[:j])
		}
		i++
	}
	return s
}

// Shorten is Clip that marks a cut with "…" (the mark counts toward n).
func Shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n || n < 1 {
		return s
	}
	return Clip(s, n-1) + "…"
}

// ClipBytes cuts s to at most n bytes without splitting a character.
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
