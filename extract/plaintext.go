package extract

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A page whose content is a plain-text document inside <pre> — a help
// file, an RFC, a README or a text manual rendered as HTML — is prose set
// out with line breaks and indentation. The article extractors run it
// into one paragraph, and a documentation walk keeps it as one block of
// lines; either way its paragraphs and its entries are lost. It is read
// as plain text is read: a blank line or a rule ends a paragraph, the
// lines of a paragraph are one hard-wrapped text, and a line set out to
// the left of the indented lines under it is their term, joined to them
// as a definition list's term is ("term: definition"). A line that holds
// nothing but the names of anchors ("*'jn'*" above an option's entry) is
// the entry's mark, not its text: it ends the paragraph before it.

// Limits of plainTextParagraphs: the share of the body's text that must
// sit in <pre> elements, the least of it, and the share of its words that
// must be words of prose (letters, with trailing punctuation) rather than
// code.
const (
	minPreShare   = 0.7
	minPreText    = 1500
	minProseShare = 0.6
	minSentences  = 5
	tabWidth      = 8
)

// plainTextParagraphs returns the paragraphs of a page whose content is a
// plain-text document in <pre>, and false for any other page.
func plainTextParagraphs(doc *html.Node, limit int) ([]string, bool) {
	body := findBody(doc)
	if body == nil {
		return nil, false
	}
	var pres []*html.Node
	walkElements(body, func(n *html.Node) {
		if n.DataAtom == atom.Pre && !insidePre(n) {
			pres = append(pres, n)
		}
	})
	if len(pres) == 0 {
		return nil, false
	}
	total := visibleTextLen(body)
	var lines []preLine
	preLen := 0
	for k, pre := range pres {
		if k > 0 {
			// The entry's name a generator writes between two <pre>
			// blocks, outside them: a paragraph of its own.
			for _, name := range namesBetween(pres[k-1], pre) {
				lines = append(lines, preLine{text: name}, preLine{})
			}
		}
		ls := preLines(pre)
		for _, l := range ls {
			preLen += len(strings.TrimSpace(l.text))
		}
		lines = append(lines, ls...)
		lines = append(lines, preLine{}) // a <pre> ends a paragraph
	}
	if preLen < minPreText || float64(preLen) < minPreShare*float64(total) || !readsAsProse(lines) {
		return nil, false
	}
	var paras []string
	size := 0
	var block []preLine
	flush := func() {
		if p := blockParagraph(block); p != "" && (limit <= 0 || size < limit) {
			paras = append(paras, p)
			size += len(p) + 2
		}
		block = block[:0]
	}
	for _, l := range lines {
		switch t := strings.TrimSpace(l.text); {
		case t == "", isRule(t):
			flush()
		case l.anchors > 0 && len(strings.Fields(t)) <= l.anchors:
			flush() // an entry's mark: the names of its anchors alone
		default:
			block = append(block, l)
		}
	}
	flush()
	return paras, len(paras) > 0
}

// namesBetween returns the text of each element between sibling <pre>
// blocks a and b that reads as an entry's name — a short line that does
// not end like a sentence ("tally.cache.size <number>") — or nil when a
// and b are not siblings or anything else stands between them.
func namesBetween(a, b *html.Node) []string {
	if a.Parent != b.Parent {
		return nil
	}
	var names []string
	for n := a.NextSibling; n != b; n = n.NextSibling {
		if n == nil {
			return nil
		}
		t := strings.Join(strings.Fields(textContent(n)), " ")
		switch {
		case n.Type == html.CommentNode || t == "":
		case n.Type == html.ElementNode && !skippedTags[n.DataAtom] && wordCount(t) <= maxNameWords && !endsLikeSentence(t):
			names = append(names, t)
		default:
			return nil
		}
	}
	return names
}

// maxNameWords bounds the words of an entry's name line between <pre>
// blocks.
const maxNameWords = 8

// preLine is one line of a <pre>: its text, tabs expanded, and how many
// anchors (elements with a name or id) it holds.
type preLine struct {
	text    string // tabs expanded
	raw     string // as written
	anchors int
}

