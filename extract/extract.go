package extract

import (
	"bytes"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-shiori/dom"
	"github.com/go-shiori/go-readability"
	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"

	"github.com/quarryhq/quarry/text"
)

// MaxExtractInput is the most HTML Extract reads; the rest of a larger page
// is ignored.
const MaxExtractInput = 5 << 20

// maxTextBytes bounds the main text kept for one page. A manual's
// one-page reference (a configuration guide with one section per keyword)
// runs past a megabyte of text, and the entry asked about may be anywhere
// in it: the bound is well above such pages, below MaxExtractInput.
const maxTextBytes = 2 << 20

// maxFindings is how many key findings Extract keeps per page.
const maxFindings = 8

// Extract finds the main content and metadata of a rendered HTML page.
// Main text comes from trafilatura (with its readability and DOM-distiller
// fallbacks); when that looks poor a readability extraction is compared, and
// when both fail a text-density pass over the DOM is used. The chosen text
// loses a repeated headline, link teasers and trailing page furniture.
// pageURL resolves relative links and is the canonical URL when the page
// names none; it is also set as URL and FinalURL, which a caller that
// followed redirects overwrites, as it fills FetchedAt and LoadTime.
func Extract(rawHTML []byte, pageURL string) (Page, error) {
	if len(rawHTML) > MaxExtractInput {
		rawHTML = rawHTML[:MaxExtractInput]
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		return Page{}, fmt.Errorf("extract: page url %q: %w", pageURL, err)
	}
	doc, err := parseHTML(rawHTML)
	if err != nil {
		return Page{}, fmt.Errorf("extract %s: parse html: %w", pageURL, err)
	}
	precleanDocument(doc)
	head := readHead(doc)

	// Found before trafilatura runs, which may change the tree, and
	// before the text is cut for it: a manual's one-page reference runs
	// past a megabyte.
	docParas, docH1, isDoc := documentationText(doc, path.Base(base.Path))
	if paras, ok := plainTextParagraphs(doc, maxTextBytes); ok {
		// A plain-text document in <pre>: its own paragraphs and
		// entries, whatever else the page's structure suggests.
		docParas, isDoc = paras, true
	}
	limitText(doc, maxDocText)
	wrapLooseText(doc)
	lists := announcedLists(doc)
	paras, meta := mainParagraphs(doc, base, head)
	paras = restoreLists(paras, lists)
	if isDoc {
		// A documentation page's content element holds its text, however
		// short (an introduction page may be a line and a list of links),
		// unless a script is yet to fill it.
		if len(docParas) > 0 {
			paras = docParas
		}
		// Its own heading names it; <title> adds the site, and trafilatura
		// may take a popup's heading.
		meta.Title = firstNonEmpty(docH1, head.title)
	}
	page := Page{
		URL:      pageURL,
		FinalURL: pageURL,
		Host:     base.Hostname(),
		Text:     joinParagraphs(paras),
	}
	fillMetadata(&page, head, base, meta)
	page.Findings = KeyFindings(page.Text, maxFindings)
	return page, nil
}

// parseHTML parses UTF-8 input directly (a rendered DOM always is) and
// otherwise lets the charset detector pick the encoding.
func parseHTML(raw []byte) (*html.Node, error) {
	raw = unswallow(closeEmptyElements(raw))
	doc, err := parseOnce(raw)
	if err != nil && strings.Contains(err.Error(), "open stack of elements") {
		// A page nested deeper than the parser allows (thousands of
		// <div>s, by accident or to break extractors): its text is still
		// text, so parse it again with the excess nesting dropped.
		return parseOnce(shallow(raw, maxNesting))
	}
	return doc, err
}

// xhtmlSniff bounds how far into a page closeEmptyElements looks for an
// XHTML doctype or namespace.
const xhtmlSniff = 2048

