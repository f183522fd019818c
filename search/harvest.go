package search

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/text"
	"golang.org/x/net/html"
)

// maxResults is how many results one results page yields at most, and
// maxSiteResults the same for a site's own search program (url: engines),
// which often lists 20 a page: a next page begins after the last listed,
// so results cut off here would never be seen.
const (
	maxResults     = 10
	maxSiteResults = 20
)

// Harvest picks the organic results out of a results page (HTML, or the
// JSON body for the hackernews and searxng engines). engine is a name from
// EngineNames or "url:<template>"; unknown engines use the generic
// harvester. Redirect links are unwrapped, the engine's own links, ads and
// duplicates dropped, and at most 10 results (20 from a url: engine) returned
// in page order.
func Harvest(engine, pageURL, html string) ([]Result, error) {
	base, err := url.Parse(pageURL)
	if err != nil {
		return nil, fmt.Errorf("harvest: page URL %q: %w", pageURL, err)
	}
	e := engines[strings.ToLower(engine)]
	if e != nil && e.api {
		return harvestJSON(e.name, html)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		return nil, fmt.Errorf("harvest %s: parse: %w", engine, err)
	}
	h := harvester{engine: e, base: base, seen: map[string]bool{}, max: maxResults}
	if e == nil || len(e.ownHosts) == 0 {
		h.chrome = chromeLinks(doc, base)
	}
	if strings.HasPrefix(engine, "url:") {
		h.max = maxSiteResults
	}
	if e != nil {
		for _, sel := range e.selectors {
			h.specific(doc, sel)
			if len(h.out) > 0 {
				return h.out, nil
			}
		}
	}
	h.generic(doc)
	return h.out, nil
}

type harvester struct {
	engine *engine // nil for url: templates and unknown engines
	base   *url.URL
	seen   map[string]bool
	out    []Result
	max    int // results kept at most
	// chrome holds the canonical URLs the page links only from its
	// navigation, header, footer and side bars: on a site's own search
	// those are the site's furniture (help, about, sections), never a result.
	chrome map[string]bool
}

func (h *harvester) specific(doc *goquery.Document, sel resultSelector) {
	doc.Find(sel.item).EachWithBreak(func(_ int, item *goquery.Selection) bool {
		if isAd(item) {
			return true
		}
		link := item.Find(sel.link).First()
		href, ok := link.Attr("href")
		if !ok {
			return true
		}
		title := ""
		if sel.title != "" {
			title = textOf(item.Find(sel.title).First())
		}
		if title == "" {
			title = textOf(link)
		}
		snippet := ""
		if sel.snippet != "" {
			snippet = textOf(item.Find(sel.snippet).First())
		}
		h.add(href, title, snippet)
		return len(h.out) < h.max
	})
}

// generic finds the results of a page it has never seen by structure
// rather than by markup names: the results are the best group of alike
// sibling blocks (same tag and classes, or same tag sharing a class) that each hold one
// prominent link the page does not own, scored by how many such blocks
// there are and how much text each carries besides its link. A block is
// the member element and the siblings that follow it up to the next
// member, so <dt>/<dd> lists and heading-plus-paragraph runs keep their
// snippets. Pages with no such group (a single result) fall back to the
// links of the page's headings.
func (h *harvester) generic(doc *goquery.Document) {
	prune(doc)
	g := h.bestGroup(doc)
	heads := h.headingLinks(doc)
	// Title links in headings are the other strong sign of results; they
	// win when the page's markup hides the repetition (unbalanced tags
	// nesting each result in the one before) and they are many more.
	if g == nil || len(heads) >= 3 && len(heads) > len(g.blocks)*3/2 {
		g = &group{blocks: heads}
	}
	for _, b := range g.blocks {
		h.add(b.href, b.title, b.snippet)
	}
}

