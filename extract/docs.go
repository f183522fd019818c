package extract

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Documentation pages (mdBook, Sphinx, MkDocs, Docusaurus, rustdoc, plain
// manuals) are not articles: the article extractors drop their option lists,
// code blocks and headings as boilerplate. For them the main content element
// is walked directly, keeping that structure. A page is recognised by its
// generator tag or, failing that, by the structure manuals share (see
// docs_structure.go): head links into a manual, prev/next sequences, an
// index of its own sections; their navigation is dropped by the same
// structure, so that generators no rule names (man2html, godoc, Texinfo,
// DocBook, Javadoc's grid tables) read as well as those it does.

// docGeneratorRe matches the generator meta tag of documentation tools.
var docGeneratorRe = regexp.MustCompile(`(?i)\b(mdbook|sphinx|docutils|mkdocs|docusaurus|rustdoc|hugo-book|docfx|jsdoc|typedoc|pkgsite|vitepress|vuepress|gitbook|antora|doxygen|pdoc|godoc|makeinfo|texi2any|texi2html|man2html|javadoc|asciidoctor|docbook)\b`)

// docChromeRe matches the class or id tokens of documentation-site chrome
// inside or around the content element: sidebars, menus, popups, search,
// prev/next links, edit buttons, breadcrumbs, theme pickers.
var docChromeRe = regexp.MustCompile(`^(sidebar.*|navheader|navfooter|.*-sidebar|menu-bar|menu|nav-wrapper|nav-wide-wrapper|nav-chapters|navbar.*|breadcrumbs?|.*-breadcrumbs?|search.*|.*-search|mdbook-help-.*|.*popup.*|modal|theme-.*-?popover|theme-popup|headerlink|skip-link|skip-to-content|edit-this-page|md-content__button|theme-edit-this-page|pagination-nav.*|md-footer.*|md-header.*|md-sidebar.*|md-source-file|rst-footer-buttons|related|footer|copyright|sphinxsidebar.*|toc|toc-drawer|toctree-wrapper|on-this-page|table-of-contents|rustdoc-toolbar|hideme|sub-heading|out-of-band|copy-path|hash-link|rule-link|doc-anchor|src|tooltip|buttons|clip-button|play-button|fa-.*)$`)

// docContentIDs and docContentClasses name, in order of preference, the
// elements that hold the main content of the common documentation
// generators: rustdoc, Docusaurus, MkDocs Material and Sphinx themes; mdBook
// and plain manuals are found by <main>, [role=main] or <article>, and
// docFallbackClasses are tried last (Sphinx's classic themes).
var (
	docContentIDs      = []string{"main-content"}
	docContentClasses  = []string{"theme-doc-markdown", "md-content__inner", "rst-content"}
	docFallbackClasses = []string{"body", "document"}
)

// minBareVars is the fewest <var> elements a page without a content
// element needs to be tested for documentation by its structure: an
// article names no arguments.
const minBareVars = 2

// minDocStructure is the fewest inline code elements a page without a
// documentation generator tag needs to be taken for documentation.
const minDocStructure = 4

// docRoot returns the main content element of a documentation page, or nil
// when doc does not look like one. A page is documentation when its
// generator meta tag names a documentation tool or its head links it into
// a manual (rel=up, contents, index); when it steps through a sequence of
// pages or indexes its own sections, and holds code, option or definition
// blocks; or when its main content element holds several section headings
// and many such blocks. A page without a content element is read whole
// when its signals are strong, and tested so by its structure only when it
// marks up arguments (<var>), as a routine's page does and an article does
// not.
func docRoot(doc *html.Node, self string) *html.Node {
	body := findBody(doc)
	if body == nil {
		return nil
	}
	sig := readDocSignals(doc, self)
	root := findDocContent(body)
	if root == nil && sig.tocTargets != nil {
		root = headingsContainer(body, sig.tocTargets)
	}
	bare := root == nil
	if bare {
		root = body
	}
	if sig.strong() {
		return root
	}
	var headings, blocks, pres, dls, codes, vars, paras int
	walkElements(root, func(n *html.Node) {
		switch n.DataAtom {
		case atom.H2, atom.H3, atom.H4:
			headings++
		case atom.Pre:
			pres++
			blocks++
		case atom.Dl:
			dls++
			blocks++
		case atom.Table:
			blocks++
		case atom.Var:
			// An argument set in type, where other generators write
			// <code>.
			vars++
			codes++
		case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
			// (<tt>: a name set in type.)
			codes++
		case atom.P:
			paras++
		}
	})
	if bare && vars < minBareVars {
		return nil
	}
	if headings >= 2 && blocks >= 2 && codes >= minDocStructure && blocks*4 >= paras/2 {
		return root
	}
	// A page in a sequence or with a table of its own sections is a manual
	// when it shows any code or definitions; an article rarely has both.
	indexed := 0
	for _, h := range sig.tocTargets {
		if isAncestor(root, h) {
			indexed++
		}
	}
	if (sig.sequence || indexed >= minTOCHeadings) && headings >= 1 && (pres > 0 || codes >= 2 || dls > 0) {
		return root
	}
	return nil
}

// docGenerator reports whether the page's generator meta tag names a
// documentation tool, or its markup carries a tool's signature.
func docGenerator(doc *html.Node) bool {
	found := false
	walkElements(doc, func(n *html.Node) {
		if found {
			return
		}
		switch n.DataAtom {
		case atom.Meta:
			if strings.EqualFold(attr(n, "name"), "generator") && docGeneratorRe.MatchString(attr(n, "content")) {
				found = true
			}
		case atom.Div:
			// mdBook has no generator tag but always its help popup or
			// its sidebar scrollbox.
			switch attr(n, "id") {
			case "mdbook-help-container", "mdbook-body-container":
				found = true
			}
		}
	})
	return found
}

// findDocContent finds the main content element: a known generator's
// container, else <main>, [role=main] or a single <article>.
func findDocContent(body *html.Node) *html.Node {
	var byID, byClass, main, roleMain, article, fallback *html.Node
	classRank := len(docContentClasses)
	articles := 0
	walkElements(body, func(n *html.Node) {
		id := attr(n, "id")
		for _, want := range docContentIDs {
			if id == want && byID == nil {
				byID = n
			}
		}
		for _, c := range strings.Fields(attr(n, "class")) {
			for i, want := range docContentClasses {
				if c == want && i < classRank {
					byClass, classRank = n, i
				}
			}
			for _, want := range docFallbackClasses {
				if c == want && fallback == nil {
					fallback = n
				}
			}
		}
		switch {
		case n.DataAtom == atom.Main && main == nil:
			main = n
		case attr(n, "role") == "main" && roleMain == nil:
			roleMain = n
		case n.DataAtom == atom.Article:
			if articles == 0 {
				article = n
			}
			articles++
		}
	})
	if articles > 1 {
		article = nil
	}
	for _, n := range []*html.Node{byID, byClass, roleMain, main, article, fallback} {
		// An empty [role=main] a template leaves before the real <main>
		// holds no content.
		if n != nil && holdsText(n) {
			return n
		}
	}
	return nil
}

// holdsText reports whether some text under n is more than white space.
func holdsText(n *html.Node) bool {
	if n.Type == html.TextNode {
		return strings.TrimSpace(n.Data) != ""
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if holdsText(c) {
			return true
		}
	}
	return false
}

// walkElements calls fn for every element under n, n included, in
// document order.
func walkElements(n *html.Node, fn func(*html.Node)) {
	if n.Type == html.ElementNode {
		fn(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walkElements(c, fn)
	}
}

// isDocChrome reports whether an element inside a documentation page is
// navigation or a control rather than content.
func isDocChrome(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Footer, atom.Aside, atom.Dialog, atom.Form:
		return true
	}
	if hasAttr(n, "hidden") || attr(n, "aria-hidden") == "true" {
		return true
	}
	switch attr(n, "role") {
	case "navigation", "search", "dialog", "banner", "contentinfo", "toolbar":
		return true
	}
	if docChromeRe.MatchString(strings.ToLower(attr(n, "id"))) {
		return true
	}
	for _, c := range strings.Fields(strings.ToLower(attr(n, "class"))) {
		// An anchor link beside a heading ("§", "¶"); a heading may itself
		// carry the class.
		if docChromeRe.MatchString(c) || (n.DataAtom == atom.A && c == "anchor") {
			return true
		}
	}
	return false
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// docParagraphs returns the text of a documentation content element as
// paragraphs: each heading on its own, a definition term joined to its
// definition as "term: definition", code blocks with their lines, table
// rows with their cells separated by " | ", and chrome left out. At most
// limit bytes are collected (0: no limit).
func docParagraphs(root *html.Node, limit int) []string {
	b := &docBuilder{textBuilder: textBuilder{limit: limit}, done: map[*html.Node]bool{}, nav: docNavigation(root)}
	b.walk(root)
	b.flush()
	return b.paras
}

// docBuilder is a textBuilder that knows documentation structure.
type docBuilder struct {
	textBuilder
	inPre int
	done  map[*html.Node]bool // <dd>s already written with their term
	nav   map[*html.Node]bool // navigation found by structure (docNavigation)
}

// skip reports whether n is chrome or was written already.
func (b *docBuilder) skip(n *html.Node) bool {
	return b.nav[n] || b.done[n] || (n.Type == html.ElementNode && (skippedTags[n.DataAtom] || isDocChrome(n) || isKindCaption(n)))
}

// captionDepth bounds how far up isKindCaption looks for the container a
// caption names.
const captionDepth = 5

// isKindCaption reports whether n is a caption that only names the kind
// of the box it opens: "Note" atop a container whose class or summary is
// "note", "Warning" atop a "warning". It says nothing of its own, and read
// as a heading it would hide the section's own heading from what follows.
func isKindCaption(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Th, atom.Td, atom.Div, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
	default:
		return false
	}
	if n.FirstChild == nil || n.FirstChild.NextSibling != nil && n.FirstChild.NextSibling.NextSibling != nil {
		return false
	}
	word := strings.ToLower(strings.TrimRight(strings.TrimSpace(textContent(n)), ":"))
	if word == "" || len(word) > 20 || strings.ContainsFunc(word, func(r rune) bool { return !unicode.IsLetter(r) }) {
		return false
	}
	for a, d := n.Parent, 0; a != nil && d < captionDepth; a, d = a.Parent, d+1 {
		if a.DataAtom != atom.Div && a.DataAtom != atom.Table && a.DataAtom != atom.Aside && a.DataAtom != atom.Section {
			continue
		}
		if strings.EqualFold(attr(a, "summary"), word) || slices.Contains(strings.Fields(strings.ToLower(attr(a, "class"))), word) {
			return true
		}
	}
	return false
}

func (b *docBuilder) walk(n *html.Node) {
	if b.full() {
		return
	}
	if b.nav[n] {
		return
	}
	switch n.Type {
	case html.TextNode:
		if b.inPre > 0 {
			b.cur.WriteString(strings.ReplaceAll(n.Data, "\n", string(lineSep)))
		} else {
			b.cur.WriteString(n.Data)
		}
		return
	case html.ElementNode:
		if b.skip(n) {
			return
		}
		if attr(n, "role") == "row" {
			b.row(n)
			return
		}
		if k := gridColumns(n); k > 0 {
			b.grid(n, k)
			return
		}
		switch n.DataAtom {
		case atom.Br:
			b.lineBreak()
			return
		case atom.Tr:
			b.row(n)
			return
		case atom.Dt:
			b.term(n)
			return
		case atom.Ul, atom.Ol:
			if b.leadList(n, b.itemText) {
				return
			}
		case atom.Pre:
			b.flush()
			b.inPre++
			b.children(n)
			b.inPre--
			b.flush()
			return
		}
	case html.CommentNode, html.DoctypeNode:
		return
	}
	block := n.Type == html.ElementNode && (blockTags[n.DataAtom] || !isKnownInline(n))
	if block {
		b.flush()
	}
	b.children(n)
	if block {
		b.flush()
	}
}

func (b *docBuilder) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.walk(c)
	}
}

