package extract

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// densityChrome is page furniture the density pass never scores.
var densityChrome = map[atom.Atom]bool{
	atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true,
	atom.Form: true, atom.Menu: true,
}

// densityBlock is one run of text inside a block element.
type densityBlock struct {
	owner    *html.Node // nearest block ancestor
	text     string
	size     int // bytes of the text that are not white space
	linkText int // of which inside links
}

// linkShare is the share of the block's text that sits inside links.
func (b densityBlock) linkShare() float64 {
	if b.size == 0 {
		return 0
	}
	return float64(b.linkText) / float64(b.size)
}

// nonSpaceLen counts the bytes of s that are not white space.
func nonSpaceLen(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n += utf8.RuneLen(r)
		}
	}
	return n
}

// densityParagraphs is the last-resort extractor: it scores every block
// element by the amount of non-link text in its paragraphs (a paragraph also
// counts half toward its grandparent), takes the best container and returns
// its paragraphs that are not mostly links. It handles "div soup" pages that
// give the structural extractors nothing to hold on to.
func densityParagraphs(doc *html.Node, _ *url.URL) []string {
	body := findBody(doc)
	if body == nil {
		return nil
	}
	var blocks []densityBlock
	collectBlocks(body, body, false, &blocks, true)

	scores := map[*html.Node]float64{}
	for _, b := range blocks {
		n := float64(b.size - b.linkText)
		if n <= 0 || b.linkShare() > 0.5 || wordCount(b.text) < 5 {
			continue
		}
		p := b.owner
		scores[p] += n
		if p.Parent != nil {
			scores[p.Parent] += n / 2
		}
	}
	// Walk candidates in document order so that ties go to the first.
	var best *html.Node
	for _, b := range blocks {
		for _, n := range []*html.Node{b.owner, b.owner.Parent} {
			if s, ok := scores[n]; ok && (best == nil || s > scores[best]) {
				best = n
			}
		}
	}
	if best == nil {
		return nil
	}
	var paras []string
	size := 0
	for _, b := range blocks {
		if !isAncestor(best, b.owner) || b.linkShare() > 0.5 {
			continue
		}
		paras = append(paras, b.text)
		if size += len(b.text); size > maxTextBytes {
			break
		}
	}
	return paras
}

// collectBlocks walks n and appends one block per paragraph of text, owned
// by its nearest block ancestor. inLink tells whether n sits in an <a>;
// skipChrome leaves out navigation, headers, footers, asides and forms.
func collectBlocks(n, owner *html.Node, inLink bool, out *[]densityBlock, skipChrome bool) {
	var cur strings.Builder
	linkBytes := 0
	flush := func() {
		t := collapseSpace(cur.String())
		cur.Reset()
		if t != "" {
			size := nonSpaceLen(t)
			*out = append(*out, densityBlock{owner: owner, text: t, size: size, linkText: min(linkBytes, size)})
		}
		linkBytes = 0
	}
	var walk func(n *html.Node, inLink bool)
	walk = func(n *html.Node, inLink bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				cur.WriteString(c.Data)
				if inLink {
					linkBytes += nonSpaceLen(c.Data)
				}
			case html.ElementNode:
				if skippedTags[c.DataAtom] || (skipChrome && densityChrome[c.DataAtom]) {
					continue
				}
				if c.DataAtom == atom.Br {
					cur.WriteRune(lineSep)
					continue
				}
				if blockTags[c.DataAtom] || !isKnownInline(c) {
					flush()
					collectBlocks(c, c, inLink, out, skipChrome)
					continue
				}
				walk(c, inLink || c.DataAtom == atom.A)
			}
		}
	}
	walk(n, inLink)
	flush()
}

// findBody returns the <body> element of doc, or nil.
func findBody(doc *html.Node) *html.Node {
	var found *html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if found != nil {
			return
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Body {
			found = n
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return found
}

// isAncestor reports whether a is n or one of its ancestors.
func isAncestor(a, n *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if n == a {
			return true
		}
	}
	return false
}