// headingLinks are the links in or around the page's headings that the
// page does not own, with the text of their item as snippet.
func (h *harvester) headingLinks(doc *goquery.Document) []block {
	var out []block
	seen := map[string]bool{}
	doc.Find("body").Find("h1 a[href], h2 a[href], h3 a[href], h4 a[href], a[href]:has(h2), a[href]:has(h3), a[href]:has(h4)").EachWithBreak(func(_ int, a *goquery.Selection) bool {
		href, _ := a.Attr("href")
		title := textOf(a)
		u, ok := h.resolve(href)
		if !ok || title == "" || isAd(a) || seen[u.String()] {
			return true
		}
		seen[u.String()] = true
		out = append(out, block{href: href, title: title, snippet: strings.TrimSpace(strings.Replace(textOf(a.Closest("li, article, dd, tr, div")), title, "", 1))})
		return len(out) < 2*maxResults
	})
	return out
}

// chromeSelector finds a page's chrome: navigation, banners, footers and
// side bars, by element or by role.
const chromeSelector = "nav, aside, header, footer, [role=navigation], [role=banner], [role=contentinfo], [role=complementary]"

// chromeLinks returns the canonical URLs that the page links from its
// chrome (as prune removes it: a header or footer that belongs to an item,
// such as an <article>'s <header> holding its title, is the item's) and
// nowhere else. A link the content gives too stays a candidate: a manual's
// side bar lists every page of the manual, its search results some of them.
func chromeLinks(doc *goquery.Document, base *url.URL) map[string]bool {
	chrome := map[string]bool{}
	inChrome := map[*html.Node]bool{}
	doc.Find(chromeSelector).Each(func(_ int, c *goquery.Selection) {
		if c.ParentsFiltered("article, li, dd, dt, td").Length() > 0 {
			return
		}
		c.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
			inChrome[a.Nodes[0]] = true
		})
	})
	content := map[string]bool{}
	doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		href, _ := a.Attr("href")
		u, err := base.Parse(strings.TrimSpace(href))
		if err != nil {
			return
		}
		u.Fragment = ""
		key := extract.CanonicalURL(u.String())
		if inChrome[a.Nodes[0]] {
			chrome[key] = true
		} else {
			content[key] = true
		}
	})
	for k := range content {
		delete(chrome, k)
	}
	return chrome
}

// prune removes what is never a result: scripts, navigation, and the
// controls of the search box. Forms stay: many results pages are one form.
// Page headers and footers go unless they belong to an item (an
// <article>'s <header> holds its title).
func prune(doc *goquery.Document) {
	doc.Find("script, style, noscript, template, svg, iframe, nav, aside, [role=navigation], [role=banner], [role=contentinfo], [aria-hidden=true], input, select, textarea, button, label, option").Remove()
	doc.Find("header, footer").Each(func(_ int, s *goquery.Selection) {
		if s.ParentsFiltered("article, li, dd, dt, td").Length() == 0 {
			s.Remove()
		}
	})
}

// block is one result found by structure.
type block struct {
	href, title, snippet string
}

// group is a run of alike sibling blocks and its score.
type group struct {
	blocks []block
	score  float64
}

// bestGroup scores every group of alike element children of every
// element and returns the best, or nil. A group has at least two members,
// except in a list element (ul, ol, dl, table), where a results list of
// one is still a list. Inline elements (a run of bare links in a menu or
// a footer line) are never result blocks.
func (h *harvester) bestGroup(doc *goquery.Document) *group {
	var best *group
	doc.Find("body, body *").Each(func(_ int, p *goquery.Selection) {
		kids := p.Children()
		minMembers := 2
		switch p.Nodes[0].Data {
		case "ul", "ol", "dl", "table", "tbody":
			minMembers = 1
		}
		if kids.Length() < minMembers {
			return
		}
		nodes := kids.Nodes
		exact := map[string][]int{}
		for i, n := range nodes {
			if inlineTags[n.Data] || n.Data == "span" || n.Data == "br" || n.Data == "img" {
				continue
			}
			exact[signature(n)] = append(exact[signature(n)], i)
		}
		weight := 0.0 // known once a group is scored

		try := func(members []int, w float64) {
			if len(members) < minMembers {
				return
			}
			if g := h.scoreGroup(nodes, members); g != nil {
				if weight == 0 {
					weight = 1
					if inMain(p.Nodes[0]) {
						weight = 1.5
					}
				}
				g.score *= w * weight
				if best == nil || g.score > best.score {
					best = g
				}
			}
		}
		for sig, m := range exact {
			try(m, 1)
			// The looser group: same tag, sharing a class (result and
			// "result first"); it must do better to win.
			classes := strings.Split(sig, ".")[1:]
			if len(classes) == 0 || classes[0] == "" {
				continue
			}
			var loose []int
			for i, n := range nodes {
				if n.Data == nodes[m[0]].Data && sharesClass(n, classes) {
					loose = append(loose, i)
				}
			}
			if len(loose) > len(m) {
				try(loose, 0.9)
			}
		}
	})
	return best
}

