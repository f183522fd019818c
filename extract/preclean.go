package extract

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// commentClassRe matches the class tokens of reader-comment sections in the
// common publishing systems (WordPress, Disqus and the like).
var commentClassRe = regexp.MustCompile(`^(comments?|comment-(body|content|list|respond|thread|section|area|form)|commentlist|comments-(area|list|section|wrapper|container)|comment-reply|disqus_thread)$`)

// commentIDRe matches the ids of reader-comment sections.
var commentIDRe = regexp.MustCompile(`^(comments?|respond|disqus_thread|comment-\d+|div-comment-\d+|comments-(area|section|list|wrapper))$`)

// maxDocText bounds the visible text of a document handed to the general
// extractors; the rest of the tree is cut (limitText). Extraction time
// grows faster than linearly with text (a megabyte of prose takes
// trafilatura seconds), while the largest benchmark page holds about
// 100 KB. A documentation page's content is read by its structure, in
// linear time, before the cut (Extract).
const maxDocText = 256 << 10

// precleanDocument removes, in place, the parts of a page no extractor
// should consider: reader-comment sections (the fallback extractors
// otherwise take a long comment thread for the article when the post itself
// is short) and mdBook's hidden help popup.
func precleanDocument(doc *html.Node) {
	var doomed []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Pre || n.DataAtom == atom.Code) {
			return // a highlighter's "comment" is part of the code
		}
		if n.Type == html.ElementNode && isCommentSection(n) {
			doomed = append(doomed, n)
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for _, n := range doomed {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
}

// blockAtoms are the elements that lay out as blocks of their own.
var blockAtoms = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Pre: true, atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Table: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Blockquote: true,
	atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true, atom.Nav: true, atom.Aside: true,
	atom.Form: true, atom.Hr: true, atom.Main: true, atom.Figure: true, atom.Address: true, atom.Center: true,
}

// wrapLooseText gives a paragraph of its own to each run of text and inline
// elements that sits directly in a block beside other blocks, as a browser
// lays it out (an anonymous block): old hand-written pages put a
// paragraph's text between a <pre> and the next <p> with no element of its
// own, and an extractor that reads elements keeps the code spans of such a
// run and drops the words between them ("To resolve this, simply use the
// PassivePorts directive in your proftpd.conf to control …").
func wrapLooseText(n *html.Node) {
	if n.Type == html.ElementNode && (n.DataAtom == atom.Pre || n.DataAtom == atom.Code || n.DataAtom == atom.Script || n.DataAtom == atom.Style || n.DataAtom == atom.P) {
		return
	}
	blocks, loose := false, false
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.ElementNode && blockAtoms[c.DataAtom]:
			blocks = true
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) != "":
			loose = true
		}
	}
	if n.Type == html.ElementNode && blocks && loose && n.DataAtom != atom.Html && n.DataAtom != atom.Head {
		var run []*html.Node
		flush := func(before *html.Node) {
			text := false
			for _, r := range run {
				text = text || r.Type == html.TextNode && strings.TrimSpace(r.Data) != "" || r.Type == html.ElementNode
			}
			if text {
				p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
				n.InsertBefore(p, before)
				for _, r := range run {
					n.RemoveChild(r)
					p.AppendChild(r)
				}
			}
			run = nil
		}
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && blockAtoms[c.DataAtom] || c.Type == html.CommentNode {
				flush(c)
			} else if c.Type == html.TextNode || c.Type == html.ElementNode && c.DataAtom != atom.Script && c.DataAtom != atom.Style {
				run = append(run, c)
			}
			c = next
		}
		flush(nil)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		wrapLooseText(c)
	}
}

// isCommentSection reports whether an element holds reader comments.
func isCommentSection(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Body, atom.Html, atom.Main, atom.Article:
		return false
	}
	if attr(n, "id") == "mdbook-help-container" {
		return true // mdBook's keyboard-shortcut popup, hidden until asked for
	}
	if commentIDRe.MatchString(strings.ToLower(attr(n, "id"))) {
		return true
	}
	for _, c := range strings.Fields(strings.ToLower(attr(n, "class"))) {
		if commentClassRe.MatchString(c) {
			return true
		}
	}
	return false
}

// limitText cuts the tree after the text node at which the visible text
// exceeds limit bytes, removing every later sibling of that node and of its
// ancestors.
func limitText(doc *html.Node, limit int) {
	seen := 0
	var walk func(n *html.Node) bool // reports whether the limit was hit
	walk = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				seen += len(c.Data)
			case html.ElementNode:
				if skippedTags[c.DataAtom] && c.DataAtom != atom.Head {
					continue
				}
				if walk(c) {
					seen = limit + 1
				}
			}
			if seen > limit {
				for c.NextSibling != nil {
					n.RemoveChild(c.NextSibling)
				}
				return true
			}
		}
		return false
	}
	walk(doc)
}
