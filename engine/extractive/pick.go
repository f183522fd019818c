package extractive

import (
	"context"
	"fmt"
	"slices"
)

// Stage 3 of synthesis: pick per criterion. Each part of the question gets
// its lead — the sentence that states its answer (with the sentence that
// finishes its thought, the other side of a comparison, or the members of
// a list it announces) — which the Summary quotes in the question's order;
// then each section gets the further relevant sentences, none already
// quoted. Length follows the evidence: a sentence is quoted only when it
// is evidence scoring near the section's best, and a section left with
// nothing is dropped.

// picker holds the rules of stage 3; it reads the pool.
type picker struct{ *pool }

// lead is what the Summary says for one criterion.
type lead struct {
	sents  []int // the sentences that state the answer, in the order quoted
	items  []int // the members of the list sents[0] announces
	stated bool  // some source states it (its lead may be an earlier part's)
}

// picks is what the report quotes.
type picks struct {
	leads [][]lead // per section, per criterion; nil for the summary
	rest  [][]int  // per section: what its own heading lists
}

// Relative scores, as shares of a section's best relevant sentence.
const (
	// minRelative drops a candidate below this share of the best.
	minRelative = 0.3
	// restRelative is the share a sentence beyond the lead needs to be
	// quoted at all: a short report rather than padding.
	restRelative = 0.35
)

// maxQuotesPerPart is a ceiling on the sentences a section lists beyond
// its lead, whatever the evidence: a reader wants the answer, not the
// manual. It is never a quota; most sections list fewer.
const maxQuotesPerPart = 4

// pickAnswers chooses, for every part of the question, its lead and the
// further sentences of its section, in three steps: each section's
// candidates (pickSection), each part's lead (leadFor), then what each
// section quotes beyond its leads (restOf). No sentence is quoted twice.
func pickAnswers(ctx context.Context, pl *pool, secs []section, ranked []ranking, found [][]entry, question string) (picks, error) {
	p := picker{pl}
	sides := analyse(question).compare
	home := scorer{pl}.homes(secs, ranked)
	cands := make([][]int, len(secs))
	// absent marks the parts that name something no page read mentions
	// ("publish … into a Confluence space"): what the pages say beside
	// it answers none of them.
	absent := make([][]bool, len(secs))
	for si, sec := range secs {
		absent[si] = make([]bool, len(sec.criteria))
		for ci, c := range sec.criteria {
			absent[si][ci] = p.absentName(c) != ""
		}
	}
	var used []int
	for si, sec := range secs {
		if err := ctx.Err(); err != nil {
			return picks{}, fmt.Errorf("synthesize: %w", err)
		}
		if !sec.summary && !slices.Contains(absent[si], false) {
			continue // every part names what no page read mentions
		}
		if !sec.summary {
			cands[si] = p.pickSection(si, ranked[si], home, len(sec.criteria)+maxQuotesPerPart, used)
			used = append(used, cands[si]...)
		}
	}
	out := picks{leads: make([][]lead, len(secs)), rest: make([][]int, len(secs))}
	// Every part the question asks leads the Summary; a part written only
	// in generic words ("Key facts" of an edited plan) answers in its
	// own section, unless the plan has nothing else.
	ownParts := false
	for _, sec := range secs {
		ownParts = ownParts || !sec.summary && !allGeneric(sec.criteria)
	}
	st := &quoting{quoted: map[int]bool{}}
	scope := make([]leadScope, len(secs))
	for si, sec := range secs {
		if sec.summary {
			continue
		}
		out.leads[si] = make([]lead, len(sec.criteria))
		for ci, c := range sec.criteria {
			if c.generic && ownParts {
				continue
			}
			if absent[si][ci] {
				continue
			}
			out.leads[si][ci] = p.leadFor(c, ranked[si], found[si][ci], cands[si], sides, st, &scope[si])
		}
	}
	for si, sec := range secs {
		if sec.summary {
			continue
		}
		rest := p.restOf(sec, ranked[si], cands[si], out.leads[si], sides, st, scope[si])
		out.rest[si] = rest
		for ci, c := range sec.criteria {
			if c.generic && ownParts {
				out.leads[si][ci].stated = anyEvidence(p.pool, c, rest)
			}
		}
	}
	return out, nil
}

