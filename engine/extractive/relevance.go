package extractive

import (
	"regexp"
	"slices"

	"github.com/quarryhq/quarry/text"
)

// Stage 2 of synthesis: score relevance. Every sentence of the pool gets,
// for each section, a score from the question's own terms (BM25 against
// the section's criteria, pool.scores), raised for the form of answer the
// criteria ask for (a figure, a definition, a command, a reason), for the
// asked identifier written out and for the asked entry's own sentences,
// and lowered for a pointer elsewhere and for what another part of the
// question asks. A sentence is relevant to a section only when it is
// evidence for one of its criteria (pool.isEvidence): it names the thing
// asked about and holds the answer type.

// ranking is a section's scores over the pool and its evidence test.
type ranking struct {
	scores []float64
	top    float64 // the best score of a relevant sentence
	accept func(int) bool
	// strictTop is the best score of a sentence that holds enough of the
	// criterion's words; a sentence above it needs fewer (nearCover).
	strictTop float64
}

// evidenceFor reports whether sentence i is evidence for criterion c of
// the section r ranks: it holds enough of c's words, or nearly enough
// while outscoring all that do.
func (r ranking) evidenceFor(p *pool, c criterion, i int) bool {
	return p.isEvidence(c, i) || r.strictTop > 0 && r.scores[i] >= r.strictTop && p.isEvidenceAt(c, i, nearCover)
}

// relevant reports whether sentence i is relevant to the section: evidence
// scoring at least share of its best.
func (r ranking) relevant(i int, share float64) bool {
	return r.top > 0 && r.scores[i] >= share*r.top && r.accept(i)
}

// scorer holds the rules of stage 2; it reads the pool.
type scorer struct{ *pool }

// scoreRelevance ranks the pool for every section but the summary.
func scoreRelevance(pl *pool, secs []section, found [][]entry, question string) []ranking {
	p := scorer{pl}
	exact := exactTerms(question)
	out := make([]ranking, len(secs))
	for si, sec := range secs {
		if sec.summary {
			continue
		}
		out[si] = p.rankSection(sec, exact, p.siblingWords(secs, si))
		for _, e := range found[si] {
			for _, i := range e.sents {
				// The asked entry's own sentences come first: it is the
				// page's statement about the thing asked.
				out[si].scores[i] *= entryBoost
				if out[si].scores[i] > out[si].top && out[si].accept(i) {
					out[si].top = out[si].scores[i]
				}
			}
		}
	}
	return out
}

// entryBoost multiplies the score of a sentence of the asked entry.
const entryBoost = 1.5

// pointerRe matches a sentence that sends the reader elsewhere for what
// it names ("Section 2 describes the steps …", "See the --depth option
// for details", "… as described in chapter 4"): it names the asked words
// without giving the answer.
// An index's row ("| ZDOTDIR: | 15.6 Parameters Used By The Shell.")
// names the section that tells, not what it tells.
var pointerRe = regexp.MustCompile(`(?i)^(?:(?:section|chapter|appendix)\s+[\d.]+\s+(?:describes|explains|covers|shows|lists)|see\s)|\b(?:is|are)\s+(?:described|explained|covered|documented)\s+(?:in|below|above|later)\b|\|\s*\d+(?:\.\d+)+\.?\s+[^|]*$`)

// pointerWeight scales the score of a pointer sentence: below any sentence
// that answers in its own words.
const pointerWeight = 0.6

// rankSection scores every sentence for a section: against its heading,
// criteria and the question, sentences of the form its criteria ask for
// ranking higher; evidence is a sentence that answers one of its criteria.
func (p scorer) rankSection(sec section, exact []string, siblings [][]string) ranking {
	q := text.Query{}
	for _, c := range sec.criteria {
		for t, w := range c.query {
			if q[t] < w {
				q[t] = w
			}
		}
	}
	r := ranking{scores: p.scores(q)}
	r.accept = func(i int) bool {
		for _, c := range sec.criteria {
			if p.isEvidence(c, i) {
				return true
			}
		}
		return false
	}
	for i := range r.scores {
		boost := 1.0
		for _, c := range sec.criteria {
			boost = max(boost, p.styled(c, i))
			if p.namesFlag(c, i) {
				boost = max(boost, directBoost)
			}
		}
		if r.scores[i] > 0 && p.mentionsExactly(i, exact) {
			boost *= exactBoost
		}
		if r.scores[i] > 0 {
			boost *= phraseBoost(sec.criteria, p.sents[i].text)
		}
		if pointerRe.MatchString(p.sents[i].text) {
			boost *= pointerWeight
		}
		if p.answersSibling(i, siblings) {
			boost *= siblingPenalty
		}
		r.scores[i] *= boost
		if r.scores[i] > r.top && r.accept(i) {
			r.top = r.scores[i]
		}
	}
	// A sentence that outscores every piece of evidence and holds nearly
	// enough of the criterion's words says it in words of its own ("Remove
	// command lines … when the first character is a space" for "stop
	// saving lines that begin with a space"): it is evidence too.
	strict, top := r.accept, r.top
	r.strictTop = top
	if top == 0 {
		// No sentence holds enough: the best scored one alone may say
		// it in words of its own, as above.
		for i := range r.scores {
			top = max(top, r.scores[i])
		}
		if t := p.bestReason(sec, r.scores); t > 0 {
			// A part that asks why: the best sentence that gives a
			// reason, not the best of any form ("When a render fails,
			// the temporary files stay … since they show what went
			// wrong." below "A render of chart.aux fails because …").
			top = t
		}
		r.strictTop = top
	}
	r.accept = func(i int) bool {
		if strict(i) {
			return true
		}
		if top == 0 || r.scores[i] < top {
			return false
		}
		for _, c := range sec.criteria {
			if p.isEvidenceAt(c, i, nearCover) {
				return true
			}
		}
		return false
	}
	for i := range r.scores {
		if r.scores[i] > r.top && r.accept(i) {
			r.top = r.scores[i]
		}
	}
	return r
}