// inMain reports whether n is inside the page's main area.
func inMain(n *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if n.Type != html.ElementNode {
			continue
		}
		if n.Data == "main" || n.Data == "article" {
			return true
		}
		for _, a := range n.Attr {
			if a.Key == "role" && a.Val == "main" || a.Key == "id" && (a.Val == "content" || a.Val == "main") {
				return true
			}
		}
	}
	return false
}

// sharesClass reports whether n has one of classes.
func sharesClass(n *html.Node, classes []string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" {
			for _, c := range strings.Fields(a.Val) {
				if slices.Contains(classes, c) {
					return true
				}
			}
		}
	}
	return false
}

// signature is an element's tag and classes, without class names that
// carry numbers (per-item counters, generated hashes).
func signature(n *html.Node) string {
	var classes []string
	for _, a := range n.Attr {
		if a.Key != "class" {
			continue
		}
		for _, c := range strings.Fields(a.Val) {
			if !strings.ContainsAny(c, "0123456789") {
				classes = append(classes, c)
			}
		}
	}
	slices.Sort(classes)
	return n.Data + "." + strings.Join(classes, ".")
}

// scoreGroup reads the members (indexes into siblings) as result blocks.
// A member without a link of its own (a snippet row after a title row)
// joins the block before it.
func (h *harvester) scoreGroup(siblings []*html.Node, members []int) *group {
	type hit struct {
		at          int
		href, title string
		key         string
	}
	var hits []hit
	seen := map[string]bool{}
	if len(members) > maxGroupMembers {
		members = members[:maxGroupMembers] // an index page's thousands of entries
	}
	for _, i := range members {
		sel := goquery.NewDocumentFromNode(siblings[i]).Selection
		if isAd(sel) {
			continue
		}
		href, title, u := h.mainLink(sel)
		if u == nil {
			continue
		}
		key := extract.CanonicalURL(u.String())
		if seen[key] {
			continue
		}
		seen[key] = true
		hits = append(hits, hit{at: i, href: href, title: title, key: key})
	}
	if len(hits) == 0 || len(hits) < len(members)/3 {
		return nil // a few links among many alike blocks are not a results list
	}
	g := &group{}
	span := len(siblings)
	for k := 1; k < len(hits); k++ {
		span = min(span, hits[k].at-hits[k-1].at)
	}
	for k, ht := range hits {
		end := ht.at + span
		if k+1 < len(hits) {
			end = hits[k+1].at
		}
		end = min(end, len(siblings))
		var parts []string
		for _, n := range siblings[ht.at:end] {
			parts = append(parts, textOf(goquery.NewDocumentFromNode(n).Selection))
		}
		snippet := strings.TrimSpace(strings.Replace(strings.Join(parts, " "), ht.title, "", 1))
		g.blocks = append(g.blocks, block{href: ht.href, title: ht.title, snippet: text.OneLine(snippet)})
		g.score += 1 + float64(min(len([]rune(snippet)), 300))/50
	}
	if isMenu(g.blocks) {
		return nil
	}
	return g
}

// menuTitleWords is the most words a menu entry's link has ("Help",
// "About us", "Privacy policy").
const menuTitleWords = 2

