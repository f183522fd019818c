package pipeline

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/quarryhq/quarry/research"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

var (
	markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))
	// Model and page text is untrusted: only plain formatting survives.
	policy = func() *bluemonday.Policy {
		p := bluemonday.UGCPolicy()
		p.RequireNoFollowOnLinks(true)
		p.AddTargetBlankToFullyQualifiedLinks(true)
		return p
	}()
	citationRe = regexp.MustCompile(`\[([SP]\d{1,4})\]`)
)

// RenderMarkdown turns report Markdown into sanitized HTML in which every
// [S#] / [P#] that names a known source becomes a citation link.
func RenderMarkdown(md string, known map[string]bool) string {
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(md), &buf); err != nil {
		return "<pre>" + html.EscapeString(md) + "</pre>"
	}
	safe := policy.Sanitize(buf.String())
	return citationRe.ReplaceAllStringFunc(safe, func(m string) string {
		id := m[1 : len(m)-1]
		if !known[id] {
			return `<span class="citation-bad" title="no such source">` + m + `</span>`
		}
		return fmt.Sprintf(`<a class="citation" data-testid="citation" data-cite="%s" href="#src-%s">[%s]</a>`, id, id, id)
	})
}

// SourcesMarkdown is the Sources list, written by code from the source
// table (never trusted from the model).
func SourcesMarkdown(sources []research.Source) string {
	var b strings.Builder
	b.WriteString("## Sources\n\n")
	for _, s := range sources {
		title := s.Title
		if title == "" {
			title = s.Host
		}
		title = strings.NewReplacer("[", "(", "]", ")", "\n", " ").Replace(title)
		fmt.Fprintf(&b, "- [%s] [%s](<%s>) — %s\n", s.ID, title, s.URL, s.Host)
	}
	return b.String()
}

// SourcesHTML renders the Sources list with an anchor per source.
func SourcesHTML(sources []research.Source) string {
	var b strings.Builder
	b.WriteString(`<section class="sources" aria-labelledby="sources-h"><h2 id="sources-h">Sources</h2><ol class="source-list">`)
	for _, s := range sources {
		title := s.Title
		if title == "" {
			title = s.Host
		}
		href := s.URL
		if !strings.HasPrefix(href, "http://") && !strings.HasPrefix(href, "https://") {
			href = "#"
		}
		fmt.Fprintf(&b, `<li id="src-%s" data-testid="source" data-source="%s"><span class="sid">[%s]</span> <a href="%s" rel="nofollow noopener" target="_blank">%s</a> <span class="host">%s</span></li>`,
			s.ID, s.ID, s.ID, html.EscapeString(href), html.EscapeString(title), html.EscapeString(s.Host))
	}
	b.WriteString(`</ol></section>`)
	return b.String()
}

// PriorHTML lists the parent report's sections a follow-up used.
func PriorHTML(prior []research.PriorSection, used map[string]bool) string {
	var b strings.Builder
	n := 0
	for _, p := range prior {
		if !used[p.ID] {
			continue
		}
		if n == 0 {
			b.WriteString(`<section class="prior"><h2>Prior research used</h2><ul>`)
		}
		n++
		fmt.Fprintf(&b, `<li id="src-%s" data-testid="prior"><span class="sid">[%s]</span> %s</li>`, p.ID, p.ID, html.EscapeString(p.Heading))
	}
	if n > 0 {
		b.WriteString(`</ul></section>`)
	}
	return b.String()
}
