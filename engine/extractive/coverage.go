package extractive

import (
	"sort"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// Coverage limits: the key sentences kept per criterion, and how much of
// each is quoted.
const (
	maxKeySentences = 3
	maxKeyChars     = 240
)

// Coverage is the one rule of what a run's sources cover, for every
// engine: a criterion is covered when a fetched sentence is evidence for
// it — the test synthesis uses to pick its quotes. For each criterion of
// spec it lists the sources holding such a sentence, best first, and the
// best sentence of each of the first few.
func Coverage(spec research.TaskSpec, sources []research.Source) []research.CriterionCoverage {
	crits := spec.Criteria
	if len(crits) == 0 {
		crits = []string{spec.Goal}
	}
	goal := text.Tokens(spec.Goal)
	p := newPool(sources, nil, nil)
	gq := text.Query{}
	gq.Add(goal, 1)
	p.setRelevance(gq)
	p.context = contextWords(spec.Goal)
	out := make([]research.CriterionCoverage, 0, len(crits))
	for _, c := range crits {
		out = append(out, p.coverageOf(newCriterion(c, heading(c), goal, nil)))
	}
	return out
}

// coverageOf lists the evidence for c: its sources ranked by their best
// sentence's score, and those sentences.
func (p *pool) coverageOf(c criterion) research.CriterionCoverage {
	cov := research.CriterionCoverage{Criterion: c.text}
	var hits []int
	for i := range p.sents {
		if p.isEvidence(c, i) {
			hits = append(hits, i)
		}
	}
	if len(hits) == 0 {
		return cov
	}
	scores := p.scores(c.query)
	sort.SliceStable(hits, func(a, b int) bool { return scores[hits[a]] > scores[hits[b]] })
	seen := map[string]bool{}
	for _, i := range hits {
		id := p.docs[p.sents[i].src].id
		if seen[id] {
			continue
		}
		seen[id] = true
		cov.Sources = append(cov.Sources, id)
		if len(cov.Key) < maxKeySentences {
			cov.Key = append(cov.Key, "["+id+"] "+text.Clip(p.sents[i].text, maxKeyChars))
		}
	}
	return cov
}
