package extractive

import (
	"sort"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// disagreements are the "Sources disagree: [S2] gives X; [S5] gives Y."
// sentences of a section: its quotes and, for a criterion asking for a
// value, the best evidence of each other source, compared pairwise
// across sources by text.Disagree (the rule verification uses to find
// contradictions in a report).
func (p *pool) disagreements(sec section, chosen []int) []string {
	cands := append([]int(nil), chosen...)
	in, quoted := map[int]bool{}, map[int]bool{}
	for _, i := range chosen {
		in[i], quoted[i] = true, true
	}
	for _, c := range sec.criteria {
		if c.style != styleValue && !c.needsNum {
			continue
		}
		for _, i := range p.bestPerSource(c) {
			if !in[i] {
				in[i] = true
				cands = append(cands, i)
			}
		}
	}
	sts := make([]text.Statement, len(cands))
	for k, i := range cands {
		sts[k] = text.ReadStatement(p.sents[i].text)
	}
	var out []string
	said := map[string]bool{}
	for x := range cands {
		for y := x + 1; y < len(cands); y++ {
			a, b := p.sents[cands[x]], p.sents[cands[y]]
			if a.src == b.src || !quoted[cands[x]] && !quoted[cands[y]] {
				continue
			}
			va, vb, ok := text.Disagree(sts[x], sts[y])
			if !ok {
				continue
			}
			s := research.DisagreeSentence(research.Claim{Source: p.docs[a.src].id, Value: va}, research.Claim{Source: p.docs[b.src].id, Value: vb})
			if !said[s] {
				said[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// bestPerSource is, for criterion c, each source's best-scoring evidence
// sentence.
func (p *pool) bestPerSource(c criterion) []int {
	scores := p.scores(c.query)
	best := map[int]int{}
	for i := range p.sents {
		if scores[i] <= 0 || !p.isEvidence(c, i) {
			continue
		}
		if j, ok := best[p.sents[i].src]; !ok || scores[i] > scores[j] {
			best[p.sents[i].src] = i
		}
	}
	out := make([]int, 0, len(best))
	for _, i := range best {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}
