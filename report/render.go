package report

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"sort"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	gtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/quarryhq/quarry/research"
)

// md is the one Markdown dialect of reports: GFM, with citation markers
// parsed as nodes of their own and rendered as links to their evidence.
var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithInlineParsers(util.Prioritized(citationParser{}, 150))),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(citationRenderer{}, 100))),
)

// policy sanitizes rendered reports: model and page text is untrusted, so
// only plain formatting survives, plus the attributes the citation
// renderer writes, each held to the values it writes.
var policy = func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.RequireNoFollowOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^citation(?: citation-unsupported)?$`)).OnElements("a")
	p.AllowAttrs("data-testid").Matching(regexp.MustCompile(`^citation$`)).OnElements("a")
	p.AllowAttrs("data-cite").Matching(research.LabelPattern).OnElements("a", "span")
	p.AllowAttrs("data-ev").Matching(regexp.MustCompile(`^ev-\d{1,6}$`)).OnElements("a")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^(?:citation-bad|img-alt)$`)).OnElements("span")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^unverified$`)).OnElements("em")
	p.AllowAttrs("data-testid").Matching(regexp.MustCompile(`^unverified$`)).OnElements("em")
	return p
}()

// RenderOptions say how Render links citations.
type RenderOptions struct {
	// Known are the ids that name a source or prior section of the run; a
	// marker naming another is shown as a bad citation, not a link.
	Known map[string]bool
	// Evidence links each citation to its evidence entry (#ev-N) and
	// records the links in Report.Citations; without it a citation links
	// to its source in the Sources list (#src-S1).
	Evidence bool
}

// Render returns the report body as sanitized HTML, without its title:
// citation markers (never those in code) become links, and each cited
// sentence verification could not support is flagged after its last
// citation with the reason. With opt.Evidence it numbers the links and
// records them in r.Citations. Not safe for concurrent use on one Report.
func (r *Report) Render(opt RenderOptions) string {
	r.Citations = []Citation{}
	last := r.lastMarkers()
	for _, m := range r.markers {
		m.links = m.links[:0]
		m.mark = ""
		if last[m.sentence] == m {
			m.mark = r.unverified(m.sentence)
		}
		for _, id := range m.ids {
			l := citeLink{cite: id, known: opt.Known[id]}
			if l.known && opt.Evidence {
				c := Citation{ID: evidenceID(len(r.Citations) + 1), Cite: id, Sentence: m.sentence, Start: m.start, End: m.end}
				r.Citations = append(r.Citations, c)
				l.ev, l.link = c.ID, c.Link()
				if s, e := r.Evidence(c); r.Verified && s != nil && s.Factual && len(s.Citations) > 0 {
					l.unsupported = e == nil || !e.Supported
				}
			}
			m.links = append(m.links, l)
		}
	}
	var buf bytes.Buffer
	if err := md.Renderer().Render(&buf, r.source, r.root); err != nil {
		return "<pre>" + html.EscapeString(string(r.source)) + "</pre>"
	}
	return policy.Sanitize(buf.String())
}

// Markdown returns the report's Markdown with each flagged sentence
// marked in the text, " *(unverified: reason)*" after its last citation
// and the punctuation that closes it, for readers of the Markdown export.
func (r *Report) Markdown() string {
	type insert struct {
		at   int
		text string
	}
	var ins []insert
	for i, m := range r.lastMarkers() {
		why := r.unverified(i)
		if why == "" {
			continue
		}
		at := m.end
		for at < len(r.source) && strings.IndexByte(closingPunct, r.source[at]) >= 0 {
			at++
		}
		ins = append(ins, insert{at, fmt.Sprintf(" *(unverified: %s)*", why)})
	}
	sort.Slice(ins, func(a, b int) bool { return ins[a].at < ins[b].at })
	var b strings.Builder
	prev := 0
	for _, in := range ins {
		b.Write(r.source[prev:in.at])
		b.WriteString(in.text)
		prev = in.at
	}
	b.Write(r.source[prev:])
	return b.String()
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
		fmt.Fprintf(&b, "- [%s] [%s](<%s>) — %s", s.ID, title, s.URL, s.Host)
		if s.Via != "" {
			fmt.Fprintf(&b, " (found via: %s)", strings.NewReplacer("\n", " ", "[", "(", "]", ")").Replace(s.Via))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// SourcesHeading starts the Sources list SourcesMarkdown writes.
const SourcesHeading = "\n\n## Sources\n\n"

// Body is the report Markdown of a published version without the Sources
// list publishing appended to it.
func Body(published string) string {
	if i := strings.LastIndex(published, SourcesHeading); i >= 0 {
		return published[:i]
	}
	return published
}

// KindCitation is the node kind of a citation marker group.
var KindCitation = ast.NewNodeKind("Citation")

// citationNode is one citation marker group ("[S1]", "[S1, S2]") as
// written, with the links Render gives it.
type citationNode struct {
	ast.BaseInline
	group      string
	ids        []string
	start, end int // byte offsets in the Markdown
	sentence   int // index of the sentence it belongs to, or -1
	links      []citeLink
	mark       string // why its sentence is unverified, when it is the sentence's last marker
	closing    *closingNode
}

// citeLink is how one id of a marker group renders.
type citeLink struct {
	cite, ev, link string
	known          bool
	unsupported    bool
}

func (n *citationNode) Kind() ast.NodeKind { return KindCitation }

func (n *citationNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"Group": n.group}, nil)
}

// closingNode is the punctuation right after a citation marker ("." of
// "… [S1]."): a sentence's flag goes after it, where the sentence ends.
type closingNode struct {
	ast.BaseInline
	text  []byte
	owner *citationNode
}

// KindClosing is the node kind of the punctuation closing a cited sentence.
var KindClosing = ast.NewNodeKind("CitationClosing")

func (n *closingNode) Kind() ast.NodeKind { return KindClosing }

func (n *closingNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"Text": string(n.text)}, nil)
}

// splitClosing moves the punctuation that directly follows the marker
// out of the next text node into a closingNode of its own.
func (n *citationNode) splitClosing(src []byte) {
	t, ok := n.NextSibling().(*ast.Text)
	if !ok || t.Segment.Start != n.end {
		return
	}
	v := t.Segment.Value(src)
	k := 0
	for k < len(v) && strings.IndexByte(closingPunct, v[k]) >= 0 {
		k++
	}
	if k == 0 {
		return
	}
	c := &closingNode{text: v[:k], owner: n}
	t.Segment = t.Segment.WithStart(t.Segment.Start + k)
	t.Parent().InsertBefore(t.Parent(), t, c)
	n.closing = c
}

// closingPunct is the punctuation that may close a sentence after its
// citations.
const closingPunct = ".,;:!?"

// leadingCitation is research.CitationPattern anchored at the start.
var leadingCitation = regexp.MustCompile(`^(?:` + research.CitationPattern.String() + `)`)

// citationParser turns a citation marker group into a citationNode. It
// runs after code spans (markers in code stay code) and before links;
// "[S1](url)" is left to be a link.
type citationParser struct{}

func (citationParser) Trigger() []byte { return []byte{'['} }

func (citationParser) Parse(_ ast.Node, block gtext.Reader, _ parser.Context) ast.Node {
	line, seg := block.PeekLine()
	loc := leadingCitation.FindIndex(line)
	if loc == nil || (loc[1] < len(line) && line[loc[1]] == '(') {
		return nil
	}
	group := string(line[:loc[1]])
	n := &citationNode{group: group, ids: research.Citations(group), start: seg.Start, end: seg.Start + loc[1], sentence: -1}
	block.Advance(loc[1])
	return n
}

// citationRenderer writes citation links and images.
type citationRenderer struct{}

func (c citationRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindCitation, c.citation)
	reg.Register(KindClosing, c.closing)
	reg.Register(ast.KindImage, c.image)
}

func (citationRenderer) citation(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*citationNode)
	if insideLink(n) || len(n.links) == 0 {
		w.WriteString(html.EscapeString(n.group))
		return ast.WalkContinue, nil
	}
	for _, l := range n.links {
		switch {
		case !l.known:
			fmt.Fprintf(w, `<span class="citation-bad" title="no such source">[%s]</span>`, l.cite)
		case l.ev == "":
			fmt.Fprintf(w, `<a class="citation" data-testid="citation" data-cite="%s" href="#src-%s">[%s]</a>`, l.cite, l.cite, l.cite)
		default:
			class := "citation"
			if l.unsupported {
				class += " citation-unsupported"
			}
			fmt.Fprintf(w, `<a class="%s" data-testid="citation" data-cite="%s" data-ev="%s" id="%s" href="#%s">[%s]</a>`, class, l.cite, l.ev, l.link, l.ev, l.cite)
		}
	}
	if n.closing == nil {
		writeMark(w, n.mark)
	}
	return ast.WalkContinue, nil
}

func (citationRenderer) closing(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		n := node.(*closingNode)
		w.WriteString(html.EscapeString(string(n.text)))
		writeMark(w, n.owner.mark)
	}
	return ast.WalkContinue, nil
}

// writeMark flags a sentence verification could not support, with why.
func writeMark(w util.BufWriter, why string) {
	if why != "" {
		fmt.Fprintf(w, ` <em class="unverified" data-testid="unverified">(unverified: %s)</em>`, html.EscapeString(why))
	}
}

// image writes an image as its alt text: a picture in a report would load
// whatever a model or a page named.
func (citationRenderer) image(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		if alt := plainText(node, source); alt != "" {
			fmt.Fprintf(w, `<span class="img-alt">[image: %s]</span>`, html.EscapeString(alt))
		}
	}
	return ast.WalkSkipChildren, nil
}

func insideLink(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() == ast.KindLink || p.Kind() == ast.KindAutoLink {
			return true
		}
	}
	return false
}
