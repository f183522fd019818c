// Package text holds the small, deterministic language tools the pipeline
// needs without a model: sentence splitting with byte offsets, word
// tokenisation with light stemming and English stopwords, BM25 scoring,
// claim-versus-passage support, extraction of checkable facts (numbers,
// dates, names) and parsing of [S#]/[P#] citation markers.
package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is one sentence and its byte offsets in the text it was split from,
// so that text[Start:End] == Text.
type Span struct {
	Text  string `json:"text"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// noSplitAbbrev are abbreviations after which a period never ends a
// sentence: titles, "e.g."-style Latin, months and reference words.
var noSplitAbbrev = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true,
	"st": true, "mt": true, "vs": true, "v": true, "e.g": true, "i.e": true, "cf": true,
	"al": true, "fig": true, "figs": true, "no": true, "nos": true, "vol": true, "vols": true,
	"pp": true, "p": true, "approx": true, "ca": true, "gen": true, "gov": true, "sen": true,
	"rep": true, "lt": true, "col": true, "capt": true, "sgt": true, "rev": true, "hon": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true, "ed": true, "eds": true,
	"est": true, "ft": true, "op": true, "sec": true, "ch": true, "art": true, "eq": true,
}

// IsAbbreviation reports whether word, written before a period, is an
// abbreviation after which the period never ends a sentence ("i.e",
// "e.g", "vs"): what splits a question into its parts asks this too.
func IsAbbreviation(word string) bool {
	return noSplitAbbrev[strings.ToLower(strings.TrimLeft(word, "\"'“‘(["))]
}

// softAbbrev are abbreviations that often end a sentence too ("Apple Inc.",
// "in the U.S."): a period after them ends the sentence only when a common
// sentence opener follows.
var softAbbrev = map[string]bool{
	"inc": true, "ltd": true, "co": true, "corp": true, "llc": true, "plc": true, "etc": true,
	"bros": true, "dept": true, "univ": true, "assn": true,
}

// sentenceOpeners are words that commonly begin a sentence; they decide the
// ambiguous "U.S. The …" case.
var sentenceOpeners = map[string]bool{
	"the": true, "a": true, "an": true, "he": true, "she": true, "it": true, "they": true,
	"we": true, "i": true, "you": true, "this": true, "that": true, "these": true, "those": true,
	"in": true, "on": true, "at": true, "but": true, "and": true, "however": true, "there": true,
	"his": true, "her": true, "its": true, "their": true, "our": true, "after": true,
	"before": true, "when": true, "while": true, "for": true, "as": true, "if": true,
	"since": true, "then": true, "thus": true, "also": true, "some": true, "many": true,
	"most": true, "all": true, "each": true, "other": true, "such": true, "one": true,
}

// Sentences splits text into sentences with their byte offsets. Blank lines
// and line breaks end a sentence unless the next line plainly continues it
// (it starts in lower case after a line that does not end a sentence).
// Periods after abbreviations, initials, decimals and list numbers do not.
// A sentence that introduces a list (it ends with a colon, or stops
// mid-sentence, and the next lines are items: "- item", "• item",
// "1. item") is one span with its list, as extract writes such a list.
func Sentences(s string) []Span {
	var out []Span
	blockStart := -1
	prevEnd := 0 // end of the previous non-empty line, within the block
	gap := false // a blank line since the previous non-empty line
	listAt := -1 // start of the first item of the block's list, if any
	flush := func() {
		if blockStart >= 0 && listAt > blockStart {
			// The lead-in's last sentence takes the list.
			n := len(out)
			out = splitBlock(s, blockStart, listAt, out)
			if len(out) > n {
				last := &out[len(out)-1]
				last.End = prevEnd
				last.Text = s[last.Start:last.End]
			} else {
				out = appendSpan(s, listAt, prevEnd, out)
			}
		} else if blockStart >= 0 {
			out = splitBlock(s, blockStart, prevEnd, out)
		}
		blockStart = -1
		listAt = -1
	}
	lineStart := 0
	for lineStart <= len(s) {
		nl := strings.IndexByte(s[lineStart:], '\n')
		lineEnd := len(s)
		if nl >= 0 {
			lineEnd = lineStart + nl
		}
		line := strings.TrimSpace(s[lineStart:lineEnd])
		item := listItem(line)
		switch {
		case line == "":
			gap = true
		case blockStart >= 0 && !gap && item && (listAt >= 0 || introduces(s[blockStart:prevEnd])):
			// An item of the list the block's sentence introduces.
			if listAt < 0 {
				listAt = lineStart
			}
		case listAt >= 0:
			// The list ended; what follows is a sentence of its own.
			flush()
			blockStart = lineStart
		case blockStart >= 0 && !gap && continues(s[blockStart:prevEnd], line),
			blockStart >= 0 && gap && continuesAcrossGap(s[blockStart:prevEnd], line):
			// The line wraps the previous one: keep one block.
		default:
			flush()
			blockStart = lineStart
		}
		if line != "" {
			prevEnd = lineEnd
			gap = false
		}
		if nl < 0 {
			break
		}
		lineStart = lineEnd + 1
	}
	flush()
	return out
}

// listItem reports a line that is a list item: a marker ("-", "*", "•",
// "1.", "1)") and a space before its text.
func listItem(line string) bool {
	for _, m := range []string{"- ", "* ", "• "} {
		if strings.HasPrefix(line, m) {
			return true
		}
	}
	i := 0
	for i < len(line) && i < 3 && isDigitByte(line[i]) {
		i++
	}
	return i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && line[i+1] == ' '
}

func isDigitByte(b byte) bool { return b >= '0' && b <= '9' }

// introduces reports whether block, the text before a list, ends in a
// sentence that introduces it: with a colon, or mid-sentence (after a
// letter or a comma). An item of another list introduces nothing.
func introduces(block string) bool {
	block = strings.TrimRightFunc(block, unicode.IsSpace)
	if listItem(strings.TrimSpace(block[strings.LastIndexByte(block, '\n')+1:])) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(block)
	return last == ':' || last == ',' || unicode.IsLetter(last)
}

// tableCellSep separates the cells of a table row in extracted text.
const tableCellSep = " | "

// continuesAcrossGap reports whether line, after a blank line, still
// belongs to the sentence before it: extracted pages often put inline code
// in paragraphs of its own ("use the" / "--all-targets" / "flag."). A
// paragraph is never taken into a heading or label before it ("Source
// code: Lib/ipaddress.py" / "ipaddress provides …"): the sentence must be
// left open by a function word ("the", "that", "of") or a comma, or by
// such a fragment it already took in.
func continuesAcrossGap(block, line string) bool {
	if listItem(line) {
		return false // a numbered heading or an item starts a block
	}
	block = strings.TrimRightFunc(block, unicode.IsSpace)
	lastLine := block[strings.LastIndexByte(block, '\n')+1:]
	if strings.Contains(line, tableCellSep) || strings.Contains(lastLine, tableCellSep) {
		return false // a table row, as the extractor writes it, stands alone
	}
	last, _ := utf8.DecodeLastRuneInString(block)
	if !unicode.IsLower(last) && last != ',' || !hasWords(block, 3) && !strings.Contains(block, "\n") {
		return false
	}
	first, _ := utf8.DecodeRuneInString(line)
	if strings.ContainsRune(",.;:)-–—", first) {
		return true
	}
	lastWord := lastLine
	if i := strings.LastIndexAny(lastLine, " \t"); i >= 0 {
		lastWord = lastLine[i+1:]
	}
	open := last == ',' || IsStopword(strings.ToLower(lastWord)) ||
		strings.Contains(block, "\n") && len(strings.Fields(lastLine)) <= 3
	if unicode.IsLower(first) {
		return open
	}
	// "… used as when the existing" / "Cargo.lock" / "file was generated.":
	// a code-like word inside a sentence that has not ended.
	end, _ := utf8.DecodeLastRuneInString(line)
	code := !strings.ContainsAny(line, " \t") && !strings.ContainsRune(".!?:", end) && strings.ContainsAny(line, "._-:/()")
	return code && (open || unicode.IsLower(last)) && hasWords(block, 4)
}

// hasWords reports whether s holds at least n space-separated words,
// reading from its end and stopping at the nth: blocks grow line by line,
// so counting all their words each time would be quadratic.
func hasWords(s string, n int) bool {
	count, inWord := 0, false
	for i := len(s) - 1; i >= 0; i-- {
		space := s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'
		if !space && !inWord {
			count++
			if count >= n {
				return true
			}
		}
		inWord = !space
	}
	return false
}

// continues reports whether line wraps the block before it rather than
// starting a new paragraph, heading or list item.
func continues(block, line string) bool {
	block = strings.TrimRightFunc(block, unicode.IsSpace)
	last, _ := utf8.DecodeLastRuneInString(block)
	if strings.ContainsRune(".!?:;…。！？", last) {
		return false
	}
	first, _ := utf8.DecodeRuneInString(line)
	return unicode.IsLower(first) || strings.ContainsRune(")]}", first) // no sentence opens with a closing bracket
}

// splitBlock splits s[start:end], a run of text without paragraph breaks,
// into sentences appended to out.
func splitBlock(s string, start, end int, out []Span) []Span {
	segStart := start
	i := start
	for i < end {
		r, size := utf8.DecodeRuneInString(s[i:end])
		if !isTerminal(r) {
			i += size
			continue
		}
		j := i + size
		// Absorb runs like "?!", "..." and closing quotes or brackets.
		for j < end {
			r2, sz := utf8.DecodeRuneInString(s[j:end])
			if isTerminal(r2) || isCloser(r2) {
				j += sz
				continue
			}
			break
		}
		if isCJKTerminal(r) {
			out = appendSpan(s, segStart, j, out)
			segStart = j
			i = j
			continue
		}
		if j >= end {
			break
		}
		r2, _ := utf8.DecodeRuneInString(s[j:end])
		if !unicode.IsSpace(r2) {
			i = j
			continue
		}
		k := j
		for k < end {
			r3, sz := utf8.DecodeRuneInString(s[k:end])
			if !unicode.IsSpace(r3) {
				break
			}
			k += sz
		}
		if k >= end {
			break
		}
		if endsSentence(s, segStart, i, r, j, k, end) {
			out = appendSpan(s, segStart, j, out)
			segStart = k
		}
		i = k
	}
	return appendSpan(s, segStart, end, out)
}

// endsSentence decides whether the terminal rune r at s[i] (with trailing
// closers up to j, next word at k) ends the sentence that began at segStart.
func endsSentence(s string, segStart, i int, r rune, j, k, end int) bool {
	next, _ := utf8.DecodeRuneInString(s[k:end])
	if !isOpener(next) {
		return false
	}
	if r == '.' && strings.HasPrefix(s[i:], "..") && !strings.HasPrefix(s[i:], "...") {
		return false // two dots write a range ("[-2^29 .. 2^29-1]"), an ellipsis three
	}
	if r != '.' || j > i+1 && s[i+1] == '.' {
		return true // "!", "?", or an ellipsis before a capital
	}
	word := wordBefore(s, segStart, i)
	bare := strings.ToLower(strings.TrimLeft(word, "\"'“‘(["))
	nextWord := strings.ToLower(wordAt(s, k, end))
	switch {
	case bare == "":
		return true
	case noSplitAbbrev[bare]:
		return false
	case softAbbrev[bare]:
		return sentenceOpeners[nextWord] || !unicode.IsLetter(next)
	case isInitial(bare):
		return false
	case isDottedAcronym(bare):
		return sentenceOpeners[nextWord]
	case isAllDigits(strings.ReplaceAll(bare, ".", "")) && strings.TrimSpace(s[segStart:i-len(word)]) == "":
		return false // "1. Install the package" list numbering, "1.1. Syntax" section numbering
	case isLabelNumber(bare) && len(strings.Fields(s[segStart:i-len(word)])) == 1:
		return false // "Table K.1. PostgreSQL Limits", "Example 3.2. Output"
	}
	return true
}

func isTerminal(r rune) bool {
	return r == '.' || r == '!' || r == '?' || r == '…' || isCJKTerminal(r)
}

func isCJKTerminal(r rune) bool { return r == '。' || r == '！' || r == '？' }

func isCloser(r rune) bool { return strings.ContainsRune("\"'”’)]»", r) || isCJKCloser(r) }

// isOpener reports whether r can begin a new sentence.
func isOpener(r rune) bool {
	switch {
	case unicode.IsUpper(r), unicode.IsDigit(r):
		return true
	case unicode.IsLetter(r):
		return !unicode.IsLower(r) // scripts without case
	}
	return strings.ContainsRune("\"'“‘([«¿¡*-–—•#$€£", r)
}

// wordBefore returns the non-space run that ends at s[i] (exclusive).
func wordBefore(s string, from, i int) string {
	j := i
	for j > from {
		r, size := utf8.DecodeLastRuneInString(s[from:j])
		if unicode.IsSpace(r) {
			break
		}
		j -= size
	}
	return s[j:i]
}

// wordAt returns the letters starting at s[k] (after an opening quote).
func wordAt(s string, k, end int) string {
	j := k
	for j < end {
		r, size := utf8.DecodeRuneInString(s[j:end])
		if !unicode.IsLetter(r) {
			if j == k && strings.ContainsRune("\"'“‘(", r) {
				k += size
				j += size
				continue
			}
			break
		}
		j += size
	}
	return s[k:j]
}

func isInitial(w string) bool {
	r, size := utf8.DecodeRuneInString(w)
	return size == len(w) && unicode.IsLetter(r)
}

// isDottedAcronym matches "u.s", "a.m", "ph.d": short letter groups joined
// by periods.
func isDottedAcronym(w string) bool {
	if !strings.Contains(w, ".") {
		return false
	}
	for _, part := range strings.Split(w, ".") {
		if part == "" || len(part) > 2 {
			return false
		}
		for _, r := range part {
			if !unicode.IsLetter(r) {
				return false
			}
		}
	}
	return true
}

// isLabelNumber matches the number of a table, figure or appendix
// section: an optional letter, then numbers joined by dots ("K.1", "3.2").
func isLabelNumber(w string) bool {
	if len(w) > 2 && unicode.IsLetter(rune(w[0])) && w[1] == '.' {
		return isAllDigits(strings.ReplaceAll(w[2:], ".", ""))
	}
	return strings.Contains(w, ".") && isAllDigits(strings.ReplaceAll(w, ".", ""))
}

func isAllDigits(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// appendSpan appends s[start:end] trimmed of surrounding space, if any text
// is left.
func appendSpan(s string, start, end int, out []Span) []Span {
	for start < end {
		r, size := utf8.DecodeRuneInString(s[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		start += size
	}
	for end > start {
		r, size := utf8.DecodeLastRuneInString(s[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= size
	}
	if start >= end {
		return out
	}
	return append(out, Span{Text: s[start:end], Start: start, End: end})
}
