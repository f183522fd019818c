package handlers

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
	"github.com/quarryhq/quarry/web"
)

// contextBytes is how much fetched text is shown on each side of a
// supporting passage.
const contextBytes = 280

// extracted is a stored report taken apart for the page.
type extracted struct {
	title      string
	body       string // the body HTML, citations linked to their evidence
	evidence   []web.EvidenceView
	prior      []web.PriorView
	cited      map[string]int    // source id → citation links naming it
	firstEv    map[string]string // source id → its first evidence id
	sentenceEv map[int]string    // sentence index → evidence id of its first link
}

// extractReport takes the stored, sanitized report HTML apart: the title
// (a leading h1), the body without the Sources and prior lists (the page
// renders its own, with fetch times), and for every citation link the
// evidence it opens. Each link is matched to its sentence's verification
// (the checks list sentences in order, each with its citations in order),
// and the link's fragment points at that evidence, so it works without
// JavaScript. Only attributes with values made here are added: the HTML
// stays as sanitized.
func extractReport(body string, checks []pipeline.SentenceCheck, rows []db.Source, prior []research.PriorSection) extracted {
	ex := extracted{cited: map[string]int{}, firstEv: map[string]string{}, sentenceEv: map[int]string{}}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(`<div id="quarry-report-root">` + body + `</div>`))
	if err != nil {
		return extracted{body: body, cited: ex.cited, firstEv: ex.firstEv, sentenceEv: ex.sentenceEv}
	}
	root := doc.Find("#quarry-report-root")
	root.Find("section.sources").Remove()
	root.Find("section.prior li[data-testid=prior]").Each(func(_ int, li *goquery.Selection) {
		id := strings.TrimPrefix(li.AttrOr("id", ""), "src-")
		heading := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(li.Text()), "["+id+"]"))
		ex.prior = append(ex.prior, web.PriorView{ID: id, Heading: heading})
	})
	root.Find("section.prior").Remove()
	if first := root.Children().First(); goquery.NodeName(first) == "h1" {
		ex.title = strings.TrimSpace(first.Text())
		first.Remove()
	}

	sources := map[string]*db.Source{}
	for i := range rows {
		sources["S"+strconv.Itoa(rows[i].SID)] = &rows[i]
	}
	priors := map[string]research.PriorSection{}
	for _, p := range prior {
		priors[p.ID] = p
	}
	m := newCiteMatcher(checks)
	docs := map[string]*text.Document{}
	root.Find("a.citation").Each(func(_ int, a *goquery.Selection) {
		cite := a.AttrOr("data-cite", "")
		n := len(ex.evidence) + 1
		evID, linkID := "ev-"+strconv.Itoa(n), "cite-"+strconv.Itoa(n)
		si := m.match(cite, blockText(a))
		ev := web.EvidenceView{ID: evID, Link: linkID, Cite: cite}
		var check *pipeline.SentenceCheck
		if si >= 0 {
			check = &checks[si]
			if _, ok := ex.sentenceEv[si]; !ok {
				ex.sentenceEv[si] = evID
			}
		}
		fillEvidence(&ev, check, sources[cite], priors, docs)
		ex.evidence = append(ex.evidence, ev)
		ex.cited[cite]++
		if ex.firstEv[cite] == "" {
			ex.firstEv[cite] = evID
		}
		a.SetAttr("href", "#"+evID)
		a.SetAttr("id", linkID)
		a.SetAttr("data-ev", evID)
		if ev.Checked && !ev.Supported {
			a.AddClass("citation-unsupported")
		}
	})
	// Images in a report would load whatever a model or a page named; the
	// alt text stands in for them.
	root.Find("img").Each(func(_ int, img *goquery.Selection) {
		alt := strings.TrimSpace(img.AttrOr("alt", ""))
		if alt == "" {
			img.Remove()
			return
		}
		img.ReplaceWithHtml(`<span class="img-alt">[image: ` + html.EscapeString(alt) + `]</span>`)
	})
	root.Find("em").Each(func(_ int, em *goquery.Selection) {
		if strings.HasPrefix(strings.TrimSpace(em.Text()), "(unverified:") {
			em.AddClass("unverified")
		}
	})
	ex.body, _ = root.Html()
	return ex
}