// isMenu reports a group that reads as a site's menu rather than results:
// every block a bare link of a word or two, with no text beside it. A
// results list names its pages by their titles or says something of each
// — or, for a page without a title the search program can read, by its
// file name ("report-1.html" linking to …/report-1.html), which no menu
// entry is written as.
func isMenu(blocks []block) bool {
	named := 0
	for _, b := range blocks {
		if b.snippet != "" || len(strings.Fields(b.title)) > menuTitleWords || namesFile(b) {
			return false
		}
		if qualifiedNameRe.MatchString(strings.TrimSpace(b.title)) {
			named++
		}
	}
	// A reference's search names its hits by the modules or files they
	// document ("Tally.Stream.Buffer", "Tally/Stream.hs"): a menu names
	// its entries in words.
	return len(blocks) > 0 && 2*named < len(blocks)
}

// qualifiedNameRe matches a name of parts joined by dots, slashes or
// colons, each starting with a letter ("Tally.Stream.Buffer",
// "Tally/Stream.hs", "tally::stream").
var qualifiedNameRe = regexp.MustCompile(`^[\pL_][\pL\pN_]*(?:(?:\.|/|::)[\pL_][\pL\pN_]*)+$`)

// namesFile reports a block whose link text is the file name its link
// points to, extension included.
func namesFile(b block) bool {
	u, err := url.Parse(b.href)
	if err != nil {
		return false
	}
	name := path.Base(u.Path)
	return strings.Contains(name, ".") && strings.EqualFold(strings.TrimSpace(b.title), name)
}

// mainLink is the prominent link of a result block: one in or around a
// heading, else one in bold, else the first whose text is not a bare URL.
// Links the page owns (its own pages, pagination, facets) do not count.
func (h *harvester) mainLink(s *goquery.Selection) (href, title string, u *url.URL) {
	rank := 4
	anchors := s.Find("a[href]")
	if s.Is("a[href]") {
		anchors = s
	}
	if anchors.Length() > maxBlockLinks {
		return "", "", nil // a container of many links, not one result
	}
	anchors.EachWithBreak(func(_ int, a *goquery.Selection) bool {
		raw, _ := a.Attr("href")
		t := textOf(a)
		if t == "" {
			return true
		}
		r := 3
		switch {
		case a.Closest("h1, h2, h3, h4, h5, h6").Length() > 0 || a.Find("h1, h2, h3, h4, h5, h6").Length() > 0:
			r = 0
		case a.Closest("strong, b").Length() > 0 || a.Find("strong, b").Length() > 0 && textOf(a.Find("strong, b")) == t:
			r = 1
		case !looksLikeURL(t):
			r = 2
		}
		if r >= rank {
			return true
		}
		if r >= 2 && inSentence(a.Nodes[0]) {
			return true // a plain link inside running text is no title
		}
		pu, ok := h.resolve(raw)
		if !ok {
			return true
		}
		rank, href, title, u = r, raw, t, pu
		return rank > 0
	})
	return href, title, u
}

const (
	// maxBlockLinks is the most links one result block holds (title,
	// cached copy, sitelinks); an element with more is a container.
	maxBlockLinks = 30
	// maxGroupMembers bounds the blocks of a group that are read.
	maxGroupMembers = 4 * maxResults
)

// inSentence reports a link with words right before or after it in the
// same element: a link in running text.
func inSentence(a *html.Node) bool {
	for _, n := range []*html.Node{a.PrevSibling, a.NextSibling} {
		if n == nil || n.Type != html.TextNode {
			continue
		}
		letters := 0
		for _, r := range n.Data {
			if unicode.IsLetter(r) {
				letters++
			}
		}
		if letters >= 3 {
			return true
		}
	}
	return false
}

// looksLikeURL reports link text that is an address rather than a title.
func looksLikeURL(s string) bool {
	return !strings.Contains(s, " ") && (strings.Contains(s, "://") || strings.HasPrefix(s, "www.") || strings.Count(s, "/") > 0 && strings.Contains(s, "."))
}

// add resolves, unwraps and filters one link and appends it if it is new.
func (h *harvester) add(href, title, snippet string) {
	if len(h.out) >= h.max || title == "" {
		return
	}
	u, ok := h.resolve(href)
	if !ok {
		return
	}
	key := extract.CanonicalURL(u.String())
	if h.seen[key] {
		return
	}
	h.seen[key] = true
	if len([]rune(snippet)) > 400 {
		snippet = string([]rune(snippet)[:400]) + "…"
	}
	snippet = strings.TrimSpace(strings.TrimPrefix(snippet, title))
	h.out = append(h.out, Result{URL: u.String(), Title: title, Snippet: snippet})
}

