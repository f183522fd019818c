package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Bounds on a list restored after its lead-in: lists longer than this,
// or with longer items, are content an extractor keeps or drops on its
// own terms.
const (
	maxRestoredItems   = 40
	maxRestoredItemLen = 200
)

// announcedLists maps the text of each paragraph that announces a list
// ("The type must be one of the following:") to the items of the list
// that follows it in the page, for lists of short, plain (not link) items.
// It is read before the main-text extractor runs, which may change the
// tree.
func announcedLists(doc *html.Node) map[string][]string {
	out := map[string][]string{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Ul || n.DataAtom == atom.Ol) {
			if lead := leadIn(n); lead != "" {
				if items := plainItems(n); len(items) >= 2 {
					out[lead] = items
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

// leadIn returns the text of the paragraph right before list n when it
// ends with a colon, "" otherwise.
func leadIn(n *html.Node) string {
	prev := n.PrevSibling
	for prev != nil && prev.Type == html.TextNode && strings.TrimSpace(prev.Data) == "" {
		prev = prev.PrevSibling
	}
	if prev == nil || prev.Type != html.ElementNode || prev.DataAtom != atom.P {
		return ""
	}
	paras := nodeParagraphs(prev, maxRestoredItemLen*2)
	if len(paras) != 1 || !strings.HasSuffix(paras[0], ":") {
		return ""
	}
	return paras[0]
}

// plainItems returns the text of each item of list n, or nil when an item
// is long, holds a nested block, or is mostly link text (a list of links
// is navigation or "related" furniture, not content).
func plainItems(n *html.Node) []string {
	var items []string
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode {
			continue
		}
		if li.DataAtom != atom.Li || len(items) == maxRestoredItems {
			return nil
		}
		paras := nodeParagraphs(li, maxRestoredItemLen+1)
		if len(paras) != 1 || len(paras[0]) > maxRestoredItemLen || 2*linkTextLen(li) > len(paras[0]) {
			return nil
		}
		items = append(items, paras[0])
	}
	return items
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

// restoreLists puts back the items of an announced list that the
// extraction kept the lead-in of but dropped ("… one of the following:"
// followed by the next paragraph): the lead-in promises them, and a
// question about what the list names has no answer without them.
func restoreLists(paras []string, lists map[string][]string) []string {
	if len(lists) == 0 {
		return paras
	}
	var out []string
	for i, p := range paras {
		out = append(out, p)
		items, ok := lists[p]
		if !ok || i+1 < len(paras) && paras[i+1] == items[0] {
			continue
		}
		out = append(out, items...)
	}
	return out
}
