package fetch

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/text"
)

// Limits of the text pages and PDFs become.
const (
	maxDocText  = 256 << 10 // bytes of text kept, as for HTML pages
	maxFindings = 8
	titleRunes  = 200
)

// pdfLimits bound one pdftotext run.
type pdfLimits struct {
	bin      string        // pdftotext binary
	timeout  time.Duration // wall time
	memBytes int64         // address space
}

// textPage builds a page from a plain text or Markdown document.
func textPage(rawURL, finalURL string, body []byte, markdown bool) (extract.Page, error) {
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var title string
	if markdown {
		title, s = markdownText(s)
	}
	paras := paragraphs(s, markdown)
	if len(paras) == 0 {
		return extract.Page{}, fmt.Errorf("extract %s: the document holds no text", rawURL)
	}
	if title == "" {
		title = text.Clip(paras[0], titleRunes)
	}
	return docPage(rawURL, finalURL, title, paras), nil
}

var (
	mdHeading = regexp.MustCompile(`^#{1,6}\s+`)
	mdLink    = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	mdEmph    = regexp.MustCompile(`(\*\*|__|\x60)`)
	mdFence   = regexp.MustCompile("^\\s*(```|~~~)")
)

// markdownText returns a Markdown document's first heading and its text
// with the markup that is not words removed (links keep their text, code
// blocks lose their fences, headings their hashes).
func markdownText(s string) (title, plain string) {
	var b strings.Builder
	lines := strings.Split(s, "\n")
	// A front-matter block is metadata, not text.
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for i := 1; i < len(lines) && i < 200; i++ {
			if strings.TrimSpace(lines[i]) == "---" {
				lines = lines[i+1:]
				break
			}
		}
	}
	for _, line := range lines {
		if mdFence.MatchString(line) {
			// A code block is a paragraph of its own; the fences go.
			b.WriteString("\n\n")
			continue
		}
		if mdHeading.MatchString(line) {
			h := strings.TrimSpace(mdHeading.ReplaceAllString(line, ""))
			if title == "" {
				title = h
			}
			// A heading is a paragraph of its own.
			b.WriteString("\n" + h + "\n\n")
			continue
		}
		line = mdLink.ReplaceAllString(line, "$1")
		line = mdEmph.ReplaceAllString(line, "")
		b.WriteString(line + "\n")
	}
	return text.Clip(title, titleRunes), b.String()
}

var listItem = regexp.MustCompile(`^\s*([-*+•]|\d+[.)])\s+`)

// paragraphs splits text at blank lines and joins the lines of each
// paragraph, keeping list items and hyphenated line breaks apart.
func paragraphs(s string, markdown bool) []string {
	var out []string
	for _, block := range strings.Split(s, "\n\n") {
		var b strings.Builder
		for _, line := range strings.Split(block, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if b.Len() > 0 && listItem.MatchString(line) {
				out = appendPara(out, b.String())
				b.Reset()
			}
			if markdown {
				line = listItem.ReplaceAllString(line, "")
			}
			cur := b.String()
			switch {
			case cur == "":
				b.WriteString(line)
			case strings.HasSuffix(cur, "-") && len(cur) > 1 && unicode.IsLetter(lastRuneBefore(cur)):
				// "exam-\nple" was one word broken at the line end.
				b.Reset()
				b.WriteString(cur[:len(cur)-1] + line)
			default:
				b.WriteString(" " + line)
			}
		}
		out = appendPara(out, b.String())
	}
	total := 0
	for i, p := range out {
		total += len(p) + 2
		if total > maxDocText {
			return out[:i]
		}
	}
	return out
}

func lastRuneBefore(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s[:len(s)-1])
	return r
}

func appendPara(out []string, p string) []string {
	p = strings.Join(strings.Fields(p), " ")
	if p == "" {
		return out
	}
	return append(out, p)
}

func docPage(rawURL, finalURL, title string, paras []string) extract.Page {
	body := strings.Join(paras, "\n\n")
	page := extract.Page{
		URL:          rawURL,
		FinalURL:     finalURL,
		CanonicalURL: extract.CanonicalURL(finalURL),
		Title:        strings.TrimSpace(title),
		Text:         body,
		Findings:     extract.KeyFindings(body, maxFindings),
	}
	if u, err := url.Parse(finalURL); err == nil {
		page.Host = strings.ToLower(u.Hostname())
	}
	return page
}

// ErrNoPDFTool is returned for a PDF when pdftotext is not installed.
var ErrNoPDFTool = extract.ErrNoPDFTool

// pdfPage extracts the text of a PDF with extract.PDFText (pdftotext with a
// time and address-space limit) as one page of evidence.
func pdfPage(ctx context.Context, lim pdfLimits, rawURL, finalURL string, pdf []byte) (extract.Page, error) {
	doc, err := extract.PDFText(ctx, extract.PDFLimits{Bin: lim.bin, Timeout: lim.timeout, MemBytes: lim.memBytes}, pdf)
	if err != nil {
		return extract.Page{}, fmt.Errorf("extract %s: %w", rawURL, err)
	}
	paras := paragraphs(strings.Join(doc.Pages, "\n\n"), false)
	if len(paras) == 0 {
		return extract.Page{}, fmt.Errorf("extract %s: the PDF holds no text (a scan without a text layer?)", rawURL)
	}
	title := doc.Title
	if !extract.UsefulPDFTitle(title) {
		title = text.Clip(paras[0], titleRunes)
	}
	page := docPage(rawURL, finalURL, title, paras)
	page.Byline = doc.Author
	page.Published = doc.Published
	return page, nil
}

// Paragraphs splits plain text (a PDF page, a text file) into paragraphs
// as the fetcher does for text documents: lines joined, list items apart,
// words broken at a line end rejoined.
func Paragraphs(s string) []string { return paragraphs(s, false) }

// MarkdownParagraphs is the text of a Markdown document in paragraphs,
// its markup removed as the fetcher removes it.
func MarkdownParagraphs(s string) []string {
	_, plain := markdownText(strings.ReplaceAll(s, "\r\n", "\n"))
	return paragraphs(plain, true)
}
