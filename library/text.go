package library

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/fetch"
	"github.com/quarryhq/quarry/text"
)

// Section is a stretch of a page's text under one heading.
type Section struct {
	Heading string
	Paras   []string
}

// Page is one page of a document (a PDF page; for formats without pages,
// a section of the document, numbered the same way).
type Page struct {
	Num      int
	Sections []Section
}

// Text is a page's text as the document page shows it.
func (p Page) Text() string {
	var b strings.Builder
	for _, s := range p.Sections {
		if s.Heading != "" {
			b.WriteString(s.Heading + "\n\n")
		}
		for _, para := range s.Paras {
			b.WriteString(para + "\n\n")
		}
	}
	return strings.TrimSpace(b.String())
}

// Extracted is a document's text with its pages and headings.
type Extracted struct {
	Title     string
	Pages     []Page
	Truncated string // why the text was cut short, or ""
}

// Limits bound the reading of one document.
type Limits struct {
	PDF      extract.PDFLimits // pdftotext: time, memory, pages, output
	MaxPages int               // pages (or sections) kept
	MaxText  int               // bytes of text kept
}

// sectionBytes is where a document without pages is cut into the next
// "page" when no heading comes first.
const sectionBytes = 6000

// ErrNoText is returned for a document with no text to index.
var ErrNoText = errors.New("the document holds no text (a scan without a text layer?)")

// Read extracts a document's text by kind.
func Read(ctx context.Context, kind string, content []byte, lim Limits) (Extracted, error) {
	var ex Extracted
	switch kind {
	case KindPDF:
		doc, err := extract.PDFText(ctx, lim.PDF, content)
		if err != nil {
			return ex, err
		}
		if doc.Truncated {
			ex.Truncated = "the PDF's text was cut at the text limit"
		}
		if extract.UsefulPDFTitle(doc.Title) {
			ex.Title = doc.Title
		}
		heading := ""
		for i, raw := range doc.Pages {
			secs := sections(fetch.Paragraphs(raw), heading)
			if len(secs) > 0 {
				heading = secs[len(secs)-1].Heading
			}
			ex.Pages = append(ex.Pages, Page{Num: i + 1, Sections: secs})
		}
	case KindHTML:
		page, err := extract.Extract(content, "library:document")
		if err != nil {
			return ex, err
		}
		ex.Title = page.Title
		ex.Pages = paginate(sections(strings.Split(page.Text, "\n\n"), ""))
	case KindMarkdown:
		ex.Pages = paginate(markdownSections(string(content)))
	case KindText:
		s := strings.ToValidUTF8(strings.ReplaceAll(string(content), "\r\n", "\n"), "\uFFFD")
		var paras []string
		// fetch.Paragraphs keeps a web page's share of text; a file is
		// read in blocks so all of it is kept.
		for len(s) > 0 {
			cut := len(s)
			if cut > 128<<10 {
				if i := strings.LastIndex(s[:128<<10], "\n\n"); i > 0 {
					cut = i
				} else {
					cut = 128 << 10
				}
			}
			paras = append(paras, fetch.Paragraphs(s[:cut])...)
			s = s[cut:]
		}
		ex.Pages = paginate(sections(paras, ""))
	default:
		return ex, fmt.Errorf("unknown document kind %q", kind)
	}
	ex.Pages = capText(ex.Pages, lim, &ex.Truncated)
	if len(ex.Pages) == 0 || allEmpty(ex.Pages) {
		return ex, ErrNoText
	}
	if ex.Title == "" {
		ex.Title = firstHeading(ex.Pages)
	}
	return ex, nil
}

// capText keeps at most lim.MaxPages pages and lim.MaxText bytes of text.
func capText(pages []Page, lim Limits, why *string) []Page {
	if lim.MaxPages > 0 && len(pages) > lim.MaxPages {
		pages = pages[:lim.MaxPages]
		*why = fmt.Sprintf("only the first %d pages were read", lim.MaxPages)
	}
	if lim.MaxText <= 0 {
		return pages
	}
	total := 0
	for i, p := range pages {
		total += len(p.Text())
		if total > lim.MaxText {
			*why = fmt.Sprintf("only the first %d pages were read (text limit %d bytes)", i, lim.MaxText)
			return pages[:i]
		}
	}
	return pages
}