// restOf chooses what section sec quotes beyond its leads: relevant
// candidates of the asked form that add to some part's answer, within the
// scope its leads settled.
func (p picker) restOf(sec section, r ranking, cands []int, leads []lead, sides []string, st *quoting, sc leadScope) []int {
	// What each part's leads state as its answer: they are set
	// before the rest is chosen.
	answers := make([][]int, len(sec.criteria))
	for ci, c := range sec.criteria {
		answers[ci] = p.answersOf(c, leads)
	}
	addsToSome := func(i int, quoted []int) bool {
		for ci, c := range sec.criteria {
			if p.addsToAnswer(c, i, quoted, answers[ci]) {
				return true
			}
		}
		return false
	}
	var rest []int
	for _, i := range cands {
		// Beyond the lead, only sentences that answer in their own
		// words: no pointer elsewhere, and the form of answer asked.
		if len(rest) < maxQuotesPerPart && !st.quoted[i] && r.relevant(i, restRelative) && p.answersTypeOf(sec, i) &&
			!pointerRe.MatchString(p.sents[i].text) && !p.duplicates(i, st.all) && p.inScope(i, sc.scopes) &&
			!p.ofOtherEntry(i, sc.named) &&
			(len(sc.stated) == 0 || slices.ContainsFunc(sc.stated, func(l int) bool { return p.sameEntry(i, l) })) &&
			addsToSome(i, slices.Concat(st.all, rest)) &&
			(len(sides) != 2 || p.namesSide(i, sides)) {
			rest = append(rest, i)
		}
	}
	rest = slices.DeleteFunc(p.withCounterparts(rest, sides), func(i int) bool { return st.quoted[i] })
	st.add(rest...)
	return rest
}

// quoting is what the report quotes so far: no sentence is quoted twice.
type quoting struct {
	quoted map[int]bool
	all    []int // in the order chosen
}

func (q *quoting) add(idx ...int) {
	for _, i := range idx {
		q.quoted[i] = true
		q.all = append(q.all, i)
	}
}

// leadScope is what a section's leads settle about the rest of it.
type leadScope struct {
	scopes []int // the leads whose entry is the answer's
	named  []int // the leads of entries the question names
	stated []int // of those, the leads that state a value asked of them
}

