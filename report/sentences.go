package report

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// ReportSentence is one sentence of a Markdown report.
type ReportSentence struct {
	Section string // the heading it sits under ("" before the first)
	Raw     string // with citation markers, Markdown removed
	Plain   string // without citation markers
}

var (
	headingRe   = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	fenceRe     = regexp.MustCompile("^\\s{0,3}(```|~~~)")
	listItemRe  = regexp.MustCompile(`^\s*(?:[-*+•]|\d{1,3}[.)])\s+`)
	tableSepRe  = regexp.MustCompile(`^\s*\|?[\s:|-]+\|[\s:|-]*$`)
	ruleRe      = regexp.MustCompile(`^\s{0,3}(?:(?:\*\s*){3,}|(?:-\s*){3,}|(?:_\s*){3,})$`)
	imageRe     = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	linkRe      = regexp.MustCompile(`\[((?:[^\[\]]|\[[^\[\]]*\])+)\]\([^)\s]*(?:\s+"[^"]*")?\)`)
	autoLinkRe  = regexp.MustCompile(`<(https?://[^>\s]+)>`)
	htmlTagRe   = regexp.MustCompile(`</?[a-zA-Z][a-zA-Z0-9]*(?:\s[^<>]*)?/?>`)
	escapeRe    = regexp.MustCompile("\\\\([!-/:-@\\[-`{-~])")
	emphasisRe  = regexp.MustCompile(`\*+|~~|(?:^|\s)_+|_+(?:\s|$)`)
	sourcesHead = regexp.MustCompile(`(?i)^(?:sources|references|bibliography|citations|works cited)$`)
)

// ReportSentences splits a Markdown report into sentences with their
// section: headings, code blocks, rules and a trailing Sources list are
// skipped; list items, table rows and paragraphs are split into sentences;
// inline Markdown is removed. A citation-only fragment ("… done. [S1]")
// joins the sentence before it.
func ReportSentences(markdown string) []ReportSentence {
	out, _ := splitSentences(markdown)
	return out
}

// blockSpan is the byte range of the Markdown block (paragraph, list
// item, table row) a sentence was read from.
type blockSpan struct{ start, end int }

