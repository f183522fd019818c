package extractive

import (
	"math"
	"sort"

	"github.com/quarryhq/quarry/text"
)

// Relevance thresholds.
const (
	// coverThreshold is the share of a criterion's core tokens (weighted by
	// rarity) a sentence and its heading must hold to count as evidence.
	coverThreshold = 0.5
	// headCover is the share of a part's head (headOf) a sentence must
	// hold to answer it without the scene's words: more than of all its
	// words, as the head has fewer.
	headCover = 0.6
	// headWeight and titleWeight are how much a word in the section heading
	// above a sentence, or in its page title, counts compared with the same
	// word in the sentence: documentation leans on its headings ("Setting up
	// a follower" → "add this line to ember.conf").
	headWeight  = 0.75
	titleWeight = 0.5
	// ctxBoost scales the (tf-free) score of query words found only in the
	// page title, against the sentence's BM25.
	ctxBoost = 0.4
	// proxWindow, proxWeight and proxCap shape the bonus for query words
	// close together: each extra word within a window of proxWindow tokens
	// adds proxWeight, up to proxCap words.
	proxWindow = 6
	proxWeight = 0.15
	proxCap    = 4
	// neighbourWeight is the share of the best adjacent sentence's score a
	// sentence inherits.
	neighbourWeight = 0.3
	// mmrLambda trades relevance against novelty when picking sentences.
	mmrLambda = 0.75
	// nearDuplicate is the token overlap above which two sentences say the
	// same thing.
	nearDuplicate = 0.8
)

// scores rates every sentence for q: BM25 on the sentence and its heading,
// a share for query words in its page title, times its quality and its
// page's relevance.
func (p *pool) scores(q text.Query) []float64 {
	raw := p.index.Scores(q)
	// A sentence among relevant neighbours is more likely on topic than
	// one whose words match by accident ("test" in a page about CI).
	out := make([]float64, len(raw))
	for i := range raw {
		var near float64
		if i > 0 && p.sents[i-1].src == p.sents[i].src {
			near = raw[i-1]
		}
		if i+1 < len(raw) && p.sents[i+1].src == p.sents[i].src {
			near = max(near, raw[i+1])
		}
		out[i] = raw[i] + neighbourWeight*near
	}
	strong := map[string]bool{}
	for t, w := range q {
		if w >= 1 {
			strong[t] = true
		}
	}
	terms := q.Terms()
	idf := make([]float64, len(terms))
	for j, t := range terms {
		idf[j] = p.index.IDF(t)
	}
	for i := range out {
		s := &p.sents[i]
		ctx := 0.0
		for j, t := range terms {
			if s.title[t] && !s.set[t] && !s.head[t] {
				ctx += titleWeight * q[t] * idf[j]
			}
		}
		if raw[i] == 0 && ctx == 0 {
			out[i] = 0 // relevant only through its neighbours: not an answer
			continue
		}
		prox := 1.0
		if len(strong) >= 2 && raw[i] > 0 {
			// Query words side by side ("default opt-level for the release
			// profile") beat the same words scattered over a long sentence.
			prox += proxWeight * float64(max(0, min(proxCap, proximity(s.toks, strong))-1))
		}
		out[i] = (out[i] + ctxBoost*ctx) * prox * s.quality * (0.5 + 0.5*p.docRel[s.src])
	}
	return out
}

// proximity is the most distinct strong query terms found within any run
// of proxWindow consecutive tokens of toks.
func proximity(toks []string, strong map[string]bool) int {
	best := 0
	for i := range toks {
		if !strong[toks[i]] {
			continue
		}
		seen := map[string]bool{}
		for j := i; j < len(toks) && j < i+proxWindow; j++ {
			if strong[toks[j]] {
				seen[toks[j]] = true
			}
		}
		best = max(best, len(seen))
	}
	return best
}

// coverage is the rarity-weighted share of core found in sentence i (a
// word in its heading or page title counts for less, and so does a word
// of the whole run's topic found elsewhere on its page).
func (p *pool) coverage(core []string, i int) float64 {
	return p.coverageWith(core, i, nil)
}

