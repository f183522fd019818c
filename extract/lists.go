package extract

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/quarryhq/quarry/text"
)

// Bounds on a list kept with the sentence that introduces it: longer
// lists, or lists with longer items, are content in their own right, read
// item by item.
const (
	maxRestoredItems   = 40
	maxRestoredItemLen = 300
)

// Lists that a sentence introduces ("The type must be one of the
// following:", "A rowid table is any table in an SQLite schema that") are
// written with that sentence, one item a line after a marker ("- item";
// "1. item" in an ordered list), in the lead-in's paragraph: the sentence
// and its list are one statement, and cut apart neither reads as the page
// wrote it. text.Sentences keeps such a paragraph's last sentence and its
// list together.

// isLeadIn reports whether paragraph text introduces what follows it: it
// ends with a colon, or it stops mid-sentence (after a word or a comma,
// with no closing punctuation) after at least three words.
func isLeadIn(text string) bool {
	t := strings.TrimRightFunc(text, unicode.IsSpace)
	last, _ := utf8.DecodeLastRuneInString(t)
	if last == ':' {
		return true
	}
	return (unicode.IsLetter(last) || last == ',') && len(strings.Fields(t)) >= 3 && !strings.Contains(t, "\n")
}

// listLines returns the items of list n as marked lines, or nil when it is
// not a list a sentence can carry: an item holds more than one paragraph
// (a nested list, several paragraphs), is long, or is mostly link text (a
// list of links is navigation or "related" furniture). itemText gives an
// item's paragraphs.
func listLines(n *html.Node, itemText func(*html.Node) []string) []string {
	ordered := n.DataAtom == atom.Ol
	num := 1
	if s, err := strconv.Atoi(attr(n, "start")); err == nil && ordered {
		num = s
	}
	var lines []string
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type == html.TextNode && strings.TrimSpace(li.Data) == "" || li.Type == html.CommentNode {
			continue
		}
		if li.Type != html.ElementNode || li.DataAtom != atom.Li || len(lines) == maxRestoredItems {
			return nil
		}
		paras := itemText(li)
		if len(paras) != 1 || len(paras[0]) > maxRestoredItemLen || strings.Contains(paras[0], "\n") || 2*linkTextLen(li) > len(paras[0]) {
			return nil
		}
		marker := "- "
		if ordered {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		lines = append(lines, marker+paras[0])
	}
	if len(lines) == 0 {
		return nil
	}
	return lines
}

// carries reports whether the sentence lead keeps the list of lines: a
// sentence left open always does (its items finish it); one that ends
// with a colon does when every item is at most one sentence. Items that
// are entries of their own ("NULL. The value is a NULL value.") stay
// statements of their own.
func carries(lead string, lines []string) bool {
	if !strings.HasSuffix(strings.TrimSpace(lead), ":") {
		return true
	}
	for _, l := range lines {
		if len(text.Sentences(itemOf(l))) > 1 {
			return false
		}
	}
	return true
}

// withList is lead followed by its list's lines.
func withList(lead string, lines []string) string {
	return strings.TrimRightFunc(lead, unicode.IsSpace) + "\n" + strings.Join(lines, "\n")
}

// leadBefore returns the paragraph right before list n, in a builder that
// has written paras and holds cur unflushed: the unflushed text, or else
// the last paragraph when the element right before the list is a <p>.
func leadBefore(n *html.Node, paras []string, cur string) (lead string, fromCur bool) {
	if strings.TrimSpace(cur) != "" {
		return collapseSpace(cur), true
	}
	prev := n.PrevSibling
	for prev != nil && (prev.Type == html.TextNode && strings.TrimSpace(prev.Data) == "" || prev.Type == html.CommentNode) {
		prev = prev.PrevSibling
	}
	if prev == nil || prev.Type != html.ElementNode || prev.DataAtom != atom.P || len(paras) == 0 {
		return "", false
	}
	return paras[len(paras)-1], false
}

// leadList writes list n (a <ul> or <ol>) into the paragraph of the
// sentence that introduces it, and reports whether it did.
func (b *textBuilder) leadList(n *html.Node, itemText func(*html.Node) []string) bool {
	lead, fromCur := leadBefore(n, b.paras, b.cur.String())
	if lead == "" || !isLeadIn(lead) {
		return false
	}
	lines := listLines(n, itemText)
	if lines == nil || !carries(lead, lines) {
		return false
	}
	if fromCur {
		b.cur.Reset()
		b.soft = false
		b.paras = append(b.paras, withList(lead, lines))
		b.size += len(b.paras[len(b.paras)-1]) + 2
		return true
	}
	last := len(b.paras) - 1
	b.size -= len(b.paras[last])
	b.paras[last] = withList(b.paras[last], lines)
	b.size += len(b.paras[last])
	return true
}