// textOf returns the text inside n as one line.
func (b *docBuilder) textOf(n *html.Node) string {
	sub := &docBuilder{textBuilder: textBuilder{limit: b.limit}, done: b.done, nav: b.nav}
	sub.children(n)
	sub.flush()
	return strings.Join(sub.paras, " ")
}

// itemText returns the paragraphs of a list item, chrome left out.
func (b *docBuilder) itemText(li *html.Node) []string {
	sub := &docBuilder{textBuilder: textBuilder{limit: maxRestoredItemLen + 1}, done: b.done, nav: b.nav}
	sub.children(li)
	sub.flush()
	return sub.paras
}

// row writes a table row as one paragraph, its cells separated by " | ".
func (b *docBuilder) row(tr *html.Node) {
	b.flush()
	var cells []*html.Node
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && !b.skip(c) {
			cells = append(cells, c)
		}
	}
	b.cells(cells)
}

// grid writes a table laid out as a grid of k sibling cells a row, one
// paragraph a row.
func (b *docBuilder) grid(n *html.Node, k int) {
	b.flush()
	var cells []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			cells = append(cells, c)
		}
	}
	for i := 0; i+k <= len(cells); i += k {
		var row []*html.Node
		for _, c := range cells[i : i+k] {
			if !b.skip(c) {
				row = append(row, c)
			}
		}
		b.cells(row)
	}
}