// resolve turns href into the absolute URL of a result, or reports that the
// link is not one (the engine's own, a script link, a non-web scheme).
func (h *harvester) resolve(href string) (*url.URL, bool) {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return nil, false
	}
	u, err := h.base.Parse(href)
	if err != nil {
		return nil, false
	}
	for range 3 { // a redirect may wrap another
		inner, ok := unwrapRedirect(u, h.base)
		if !ok {
			break
		}
		u = inner
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, false
	}
	u.Fragment = ""
	if h.engine != nil && h.engine.keep != nil && h.engine.keep(u) {
		if h.engine.name == "stackoverflow" {
			u.RawQuery = "" // ?r=Results and similar click tracking
		}
		return u, true
	}
	if h.isOwn(u) {
		return nil, false
	}
	return u, true
}

// isOwn reports links that belong to the engine rather than the web.
func (h *harvester) isOwn(u *url.URL) bool {
	host := strings.ToLower(u.Hostname())
	if h.engine != nil {
		for _, own := range h.engine.ownHosts {
			if host == own || strings.HasSuffix(host, "."+own) {
				return true
			}
		}
		if len(h.engine.ownHosts) > 0 {
			return false
		}
	}
	if siteOf(host) != siteOf(strings.ToLower(h.base.Hostname())) {
		return false
	}
	// A site's own search (url:https://docs.example.org/search?q={query})
	// lists pages of that site, so same-site links are kept unless they are
	// the results page again (pagination, filters), the home page, or the
	// site's furniture: what its navigation, header and footer link. Which
	// paths those are is read from the page, never from their names: a
	// news site's articles live under /news/.
	if u.Path == h.base.Path || u.Path == "/" || u.Path == "" {
		return true
	}
	return h.chrome[extract.CanonicalURL(u.String())]
}

// unwrapRedirect returns the target of an engine's click-tracking link:
// DuckDuckGo /l/?uddg=, Bing /ck/a?u=a1<base64>, Google /url?q=, Yahoo
// /RU=…/RK=, and generic url=/u=/dest= parameters on the results site.
func unwrapRedirect(u, base *url.URL) (*url.URL, bool) {
	q := u.Query()
	host := strings.ToLower(u.Hostname())
	try := func(raw string) (*url.URL, bool) {
		if raw == "" {
			return nil, false
		}
		t, err := url.Parse(raw)
		if err != nil || (t.Scheme != "http" && t.Scheme != "https") || t.Host == "" {
			return nil, false
		}
		return t, true
	}
	switch {
	case strings.HasPrefix(u.Path, "/l/") && q.Get("uddg") != "":
		return try(q.Get("uddg"))
	case u.Path == "/ck/a" && strings.HasPrefix(q.Get("u"), "a1"):
		enc := strings.TrimPrefix(q.Get("u"), "a1")
		for _, dec := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
			if b, err := dec.DecodeString(enc); err == nil {
				return try(string(b))
			}
		}
		return nil, false
	case u.Path == "/url" && (q.Get("q") != "" || q.Get("url") != ""):
		if t, ok := try(q.Get("q")); ok {
			return t, true
		}
		return try(q.Get("url"))
	case strings.Contains(u.Path, "/RU="):
		rest := u.Path[strings.Index(u.Path, "/RU=")+4:]
		if i := strings.Index(rest, "/R"); i >= 0 {
			rest = rest[:i]
		}
		if dec, err := url.PathUnescape(rest); err == nil {
			return try(dec)
		}
	}
	if host == "" || siteOf(host) != siteOf(strings.ToLower(base.Hostname())) {
		return nil, false
	}
	for _, k := range []string{"uddg", "url", "u", "dest", "target", "redirect", "redirect_url", "to"} {
		if t, ok := try(q.Get(k)); ok {
			return t, true
		}
	}
	return nil, false
}