// plainItemText is an item's paragraphs as the plain text builder reads
// them.
func plainItemText(li *html.Node) []string { return nodeParagraphs(li, maxRestoredItemLen+1) }

// itemText is an item's paragraphs, read with what b knows of the tree
// (the elements trafilatura built, which need spaces kept around them).
func (b *textBuilder) itemText(li *html.Node) []string {
	sub := &textBuilder{limit: maxRestoredItemLen + 1, named: b.named}
	for c := li.FirstChild; c != nil; c = c.NextSibling {
		sub.walk(c)
	}
	sub.flush()
	return sub.paras
}

// splitList returns a paragraph's lead line and its list's lines (none for
// a paragraph without a list).
func splitList(p string) (lead string, lines []string) {
	lead, rest, ok := strings.Cut(p, "\n")
	if !ok || !isListLine(rest) {
		return p, nil
	}
	return lead, strings.Split(rest, "\n")
}

// isListLine reports a line as withList writes an item.
func isListLine(line string) bool {
	if strings.HasPrefix(line, "- ") {
		return true
	}
	num, _, ok := strings.Cut(line, ". ")
	_, err := strconv.Atoi(num)
	return ok && err == nil
}

// itemOf is the text of a list line without its marker.
func itemOf(line string) string {
	_, item, _ := strings.Cut(line, " ")
	return item
}

// announcedLists maps the text of each paragraph that introduces a list to
// that paragraph written with its list (see withList), for the lists a
// sentence can carry. It is read before the main-text extractor runs,
// which may change the tree or drop the list.
func announcedLists(doc *html.Node) map[string]string {
	out := map[string]string{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Ul || n.DataAtom == atom.Ol) {
			if lead := leadIn(n); lead != "" {
				if lines := listLines(n, plainItemText); lines != nil && carries(lead, lines) {
					out[lead] = withList(lead, lines)
					if tail := tailAfter(n); tail != "" {
						out[lead] += "\n\n" + tail
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// tailAfter returns the sentence a page writes right after list n outside
// any paragraph ("<ul>…</ul> Most tables are rowid tables. <p>…"), which
// extractors drop with the bare text around it: the inline content up to
// the next block element, when it is a finished sentence of three words or
// more; "" otherwise.
func tailAfter(n *html.Node) string {
	var b strings.Builder
	for s := n.NextSibling; s != nil; s = s.NextSibling {
		if s.Type == html.ElementNode && (blockTags[s.DataAtom] || !isKnownInline(s)) {
			break
		}
		if s.Type == html.TextNode {
			b.WriteString(s.Data)
		} else if s.Type == html.ElementNode {
			b.WriteString(strings.Join(nodeParagraphs(s, maxRestoredItemLen), " "))
		}
	}
	t := collapseSpace(b.String())
	if len(strings.Fields(t)) < 3 || !strings.ContainsAny(t[len(t)-1:], ".!?") {
		return ""
	}
	return t
}

// leadIn returns the text of the paragraph right before list n when it
// introduces the list, "" otherwise.
func leadIn(n *html.Node) string {
	prev := n.PrevSibling
	for prev != nil && prev.Type == html.TextNode && strings.TrimSpace(prev.Data) == "" {
		prev = prev.PrevSibling
	}
	if prev == nil || prev.Type != html.ElementNode || prev.DataAtom != atom.P {
		return ""
	}
	paras := nodeParagraphs(prev, maxRestoredItemLen*2)
	if len(paras) != 1 || !isLeadIn(paras[0]) {
		return ""
	}
	return paras[0]
}

// linkTextLen is the length of the text inside links under n.
func linkTextLen(n *html.Node) int {
	if n.Type == html.ElementNode && n.DataAtom == atom.A {
		return len(strings.TrimSpace(strings.Join(nodeParagraphs(n, 0), " ")))
	}
	total := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		total += linkTextLen(c)
	}
	return total
}

// restoreLists writes each lead-in paragraph with its list where the
// extraction kept the lead-in alone: it dropped the list ("… one of the
// following:" followed by the next paragraph), or kept the items as
// paragraphs of their own, which are then taken into the lead-in's. The
// lead-in promises the list, and a question about what the list names has
// no answer without it.
func restoreLists(paras []string, lists map[string]string) []string {
	if len(lists) == 0 {
		return paras
	}
	var out []string
	for i := 0; i < len(paras); i++ {
		p := paras[i]
		full, ok := lists[p]
		if !ok {
			out = append(out, p)
			continue
		}
		full, tail, _ := strings.Cut(full, "\n\n")
		out = append(out, full)
		if tail != "" && !slices.Contains(paras, tail) {
			out = append(out, tail)
		}
		// Items the extraction kept as paragraphs are now in full.
		_, lines := splitList(full)
		for _, line := range lines {
			if i+1 < len(paras) && paras[i+1] == itemOf(line) {
				i++
			}
		}
	}
	return out
}