// coverageWith is coverage with the words of implied counted as found
// under a heading: words the sentence answers without repeating them.
func (p *pool) coverageWith(core []string, i int, implied text.Set) float64 {
	s := &p.sents[i]
	var have, total, mean float64
	// A topic word (on nearly every page) counts as implied when the
	// question names it as its context ("… in PostgreSQL") or the sentence
	// names something else the criterion asks about. Otherwise, when every
	// word asked is on nearly every page ("a heap in Go", searched for
	// by those very words), a sentence must say the subject itself.
	anchored := false
	for _, t := range core {
		mean += p.index.IDF(t) / float64(len(core))
		anchored = anchored || (s.set[t] || s.head[t]) && !p.topical[t]
	}
	for _, t := range core {
		// Rarity within the pool, halfway to the mean: the pages were found
		// by searching the question's words, so its topic words are common
		// here though they are what the question is about.
		w := (p.index.IDF(t) + mean) / 2
		total += w
		switch {
		case s.set[t]:
			have += w
		case s.head[t], implied[t]:
			have += w * headWeight
		case s.title[t], (anchored || p.context[t]) && p.topical[t] && p.docs[s.src].set[t],
			p.context[t] && p.oneSite && !p.docs[s.src].set[t]:
			// "PostgreSQL" asked of a PostgreSQL manual: every page is
			// about it, and a page need not repeat it in every sentence.
			have += w * titleWeight
		}
	}
	if total == 0 {
		return 0
	}
	return have / total
}

// pick selects up to k sentences by maximal marginal relevance: relevant
// ones first, each new one unlike those already chosen or in avoid. It stops
// early when the next best is much weaker than the best.
func (p *pool) pick(scores []float64, k int, accept func(int) bool, avoid []int, minRel float64) []int {
	var cands []int
	for i, s := range scores {
		if s > 0 && (accept == nil || accept(i)) {
			cands = append(cands, i)
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return scores[cands[a]] > scores[cands[b]] })
	if len(cands) > maxCandidates {
		cands = cands[:maxCandidates]
	}
	if len(cands) == 0 || k <= 0 {
		return nil
	}
	top := scores[cands[0]]
	var chosen []int
	taken := make([]bool, len(cands))
	for len(chosen) < k {
		best, bestVal := -1, math.Inf(-1)
		for ci, i := range cands {
			if taken[ci] {
				continue
			}
			rel := scores[i] / top
			if rel < minRel {
				continue
			}
			if p.duplicates(i, avoid) || p.duplicates(i, chosen) {
				taken[ci] = true
				continue
			}
			sim := 0.0
			for _, j := range chosen {
				sim = max(sim, text.Jaccard(p.sents[i].set, p.sents[j].set))
			}
			if v := mmrLambda*rel - (1-mmrLambda)*sim; v > bestVal {
				best, bestVal = ci, v
			}
		}
		if best < 0 {
			break
		}
		taken[best] = true
		chosen = append(chosen, cands[best])
	}
	return chosen
}

// duplicates reports whether sentence i repeats one of others.
// Two sentences that state different figures are never duplicates, however
// many words they share: "… defaults to 60 days" and "… and not
// referenced by any branch; defaults to 14 days" are two facts, and so are a rule and
// the rule with its figure.
func (p *pool) duplicates(i int, others []int) bool {
	for _, j := range others {
		if i == j || p.sents[i].key == p.sents[j].key {
			return true
		}
		if text.Overlap(p.sents[i].set, p.sents[j].set) >= nearDuplicate && !p.differentFigures(i, j) {
			return true
		}
	}
	return false
}

// differentFigures reports whether sentences i and j do not state the same
// figures: one states a figure the other lacks.
func (p *pool) differentFigures(i, j int) bool {
	a, b := &p.sents[i], &p.sents[j]
	if !a.hasNum && !b.hasNum {
		return false
	}
	for _, t := range a.toks {
		if text.IsNumberToken(t) && !b.set[t] {
			return true
		}
	}
	for _, t := range b.toks {
		if text.IsNumberToken(t) && !a.set[t] {
			return true
		}
	}
	return false
}
