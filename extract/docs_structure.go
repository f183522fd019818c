package extract

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The markup that documentation generators share, whatever their name:
// manuals link their pages as a sequence (prev/next/up), index their
// sections from a table of contents, and frame the content with
// navigation panels, permalink anchors and a colophon. These rules find
// them by structure, so that a generator without a known container or
// generator tag (man2html, godoc, MkDocs themes) is read as well as one
// with.

// manualRels are the document-relation link types (HTML 4) that only
// manuals use in <head>: Sphinx, Texinfo and DocBook emit them; articles
// do not.
var manualRels = map[string]bool{
	"up": true, "contents": true, "toc": true, "index": true, "glossary": true,
	"chapter": true, "section": true, "subsection": true, "appendix": true, "start": true,
}

// sequenceRels are link types of the links that step through a manual.
var sequenceRels = map[string]bool{
	"prev": true, "previous": true, "next": true, "up": true, "contents": true,
	"toc": true, "index": true, "start": true, "home": true, "first": true, "last": true,
}

// minTOCHeadings is how many distinct section headings in-page links must
// point at for them to be a table of contents.
const minTOCHeadings = 3

// docSignals are the structural signs that a page is documentation.
type docSignals struct {
	generated  bool         // generator tag or a tool's signature
	manualRels bool         // <link rel=up|contents|index|...> in the head
	sequence   bool         // links rel=prev/next or with access keys
	tocTargets []*html.Node // headings that in-page links point at
}

// strong reports whether the page declares itself a manual.
func (s docSignals) strong() bool { return s.generated || s.manualRels }

// readDocSignals collects the documentation signals of a page.
func readDocSignals(doc *html.Node, self string) docSignals {
	s := docSignals{generated: docGenerator(doc)}
	targets := map[string]bool{}
	walkElements(doc, func(n *html.Node) {
		switch n.DataAtom {
		case atom.Link:
			for _, rel := range strings.Fields(strings.ToLower(attr(n, "rel"))) {
				if manualRels[rel] {
					s.manualRels = true
				}
				if rel == "prev" || rel == "next" {
					s.sequence = true
				}
			}
		case atom.A:
			if isSequenceLink(n) {
				s.sequence = true
			}
			href := attr(n, "href")
			if self != "" {
				// "options.html#density" on options.html itself
				href = strings.TrimPrefix(href, self)
			}
			if len(href) > 1 && href[0] == '#' {
				targets[href[1:]] = true
				if id, err := url.PathUnescape(href[1:]); err == nil {
					// "#se%3Aoptions" points at id "se:options": a
					// fragment is percent-decoded before it is looked up.
					targets[id] = true
				}
			}
		}
	})
	if len(targets) < minTOCHeadings {
		return s
	}
	seen := map[*html.Node]bool{}
	walkElements(doc, func(n *html.Node) {
		key := attr(n, "id")
		if !targets[key] {
			if key = attr(n, "name"); n.DataAtom != atom.A || !targets[key] {
				return
			}
		}
		if h := targetHeading(n); h != nil && !seen[h] {
			seen[h] = true
			s.tocTargets = append(s.tocTargets, h)
		}
	})
	if len(s.tocTargets) < minTOCHeadings {
		s.tocTargets = nil
	}
	return s
}

// isSequenceLink reports whether an <a> steps to the previous, next or
// parent page of a manual.
func isSequenceLink(n *html.Node) bool {
	if attr(n, "accesskey") != "" {
		return true
	}
	for _, rel := range strings.Fields(strings.ToLower(attr(n, "rel"))) {
		if sequenceRels[rel] {
			return true
		}
	}
	return false
}