// cells writes the cells of one row as a paragraph, separated by " | ".
// A row of a label and its value (a header cell beside a data cell, or a
// first cell ending with a colon) is written "Label: value": a key/value
// box ("Default:", "Context:") states something about its entry.
func (b *docBuilder) cells(row []*html.Node) {
	var cells []string
	for _, c := range row {
		cells = append(cells, b.textOf(c))
	}
	if len(row) == 2 && cells[0] != "" && cells[1] != "" &&
		(row[0].DataAtom == atom.Th && row[1].DataAtom == atom.Td || strings.HasSuffix(cells[0], ":")) {
		label := strings.TrimSpace(cells[0])
		if !strings.HasSuffix(label, ":") {
			label += ":"
		}
		p := label + " " + strings.TrimSpace(cells[1])
		b.paras = append(b.paras, p)
		b.size += len(p) + 2
		return
	}
	if full := slices.DeleteFunc(slices.Clone(cells), func(c string) bool { return strings.TrimSpace(c) == "" }); len(full) == 1 {
		// An icon's cell beside a caption: the row is its one text.
		cells = full
	}
	if p := strings.TrimSpace(strings.Join(cells, " | ")); strings.Trim(p, "| ") != "" {
		b.paras = append(b.paras, p)
		b.size += len(p) + 2
	}
}

