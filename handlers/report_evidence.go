package handlers

import (
	"strings"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/web"
)

// evidence is what a report page shows behind the citation links of a
// stored report.
type evidence struct {
	list       []web.EvidenceView
	cited      map[string]int    // source id → citation links naming it
	firstEv    map[string]string // source id → its first evidence id
	sentenceEv map[int]string    // sentence index → evidence id of its first link
}

// reportEvidence builds the evidence entry of every citation link of a
// published report from the verdicts stored with it: the cited source,
// and the passage verification matched to the sentence, in its context in
// the fetched text.
func reportEvidence(doc *report.Report, rows []db.Source) evidence {
	ev := evidence{cited: map[string]int{}, firstEv: map[string]string{}, sentenceEv: map[int]string{}}
	sources := map[string]*db.Source{}
	for i := range rows {
		sources[research.SourceID(rows[i].SID)] = &rows[i]
	}
	priors := map[string]string{}
	for _, p := range doc.Prior {
		priors[p.ID] = p.Heading
	}
	for _, c := range doc.Citations {
		e := web.EvidenceView{ID: c.ID, Link: c.Link(), Cite: c.Cite}
		describeSource(&e, sources[c.Cite], priors)
		if s, verdict := doc.Evidence(c); s != nil {
			e.Claim = s.Text
			e.Checked = s.Factual && len(s.Citations) > 0
			if verdict != nil && verdict.Passage != "" {
				e.Before, e.Passage, e.After = verdict.Before, verdict.Passage, verdict.After
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

// describeSource fills the source fields of an evidence entry: a fetched
// page, or a section of the earlier report (priors maps ids to headings).
func describeSource(e *web.EvidenceView, src *db.Source, priors map[string]string) {
	switch {
	case src != nil:
		e.Title, e.URL, e.Host, e.FetchedAt = src.Title, src.URL, src.Host, src.FetchedAt
		if e.Title == "" {
			e.Title = src.Host
		}
	case strings.HasPrefix(e.Cite, "P"):
		e.Prior = true
		e.Title = priors[e.Cite]
		if e.Title == "" {
			e.Title = "A section of the earlier report"
		}
	default:
		e.Title = "Unknown source"
		e.Note = "no fetched page has this number"
	}
}