// bestReason returns the best score of a sentence that gives a reason
// and holds nearCover of the words of a criterion of sec that asks why;
// 0 when none does. A bare "Why?" after a statement takes the
// statement's words, and the page's reason says few of them.
func (p scorer) bestReason(sec section, scores []float64) float64 {
	best := 0.0
	for _, c := range sec.criteria {
		if c.style != styleReason {
			continue
		}
		for i, sc := range scores {
			if sc > best && p.givesReason(c, i) && p.isEvidenceAt(c, i, nearCover) {
				best = sc
			}
		}
	}
	return best
}

// nearCover is the share of a criterion's words a sentence scoring above
// all evidence must hold to be evidence itself.
const nearCover = 0.4

// siblingPenalty scales the score, in a section answering one part of a
// question, of a sentence that holds what another part asks and this one
// does not: "snapshots not referenced by any branch … 14 days" answers
// the part about unreferenced snapshots, not "how long are snapshots kept".
const siblingPenalty = 0.5

// siblingWords returns, for section si, the words that set apart each other
// part of the question: the core of another section's own criteria that si
// neither asks nor leans on, without value words and the words of every
// page. Generic sections (templates) are no parts.
func (p scorer) siblingWords(secs []section, si int) [][]string {
	if secs[si].summary || allGeneric(secs[si].criteria) {
		return nil
	}
	mine := text.Set{}
	for _, c := range secs[si].criteria {
		for _, t := range slices.Concat(c.core, c.ctx) {
			mine[t] = true
		}
	}
	var out [][]string
	for sj, sec := range secs {
		if sj == si || sec.summary {
			continue
		}
		for _, c := range sec.criteria {
			if c.generic {
				continue
			}
			var own []string
			for _, t := range c.core {
				if !mine[t] && !valueWords[t] {
					own = append(own, t)
				}
			}
			if len(own) > 0 {
				out = append(out, own)
			}
		}
	}
	return out
}

// answersSibling reports whether sentence i holds at least half the words
// that set apart another part of the question.
func (p scorer) answersSibling(i int, siblings [][]string) bool {
	s := &p.sents[i]
	for _, words := range siblings {
		n := 0
		for _, t := range words {
			if s.set[t] {
				n++
			}
		}
		if 2*n >= len(words) && n > 0 {
			return true
		}
	}
	return false
}

// homes assigns each sentence that is evidence somewhere to the section
// where it ranks highest relative to that section's best, so that the
// answer to "how do I change it" lands under that heading rather than under
// the first one that could hold it.
func (p scorer) homes(secs []section, ranked []ranking) []int {
	home := make([]int, len(p.sents))
	for i := range home {
		home[i] = -1
		// Sections that answer the question itself come first; a generic
		// section ("Requirements") only gets what none of them can use.
		for _, generic := range []bool{false, true} {
			best := 0.0
			for si, sec := range secs {
				r := ranked[si]
				if sec.summary || allGeneric(sec.criteria) != generic || r.top == 0 || r.scores[i] == 0 {
					continue
				}
				if rel := r.scores[i] / r.top; rel > best+1e-9 && r.accept(i) {
					best, home[i] = rel, si
				}
			}
			if home[i] >= 0 {
				break
			}
		}
	}
	return home
}

func allGeneric(cs []criterion) bool {
	for _, c := range cs {
		if !c.generic {
			return false
		}
	}
	return true
}

// phraseBoost raises a sentence that repeats a run of at least
// minPhraseWords words of a criterion as written, small words included:
// "merging more than one branch" tells the asked case from "merging one
// branch", which the word scores cannot, "more", "than" and "one" being
// no words of their own there.
func phraseBoost(cs []criterion, sentence string) float64 {
	sw := phraseWords(sentence)
	best := 0
	for _, c := range cs {
		if n := longestRun(c.words, sw); n > best {
			best = n
		}
	}
	if best < minPhraseWords {
		return 1
	}
	return min(1+phraseStep*float64(best-minPhraseWords+1), maxPhraseBoost)
}

const (
	minPhraseWords = 4
	phraseStep     = 0.1
	maxPhraseBoost = 1.4
)

// longestRun is the length of the longest run of words a and b share,
// both as phraseWords gives them.
func longestRun(a, b []string) int {
	best := 0
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			cur[j+1] = 0
			if a[i] != "" && a[i] == b[j] {
				cur[j+1] = prev[j] + 1
				best = max(best, cur[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return best
}