// preLines splits the text of pre into lines.
func preLines(pre *html.Node) []preLine {
	lines := []preLine{{}}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			parts := strings.Split(n.Data, "\n")
			for k, part := range parts {
				if k > 0 {
					lines = append(lines, preLine{})
				}
				lines[len(lines)-1].text += part
			}
			return
		case html.ElementNode:
			if skippedTags[n.DataAtom] {
				return
			}
			if n.DataAtom == atom.Br {
				lines = append(lines, preLine{})
				return
			}
			if (n.DataAtom == atom.A && attr(n, "name") != "") || attr(n, "id") != "" {
				lines[len(lines)-1].anchors++
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for c := pre.FirstChild; c != nil; c = c.NextSibling {
		walk(c)
	}
	for i := range lines {
		lines[i].raw = lines[i].text
		lines[i].text = expandTabs(lines[i].text)
	}
	return lines
}

// blockParagraph writes the lines of one paragraph as its text: a first
// line set out to the left of all the others is their term; the rest is
// one hard-wrapped text.
func blockParagraph(block []preLine) string {
	if len(block) == 0 {
		return ""
	}
	if isColumns(block) {
		// A table set out in columns: a row per line, its cells apart.
		rows := make([]string, len(block))
		for i, l := range block {
			rows[i] = strings.Join(cellTexts(l.raw), " | ")
		}
		return strings.Join(rows, string(lineSep))
	}
	// join writes hard-wrapped lines as one text; a line set in deeper
	// than the text around it after a line that ends in a colon is an
	// example, kept on a line of its own.
	join := func(ls []preLine) string {
		body := indentOf(ls[0].text)
		for _, l := range ls[1:] {
			body = min(body, indentOf(l.text))
		}
		// The items of a list ("1. Number settings", "2. …") each
		// start a line, when there are two or more of them.
		items := 0
		for _, l := range ls {
			if itemLineRe.MatchString(l.text) {
				items++
			}
		}
		var b strings.Builder
		prevExample := false
		for k, l := range ls {
			example := k > 0 && indentOf(l.text) >= body+exampleIndent &&
				(prevExample || strings.HasSuffix(strings.TrimSpace(ls[k-1].text), ":"))
			if k > 0 {
				if example || prevExample || items >= 2 && itemLineRe.MatchString(l.text) {
					b.WriteRune(lineSep)
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString(strings.TrimSpace(l.text))
			prevExample = example
		}
		return collapseSpace(b.String())
	}
	if len(block) >= 2 {
		first, rest := indentOf(block[0].text), indentOf(block[1].text)
		for _, l := range block[2:] {
			rest = min(rest, indentOf(l.text))
		}
		if first < rest {
			// The term is the line's first column; its other columns
			// ("number", "(default 8)") open the definition.
			cells := cellTexts(block[0].raw)
			term, body := cells[0], join(block[1:])
			if len(cells) > 1 {
				body = strings.Join(cells[1:], " ") + " " + body
			}
			if strings.HasSuffix(term, ":") {
				return collapseSpace(term + " " + body)
			}
			return collapseSpace(term + ": " + body)
		}
	}
	return join(block)
}

// itemLineRe matches a line that opens an item of a list: a number or a
// bullet, then the item's text.
var itemLineRe = regexp.MustCompile(`^\s*(?:\d{1,2}[.)]|[-*•])\s+\S`)

// exampleIndent is how much deeper than its paragraph a line of an
// example is set.
const exampleIndent = 4

// isColumns reports whether a block of at least three lines is a table:
// most of its lines hold two or more cells, and a cell after the first
// starts at the same column on most of them.
func isColumns(block []preLine) bool {
	if len(block) < 3 {
		return false
	}
	multi := 0
	starts := map[int]int{} // column → lines with a cell starting there
	for _, l := range block {
		cs := cells(l.raw)
		if len(cs) >= 2 {
			multi++
		}
		for _, c := range cs[min(1, len(cs)):] {
			starts[c.col]++
		}
	}
	aligned := 0
	for _, n := range starts {
		aligned = max(aligned, n)
	}
	return 3*multi >= 2*len(block) && 3*aligned >= 2*len(block)
}

// cell is one cell of a line set out in columns, and the column it
// starts at (tabs expanded).
type cell struct {
	text string
	col  int
}

// cells splits a line at its gaps: a tab, or two or more spaces that do
// not follow the end of a sentence ("behaves.  Each" is prose).
func cells(raw string) []cell {
	var out []cell
	var cur strings.Builder
	col, start, spaces := 0, 0, 0
	gap := false
	end := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, cell{t, start})
		}
		cur.Reset()
	}
	for _, r := range raw {
		switch r {
		case '\t':
			gap = gap || cur.Len() > 0
			col += tabWidth - col%tabWidth
			continue
		case ' ':
			spaces++
			col++
			if t := cur.String(); spaces >= 2 && t != "" && !strings.ContainsRune(".!?:", rune(t[len(t)-1])) {
				gap = true
			}
			continue
		}
		if gap {
			end()
		} else if spaces > 0 && cur.Len() > 0 {
			cur.WriteString(strings.Repeat(" ", spaces))
		}
		if cur.Len() == 0 {
			start = col
		}
		gap, spaces = false, 0
		cur.WriteRune(r)
		col++
	}
	end()
	return out
}

// cellTexts returns the text of each cell of a line.
func cellTexts(raw string) []string {
	cs := cells(raw)
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.text
	}
	if len(out) == 0 {
		return []string{strings.TrimSpace(raw)}
	}
	return out
}

// readsAsProse reports whether lines are mostly words of prose, with
// sentences, rather than code or a table of figures.
func readsAsProse(lines []preLine) bool {
	words, prose, sentences := 0, 0, 0
	for _, l := range lines {
		for _, w := range strings.Fields(l.text) {
			words++
			core := strings.TrimRight(w, ".,;:!?)\"'")
			core = strings.TrimLeft(core, "(\"'")
			if core != "" && strings.IndexFunc(core, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) < 0 {
				prose++
			}
			if len(w) > 2 && strings.ContainsRune(".!?", rune(w[len(w)-1])) {
				if r, _ := utf8.DecodeLastRuneInString(w[:len(w)-1]); unicode.IsLower(r) {
					sentences++
				}
			}
		}
	}
	return words > 0 && float64(prose) >= minProseShare*float64(words) && sentences >= minSentences
}

// isRule reports a line drawn across the text: only repeated marks
// ("=====", "-----", "+====+").
func isRule(t string) bool {
	if utf8.RuneCountInString(t) < 4 {
		return false
	}
	for _, r := range t {
		if !strings.ContainsRune("=-_*~+#", r) {
			return false
		}
	}
	return true
}

// indentOf is the width of the white space that opens line s (tabs
// expanded).
func indentOf(s string) int {
	return len(s) - len(strings.TrimLeft(s, " "))
}

// expandTabs replaces each tab by the spaces to the next tab stop.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// insidePre reports whether n sits inside another <pre>.
func insidePre(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.Pre {
			return true
		}
	}
	return false
}

// visibleTextLen is the length of the trimmed text under n, without
// scripts and styles.
func visibleTextLen(n *html.Node) int {
	total := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			total += len(strings.TrimSpace(n.Data))
			return
		case html.ElementNode:
			if skippedTags[n.DataAtom] {
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return total
}