func isHeading(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// targetHeading returns the heading a link target names: the target
// itself, a heading that opens it (a section) or the heading right after
// it (an empty anchor before a heading), else nil.
func targetHeading(n *html.Node) *html.Node {
	if isHeading(n) {
		return n
	}
	for p := n.Parent; p != nil && p.Type == html.ElementNode; p = p.Parent {
		if isHeading(p) {
			return p // an anchor inside a heading
		}
		if p.DataAtom != atom.Span && p.DataAtom != atom.A {
			break
		}
	}
	for c, i := firstElement(n), 0; c != nil && i < 2; c, i = nextElement(c), i+1 {
		if isHeading(c) {
			return c
		}
		if h := firstElement(c); h != nil && isHeading(h) {
			return h
		}
	}
	if next := nextElement(n); next != nil && isHeading(next) {
		return next
	}
	// A label written just after its heading, alone in a paragraph of its
	// own ("<h2>3 Section options</h2><p><a id="se:options"></a></p>").
	if p := n.Parent; p != nil && p.Type == html.ElementNode && strings.TrimSpace(textContent(p)) == "" {
		if prev := prevElement(p); prev != nil && isHeading(prev) {
			return prev
		}
	}
	return nil
}

// prevElement returns the previous sibling element of n.
func prevElement(n *html.Node) *html.Node {
	for s := n.PrevSibling; s != nil; s = s.PrevSibling {
		if s.Type == html.ElementNode {
			return s
		}
	}
	return nil
}

func firstElement(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return nil
}

// headingsContainer returns the smallest element holding the page's first
// <h1> and the headings its table of contents points at: the content of a
// manual that marks it with no container of its own (man2html, godoc).
func headingsContainer(body *html.Node, targets []*html.Node) *html.Node {
	nodes := append([]*html.Node(nil), targets...)
	walkElements(body, func(n *html.Node) {
		if n.DataAtom == atom.H1 && len(nodes) == len(targets) && !isDocChrome(n) {
			nodes = append(nodes, n)
		}
	})
	var lca *html.Node
	for _, n := range nodes {
		if !isAncestor(body, n) {
			continue
		}
		if lca == nil {
			lca = n.Parent
			continue
		}
		for !isAncestor(lca, n) {
			lca = lca.Parent
		}
	}
	return lca
}

// maxNavLabel bounds the text outside links of a navigation panel
// ("Next:", "Up:", a page title in a header cell).
const maxNavLabel = 64

// maxColophonWords bounds the trailing text after a manual's last rule
// that is taken for a colophon ("created by …, using the manual pages").
const maxColophonWords = 40

// textSizes are the non-space bytes of an element's text inside and
// outside links, and the links it holds.
type textSizes struct {
	linkText, otherText int
	links, fragLinks    int
	seqLinks            int
	headings            int
}

// docNavigation finds, under root, the navigation that carries no class
// or id a rule knows: prev/next/up panels, in-page tables of contents,
// runs of bare links, heading permalinks and a colophon after the last
// horizontal rule. It returns the elements to leave out.
func docNavigation(root *html.Node) map[*html.Node]bool {
	nav := map[*html.Node]bool{}
	sizes := map[*html.Node]textSizes{}
	var measure func(n *html.Node, inLink bool) textSizes
	measure = func(n *html.Node, inLink bool) textSizes {
		var s textSizes
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if inLink {
					s.linkText += nonSpaceLen(c.Data)
				} else {
					s.otherText += nonSpaceLen(c.Data)
				}
			case html.ElementNode:
				if skippedTags[c.DataAtom] {
					continue
				}
				isLink := c.DataAtom == atom.A && hasAttr(c, "href")
				cs := measure(c, inLink || isLink)
				if isLink {
					cs.links++
					if strings.HasPrefix(attr(c, "href"), "#") {
						cs.fragLinks++
					}
					if isSequenceLink(c) {
						cs.seqLinks++
					}
				}
				if isHeading(c) {
					cs.headings++
				}
				sizes[c] = cs
				s.linkText += cs.linkText
				s.otherText += cs.otherText
				s.links += cs.links
				s.fragLinks += cs.fragLinks
				s.seqLinks += cs.seqLinks
				s.headings += cs.headings
			}
		}
		return s
	}
	measure(root, false)
	for n, s := range sizes {
		switch {
		case hasClass(n, "collapsed") && siblingHasClass(n, "expanded"):
			nav[n] = true // the folded twin of an expanded section
		case n.DataAtom == atom.A && s.fragLinks == 1 && s.otherText == 0 && isPermalinkText(textContent(n)):
			nav[n] = true // "¶", "§", "#" beside a heading
		case n.DataAtom != atom.A && s.seqLinks > 0 && s.headings == 0 && s.otherText <= maxNavLabel && s.otherText <= s.linkText:
			nav[n] = true // Prev | Up | Next
		case s.fragLinks >= 2 && s.links == s.fragLinks && s.headings == 0 && s.otherText*4 <= s.linkText && isListLike(n):
			nav[n] = true // an in-page table of contents
		}
	}
	markLinkRuns(root, nav)
	markColophon(root, nav, sizes)
	markEmptySections(root, nav, sizes)
	return nav
}

// isListLike reports whether n is a list, table or container of them.
func isListLike(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Div, atom.Nav, atom.Section, atom.Tbody:
		return true
	}
	return false
}