// siteOf approximates the registrable domain: the last two labels, or three
// under a two-letter country code with a generic second level (co.uk).
func siteOf(host string) string {
	host = strings.TrimSuffix(host, ".")
	if strings.Count(host, ".") < 2 || strings.Contains(host, ":") {
		return host
	}
	labels := strings.Split(host, ".")
	n := len(labels)
	if len(labels[n-1]) == 2 {
		switch labels[n-2] {
		case "co", "com", "org", "net", "ac", "gov", "edu", "ne", "or", "go":
			return strings.Join(labels[n-3:], ".")
		}
	}
	return strings.Join(labels[n-2:], ".")
}

// isAd reports sponsored results by the markers engines use.
func isAd(s *goquery.Selection) bool {
	for n := s; n.Length() > 0 && !n.Is("body"); n = n.Parent() {
		class, _ := n.Attr("class")
		for _, c := range strings.Fields(strings.ToLower(class)) {
			switch c {
			case "ad", "ads", "result--ad", "b_ad", "b_adtop", "b_adbottom", "sponsored", "ad-result", "adsbygoogle", "uefqab":
				return true
			}
		}
		if id, _ := n.Attr("id"); id == "tads" || id == "bottomads" || id == "tadsb" {
			return true
		}
		if v, ok := n.Attr("data-type"); ok && (v == "ad" || v == "ads") {
			return true
		}
		if _, ok := n.Attr("data-text-ad"); ok {
			return true
		}
	}
	return false
}

// inlineTags do not separate words; every other element does, so
// <span>go.dev</span>Tutorial reads "go.dev Tutorial" but golang/<em>go</em>
// stays "golang/go".
var inlineTags = map[string]bool{
	"a": true, "b": true, "strong": true, "em": true, "i": true, "u": true, "mark": true,
	"small": true, "sub": true, "sup": true, "code": true, "abbr": true, "wbr": true, "bdi": true,
}

// textOf is the visible text of s with word boundaries at block edges.
func textOf(s *goquery.Selection) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			if n.Data == "script" || n.Data == "style" {
				return
			}
		}
		sep := n.Type == html.ElementNode && !inlineTags[n.Data]
		if sep {
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if sep {
			b.WriteByte(' ')
		}
	}
	for _, n := range s.Nodes {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	return text.OneLine(b.String())
}

// harvestJSON reads the JSON API engines.
func harvestJSON(engine, body string) ([]Result, error) {
	var out []Result
	seen := map[string]bool{}
	add := func(u, title, snippet string) {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || title == "" {
			return
		}
		key := extract.CanonicalURL(u)
		if seen[key] || len(out) >= maxResults {
			return
		}
		seen[key] = true
		out = append(out, Result{URL: u, Title: text.OneLine(title), Snippet: text.OneLine(snippet)})
	}
	switch engine {
	case "hackernews":
		var v struct {
			Hits []struct {
				ObjectID  string `json:"objectID"`
				Title     string `json:"title"`
				URL       string `json:"url"`
				StoryText string `json:"story_text"`
				Author    string `json:"author"`
				Points    int    `json:"points"`
			} `json:"hits"`
		}
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			return nil, fmt.Errorf("harvest hackernews: decode JSON: %w", err)
		}
		for _, h := range v.Hits {
			u := h.URL
			if u == "" && h.ObjectID != "" {
				u = "https://news.ycombinator.com/item?id=" + url.QueryEscape(h.ObjectID)
			}
			snippet := h.StoryText
			if snippet == "" {
				snippet = strconv.Itoa(h.Points) + " points by " + h.Author
			}
			add(u, h.Title, snippet)
		}
	case "searxng":
		var v struct {
			Results []struct {
				URL     string `json:"url"`
				Title   string `json:"title"`
				Content string `json:"content"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			return nil, fmt.Errorf("harvest searxng: decode JSON: %w", err)
		}
		for _, r := range v.Results {
			add(r.URL, r.Title, r.Content)
		}
	default:
		return nil, fmt.Errorf("harvest %s: not a JSON engine", engine)
	}
	return out, nil
}