func allEmpty(pages []Page) bool {
	for _, p := range pages {
		if strings.TrimSpace(p.Text()) != "" {
			return false
		}
	}
	return true
}

// firstHeading titles a document without a title of its own: its first
// heading, else its first paragraph; a paragraph that is a Markdown
// heading (in a file read as plain text) is titled without its #.
func firstHeading(pages []Page) string {
	for _, p := range pages {
		for _, s := range p.Sections {
			if s.Heading != "" {
				return text.Clip(s.Heading, 200)
			}
			if len(s.Paras) > 0 {
				first, _, _ := strings.Cut(s.Paras[0], "\n")
				if m := mdHeadingLine.FindStringSubmatch(first); m != nil && m[1] != "" {
					return text.Clip(m[1], 200)
				}
				return text.Clip(s.Paras[0], 120)
			}
		}
	}
	return ""
}

// isHeading is the rule for a paragraph that heads what follows: short,
// a few words, no sentence punctuation at its end, starting with a capital
// letter or a section number.
func isHeading(p string) bool {
	if len(p) == 0 || len(p) > 90 || len(strings.Fields(p)) > 12 {
		return false
	}
	last := []rune(p)[len([]rune(p))-1]
	if strings.ContainsRune(".,;:!?\"”)", last) {
		return false
	}
	first := []rune(p)[0]
	return unicode.IsUpper(first) || unicode.IsDigit(first)
}

// sections groups paragraphs under the headings among them; text before
// the first heading is under inherited (the heading a previous page ended in).
func sections(paras []string, inherited string) []Section {
	var out []Section
	cur := Section{Heading: inherited}
	for i, p := range paras {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		// A heading is followed by text; a short last line is text.
		if isHeading(p) && i+1 < len(paras) {
			if len(cur.Paras) > 0 || (cur.Heading != inherited) {
				out = append(out, cur)
			}
			cur = Section{Heading: p}
			continue
		}
		cur.Paras = append(cur.Paras, p)
	}
	if len(cur.Paras) > 0 || cur.Heading != inherited {
		out = append(out, cur)
	}
	return out
}

var mdHeadingLine = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)

// markdownSections splits a Markdown document at its headings (outside
// code blocks) and reads each section's text as the fetcher reads Markdown.
func markdownSections(doc string) []Section {
	doc = strings.ReplaceAll(doc, "\r\n", "\n")
	var out []Section
	heading, fenced := "", false
	var body strings.Builder
	flush := func() {
		paras := fetch.MarkdownParagraphs(body.String())
		if len(paras) > 0 || heading != "" {
			out = append(out, Section{Heading: heading, Paras: paras})
		}
		body.Reset()
	}
	for _, line := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
		}
		if m := mdHeadingLine.FindStringSubmatch(line); m != nil && !fenced {
			flush()
			heading = text.Clip(m[1], 200)
			continue
		}
		body.WriteString(line + "\n")
	}
	flush()
	return out
}

// paginate numbers a document without pages: a page per top-level stretch
// of about sectionBytes, starting a new one at a heading once the current
// page holds text.
func paginate(secs []Section) []Page {
	var pages []Page
	var cur Page
	size := 0
	for _, s := range secs {
		// A long section is cut into several.
		for k, part := range splitSection(s) {
			n := len(part.Heading)
			for _, p := range part.Paras {
				n += len(p)
			}
			if size > 0 && (size+n > sectionBytes || k == 0 && part.Heading != "" && size > sectionBytes/4) {
				pages = append(pages, cur)
				cur, size = Page{}, 0
			}
			cur.Sections = append(cur.Sections, part)
			size += n
		}
	}
	if len(cur.Sections) > 0 {
		pages = append(pages, cur)
	}
	for i := range pages {
		pages[i].Num = i + 1
	}
	return pages
}

func splitSection(s Section) []Section {
	var out []Section
	cur := Section{Heading: s.Heading}
	size := len(s.Heading)
	for _, p := range s.Paras {
		if size+len(p) > sectionBytes && len(cur.Paras) > 0 {
			out = append(out, cur)
			cur, size = Section{Heading: s.Heading}, len(s.Heading)
		}
		cur.Paras = append(cur.Paras, p)
		size += len(p)
	}
	return append(out, cur)
}