// splitSentences is ReportSentences, also returning for each sentence the
// source range of its block, so a citation marker found in the parsed
// Markdown can be given to the sentence it belongs to.
func splitSentences(markdown string) ([]ReportSentence, []blockSpan) {
	var out []ReportSentence
	var spans []blockSpan
	section := ""
	skip := false // inside a Sources section
	inFence := false
	var block []string
	var span blockSpan
	itemBlock := false // the block is a list item
	leadList := false  // the block is a lead-in taking in its list's items
	flush := func() {
		if len(block) > 0 && !skip {
			out = appendBlock(out, section, strings.Join(block, " "))
			for len(spans) < len(out) {
				spans = append(spans, span)
			}
		}
		block = block[:0]
		itemBlock, leadList = false, false
	}
	add := func(text string, start, end int) {
		if len(block) == 0 {
			span.start = start
		}
		span.end = end
		block = append(block, text)
	}
	offset := 0
	for _, line := range strings.Split(markdown, "\n") {
		start, end := offset, offset+len(line)
		offset = end + 1
		if fenceRe.MatchString(line) {
			flush()
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || ruleRe.MatchString(line):
			flush()
		case headingRe.MatchString(line):
			flush()
			section = restoreBrackets(cleanInline(headingRe.FindStringSubmatch(line)[2]))
			skip = sourcesHead.MatchString(section)
		case tableSepRe.MatchString(line) && strings.Contains(line, "-"):
			flush()
		case strings.HasPrefix(trimmed, "|"):
			flush()
			cells := strings.Split(strings.Trim(trimmed, "|"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			add(strings.Join(cells, " "), start, end)
			flush()
		case listItemRe.MatchString(line) && (leadList || len(block) > 0 && !itemBlock && introducesList(block[len(block)-1])):
			// A sentence that introduces a list, quoted with its list
			// ("… any table that" / "- is not a virtual table, and" /
			// "- is not … table [S1]."), is one sentence with its items.
			leadList = true
			add(listItemRe.ReplaceAllString(line, ""), start, end)
		case listItemRe.MatchString(line):
			flush()
			itemBlock = true
			add(listItemRe.ReplaceAllString(line, ""), start, end)
		default:
			add(strings.TrimLeft(trimmed, "> "), start, end)
		}
	}
	flush()
	return out, spans
}

// introducesList reports whether a paragraph line ends a sentence that
// introduces the list after it: with a colon, or left open after a word or
// a comma.
func introducesList(line string) bool {
	line = strings.TrimSpace(line)
	last, _ := utf8.DecodeLastRuneInString(line)
	return last == ':' || last == ',' || unicode.IsLetter(last)
}

var (
	escapedEmphasis = strings.NewReplacer(`\*`, "\uE001", `\_`, "\uE002", "\\`", "\uE003", `\~`, "\uE004")
	restoreEmphasis = strings.NewReplacer("\uE001", "*", "\uE002", "_", "\uE003", "`", "\uE004", "~")
)

// appendBlock splits one paragraph, list item or table row into sentences.
func appendBlock(out []ReportSentence, section, block string) []ReportSentence {
	first := len(out)
	var spans []text.Span
	for _, piece := range splitAfterCitations(cleanInlineMarked(block)) {
		spans = append(spans, text.Sentences(text.OneLine(strings.ReplaceAll(piece, codeMark, "")))...)
	}
	for _, sp := range spans {
		raw := sp.Text
		if len(out) > first {
			// Citations that open a sentence close the one before it.
			if lead := research.LeadingCitations(raw); lead != "" {
				prev := &out[len(out)-1]
				prev.Raw += " " + strings.TrimSpace(lead)
				prev.Plain = plainOf(prev.Raw)
				raw = strings.TrimSpace(raw[len(lead):])
			}
			if raw == "" {
				continue
			}
			if research.IsCitationOnly(raw) {
				prev := &out[len(out)-1]
				prev.Raw += " " + raw
				prev.Plain = plainOf(prev.Raw)
				continue
			}
		}
		out = append(out, ReportSentence{Section: section, Raw: raw, Plain: plainOf(raw)})
	}
	return out
}

// splitAfterCitations cuts s after every citation group that is followed
// by the start of a new sentence: "… 7420` [S3] EmberDB uses …" holds two
// sentences even though the first ends in code, not a period.
func splitAfterCitations(s string) []string {
	var out []string
	start := 0
	for _, loc := range research.CitationPattern.FindAllStringIndex(s, -1) {
		rest := strings.TrimLeft(s[loc[1]:], " ")
		if len(rest) == len(s[loc[1]:]) || rest == "" {
			continue // no space after the marker, or nothing after it
		}
		r, _ := utf8.DecodeRuneInString(rest)
		if unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune("\"“'‘(`"+codeMark, r) {
			out = append(out, s[start:loc[1]])
			start = len(s) - len(rest)
		}
	}
	return append(out, s[start:])
}

// inertBracket stands, in a sentence's Raw text, for a '[' that the
// report does not read as a citation: an escaped one, one inside a code
// span, one in a link's text. Render never links those (goldmark knows
// code and links); the sentence split must not count them either, or a
// page's "[S9]" in a quoted command fails verification as a citation.
const inertBracket = "\uE005"

// restoreBrackets turns inert brackets back into text.
func restoreBrackets(s string) string { return strings.ReplaceAll(s, inertBracket, "[") }

// plainOf is a sentence's text without its citation markers.
func plainOf(raw string) string { return restoreBrackets(research.StripCitations(raw)) }

// inertCode makes the brackets inside code spans inert.
func inertCode(s string) string {
	if !strings.Contains(s, "`") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '`' {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		fence := s[i : i+n]
		end := -1
		for j := i + n; j < len(s); {
			k := strings.Index(s[j:], fence)
			if k < 0 {
				break
			}
			k += j
			m := 0
			for k+m < len(s) && s[k+m] == '`' {
				m++
			}
			if m == n {
				end = k
				break
			}
			j = k + m
		}
		if end < 0 {
			b.WriteString(fence) // no closing run: the backticks are text
			i += n
			continue
		}
		b.WriteString(fence)
		b.WriteString(strings.ReplaceAll(s[i+n:end], "[", inertBracket))
		b.WriteString(fence)
		i = end + n
	}
	return b.String()
}

// cleanInline removes inline Markdown: images and links keep their text,
// code spans and emphasis lose their markers, escapes are undone and HTML
// tags dropped. Citation markers stay.
func cleanInline(s string) string { return strings.ReplaceAll(cleanInlineMarked(s), codeMark, "") }

// codeMark stands, in cleanInlineMarked's text, where a code span's
// backticks were: a quote that opens on code ("`auto-suffix-retain`: If
// …") starts a sentence after a citation, though its first letter is
// lower case.
const codeMark = "\uE006"

// cleanInlineMarked is cleanInline with codeMark where backticks were.
func cleanInlineMarked(s string) string {
	// Escaped emphasis characters are text: hide them from the emphasis
	// stripping below.
	s = inertCode(s)
	s = strings.ReplaceAll(s, `\[`, inertBracket)
	s = escapedEmphasis.Replace(s)
	s = imageRe.ReplaceAllString(s, "$1")
	s = linkRe.ReplaceAllStringFunc(s, func(m string) string {
		label := "[" + linkRe.FindStringSubmatch(m)[1] + "]"
		if research.CitationPattern.FindString(label) == label {
			return m // "[S1](#s1)": a citation rendered as a link
		}
		return strings.ReplaceAll(linkRe.ReplaceAllString(m, "$1"), "[", inertBracket)
	})
	s = autoLinkRe.ReplaceAllString(s, "$1")
	s = htmlTagRe.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "`", codeMark)
	s = emphasisRe.ReplaceAllStringFunc(s, func(m string) string {
		if strings.TrimSpace(m) == "" || strings.Trim(m, "*~_") == "" {
			return ""
		}
		return " "
	})
	s = escapeRe.ReplaceAllString(s, "$1")
	s = restoreEmphasis.Replace(s)
	return text.OneLine(s)
}
