package research

import (
	"regexp"
	"strconv"
	"strings"
)

// citationGroup is the one definition of a citation marker: a bracketed
// group of source (S#) and prior-section (P#) ids: "[S3]", "[S1, S2]",
// "[S1; P2]", "[S2-S4]" (a range). A backslash-escaped bracket is text.
const citationGroup = `\[\s*(` + label + `(?:\s*(?:[,;]|[-–]|and)\s*[SP]?\d{1,4})*)\s*\]`

// label is one source or prior-section id: S3, P2.
const label = `[SP]\d{1,4}`

// LabelPattern matches a whole id ("S3", "P2") and nothing else.
var LabelPattern = regexp.MustCompile(`^` + label + `$`)

// citationStart matches the opening of a marker, closed or not ("[S2",
// "[ P1"): text that would read as a citation if it reached a report.
var citationStart = regexp.MustCompile(`\[\s*` + label)

// LooksLikeCitation reports whether s holds anything a reader (or the
// verifier) could take for a citation marker, even an unclosed one. Page
// text that does is never quoted into a report as it is.
func LooksLikeCitation(s string) bool { return citationStart.MatchString(s) }

// CitationPattern matches one citation group; submatch 1 is its inside.
var CitationPattern = regexp.MustCompile(citationGroup)

// leadingCitations matches the citation groups that open a string.
var leadingCitations = regexp.MustCompile(`^(?:\s*` + citationGroup + `)+`)

// LeadingCitations returns the citation groups that open s ("[S1] [S2]" of
// "[S1] [S2] Next…"), or "".
func LeadingCitations(s string) string { return leadingCitations.FindString(s) }

// citationPartRe splits a group into ids and range dashes.
var citationPartRe = regexp.MustCompile(`[SP]?\d+|[-–]`)

// maxRange bounds "[S1-S999]" expansion.
const maxRange = 20

// Citations returns the ids cited in s ("S3", "P2"), in order of first
// appearance, without duplicates. Adjacent markers ("[S1][S2]"), lists
// ("[S1, S2]") and ranges ("[S1-S3]") are all understood.
func Citations(s string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, loc := range CitationPattern.FindAllStringSubmatchIndex(s, -1) {
		if loc[0] > 0 && s[loc[0]-1] == '\\' {
			continue
		}
		parts := citationPartRe.FindAllString(s[loc[2]:loc[3]], -1)
		prefix := "S"
		for i := 0; i < len(parts); i++ {
			p := parts[i]
			if p == "-" || p == "–" {
				continue
			}
			if p[0] == 'S' || p[0] == 'P' {
				prefix = p[:1]
			} else {
				p = prefix + p
			}
			// A range: "S2-S4" or "S2-4".
			if i+2 < len(parts) && (parts[i+1] == "-" || parts[i+1] == "–") {
				from, _ := strconv.Atoi(p[1:])
				to, _ := strconv.Atoi(strings.TrimLeft(parts[i+2], "SP"))
				if to > from && to-from <= maxRange {
					for n := from; n <= to; n++ {
						add(prefix + strconv.Itoa(n))
					}
					i += 2
					continue
				}
			}
			add(p)
		}
	}
	return out
}

// StripCitations removes citation markers from s and tidies the space they
// leave ("fact [S1]." → "fact.").
func StripCitations(s string) string {
	if !strings.Contains(s, "[") {
		return s
	}
	out := CitationPattern.ReplaceAllStringFunc(s, func(m string) string { return "" })
	out = strings.Join(strings.Fields(out), " ")
	for _, p := range []string{" .", " ,", " ;", " :", " !", " ?"} {
		out = strings.ReplaceAll(out, p, p[1:])
	}
	return out
}

// IsCitationOnly reports whether s holds nothing but citation markers and
// punctuation: a fragment that belongs to the sentence before it.
func IsCitationOnly(s string) bool {
	if !CitationPattern.MatchString(s) {
		return false
	}
	rest := CitationPattern.ReplaceAllString(s, "")
	return strings.Trim(rest, " \t\n.,;:") == ""
}

// CodeSpan writes s (a command or label taken from a page) as one Markdown
// code span, whatever backticks it holds: the fence is longer than any run
// of backticks inside, so page text cannot close the span early and put a
// citation-like "[S2]" outside it. Markers inside a code span are text.
func CodeSpan(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