// selfClosedRe matches a start tag written self-closed ("<a id=x/>").
var selfClosedRe = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9]*)((?:\s[^<>]*?)?)\s*/>`)

// closeEmptyElements writes each element an XHTML page wrote self-closed
// ("<a class=anchor id=density/>") with its end tag, as an XHTML parser
// reads it. Served as HTML, the page's "/>" is ignored: the anchor opens
// there and takes in the heading and every paragraph after it.
func closeEmptyElements(raw []byte) []byte {
	if !bytes.Contains(bytes.ToLower(raw[:min(len(raw), xhtmlSniff)]), []byte("xhtml")) {
		return raw
	}
	return selfClosedRe.ReplaceAllFunc(raw, func(m []byte) []byte {
		sub := selfClosedRe.FindSubmatch(m)
		tag := strings.ToLower(string(sub[1]))
		if voidElements[tag] {
			return m
		}
		return slices.Concat([]byte("<"), sub[1], sub[2], []byte("></"), sub[1], []byte(">"))
	})
}

// swallowingTags are the elements whose content a parser reads as text up
// to their end tag. Written self-closed, as XHTML allows ("<iframe
// src=… />"), one opens there and takes the rest of the page as its text:
// a browser shows nothing after it.
var swallowingTags = []string{"iframe", "noembed", "noframes", "textarea", "title"}

// unswallow closes, right after its start tag, each element of
// swallowingTags whose text runs to the end of the page (it holds
// "</body"): the page meant it empty, and the rest is the page.
func unswallow(raw []byte) []byte {
	lower := bytes.ToLower(raw)
	for _, tag := range swallowingTags {
		open := []byte("<" + tag)
		for from := 0; ; {
			i := bytes.Index(lower[from:], open)
			if i < 0 {
				break
			}
			i += from
			from = i + len(open)
			if from < len(lower) && (lower[from] == '-' || lower[from] >= 'a' && lower[from] <= 'z') {
				continue // "<titles>", "<iframe-x>"
			}
			gt := bytes.IndexByte(lower[i:], '>')
			if gt < 0 {
				break
			}
			start := i + gt + 1
			end := bytes.Index(lower[start:], []byte("</"+tag))
			content := lower[start:]
			if end >= 0 {
				content = content[:end]
			}
			if !bytes.Contains(content, []byte("</body")) {
				continue
			}
			closer := []byte("</" + tag + ">")
			raw = slices.Concat(raw[:start], closer, raw[start:])
			lower = slices.Concat(lower[:start], closer, lower[start:])
			from = start + len(closer)
		}
	}
	return raw
}

func parseOnce(raw []byte) (*html.Node, error) {
	if utf8.Valid(raw) {
		return html.Parse(bytes.NewReader(raw))
	}
	return dom.Parse(bytes.NewReader(raw))
}

// maxNesting is how deep shallow lets elements nest, well inside the
// parser's limit of 512 open elements.
const maxNesting = 200

// shallow rewrites raw HTML without the start and end tags of elements
// nested more than depth deep, keeping their text and everything else.
func shallow(raw []byte, depth int) []byte {
	var out bytes.Buffer
	out.Grow(len(raw))
	z := html.NewTokenizer(bytes.NewReader(raw))
	open := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out.Bytes()
		}
		tok := z.Raw()
		switch tt {
		case html.StartTagToken:
			name, _ := z.TagName()
			if voidElements[string(name)] {
				break
			}
			open++
			if open > depth {
				continue
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if voidElements[string(name)] {
				break
			}
			open--
			if open >= depth {
				continue
			}
			open = max(open, 0)
		}
		out.Write(tok)
	}
}

// voidElements never have an end tag, so they do not nest.
var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
	"img": true, "input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// mainParagraphs runs the extractor chain and returns the cleaned
// paragraphs of the main text with trafilatura's metadata (zero when
// trafilatura failed).
func mainParagraphs(doc *html.Node, base *url.URL, head headInfo) ([]string, trafilatura.Metadata) {
	var meta trafilatura.Metadata
	var paras []string
	if res, err := trafilatura.ExtractDocument(doc, trafilaturaOptions(base)); err == nil && res != nil {
		meta = res.Metadata
		paras = nodeParagraphs(res.ContentNode, maxTextBytes)
	}
	idx := indexPage(doc, meta.Title, head.title)
	paras = cleanParagraphs(paras, idx)
	return withFallbacks(paras, doc, base, idx, readabilityParagraphs, densityParagraphs), meta
}

// fallbackExtractor returns the paragraphs of a document's main text.
type fallbackExtractor func(doc *html.Node, base *url.URL) []string

// withFallbacks tries each fallback in turn while the text is poor and
// keeps a fallback's cleaned result when it is longer than the best so far.
func withFallbacks(paras []string, doc *html.Node, base *url.URL, idx *pageIndex, fallbacks ...fallbackExtractor) []string {
	for _, fb := range fallbacks {
		if !poorText(paras) {
			break
		}
		if alt := cleanParagraphs(fb(doc, base), idx); words(alt) > words(paras) {
			paras = alt
		}
	}
	return paras
}

// trafilaturaOptions configures the primary extractor.
func trafilaturaOptions(base *url.URL) trafilatura.Options {
	return trafilatura.Options{
		OriginalURL:     base,
		EnableFallback:  true,
		ExcludeComments: true,
		// The date scan over the whole page is costly; metadata and a fast
		// scan find the date of a news page.
		HtmlDateMode: trafilatura.Fast,
		// Precision: the clean-up cannot remove everything a recall-minded
		// extraction adds, and the benchmark rewards it (F1 0.963 vs 0.951).
		Focus: trafilatura.FavorPrecision,
	}
}

// readabilityParagraphs is the go-readability extraction of doc.
func readabilityParagraphs(doc *html.Node, base *url.URL) []string {
	art, err := readability.FromDocument(doc, base)
	if err != nil || art.Node == nil {
		return nil
	}
	return nodeParagraphs(art.Node, maxTextBytes)
}

// minArticleWords is the length below which an extraction is considered
// poor and the next extractor is tried.
const minArticleWords = 50

// poorText reports whether an extraction is too short to be an article body.
func poorText(paras []string) bool { return words(paras) < minArticleWords }

// words counts the words of all paragraphs.
func words(paras []string) int {
	n := 0
	for _, p := range paras {
		n += wordCount(p)
	}
	return n
}

// wordCount counts the space-separated words of s.
func wordCount(s string) int { return len(strings.Fields(s)) }

// joinParagraphs makes the page text: paragraphs separated by blank lines,
// at most maxTextBytes long.
func joinParagraphs(paras []string) string {
	return text.ClipBytes(strings.Join(paras, "\n\n"), maxTextBytes)
}
