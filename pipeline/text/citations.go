package text

import (
	"regexp"
	"strconv"
	"strings"
)

// citationRe matches one bracketed citation group: "[S3]", "[S1, S2]",
// "[S1; P2]", "[S2-S4]" (a range). A backslash-escaped bracket is text.
var citationRe = regexp.MustCompile(`\[\s*([SP]\d{1,4}(?:\s*(?:[,;]|[-–]|and)\s*[SP]?\d{1,4})*)\s*\]`)

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
	for _, loc := range citationRe.FindAllStringSubmatchIndex(s, -1) {
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
	out := citationRe.ReplaceAllStringFunc(s, func(m string) string { return "" })
	out = strings.Join(strings.Fields(out), " ")
	for _, p := range []string{" .", " ,", " ;", " :", " !", " ?"} {
		out = strings.ReplaceAll(out, p, p[1:])
	}
	return out
}

// IsCitationOnly reports whether s holds nothing but citation markers and
// punctuation: a fragment that belongs to the sentence before it.
func IsCitationOnly(s string) bool {
	if !citationRe.MatchString(s) {
		return false
	}
	rest := citationRe.ReplaceAllString(s, "")
	return strings.Trim(rest, " \t\n.,;:") == ""
}
