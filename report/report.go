package report

import (
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	gtext "github.com/yuin/goldmark/text"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// Format is the version of the stored shape of a Report (reports.citations).
// Reports published before it hold a bare list of sentence checks there.
const Format = 2

// Report is a report as data: its Markdown parsed once, its sections and
// sentences, the verifier's verdict on each sentence and on each of its
// citations, and the citation links of the rendered body with the
// sentence each belongs to. The exported fields are what is stored (as
// JSON) with the published version; the parsed Markdown is kept only
// while the value is built and rendered.
type Report struct {
	Format int `json:"format"`
	// Title is the report's own leading "# " heading ("" when it has none);
	// the rendered body leaves it out.
	Title    string    `json:"title,omitempty"`
	Sections []Section `json:"sections"`
	// Sentences are the report's sentences in order; after Verify they
	// carry the verifier's verdicts.
	Sentences []SentenceCheck `json:"sentences"`
	// Verified says Sentences carry verdicts.
	Verified bool `json:"verified"`
	// Citations are the citation links of the rendered body, in order, one
	// per cited id that names a known source (Render fills them).
	Citations []Citation `json:"citations"`
	// Prior are the earlier report's sections this one cites as [P#].
	Prior []Prior `json:"prior,omitempty"`
	// Criteria are the success criteria, each answered (with its
	// citations), undetermined or missing; Verify fills them.
	Criteria []CriterionResult `json:"criteria,omitempty"`

	source  []byte
	root    ast.Node
	markers []*citationNode  // every citation marker group outside code, in order
	split   []ReportSentence // the sentences as the splitter read them
}

// Section is a heading of the report.
type Section struct {
	Heading string `json:"heading"`
	Level   int    `json:"level"`
}

// Citation is one citation link of the rendered body: the link is
// "cite-N" and opens the evidence entry "ev-N".
type Citation struct {
	ID       string `json:"id"`       // ev-N
	Cite     string `json:"cite"`     // S1 or P1
	Sentence int    `json:"sentence"` // index in Sentences; -1 when the marker belongs to no sentence
	Start    int    `json:"start"`    // byte offsets of its marker group in the Markdown
	End      int    `json:"end"`
}

// Link is the id of the citation link itself (cite-N for ev-N).
func (c Citation) Link() string { return "cite-" + strings.TrimPrefix(c.ID, "ev-") }

// Prior is a section of the earlier report a follow-up cites.
type Prior struct {
	ID      string `json:"id"` // P1
	Heading string `json:"heading"`
}

// Parse reads report Markdown once: the goldmark tree (citation markers
// outside code become nodes of their own), the title, the sections and
// the sentences, each marker assigned to the sentence it closes.
func Parse(markdown string) *Report {
	src := []byte(markdown)
	root := md.Parser().Parse(gtext.NewReader(src))
	r := &Report{Format: Format, source: src, root: root, Sections: []Section{}, Citations: []Citation{}}
	if h, ok := root.FirstChild().(*ast.Heading); ok && h.Level == 1 {
		r.Title = plainText(h, src)
		root.RemoveChild(root, h)
	}
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			// A heading is a name, not a claim: a marker in it is text
			// (a page's or a plan's "[S2]" never becomes a citation).
			r.Sections = append(r.Sections, Section{Heading: plainText(n, src), Level: n.Level})
			return ast.WalkSkipChildren, nil
		case *ast.Link, *ast.AutoLink, *ast.Image:
			return ast.WalkSkipChildren, nil // a marker there is text, not a citation
		case *citationNode:
			r.markers = append(r.markers, n)
		}
		return ast.WalkContinue, nil
	})
	for _, m := range r.markers {
		m.splitClosing(src)
	}
	var spans []blockSpan
	r.split, spans = splitSentences(clipReport(markdown))
	r.Sentences = make([]SentenceCheck, len(r.split))
	for i, s := range r.split {
		r.Sentences[i] = SentenceCheck{Index: i, Section: s.Section, Text: s.Plain, Citations: research.Citations(s.Raw)}
	}
	r.assign(spans)
	return r
}

