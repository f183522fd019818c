package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// blockTags start a new paragraph in the plain text of a node.
var blockTags = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true,
	atom.Caption: true, atom.Dd: true, atom.Details: true, atom.Dialog: true,
	atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true,
	atom.Figcaption: true, atom.Figure: true, atom.Footer: true, atom.Form: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true,
	atom.H6: true, atom.Header: true, atom.Hr: true, atom.Li: true, atom.Main: true,
	atom.Nav: true, atom.Ol: true, atom.P: true, atom.Pre: true, atom.Section: true,
	atom.Summary: true, atom.Table: true, atom.Tbody: true, atom.Thead: true,
	atom.Tfoot: true, atom.Tr: true, atom.Ul: true, atom.Body: true, atom.Html: true,
}

// skippedTags never contribute text.
var skippedTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Canvas: true, atom.Select: true, atom.Button: true,
	atom.Input: true, atom.Textarea: true, atom.Head: true, atom.Title: true,
}

// textBuilder accumulates paragraphs while walking a tree.
type textBuilder struct {
	paras []string
	cur   strings.Builder
	limit int // stop once this many bytes are collected (0: no limit)
	size  int
	// named are elements that came with a name but no atom (see
	// fillAtoms); soft asks for a space before the next word.
	named map[*html.Node]bool
	soft  bool
}

func (b *textBuilder) full() bool { return b.limit > 0 && b.size >= b.limit }

// flush ends the current paragraph.
func (b *textBuilder) flush() {
	p := collapseSpace(b.cur.String())
	b.cur.Reset()
	b.soft = false
	if p != "" {
		b.paras = append(b.paras, p)
		b.size += len(p) + 2
	}
}

// lineBreak keeps a <br> inside a paragraph as a new line.
func (b *textBuilder) lineBreak() { b.cur.WriteRune(lineSep) }

// lineSep marks a <br> in collected text; source new lines are just space.
const lineSep = '\u2028'

func (b *textBuilder) walk(n *html.Node) {
	if b.full() {
		return
	}
	switch n.Type {
	case html.TextNode:
		b.text(n.Data)
		return
	case html.ElementNode:
		if skippedTags[n.DataAtom] {
			return
		}
		if n.DataAtom == atom.Br {
			b.lineBreak()
			return
		}
		if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
			b.cur.WriteString(" ")
		}
		if (n.DataAtom == atom.Ul || n.DataAtom == atom.Ol) && b.leadList(n, b.itemText) {
			return
		}
	case html.CommentNode, html.DoctypeNode:
		return
	}
	block := n.Type == html.ElementNode && (blockTags[n.DataAtom] || !isKnownInline(n))
	if block {
		b.flush()
	}
	// An element trafilatura built lost the white space around it: an
	// inline one is kept apart from its neighbours by a space.
	named := b.named[n] && !block
	if named {
		b.soft = true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.walk(c)
	}
	switch {
	case named:
		b.soft = true
	case block && b.continuesInline(n):
		b.soft = true
	case block:
		b.flush()
	}
}

// text adds text, after a space when one is asked for and the text starts
// a word (not when it starts with punctuation: "name." stays one).
func (b *textBuilder) text(s string) {
	if b.soft && strings.TrimSpace(s) != "" {
		b.soft = false
		r, _ := utf8.DecodeRuneInString(strings.TrimLeftFunc(s, unicode.IsSpace))
		if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("\"'“‘([`", r) {
			b.cur.WriteByte(' ')
		}
	}
	b.cur.WriteString(s)
}

// continuesInline reports whether the sentence of paragraph n goes on in
// the inline content after it: n is a <p> whose text stops mid-sentence
// and its next sibling is text or inline markup. Extractors that move
// inline elements out of a paragraph leave "…the previous algorithm,</p>
// <code>name</code>." behind; flushing there would cut the sentence in
// three.
func (b *textBuilder) continuesInline(n *html.Node) bool {
	if n.DataAtom != atom.P || endsSentence(b.cur.String()) {
		return false
	}
	for c := n.NextSibling; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
			continue
		case c.Type == html.TextNode:
			return true
		case c.Type == html.ElementNode:
			return isKnownInline(c) && !skippedTags[c.DataAtom]
		default:
			return false
		}
	}
	return false
}

// endsSentence reports whether text, trimmed, is empty or ends a sentence
// (or announces what follows): ., !, ?, : — before any closing quotes or
// brackets.
func endsSentence(text string) bool {
	t := strings.TrimRightFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'”’)]»", r)
	})
	if t == "" {
		return true
	}
	return strings.ContainsRune(".!?:;…", rune(t[len(t)-1]))
}

// fillAtoms sets the atom of every element under n that has a name but
// no atom: trafilatura builds its output elements by name only, and an
// <em> or <code> without its atom would read as an unknown block element
// and cut its sentence in three.
func fillAtoms(n *html.Node, named map[*html.Node]bool) {
	if n.Type == html.ElementNode && n.DataAtom == 0 {
		if n.DataAtom = atom.Lookup([]byte(n.Data)); n.DataAtom != 0 {
			named[n] = true
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		fillAtoms(c, named)
	}
}

// isKnownInline reports whether an element is ordinary inline markup.
// Unknown elements (custom elements, trafilatura's own tags) are treated as
// blocks so that words on either side never fuse.
func isKnownInline(n *html.Node) bool {
	switch n.DataAtom {
	case atom.A, atom.Abbr, atom.B, atom.Bdi, atom.Bdo, atom.Cite, atom.Code,
		atom.Data, atom.Del, atom.Dfn, atom.Em, atom.Font, atom.I, atom.Img,
		atom.Ins, atom.Kbd, atom.Label, atom.Mark, atom.Q, atom.S, atom.Samp,
		atom.Small, atom.Span, atom.Strong, atom.Sub, atom.Sup, atom.Time,
		atom.U, atom.Var, atom.Wbr, atom.Td, atom.Th, atom.Picture, atom.Source,
		atom.Strike, atom.Tt, atom.Big, atom.Center, atom.Nobr, atom.Acronym:
		return true
	}
	return false
}

// nodeParagraphs returns the text of n as paragraphs, collecting at most
// limit bytes (0: no limit).
func nodeParagraphs(n *html.Node, limit int) []string {
	if n == nil {
		return nil
	}
	b := &textBuilder{limit: limit, named: map[*html.Node]bool{}}
	fillAtoms(n, b.named)
	b.walk(n)
	b.flush()
	return b.paras
}

// collapseSpace folds runs of white space into single spaces, turns the
// <br> marks into line breaks, drops soft hyphens and zero-width
// characters, and trims the ends.
func collapseSpace(s string) string {
	var out strings.Builder
	out.Grow(len(s))
	pendingSpace, pendingLine := false, false
	for _, r := range s {
		switch {
		case r == '\u00ad' || r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\ufeff':
			continue
		case r == lineSep:
			pendingLine = true
		case unicode.IsSpace(r):
			pendingSpace = true
		default:
			if out.Len() > 0 {
				if pendingLine {
					out.WriteByte('\n')
				} else if pendingSpace {
					out.WriteByte(' ')
				}
			}
			pendingSpace, pendingLine = false, false
			out.WriteRune(r)
		}
	}
	return out.String()
}