// leadFor chooses the lead of part c — its first sentence and what
// completes it — from its entry e and its section's candidates.
func (p picker) leadFor(c criterion, r ranking, e entry, cands []int, sides []string, st *quoting, sc *leadScope) lead {
	first := p.leadOf(c, r, e, cands)
	hop := -1 // the statement of the value of a setting the lead names
	if j, v := p.namedValueLead(c, r, first); j >= 0 && !st.quoted[j] && !st.quoted[v] {
		first, hop = j, v
	}
	if first >= 0 && st.quoted[first] && len(e.sents) > 0 {
		// An earlier part quotes this lead already: of the same
		// entry, another sentence that says what this part asks
		// and the lead does not answers it.
		e := e
		e.sents = slices.DeleteFunc(slices.Clone(e.sents), func(i int) bool { return st.quoted[i] })
		if len(e.sents) > 0 {
			if j := p.leadOf(c, r, e, cands); j >= 0 && !st.quoted[j] && p.addsTerm(c, j, []int{first}) {
				first = j
			}
		}
	}
	if first < 0 {
		return lead{}
	}
	l := lead{stated: true}
	if !st.quoted[first] {
		// The lead's paragraph: what states more of the same answer,
		// explains it, finishes its thought or goes on with its figure.
		sents := p.withSeconds(c, r, first, slices.Concat(e.sents, cands), st.quoted)
		sents = p.withExplanation(c, sents)
		sents = p.bearing(c, len(sides) > 0, sents)
		sents = p.withFigureAfter(c, sents, st.quoted)
		l.sents = p.withCounterparts(sents, sides)
		if len(sides) == 2 {
			// A comparison is answered by what is said of its
			// sides: a sentence that names neither is about
			// something else.
			kept := l.sents[:0:0]
			for _, j := range l.sents {
				// What follows a side's sentence goes on about it
				// ("This form is much slower …").
				if j == first || p.namesSide(j, sides) || slices.ContainsFunc(kept, func(k int) bool { return p.continues(j, k) }) {
					kept = append(kept, j)
				}
			}
			l.sents = kept
		}
		if d := p.addedTo(first); d >= 0 && !st.quoted[d] && !slices.Contains(l.sents, d) {
			// "In addition, you can add --no-hidden …": the lead
			// adds to the sentence before it, which comes first, as
			// the page wrote them.
			l.sents = slices.Insert(l.sents, 0, d)
		}
		if d := p.describedBy(c, r, first); d >= 0 && !st.quoted[d] && !slices.Contains(l.sents, d) {
			// The lead states its entry's value and little else
			// ("Default: 120 seconds."): the entry's sentence that
			// says what the value is of comes before it, as the page
			// wrote them.
			l.sents = slices.Insert(l.sents, 0, d)
		}
		j := p.boxOfLead(c, first)
		if j < 0 {
			j = p.valueOfEntry(c, first)
		}
		if j < 0 && hop >= 0 {
			j = hop
		}
		if j >= 0 && !st.quoted[j] && !slices.Contains(l.sents, j) {
			l.sents = slices.Insert(l.sents, 1, j)
			// The answer is this entry's: what other entries say
			// bears on it only where they name it. (A comparison's is
			// its sides' entries too.)
			if len(sides) != 2 {
				l.sents = p.ofEntry(l.sents, first)
			}
			sc.scopes = append(sc.scopes, first)
		} else if p.sents[first].box && len(sides) == 0 && len(c.identNames) <= 1 && p.answerTier(c, first) == 3 {
			// The lead is the asked value in an entry's box: the
			// answer is that entry's.
			l.sents = p.ofEntry(l.sents, first)
			sc.scopes = append(sc.scopes, first)
		}
		if j >= 0 && slices.Contains(l.sents, j) && p.answerTier(c, first) < 2 && p.inNamedEntry(c, first) && c.enum == "" && p.asksKey(c, j) {
			// The entry's line states the value asked of the
			// entry the question names; the description that led
			// to it says nothing asked. (Of an entry the question
			// does not name, the description is what shows the
			// entry is the one asked.)
			st.quoted[first] = true
			l.sents = slices.DeleteFunc(l.sents, func(i int) bool { return i == first })
		}
		if len(sides) == 0 && p.inNamedEntry(c, first) {
			// The lead is the asked entry's own: another entry
			// that names it in passing ("… (or an implied cd
			// with the AUTO_CD option set)") is about itself.
			l.sents = slices.DeleteFunc(slices.Clone(l.sents), func(j int) bool { return p.ofOtherEntry(j, []int{first}) })
			sc.named = append(sc.named, first)
			if c.style == styleValue || c.needsNum {
				// The entry states the value asked of it: what
				// other pages say of the entry restates it or
				// tells of something else.
				l.sents = slices.DeleteFunc(l.sents, func(j int) bool { return !p.sameEntry(j, first) })
				sc.stated = append(sc.stated, first)
			}
		}
		if items := p.entryItems(e); (c.enum != "" || pluralOfRe.MatchString(c.text)) && len(items) >= 2 {
			// The asked entry lists its own members ("robust – …",
			// "asynchronous – …"): they are the answer.
			l.items = items
			if rest := slices.DeleteFunc(slices.Clone(l.sents), func(j int) bool { return slices.Contains(items, j) }); len(rest) > 0 {
				l.sents = rest
			} else {
				l.sents, l.items = items[:1], items[1:]
			}
		} else if c.enum != "" {
			l.sents, l.items = p.members(c, l.sents, cands, r.scores)
			if len(l.items) < 2 {
				// No list of its own: the members may be
				// named in a series after the lead.
				l.sents = p.withSeries(c, l.sents, st.quoted)
			}
			// The series that names them answers, not an
			// opening that only says what the members did.
			l.sents = p.answerFirst(c, l.sents)
		}
		if len(l.sents) == 0 && len(l.items) == 0 {
			// Every sentence was about something else (a comparison's
			// lead that names neither side): nothing states the part,
			// and the Summary says so rather than stay empty.
			return lead{}
		}
		st.add(slices.Concat(l.sents, l.items)...)
	}
	return l
}

// pickSection chooses the candidates of section si: evidence whose home it
// is, unlike the sentences already chosen for other sections. When it gets
// none, it takes evidence homed elsewhere but unused, and as a last resort
// the best evidence even if another section has it (its lead then names
// it once).
func (p picker) pickSection(si int, r ranking, home []int, k int, used []int) []int {
	homed := func(i int) bool { return home[i] == si && r.accept(i) }
	if picks := p.pick(r.scores, k, homed, used, minRelative); len(picks) > 0 {
		return picks
	}
	if picks := p.pick(r.scores, 1, r.accept, used, minRelative); len(picks) > 0 {
		return picks
	}
	return p.pick(r.scores, 1, r.accept, nil, minRelative)
}

// anyEvidence reports whether any of picks is evidence for c.
func anyEvidence(p *pool, c criterion, picks []int) bool {
	for _, i := range picks {
		if p.isEvidence(c, i) {
			return true
		}
	}
	return false
}

// answersOf returns, of each part's lead sentences, those that state
// the answer to c (answering).
func (p picker) answersOf(c criterion, ls []lead) []int {
	var out []int
	for _, l := range ls {
		if len(l.sents) > 0 {
			out = append(out, p.answering(c, l.sents)...)
		}
	}
	return out
}
