package extract

import (
	"strings"
	"unicode"

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
}

func (b *textBuilder) full() bool { return b.limit > 0 && b.size >= b.limit }

// flush ends the current paragraph.
func (b *textBuilder) flush() {
	p := collapseSpace(b.cur.String())
	b.cur.Reset()
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
		b.cur.WriteString(n.Data)
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
	case html.CommentNode, html.DoctypeNode:
		return
	}
	block := n.Type == html.ElementNode && (blockTags[n.DataAtom] || !isKnownInline(n))
	if block {
		b.flush()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.walk(c)
	}
	if block {
		b.flush()
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
	b := &textBuilder{limit: limit}
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