// isPermalinkText reports whether a link's text is a symbol only.
func isPermalinkText(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > 2 {
		return false
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// textContent is the raw text under n.
func textContent(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// markLinkRuns marks runs of two or more sibling links separated by white
// space only ("Index Return to Main Contents"): prose separates the links
// it cites with words or punctuation, menus do not.
func markLinkRuns(root *html.Node, nav map[*html.Node]bool) {
	walkElements(root, func(n *html.Node) {
		if n.DataAtom == atom.Pre || n.DataAtom == atom.Code || isHeading(n) {
			return
		}
		var run []*html.Node
		flush := func() {
			if len(run) >= 2 {
				for _, a := range run {
					nav[a] = true
				}
			}
			run = run[:0]
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
			case c.Type == html.ElementNode && c.DataAtom == atom.A && hasAttr(c, "href") && hasWord(textContent(c)):
				run = append(run, c)
			default:
				flush()
			}
		}
		flush()
	})
}

// markColophon marks what follows the last horizontal rule among root's
// children when it is a short run of text without headings or blocks: a
// generator's or site's credit line.
func markColophon(root *html.Node, nav map[*html.Node]bool, sizes map[*html.Node]textSizes) {
	var last *html.Node
	before, after := 0, 0 // words before and after the last rule
	for c := root.FirstChild; c != nil; c = c.NextSibling {
		n := 0
		switch c.Type {
		case html.TextNode:
			n = wordCount(c.Data)
		case html.ElementNode:
			if c.DataAtom == atom.Hr && before > 0 {
				last, before, after = c, before+after, 0
				continue
			}
			if !skippedTags[c.DataAtom] && !nav[c] {
				n = wordCount(textContent(c))
			}
		}
		if last == nil {
			before += n
		} else {
			after += n
		}
	}
	if last == nil || after*4 > before {
		return
	}
	words := 0
	for c := last.NextSibling; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			words += wordCount(c.Data)
		case html.ElementNode:
			if skippedTags[c.DataAtom] || nav[c] {
				continue
			}
			if isHeading(c) || sizes[c].headings > 0 || holdsBlock(c) {
				return
			}
			words += wordCount(textContent(c))
		}
	}
	if words > maxColophonWords {
		return
	}
	for c := last; c != nil; c = c.NextSibling {
		nav[c] = true
	}
}

// gridColumns returns the number of columns of a table laid out as a CSS
// grid of sibling cells (Javadoc's summaries): two or more leading header
// cells, then whole rows of cells. It returns 0 for anything else.
func gridColumns(n *html.Node) int {
	var cells []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			cells = append(cells, c)
		}
	}
	k := 0
	for k < len(cells) && isHeaderCell(cells[k]) {
		k++
	}
	if k < 2 || len(cells) == k || len(cells)%k != 0 {
		return 0
	}
	return k
}

func isHeaderCell(n *html.Node) bool {
	if attr(n, "role") == "columnheader" {
		return true
	}
	for _, c := range strings.Fields(strings.ToLower(attr(n, "class"))) {
		if c == "table-header" || c == "column-header" {
			return true
		}
	}
	return false
}

// hasWord reports whether s holds a letter or digit.
func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// siblingHasClass reports whether another child of n's parent has class.
func siblingHasClass(n *html.Node, class string) bool {
	if n.Parent == nil {
		return false
	}
	for c := n.Parent.FirstChild; c != nil; c = c.NextSibling {
		if c != n && c.Type == html.ElementNode && hasClass(c, class) {
			return true
		}
	}
	return false
}

// headingLevel is 1 to 6 for <h1> to <h6>.
func headingLevel(n *html.Node) int { return int(n.Data[1] - '0') }

// markEmptySections marks headings whose section holds nothing left once
// navigation is dropped (the "Index" heading over a table of contents).
func markEmptySections(root *html.Node, nav map[*html.Node]bool, sizes map[*html.Node]textSizes) {
	walkElements(root, func(n *html.Node) {
		for h := n.FirstChild; h != nil; h = h.NextSibling {
			if h.Type != html.ElementNode || !isHeading(h) || nav[h] {
				continue
			}
			// A section ends at the next heading of its level or at the end
			// of the content; one that ends with its parent's children may
			// go on after the parent.
			empty, ended := true, n == root
			for c := h.NextSibling; c != nil && empty; c = c.NextSibling {
				if c.Type == html.ElementNode && isHeading(c) && headingLevel(c) <= headingLevel(h) {
					ended = true
					break
				}
				switch {
				case nav[c]:
				case c.Type == html.TextNode:
					empty = nonSpaceLen(c.Data) == 0
				case c.Type == html.ElementNode:
					s := sizes[c]
					empty = skippedTags[c.DataAtom] || s.linkText+s.otherText == 0
				}
			}
			if empty && ended {
				nav[h] = true
			}
		}
	})
}

// holdsBlock reports whether n is or holds a code block, table or list.
func holdsBlock(n *html.Node) bool {
	found := false
	walkElements(n, func(c *html.Node) {
		switch c.DataAtom {
		case atom.Pre, atom.Table, atom.Ul, atom.Ol, atom.Dl:
			found = true
		}
	})
	return found
}