// markerSlot is one citation group as the sentence splitter saw it, with
// its offset in the Markdown when known (else -1).
type markerSlot struct {
	sentence int
	span     blockSpan
	ids      []string
	at       int
	used     bool
}

// assign gives each marker node its sentence. The splitter keeps every
// group of a block as written (code spans lose only their backticks), so
// when a block holds as many groups in its Markdown as in its sentences,
// the k-th of each is the same group and the marker takes the slot at its
// own offset. Otherwise (an escape or an HTML tag changed the count) the
// marker takes the next free slot of its block naming the same ids.
func (r *Report) assign(spans []blockSpan) {
	var slots []markerSlot
	for i, s := range r.split {
		for _, loc := range research.CitationPattern.FindAllStringIndex(s.Raw, -1) {
			if loc[0] > 0 && s.Raw[loc[0]-1] == '\\' {
				continue
			}
			slots = append(slots, markerSlot{sentence: i, span: spans[i], ids: research.Citations(s.Raw[loc[0]:loc[1]]), at: -1})
		}
	}
	exact := map[int]int{} // Markdown offset → slot
	for i := 0; i < len(slots); {
		j := i
		for j < len(slots) && slots[j].span == slots[i].span {
			j++
		}
		sp := slots[i].span
		if sp.end <= len(r.source) {
			groups := research.CitationPattern.FindAllIndex(r.source[sp.start:sp.end], -1)
			if len(groups) == j-i {
				for k, g := range groups {
					slots[i+k].at = sp.start + g[0]
					exact[sp.start+g[0]] = i + k
				}
			}
		}
		i = j
	}
	for _, m := range r.markers {
		m.sentence = -1
		if j, ok := exact[m.start]; ok && slices.Equal(slots[j].ids, m.ids) {
			m.sentence, slots[j].used = slots[j].sentence, true
			continue
		}
		for j := range slots {
			sl := &slots[j]
			if sl.span.start > m.start {
				break
			}
			if !sl.used && sl.at < 0 && m.start <= sl.span.end && slices.Equal(sl.ids, m.ids) {
				m.sentence, sl.used = sl.sentence, true
				break
			}
		}
	}
}

// Cited lists the ids the report's citation markers name, in order of
// first appearance.
func (r *Report) Cited() []string {
	var out []string
	for _, m := range r.markers {
		for _, id := range m.ids {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// Evidence returns the sentence a citation link belongs to and the
// verifier's verdict for its source, either nil when there is none.
func (r *Report) Evidence(c Citation) (*SentenceCheck, *Evidence) {
	if c.Sentence < 0 || c.Sentence >= len(r.Sentences) {
		return nil, nil
	}
	s := &r.Sentences[c.Sentence]
	for i := range s.Evidence {
		if s.Evidence[i].Cite == c.Cite {
			return s, &s.Evidence[i]
		}
	}
	return s, nil
}

// unverified is why a sentence is flagged to the reader, or "": a cited
// sentence verification could not support, as publishing always flagged.
func (r *Report) unverified(i int) string {
	if !r.Verified || i < 0 || i >= len(r.Sentences) {
		return ""
	}
	s := r.Sentences[i]
	if len(s.Citations) == 0 || (s.Supported && s.Valid) || s.Text == "" {
		return ""
	}
	if !s.Valid {
		return "cites a source that does not exist"
	}
	return "not supported by the cited source"
}

// lastMarkers maps each sentence to its last marker node.
func (r *Report) lastMarkers() map[int]*citationNode {
	last := map[int]*citationNode{}
	for _, m := range r.markers {
		if m.sentence >= 0 {
			last[m.sentence] = m
		}
	}
	return last
}

// plainText is the text of an inline container (a heading, an image's
// alt text), without Markdown.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *citationNode:
			b.WriteString(c.group)
		case *closingNode:
			b.Write(c.text)
		}
		return ast.WalkContinue, nil
	})
	return text.OneLine(b.String())
}

// evidenceID numbers evidence entries.
func evidenceID(n int) string { return "ev-" + strconv.Itoa(n) }
