package handlers

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/web"
)

// contextBytes is how much fetched text is shown on each side of a
// supporting passage.
const contextBytes = 280

// evidence is what a report page shows behind the citation links of a
// stored report.
type evidence struct {
	list       []web.EvidenceView
	cited      map[string]int    // source id → citation links naming it
	firstEv    map[string]string // source id → its first evidence id
	sentenceEv map[int]string    // sentence index → evidence id of its first link
}

// reportEvidence builds the evidence entry of every citation link of a
// published report, from the verdicts stored with it: the cited source,
// and the passage verification matched to the sentence, in its context in
// the fetched text.
func reportEvidence(doc *report.Report, rows []db.Source, prior []research.PriorSection) evidence {
	ev := evidence{cited: map[string]int{}, firstEv: map[string]string{}, sentenceEv: map[int]string{}}
	sources := map[string]*db.Source{}
	for i := range rows {
		sources["S"+strconv.Itoa(rows[i].SID)] = &rows[i]
	}
	priors := map[string]research.PriorSection{}
	for _, p := range prior {
		priors[p.ID] = p
	}
	for _, c := range doc.Citations {
		e := web.EvidenceView{ID: c.ID, Link: c.Link(), Cite: c.Cite}
		body := describeSource(&e, sources[c.Cite], priors)
		if s, verdict := doc.Evidence(c); s != nil {
			e.Claim = s.Text
			e.Checked = s.Factual && len(s.Citations) > 0
			if verdict != nil && verdict.Passage != "" {
				e.Before, e.Passage, e.After = passageWindow(body, verdict.PassageStart, verdict.PassageEnd, verdict.Passage)
				e.Score, e.HasScore = verdict.Score, true
			}
			e.Supported = verdict != nil && verdict.Supported
			if s.SourceID != "" && s.SourceID != c.Cite {
				e.Note = "the sentence's best support is in [" + s.SourceID + "]"
			}
			if _, ok := ev.sentenceEv[c.Sentence]; !ok {
				ev.sentenceEv[c.Sentence] = c.ID
			}
		}
		ev.list = append(ev.list, e)
		ev.cited[c.Cite]++
		if ev.firstEv[c.Cite] == "" {
			ev.firstEv[c.Cite] = c.ID
		}
	}
	return ev
}

// describeSource fills the source fields of an evidence entry and returns
// the cited text (a fetched page's or a prior section's).
func describeSource(e *web.EvidenceView, src *db.Source, priors map[string]research.PriorSection) string {
	switch {
	case src != nil:
		e.Title, e.URL, e.Host, e.FetchedAt = src.Title, src.URL, src.Host, src.FetchedAt
		if e.Title == "" {
			e.Title = src.Host
		}
		return src.Text
	case strings.HasPrefix(e.Cite, "P"):
		e.Prior = true
		p, ok := priors[e.Cite]
		if !ok {
			e.Title = "A section of the earlier report"
			return ""
		}
		e.Title = p.Heading
		return p.Text
	default:
		e.Title = "Unknown source"
		e.Note = "no fetched page has this number"
		return ""
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