// term writes a definition term, with the terms that directly follow it
// (an option's short and long forms). When a definition follows, the terms
// lead its first paragraph: "-v, --verbose: Use verbose output."
func (b *docBuilder) term(dt *html.Node) {
	b.flush()
	var terms []string
	next := dt
	for next != nil && next.DataAtom == atom.Dt {
		if next != dt {
			b.done[next] = true
		}
		if t := b.textOf(next); t != "" {
			terms = append(terms, t)
		}
		next = nextElement(next)
	}
	termText := strings.Join(terms, ", ")
	if termText == "" {
		return
	}
	b.size += len(termText) + 2
	if next == nil || next.DataAtom != atom.Dd {
		b.paras = append(b.paras, termText)
		return
	}
	start := len(b.paras)
	b.walk(next)
	b.done[next] = true
	if len(b.paras) == start {
		b.paras = append(b.paras, termText)
	} else {
		sep := ": "
		if strings.HasSuffix(termText, ":") {
			sep = " " // the term carries its own colon ("Returns:")
		}
		b.paras[start] = termText + sep + b.paras[start]
	}
}

// nextElement returns the next sibling element of n.
func nextElement(n *html.Node) *html.Node {
	for s := n.NextSibling; s != nil; s = s.NextSibling {
		if s.Type == html.ElementNode {
			return s
		}
	}
	return nil
}

// docTitle returns the text of the first <h1> in the content element, else
// of its first <h2> (an mdBook sub-chapter starts with one), else of its
// first heading of any level (a Texinfo section page), or "".
func docTitle(root *html.Node) string {
	var h1, h2, other *html.Node
	walkElements(root, func(n *html.Node) {
		if !isHeading(n) || inDocChrome(n, root) {
			return
		}
		switch {
		case n.DataAtom == atom.H1 && h1 == nil:
			h1 = n
		case n.DataAtom == atom.H2 && h2 == nil:
			h2 = n
		case other == nil:
			other = n
		}
	})
	for _, h := range []*html.Node{h1, h2, other} {
		if h != nil {
			return strings.Join(docParagraphs(h, maxMetaRunes*4), " ")
		}
	}
	return ""
}

// inDocChrome reports whether n, or an element around it below root, is
// chrome: a sidebar's heading names the site, not the page.
func inDocChrome(n, root *html.Node) bool {
	for ; n != nil && n != root; n = n.Parent {
		if n.Type == html.ElementNode && isDocChrome(n) {
			return true
		}
	}
	return false
}

// documentationText returns the structure-preserving text and the heading
// of a documentation page; isDoc is false when doc is not one. self is the
// page's file name ("options.html"), which its links to its own sections
// may be written with.
func documentationText(doc *html.Node, self string) (paras []string, h1 string, isDoc bool) {
	root := docRoot(doc, self)
	if root == nil {
		return nil, "", false
	}
	return docParagraphs(root, maxTextBytes), docTitle(root), true
}
