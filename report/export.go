package report

import (
	"regexp"
	"strings"
)

// autoLinkAt matches an autolink ("<https://…>") at the start of a string.
var autoLinkAt = regexp.MustCompile(`^<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>`)

// SafeMarkdown returns a report's Markdown for export with raw HTML made
// inert: every '<' that would open a tag, comment or declaration, and
// every '&' that would start an entity, is backslash-escaped, outside code
// spans and fenced code (where they are already text). Page titles, plan
// section names and model text then show as written in any downstream
// viewer, even one that renders HTML in Markdown. Images stay text too.
// Autolinks and link
// destinations in angle brackets stay links.
func SafeMarkdown(md string) string {
	var b strings.Builder
	b.Grow(len(md) + len(md)/16)
	fence := ""
	for i, line := range strings.Split(md, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) <= 3 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			switch {
			case fence == "":
				fence = t[:3]
			case strings.HasPrefix(t, fence):
				fence = ""
			}
			b.WriteString(line)
			continue
		}
		if fence != "" {
			b.WriteString(line)
			continue
		}
		b.WriteString(escapeLineHTML(line))
	}
	return b.String()
}

// escapeLineHTML escapes the HTML-significant characters of one line of
// Markdown text outside its code spans.
func escapeLineHTML(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2]) // an escape stays one
			i += 2
		case c == '`':
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			end := closingRun(s, i+n, n)
			if end < 0 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
			b.WriteString(s[i : end+n]) // a code span: its text is text already
			i = end + n
		case c == '<':
			if m := autoLinkAt.FindString(s[i:]); m != "" {
				b.WriteString(m)
				i += len(m)
				continue
			}
			if i+1 < len(s) && isTagStart(s[i+1]) {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
			i++
		case c == '!' && i+1 < len(s) && s[i+1] == '[':
			b.WriteString(`!\[`) // an image loads what a page named; keep it as text, as Render does
			i += 2
		case c == '&':
			b.WriteString(`\&`)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// closingRun finds the run of exactly n backticks closing a code span
// opened before from, or -1.
func closingRun(s string, from, n int) int {
	for j := from; j < len(s); {
		k := strings.IndexByte(s[j:], '`')
		if k < 0 {
			return -1
		}
		k += j
		m := 0
		for k+m < len(s) && s[k+m] == '`' {
			m++
		}
		if m == n {
			return k
		}
		j = k + m
	}
	return -1
}

// isTagStart reports whether c after '<' would open raw HTML.
func isTagStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '!' || c == '?'
}