// fillEvidence completes the evidence of one citation of cite in the
// sentence check (nil when the link matched no sentence).
func fillEvidence(ev *web.EvidenceView, check *pipeline.SentenceCheck, src *db.Source, priors map[string]research.PriorSection, docs map[string]*text.Document) {
	var body string
	switch {
	case src != nil:
		ev.Title, ev.URL, ev.Host, ev.FetchedAt = src.Title, src.URL, src.Host, src.FetchedAt
		if ev.Title == "" {
			ev.Title = src.Host
		}
		body = src.Text
	case strings.HasPrefix(ev.Cite, "P"):
		p, ok := priors[ev.Cite]
		if !ok {
			ev.Title, ev.Prior = "A section of the earlier report", true
			break
		}
		ev.Title, ev.Prior, body = p.Heading, true, p.Text
	default:
		ev.Title = "Unknown source"
		ev.Note = "no fetched page has this number"
	}
	if check == nil {
		return
	}
	ev.Claim = check.Text
	ev.Checked = check.Factual && len(check.Citations) > 0
	if check.SourceID == ev.Cite && check.Passage != "" {
		ev.Before, ev.Passage, ev.After = passageWindow(body, check.PassageStart, check.PassageEnd, check.Passage)
		ev.Score, ev.HasScore = check.Score, true
		ev.Supported = check.Supported && check.Valid
		return
	}
	// The verification's best passage came from another cited source (or
	// none): find this source's own best passage for the sentence.
	if body != "" {
		d := docs[ev.Cite]
		if d == nil {
			d = text.NewDocument(ev.Cite, body)
			docs[ev.Cite] = d
		}
		if p := d.BestPassage(text.Tokens(check.Text)); p.End > p.Start {
			ev.Before, ev.Passage, ev.After = passageWindow(body, p.Start, p.End, body[p.Start:p.End])
			ev.Score, ev.HasScore = p.Score, true
		}
	}
	ev.Supported = check.Valid && ev.HasScore && ev.Score >= pipeline.DefaultVerifyOptions().SupportThreshold
	if check.SourceID != "" && check.SourceID != ev.Cite {
		ev.Note = "the sentence's best support is in [" + check.SourceID + "]"
	}
}

// passageWindow locates passage in body (at the given byte offsets, else
// by search) and returns it with up to contextBytes of text on each side,
// cut at word boundaries and marked with an ellipsis where cut. A passage
// not found in body is returned alone.
func passageWindow(body string, start, end int, passage string) (before, mid, after string) {
	if start < 0 || end > len(body) || start >= end || body[start:end] != passage {
		i := strings.Index(body, passage)
		if passage == "" || i < 0 {
			return "", passage, ""
		}
		start, end = i, i+len(passage)
	}
	b := max(0, start-contextBytes)
	for b > 0 && b < start && !utf8.RuneStart(body[b]) {
		b++
	}
	if b > 0 {
		if j := strings.IndexAny(body[b:start], " \n\t"); j >= 0 {
			b += j + 1
		}
	}
	a := min(len(body), end+contextBytes)
	for a < len(body) && a > end && !utf8.RuneStart(body[a]) {
		a--
	}
	if a < len(body) {
		if j := strings.LastIndexAny(body[end:a], " \n\t"); j >= 0 {
			a = end + j
		}
	}
	before, after = body[b:start], body[end:a]
	if b > 0 {
		before = "…" + strings.TrimLeft(before, " \n\t")
	}
	if a < len(body) {
		after = strings.TrimRight(after, " \n\t") + "…"
	}
	return before, passage, after
}

// citeMatcher pairs citation links, in document order, with the sentence
// checks' citations, in the same order.
type citeMatcher struct {
	checks []pipeline.SentenceCheck
	slots  []citeSlot
	next   int
}

type citeSlot struct {
	sentence int
	id       string
	used     bool
}

// matchLookahead is how many candidate slots a link may skip to find the
// one whose sentence its paragraph contains.
const matchLookahead = 8

func newCiteMatcher(checks []pipeline.SentenceCheck) *citeMatcher {
	m := &citeMatcher{checks: checks}
	for i, c := range checks {
		for _, id := range c.Citations {
			m.slots = append(m.slots, citeSlot{sentence: i, id: id})
		}
	}
	return m
}

// match returns the index of the sentence a link citing id belongs to,
// or -1. block is the text of the link's paragraph or list item.
func (m *citeMatcher) match(id, block string) int {
	norm := normalizeText(citeMarkRe.ReplaceAllString(block, " "))
	first, seen := -1, 0
	for j := m.next; j < len(m.slots) && seen < matchLookahead; j++ {
		sl := m.slots[j]
		if sl.used || sl.id != id {
			continue
		}
		seen++
		if first < 0 {
			first = j
		}
		if sentenceIn(m.checks[sl.sentence].Text, norm) {
			first = j
			break
		}
	}
	if first < 0 {
		return -1
	}
	m.slots[first].used = true
	m.next = first + 1
	return m.slots[first].sentence
}

var citeMarkRe = regexp.MustCompile(`\[[SP]\d{1,4}\]`)

// sentenceIn reports whether the start of a sentence occurs in a
// normalized block of text.
func sentenceIn(sentence, block string) bool {
	s := normalizeText(sentence)
	if len(s) > 48 {
		s = s[:48]
		if i := strings.LastIndexByte(s, ' '); i > 16 {
			s = s[:i]
		}
	}
	return s != "" && strings.Contains(block, s)
}

// normalizeText lower-cases s and keeps letters and digits, one space
// between words.
func normalizeText(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		space = true
	}
	return b.String()
}

// blockText is the text of the block a link sits in.
func blockText(a *goquery.Selection) string {
	b := a.Closest("p, li, td, th, dd, dt, blockquote, h1, h2, h3, h4, h5, h6")
	if b.Length() == 0 {
		return a.Parent().Text()
	}
	return b.Text()
}
