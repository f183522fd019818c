package extractive

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/text"
)

// Stage 3 of synthesis: pick per criterion. Each part of the question gets
// its lead — the sentence that states its answer (with the sentence that
// finishes its thought, the other side of a comparison, or the members of
// a list it announces) — which the Summary quotes in the question's order;
// then each section gets the further relevant sentences, none already
// quoted. Length follows the evidence: a sentence is quoted only when it
// is evidence scoring near the section's best, and a section left with
// nothing is dropped.

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
// further sentences of its section.
func pickAnswers(ctx context.Context, p *pool, secs []section, ranked []ranking, found [][]entry, question string) (picks, error) {
	sides := analyse(question).compare
	home := p.homes(secs, ranked)
	cands := make([][]int, len(secs))
	var used []int
	for si, sec := range secs {
		if err := ctx.Err(); err != nil {
			return picks{}, fmt.Errorf("synthesize: %w", err)
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
	quoted := map[int]bool{}
	var all []int
	scopes := make([][]int, len(secs)) // per section, the leads whose entry is the answer's
	named := make([][]int, len(secs))  // per section, the leads of entries the question names
	stated := make([][]int, len(secs)) // per section, those that state a value asked of them
	for si, sec := range secs {
		if sec.summary {
			continue
		}
		out.leads[si] = make([]lead, len(sec.criteria))
		for ci, c := range sec.criteria {
			if c.generic && ownParts {
				continue
			}
			first := p.leadOf(c, ranked[si], found[si][ci], cands[si])
			if first >= 0 && quoted[first] && len(found[si][ci].sents) > 0 {
				// An earlier part quotes this lead already: of the same
				// entry, another sentence that says what this part asks
				// and the lead does not answers it.
				e := found[si][ci]
				e.sents = slices.DeleteFunc(slices.Clone(e.sents), func(i int) bool { return quoted[i] })
				if len(e.sents) > 0 {
					if j := p.leadOf(c, ranked[si], e, cands[si]); j >= 0 && !quoted[j] && p.addsTerm(c, j, []int{first}) {
						first = j
					}
				}
			}
			if first < 0 {
				continue
			}
			l := lead{stated: true}
			if !quoted[first] {
				l.sents = p.withCounterparts(p.bearing(c, len(sides) > 0, p.withExplanation(c, p.withSeconds(c, ranked[si], first, slices.Concat(found[si][ci].sents, cands[si]), quoted))), sides)
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
				j := p.boxOfLead(c, first)
				if j < 0 {
					j = p.valueOfEntry(c, first)
				}
				if j >= 0 && !quoted[j] && !slices.Contains(l.sents, j) {
					l.sents = slices.Insert(l.sents, 1, j)
					// The answer is this entry's: what other entries say
					// bears on it only where they name it.
					l.sents = p.ofEntry(l.sents, first)
					scopes[si] = append(scopes[si], first)
				} else if p.sents[first].box && len(sides) == 0 && len(c.identNames) <= 1 && p.answerTier(c, first) == 3 {
					// The lead is the asked value in an entry's box: the
					// answer is that entry's.
					l.sents = p.ofEntry(l.sents, first)
					scopes[si] = append(scopes[si], first)
				}
				if j >= 0 && slices.Contains(l.sents, j) && p.answerTier(c, first) < 2 && p.inNamedEntry(c, first) && c.enum == "" && p.asksKey(c, j) {
					// The entry's line states the value asked of the
					// entry the question names; the description that led
					// to it says nothing asked. (Of an entry the question
					// does not name, the description is what shows the
					// entry is the one asked.)
					quoted[first] = true
					l.sents = slices.DeleteFunc(l.sents, func(i int) bool { return i == first })
				}
				if len(sides) == 0 && p.inNamedEntry(c, first) {
					// The lead is the asked entry's own: another entry
					// that names it in passing ("… (or an implied cd
					// with the AUTO_CD option set)") is about itself.
					l.sents = slices.DeleteFunc(slices.Clone(l.sents), func(j int) bool { return p.ofOtherEntry(j, []int{first}) })
					named[si] = append(named[si], first)
					if c.style == styleValue || c.needsNum {
						// The entry states the value asked of it: what
						// other pages say of the entry restates it or
						// tells of something else.
						l.sents = slices.DeleteFunc(l.sents, func(j int) bool { return !p.sameEntry(j, first) })
						stated[si] = append(stated[si], first)
					}
				}
				if items := p.entryItems(found[si][ci]); (c.enum != "" || pluralOfRe.MatchString(c.text)) && len(items) >= 2 {
					// The asked entry lists its own members ("robust – …",
					// "asynchronous – …"): they are the answer.
					l.items = items
					if rest := slices.DeleteFunc(slices.Clone(l.sents), func(j int) bool { return slices.Contains(items, j) }); len(rest) > 0 {
						l.sents = rest
					} else {
						l.sents, l.items = items[:1], items[1:]
					}
				} else if c.enum != "" {
					l.sents, l.items = p.members(c, l.sents, cands[si], ranked[si].scores)
					if len(l.items) < 2 {
						// No list of its own: the members may be
						// named in a series after the lead.
						l.sents = p.withSeries(c, l.sents, quoted)
					}
					// The series that names them answers, not an
					// opening that only says what the members did.
					l.sents = p.answerFirst(c, l.sents)
				}
				for _, j := range slices.Concat(l.sents, l.items) {
					quoted[j] = true
					all = append(all, j)
				}
			}
			out.leads[si][ci] = l
		}
	}
	for si, sec := range secs {
		if sec.summary {
			continue
		}
		// What each part's leads state as its answer: they are set
		// before the rest is chosen.
		answers := make([][]int, len(sec.criteria))
		for ci, c := range sec.criteria {
			answers[ci] = p.answersOf(c, out.leads[si])
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
		for _, i := range cands[si] {
			// Beyond the lead, only sentences that answer in their own
			// words: no pointer elsewhere, and the form of answer asked.
			if len(rest) < maxQuotesPerPart && !quoted[i] && ranked[si].relevant(i, restRelative) && p.answersTypeOf(sec, i) &&
				!pointerRe.MatchString(p.sents[i].text) && !p.duplicates(i, all) && p.inScope(i, scopes[si]) &&
				!p.ofOtherEntry(i, named[si]) &&
				(len(stated[si]) == 0 || slices.ContainsFunc(stated[si], func(l int) bool { return p.sameEntry(i, l) })) &&
				addsToSome(i, slices.Concat(all, rest)) &&
				(len(sides) != 2 || p.namesSide(i, sides)) {
				rest = append(rest, i)
			}
		}
		rest = slices.DeleteFunc(p.withCounterparts(rest, sides), func(i int) bool { return quoted[i] })
		for _, i := range rest {
			quoted[i] = true
			all = append(all, i)
		}
		out.rest[si] = rest
		for ci, c := range sec.criteria {
			if c.generic && ownParts {
				out.leads[si][ci].stated = anyEvidence(p, c, rest)
			}
		}
	}
	return out, nil
}

// boxOfLead returns the line of the box of the entry lead describes that
// states what c asks of it: "Default: 300" of the entry whose description
// answers "How often does it poll … by default?" though the question does
// not name the entry. -1 when lead is of no entry or its box has no such
// line.
func (p *pool) boxOfLead(c criterion, lead int) int {
	s := &p.sents[lead]
	if s.label == "" || s.box || c.style == styleReason {
		return -1 // a reason is no value of the box
	}
	for _, j := range p.boxLines(s.src, s.label) {
		if m := boxLineRe.FindStringSubmatch(p.sents[j].text); m != nil && slices.ContainsFunc(text.Tokens(m[1]), func(t string) bool {
			return attributeWords[t] && slices.Contains(c.core, t)
		}) {
			return j
		}
	}
	return -1
}

// valueOfEntry is boxOfLead for an entry without a box, which states its
// value in a sentence of its own: "The default value is 101, which is
// enough …" in the entry whose description answers "How many headers …
// by default?". -1 when the lead states a value itself or its entry none.
func (p *pool) valueOfEntry(c criterion, lead int) int {
	s := &p.sents[lead]
	if s.label == "" || s.box || c.style == styleReason || s.hasNum && (statesValue(s.text) || givesValue(s.text)) {
		return -1
	}
	for j := lead + 1; j < len(p.sents) && p.sents[j].src == s.src && p.sents[j].label == s.label; j++ {
		if p.statesAskedAttribute(c, j) {
			return j
		}
	}
	for j := lead - 1; j >= 0 && p.sents[j].src == s.src && p.sents[j].label == s.label; j-- {
		if p.statesAskedAttribute(c, j) {
			return j
		}
	}
	return -1
}

// lendsValue reports whether the entry sentence i describes states the
// value c asks in a sentence that could not lead on its own ("The default
// value is 101" names nothing asked): i leads, and that sentence follows.
func (p *pool) lendsValue(c criterion, r ranking, i int) bool {
	j := p.valueOfEntry(c, i)
	return j >= 0 && !r.evidenceFor(p, c, j)
}

// statesAskedAttribute reports whether sentence j states, with a figure,
// an attribute c asks for by name ("The default value is 101").
func (p *pool) statesAskedAttribute(c criterion, j int) bool {
	t := &p.sents[j]
	if t.box || !t.hasNum || !statesValue(t.text) && !givesValue(t.text) {
		return false
	}
	return slices.ContainsFunc(c.core, func(w string) bool { return attributeWords[w] && t.set[w] })
}

// boxKey names an entry of one page: its page and its label.
type boxKey struct {
	src   int
	label string
}

// boxLines returns the box lines of the entry label of page src, in page
// order, from an index built over the pool on the first call.
func (p *pool) boxLines(src int, label string) []int {
	if p.boxes == nil {
		p.boxes = map[boxKey][]int{}
		for j := range p.sents {
			if b := &p.sents[j]; b.box {
				k := boxKey{b.src, b.label}
				p.boxes[k] = append(p.boxes[k], j)
			}
		}
	}
	return p.boxes[boxKey{src, label}]
}

// ofEntry returns sents without the sentences of entries other than
// lead's that do not name lead's entry.
func (p *pool) ofEntry(sents []int, lead int) []int {
	return slices.DeleteFunc(slices.Clone(sents), func(i int) bool { return !p.inScope(i, []int{lead}) })
}

// inNamedEntry reports whether sentence i is of the entry of an
// identifier c names ("AUTO_CD", "message_size_limit"), not only of one
// whose name is an ordinary word of the question.
func (p *pool) inNamedEntry(c criterion, i int) bool {
	l := strings.ToLower(p.sents[i].label)
	return l != "" && slices.ContainsFunc(c.identNames, func(n string) bool { return labelNames(l, n) })
}

// sameEntry reports whether sentences i and j are of one entry of one
// page.
func (p *pool) sameEntry(i, j int) bool {
	return p.sents[i].src == p.sents[j].src && p.sents[i].label == p.sents[j].label
}

// ofOtherEntry reports whether sentence i is of an entry other than the
// entries of leads, whatever it names; false when leads is empty.
func (p *pool) ofOtherEntry(i int, leads []int) bool {
	s := &p.sents[i]
	if s.label == "" || len(leads) == 0 {
		return false
	}
	for _, l := range leads {
		if i == l || s.label == p.sents[l].label {
			return false
		}
	}
	return true
}

// inScope reports whether sentence i may be quoted beside leads whose
// entries hold the answer: it is one of them, of no other entry, or names
// one of theirs.
func (p *pool) inScope(i int, leads []int) bool {
	s := &p.sents[i]
	if len(leads) == 0 || s.label == "" {
		return true
	}
	for _, l := range leads {
		if name := p.sents[l].label; i == l || s.label == name || containsTerm(s.text, name) {
			return true
		}
	}
	return false
}

// leadOf returns the sentence that states the answer to c: in the asked
// entry, the one that states the asked value, else the entry's opening
// (what the option does); else the best candidate of the section that is
// evidence for c; -1 when none is.
func (p *pool) leadOf(c criterion, r ranking, e entry, cands []int) int {
	if len(e.sents) > 0 {
		// The entry's best evidence, a sentence of the asked form first
		// ("Maximum value is 4095." over the entry's description), then
		// one that holds the figures the question names ("If X is 0, …"
		// for "What happens when X is set to 0?").
		figs := figuresOf(c.text)
		best, bestTier, bestFigs := -1, -1, false
		for _, i := range e.sents {
			if !p.isEvidence(c, i) {
				continue
			}
			// A value stated outright (tier 2 and up) comes first; below
			// that, the form of a sentence says less than its score.
			t := p.answerTier(c, i)
			if t < 2 {
				t = 0
			}
			f := holdsFigures(p.sents[i].text, figs)
			if best < 0 || t > bestTier || t == bestTier && (f && !bestFigs || f == bestFigs && r.scores[i] > r.scores[best]) {
				best, bestTier, bestFigs = i, t, f
			}
		}
		opening := e.opening(p)
		if i := p.answerBesideEntry(c, r, e, cands); i >= 0 {
			return i
		}
		switch {
		case best >= 0 && (c.style == styleValue || c.needsNum):
			if b := &p.sents[best]; bestTier < 2 && !b.box && !b.hasNum && !figureRe.MatchString(b.label) {
				// The entry describes the thing but states no value: a
				// sentence elsewhere that names it and states the value
				// asked ("its default is 0.4 sec") answers instead.
				if i, t := p.typedLead(c, r, cands); t >= 2 {
					return i
				}
			}
			return best
		case c.style != styleValue && !c.needsNum && r.scores[opening] > 0 &&
			(best < 0 || bestTier == 0 && !bestFigs && p.asksOnlyEntry(c) || r.scores[best] < openingMargin*r.scores[opening]):
			// "What does X do?" is answered by the entry's opening,
			// unless a sentence of the entry says what is asked
			// ("when it is set to 0", "why set it") far better; when the
			// question asks nothing of the entry but what it is, by the
			// opening however another sentence scores.
			return opening
		case best >= 0:
			return best
		}
	}
	// The candidate that states the asked value most directly, else the
	// first in the form of answer c asks for (a figure, a cause), else the
	// first that says more than the question does, else the first that is
	// evidence at all.
	if typed, _ := p.typedLead(c, r, cands); typed >= 0 {
		return typed
	}
	if (c.style == styleValue || c.needsNum) && c.enum == "" && !c.member {
		return -1 // a value question is not answered without a value
	}
	first, news := -1, -1
	for _, i := range cands {
		if !r.evidenceFor(p, c, i) {
			continue
		}
		if first < 0 {
			first = i
		}
		if news < 0 && !p.restates(c, i) {
			news = i
		}
	}
	if news >= 0 {
		first = news
	}
	if first < 0 {
		return first
	}
	// Of the candidates near the best, the one that says most of what is
	// asked beyond its page's title: an article's opening repeats its
	// headline ("Hundreds of workers are striking at …"), the answer says
	// what the question asks of it ("… are asking for a $15 hourly wage").
	return p.mostAsked(c, r, cands, first, func(i int) bool { return !p.restates(c, i) })
}

// answerBesideEntry returns, for a part of no value form when no sentence
// of its entry says what it asks of the entry ("originally named" of
// "What was X's full-upgrade command originally named?"), the first
// candidate outside the entry that is evidence and says all of it ("This
// command was originally named dist-upgrade …" in a note after the
// entry); -1 otherwise.
func (p *pool) answerBesideEntry(c criterion, r ranking, e entry, cands []int) int {
	if c.style == styleValue || c.needsNum || c.compare {
		return -1 // a comparison is answered by its sides' entries
	}
	// The entry's name (an identifier, a flag, a name in capitals), and
	// the word after it that says what kind of thing it is ("command" of
	// "the full-upgrade command"), are the entry's.
	ident := text.Set{}
	for _, g := range c.idents {
		for _, t := range g {
			ident[t] = true
		}
	}
	for _, t := range c.caps {
		ident[t] = true
	}
	name := maps.Clone(ident)
	words := strings.Fields(c.text)
	for k, w := range words {
		if len(flagTokens(w)) == 0 && !slices.ContainsFunc(text.Tokens(w), func(t string) bool { return ident[t] }) {
			continue
		}
		for _, t := range text.Tokens(w) {
			name[t] = true
		}
		if k+1 < len(words) {
			for _, t := range text.Tokens(words[k+1]) {
				name[t] = true
			}
		}
	}
	var own []string
	for _, t := range c.core {
		if !p.context[t] && !name[t] {
			own = append(own, t)
		}
	}
	if len(own) < 2 {
		return -1 // one word is too little to tell an answer from a mention
	}
	saysOwn := func(i int) bool { return !slices.ContainsFunc(own, func(t string) bool { return !p.says(c, i, t) }) }
	if slices.ContainsFunc(e.sents, saysOwn) {
		return -1
	}
	for _, i := range cands {
		if !slices.Contains(e.sents, i) && r.evidenceFor(p, c, i) && saysOwn(i) {
			return i
		}
	}
	return -1
}

// mostAsked returns, of the candidates near first's score that are
// evidence and pass ok, the one that says most of what is asked beyond
// its page's title (untitled); first when none says more.
func (p *pool) mostAsked(c criterion, r ranking, cands []int, first int, ok func(int) bool) int {
	best, most := first, p.untitled(c, first)
	for _, i := range cands {
		if i == first || r.scores[i] < leadNear*r.scores[first] || !r.evidenceFor(p, c, i) || !ok(i) {
			continue
		}
		if u := p.untitled(c, i); u > most {
			best, most = i, u
		}
	}
	return best
}

// leadNear is the share of the best candidate's score another needs to
// lead instead for saying more of what is asked.
const leadNear = 0.5

// untitled counts the words of c that sentence i says (says) and its
// page's title does not hold.
func (p *pool) untitled(c criterion, i int) int {
	title := p.docs[p.sents[i].src].title
	n := 0
	for _, t := range c.core {
		if !p.context[t] && !title[t] && p.says(c, i, t) {
			n++
		}
	}
	return n
}

// typedLead returns the candidate that states the value c asks for most
// directly, and its answerTier; -1 when none has the asked form.
func (p *pool) typedLead(c criterion, r ranking, cands []int) (int, int) {
	typed, tier, cover, lent, counts := -1, 0, 0.0, false, false
	for _, i := range cands {
		if !r.evidenceFor(p, c, i) {
			continue
		}
		// Of two sentences stating a value as directly, the one that
		// says more of what is asked: "a maximum database size of about
		// 281 terabytes" over "the minimum size database is one page";
		// and one that states it itself over one whose entry does.
		t, cv, l := p.answerTier(c, i), p.coverageWith(c.core, i, nil), false
		switch {
		case t >= 2:
		case p.boxOfLead(c, i) >= 0:
			t = 2 // the box of the entry it describes states the value asked
		case p.lendsValue(c, r, i):
			t, l = 2, true // so does a sentence of that entry
		}
		// "How many headers …" is answered by a sentence about headers.
		n := c.counted == "" || p.sents[i].set[c.counted]
		if t > tier || t == tier && t >= 2 && (n && !counts || n == counts && (lent && !l || l == lent && cv > cover+1e-9)) {
			typed, tier, cover, lent, counts = i, t, cv, l, n
		}
	}
	return typed, tier
}

// figureRe finds a figure written in a question or a sentence.
var figureRe = regexp.MustCompile(`\b\d+(?:\.\d+)*\b`)

// figuresOf returns the figures question part c names ("set to 0").
func figuresOf(c string) []string {
	return figureRe.FindAllString(c, -1)
}

// holdsFigures reports whether s writes every one of figs (at least one).
func holdsFigures(s string, figs []string) bool {
	if len(figs) == 0 {
		return false
	}
	have := figureRe.FindAllString(s, -1)
	for _, f := range figs {
		if !slices.Contains(have, f) {
			return false
		}
	}
	return true
}

// asksOnlyEntry reports whether c asks nothing of the entry it names but
// what it is ("What does the AUTO_CD option do?"): every word of its core
// is the name's, or the question's setting.
func (p *pool) asksOnlyEntry(c criterion) bool {
	if len(c.idents) == 0 {
		return false
	}
	for _, t := range c.core {
		named := p.context[t] || p.topical[t]
		for _, g := range c.idents {
			named = named || slices.Contains(g, t)
		}
		if !named {
			return false
		}
	}
	return true
}

// openingMargin is how much better than the entry's opening another of
// its sentences must score to lead instead.
const openingMargin = 1.3

// namesAskedNoun reports whether sentence i, its label or heading names
// the noun c asks for, when it asks for one: "`quic` default: off" is no
// answer to "On which port …", "`quic-port` default: 853" is.
func (p *pool) namesAskedNoun(c criterion, i int) bool {
	n := c.asked
	if n == "" {
		return true
	}
	s := &p.sents[i]
	return s.set[n] || s.head[n] || slices.Contains(text.Tokens(s.label), n)
}

// answerTier ranks how directly sentence i answers c: 3 when it is a
// short statement of the asked attribute ("Maximum value is 4095.",
// "Default: 5"), 2 when it states it within a longer sentence ("defaults
// to 7070"), 1 when it has the asked form, 0 otherwise.
func (p *pool) answerTier(c criterion, i int) int {
	s := &p.sents[i]
	switch {
	case !p.answersType(c, i):
		return 0
	case (s.box || statesValue(s.text)) && p.statesAttribute(c, i) && p.namesAskedNoun(c, i):
		return 3
	case givesValue(s.text) && p.statesAttribute(c, i):
		return 2
	case boundRe.MatchString(s.text) && asksBound(c):
		return 2 // "it must be shorter than 8000 bytes" gives a maximum
	case countsAsked(c, s.text):
		return 2 // "roughly 6,000 black rats" for "how many rats"
	}
	return 1
}

// howManyRe finds what a question counts: the words after "how many".
var howManyRe = regexp.MustCompile(`(?i)\bhow\s+many\s+((?:[\pL-]+\s*){1,3})`)

// countsAsked reports whether s states a figure of what c counts: a
// number, at most two words, then the noun ("approximately 60 wild
// goats"), not a figure of something else ("more than a dozen islands").
func countsAsked(c criterion, s string) bool {
	noun := c.counted
	if noun == "" {
		return false
	}
	words := strings.Fields(s)
	for i, w := range words {
		if !strings.ContainsAny(w, "0123456789") {
			continue
		}
		for j := i + 1; j < len(words) && j <= i+3; j++ {
			if toks := text.Tokens(words[j]); len(toks) == 1 && toks[0] == noun {
				return true
			}
		}
	}
	return false
}

// boundRe matches a figure stated as a bound: "shorter than 8000",
// "no more than 64", "at most 32".
var boundRe = regexp.MustCompile(`(?i)\b(?:\w+er|less|more|fewer)\s+than\s+\d|\bat\s+(?:most|least)\s+\d|\bup\s+to\s+\d`)

// asksBound reports whether c asks for a maximum, minimum or limit.
func asksBound(c criterion) bool {
	for _, t := range c.core {
		if attributeWords[t] && t != text.Stem("default") {
			return true
		}
	}
	return false
}

// Seconds: the sentences that join a lead in the Summary because they
// state more of the same answer — evidence for the part, at least
// secondShare of the section's best, of the asked form, stating the
// asked attribute when the part names one — at most maxSeconds of them.
const (
	secondShare = 0.4
	maxSeconds  = 4
)

// withSeconds returns lead and the candidates that state more of c's
// answer beside it, in rank order.
func (p *pool) withSeconds(c criterion, r ranking, lead int, cands []int, quoted map[int]bool) []int {
	out := []int{lead}
	ans := p.answering(c, out)
	for _, i := range cands {
		if len(out) > maxSeconds {
			break
		}
		if i == lead || quoted[i] || !r.relevant(i, secondShare) || !p.isEvidence(c, i) || !p.answersType(c, i) ||
			c.style == styleValue && namesAttribute(c) && !p.statesAttribute(c, i) ||
			pointerRe.MatchString(p.sents[i].text) || p.duplicates(i, out) || !p.addsToAnswer(c, i, out, ans) {
			continue
		}
		out = append(out, i)
		ans = p.answering(c, out)
	}
	return p.answerFirst(c, out)
}

// answerFirst puts first, when the lead of picks does not state the
// answer in the form c asks for and a second does ("Specify "biff = no"
// in main.cf to disable." after the entry's "Whether or not to use the
// local biff service."), the seconds that do; the rest stay only if they
// add to them.
func (p *pool) answerFirst(c criterion, picks []int) []int {
	ans := p.answering(c, picks)
	if ans[0] == picks[0] || c.style == styleReason {
		// A why-question's lead may state the asked effect, and what
		// follows it the cause (withExplanation).
		return picks
	}
	out := slices.Clone(ans)
	for _, i := range picks {
		if !slices.Contains(ans, i) && p.addsToAnswer(c, i, out, ans) {
			out = append(out, i)
		}
	}
	return out
}

// answering returns the sentences of picks that state the answer to c in
// the form it asks for, or the lead picks[0] when none does: once a
// second gives the instruction that the lead, an entry's description,
// only led up to, what follows must add to that instruction.
func (p *pool) answering(c criterion, picks []int) []int {
	var out []int
	for _, i := range picks {
		if p.givesAnswer(c, i) {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		return picks[:1]
	}
	return out
}

// restateShare is the share of a sentence's words that are the
// criterion's own above which it only restates what was asked.
const restateShare = 0.6

// restates reports whether sentence i only restates criterion c: most of
// its words are c's ("X is being investigated by Y" for "why is Y
// investigating X"), so it cannot say why or how.
func (p *pool) restates(c criterion, i int) bool {
	s := &p.sents[i]
	if len(s.toks) == 0 {
		return true
	}
	own := 0
	for _, t := range text.Unique(s.toks) {
		if c.query[t] >= 1 {
			own++
		}
	}
	return float64(own) >= restateShare*float64(len(text.Unique(s.toks)))
}

// members returns the lead of an enumeration c and the members it lists:
// the list the section's candidates point to (pool.enumerate), after the
// sentence that announces it when that is not already the lead.
func (p *pool) members(c criterion, lead, cands []int, scores []float64) (sents, items []int) {
	if len(cands) == 0 {
		return lead, nil
	}
	sents = lead
	if a := p.enumAnchor(c, cands, scores); (strings.HasSuffix(p.sents[a].text, ":") || countsMembers(c, p.sents[a].text) > 0) && !slices.Contains(sents, a) {
		sents = append(sents, a)
	}
	for n, j := range p.enumerate(c, cands, scores) {
		s := &p.sents[j]
		member := n >= len(cands) || s.set[c.enum] || s.label != "" && slices.Contains(text.Tokens(s.label), c.enum)
		if member && !slices.Contains(sents, j) && !p.ofAnotherEntry(c, j) {
			items = append(items, j)
		}
	}
	return sents, items
}

// entryItems returns the sentences of entry e written as the items of a
// list, each a paragraph that opens with its term and a dash or with a
// bullet ("robust – The journal …", "0 - Ignore max_vcl parameter.").
func (p *pool) entryItems(e entry) []int {
	var out []int
	for _, i := range e.sents {
		if s := &p.sents[i]; s.para && !s.box && itemRe.MatchString(s.text) {
			out = append(out, i)
		}
	}
	return out
}

// ofAnotherEntry reports whether sentence j is written under the label
// of another entry than the one c names: "BRACE_CCL: … all the
// characters" lists no character that EXTENDED_GLOB makes special.
func (p *pool) ofAnotherEntry(c criterion, j int) bool {
	s := &p.sents[j]
	if s.label == "" || len(c.identNames) == 0 && len(c.caps) == 0 {
		return false
	}
	l := strings.ToLower(s.label)
	for _, n := range c.identNames {
		if labelNames(l, n) || containsTerm(strings.ToLower(s.text), n) {
			return false
		}
	}
	if len(c.identNames) > 0 {
		return true
	}
	lt := text.NewSet(text.Tokens(s.label))
	for _, t := range c.caps {
		if !lt[t] {
			return true
		}
	}
	return false
}

// seriesRe matches a series of three or more items in running text:
// "janitors, baggage handlers, cabin cleaners and wheelchair attendants".
var seriesRe = regexp.MustCompile(`[\pL\pN'’-]+(?:\s+[\pL\pN'’-]+){0,3},\s+[\pL\pN'’-]+(?:\s+[\pL\pN'’-]+){0,3},?\s+(?:and|or)\s+[\pL\pN'’-]+`)

// seriesNear is how many sentences after a list question's lead its
// series may stand.
const seriesNear = 3

// withSeries adds, to the lead of a question that asks for a list and
// names no series itself ("Hundreds of workers are striking …"), the
// nearest sentence after it on its page that does ("Janitors, baggage
// handlers, cabin cleaners and wheelchair attendants are asking …").
func (p *pool) withSeries(c criterion, sents []int, quoted map[int]bool) []int {
	if len(sents) == 0 {
		return sents
	}
	for _, i := range sents {
		// A sentence that counts the members asked ("… workers in six
		// cities") announces them, whatever other series it holds.
		if seriesRe.MatchString(p.sents[i].text) && countsMembers(c, p.sents[i].text) == 0 {
			return sents
		}
	}
	lead := sents[0]
	for j := lead + 1; j < len(p.sents) && p.sents[j].src == p.sents[lead].src && p.sents[j].pos-p.sents[lead].pos <= seriesNear; j++ {
		if !quoted[j] && !slices.Contains(sents, j) && p.sents[j].label == p.sents[lead].label && seriesRe.MatchString(p.sents[j].text) {
			return append(sents, j)
		}
	}
	return sents
}

// quantityRe matches an amount stated without digits: "twice the size",
// "at most", "no more than".
var quantityRe = regexp.MustCompile(`(?i)\b(?:twice|half|double|triple|as (?:much|many|long|large) as|at (?:most|least)|(?:no )?(?:more|less|fewer) than)\b`)

// answersTypeOf reports whether sentence i, beyond a lead, bears on some
// criterion of sec: it is evidence for it, in the form of answer it asks
// for, holds most of its words and, when it asks for a named attribute,
// states that attribute.
func (p *pool) answersTypeOf(sec section, i int) bool {
	for _, c := range sec.criteria {
		if p.bearsOnCriterion(c, i) {
			return true
		}
	}
	return false
}

// bearsOnCriterion reports whether sentence i, beside a lead, bears on c
// (answersTypeOf).
func (p *pool) bearsOnCriterion(c criterion, i int) bool {
	return p.isEvidence(c, i) && p.answersType(c, i) && p.coverageWith(c.core, i, p.impliedBy(c, i)) >= restCoverage &&
		(c.style != styleValue || !namesAttribute(c) || p.statesAttribute(c, i)) && !pointerRe.MatchString(p.sents[i].text)
}

// restCoverage is the share of a criterion's words a sentence beyond the
// lead must hold, counting the words it says in other words: as much as
// evidence needs (coverThreshold).
const restCoverage = 0.5

// namesAttribute reports whether c asks for an attribute by name ("the
// default", "the upper bound"): a further sentence must state it.
func namesAttribute(c criterion) bool {
	for _, t := range c.core {
		if attributeWords[t] {
			return true
		}
	}
	return false
}

// answersType reports whether sentence i has the form of answer c asks
// for: a value question wants a figure or a stated value, a why-question
// a cause or a piece of advice. Other questions take any form.
func (p *pool) answersType(c criterion, i int) bool {
	s := &p.sents[i]
	switch {
	case c.style == styleValue || c.needsNum:
		if s.box {
			return p.statesAttribute(c, i) || p.namesKey(c, i) && p.inAskedEntry(c, i) // "Default: …" for the default, not "Context: …"
		}
		return s.hasNum || statesValue(s.text) || s.code != "" || quantityRe.MatchString(s.text) || givesValue(s.text)
	case c.style == styleReason:
		return reasonRe.MatchString(s.text) || c.advice && adviceSentRe.MatchString(s.text)
	}
	return true
}

// pickSection chooses the candidates of section si: evidence whose home it
// is, unlike the sentences already chosen for other sections. When it gets
// none, it takes evidence homed elsewhere but unused, and as a last resort
// the best evidence even if another section has it (its lead then names
// it once).
func (p *pool) pickSection(si int, r ranking, home []int, k int, used []int) []int {
	homed := func(i int) bool { return home[i] == si && r.accept(i) }
	if picks := p.pick(r.scores, k, homed, used, minRelative); len(picks) > 0 {
		return picks
	}
	if picks := p.pick(r.scores, 1, r.accept, used, minRelative); len(picks) > 0 {
		return picks
	}
	return p.pick(r.scores, 1, r.accept, nil, minRelative)
}

func anyEvidence(p *pool, c criterion, picks []int) bool {
	for _, i := range picks {
		if p.isEvidence(c, i) {
			return true
		}
	}
	return false
}

// continuationRe opens a sentence that finishes the thought of the one
// before it ("Instead, Rust wraps the value.").
var continuationRe = regexp.MustCompile(`^(?:Instead|However|Otherwise|In (?:that|this|such a) case|This|That|These|It|They|Then|So|Thus|As a result|For example|In other words|Note that)\b`)

// pronounSubjectRe opens a sentence whose subject, after a short opening
// phrase, is a pronoun for what the sentence before named ("Depending on
// the column types, it is between 250 and 1600.").
var pronounSubjectRe = regexp.MustCompile(`^[A-Z][^,.;:]{0,50},\s+(?:it|this|they|these|that)\s+(?:is|are|was|were|can|cannot|may|must|will|has|have|does|do)\b`)

// consequenceRe opens a sentence that draws a consequence from the one
// before it.
var consequenceRe = regexp.MustCompile(`^(?:As a (?:consequence|result)|For (?:this|that|these) reasons?|This is why|That(?:'s|’s| is) why|Therefore|Hence|Thus|Consequently|Because of this|This means that)\b`)

// withExplanation adds, after the lead of a why-question that only
// restates what was asked ("Setting X to a high value may cause
// performance problems …"), the next sentence of its paragraph, which
// says why ("The higher the timeout, the more processes are kept
// occupied …").
func (p *pool) withExplanation(c criterion, sents []int) []int {
	if c.style != styleReason || len(sents) == 0 {
		return sents
	}
	i := sents[0]
	if !p.restates(c, i) && !p.restatesMost(c, i) {
		return sents
	}
	j := i + 1
	// The next sentence of the lead's paragraph, or the next paragraph
	// when the lead is a paragraph of one sentence, as a news article
	// writes them ("… the sky above the city went dark." then "The city
	// … was blanketed by smoke from wildfires …").
	if j < len(p.sents) && p.sents[j].src == p.sents[i].src && p.sents[j].pos == p.sents[i].pos+1 &&
		(!p.sents[j].para || p.sents[i].para && p.sents[i].label == "") && p.sents[j].label == p.sents[i].label && !slices.Contains(sents, j) {
		return slices.Insert(sents, 1, j)
	}
	return sents
}

// restatesMost reports whether sentence i holds nearly every word of
// criterion c: it says what was asked, not yet why.
func (p *pool) restatesMost(c criterion, i int) bool {
	return p.coverage(c.core, i) >= restateCover
}

// restateCover is the share of a why-question's words above which its
// lead only restates it.
const restateCover = 0.8

// withContinuations adds before a pick that draws a consequence the
// sentence it draws it from, and after each pick the next sentence of its source
// when that sentence continues it, so that a quoted answer is not cut off
// before its point.
func (p *pool) withContinuations(picks []int) []int {
	in := map[int]bool{}
	for _, i := range picks {
		in[i] = true
	}
	out := make([]int, 0, len(picks)+2)
	for _, i := range picks {
		// "For this reason, …" states a consequence of the sentence
		// before it, which is the reason a why-question asks for.
		if h := i - 1; p.refersBack(i) && h >= 0 && !in[h] && p.sents[h].label == p.sents[i].label &&
			p.sents[h].src == p.sents[i].src && p.sents[h].pos == p.sents[i].pos-1 && !p.duplicates(h, out) {
			in[h] = true
			out = append(out, h)
		}
		out = append(out, i)
		j := i + 1
		if j < len(p.sents) && !in[j] && p.sents[j].src == p.sents[i].src && p.sents[j].pos == p.sents[i].pos+1 && p.sents[j].label == p.sents[i].label &&
			(continuationRe.MatchString(p.sents[j].text) || pronounSubjectRe.MatchString(p.sents[j].text)) && !p.duplicates(j, out) {
			in[j] = true
			out = append(out, j)
		}
	}
	return out
}

// clauseRefRe finds, inside a sentence, a clause whose subject is "this" or
// "that": "Zuckerberg said this was the reason …" names its reason in the
// sentence before.
var clauseRefRe = regexp.MustCompile(`(?i)\b(?:said|says|and|but|because)\s+(?:this|that|these|those)\s+(?:is|was|are|were)\b`)

// definiteRe captures the noun of a definite subject near a sentence's
// opening: "Although the dishes are …".
var definiteRe = regexp.MustCompile(`^(?:[A-Z]\w*\s+){0,3}?(?i:the|these|those|this|that)\s+(\w+)\s+(?:is|are|was|were|will|would|can|could|have|has|had)\b`)

// bearing is withContinuations, less a sentence that follows a pick and
// holds none of c's own words: "This service sends notifications …" goes
// on about the thing, not about what was asked of it.
func (p *pool) bearing(c criterion, compare bool, picks []int) []int {
	with := p.withContinuations(picks)
	if compare || c.style == styleReason {
		// What follows a side's sentence describes that side, and what
		// follows a why-question's lead gives its reason in words of its
		// own ("This mode is necessary for …").
		return with
	}
	return slices.DeleteFunc(with, func(j int) bool {
		if slices.Contains(picks, j) || j+1 < len(p.sents) && slices.Contains(picks, j+1) && p.refersBack(j+1) {
			return false // a pick, or the sentence a pick refers back to
		}
		s := &p.sents[j]
		if s.hasNum || restatesRe.MatchString(s.text) || pronounIsRe.MatchString(s.text) {
			return false // "That's down by 6.6 per cent …", "That is, …", "It is January 1, 1970 …"
		}
		for _, t := range c.core {
			if s.set[t] && !p.context[t] && !p.topical[t] {
				return false
			}
		}
		return true
	})
}

// pronounIsRe opens a sentence that goes on saying what the thing before
// it is: "It is …", "They are …".
var pronounIsRe = regexp.MustCompile(`^(?:It|They|This|These)\s+(?:is|are|was|were)\b`)

// restatesRe opens a sentence that says the one before it again in other
// words: its explanation, not a further topic.
var restatesRe = regexp.MustCompile(`^(?:That is|In other words|I\.e\.|Namely)\b`)

// refersBack reports whether sentence i needs the one before it to be
// understood: it draws a consequence from it ("For this reason, …"), or
// its subject is what that sentence named ("this was the reason",
// "the dishes are …" after "… by adding 36 dishes").
func (p *pool) refersBack(i int) bool {
	t := p.sents[i].text
	if consequenceRe.MatchString(t) || clauseRefRe.MatchString(t) || backRefRe.MatchString(t) {
		return true
	}
	h := i - 1
	if h < 0 || p.sents[h].src != p.sents[i].src || p.sents[h].pos != p.sents[i].pos-1 {
		return false
	}
	if m := definiteRe.FindStringSubmatch(t); m != nil {
		for _, w := range text.Tokens(m[1]) {
			if p.sents[h].set[w] {
				return true
			}
		}
	}
	return false
}

// withCounterparts adds, for a comparison of sides (A, B), after each pick
// whose subject is one side the nearest sentence of the same paragraph
// whose subject is the other: "Quick SCAN only reads the headers …" and,
// two sentences on, "Deep SCAN reads every block …" —
// the difference is the pair.
func (p *pool) withCounterparts(picks []int, sides []string) []int {
	if len(sides) != 2 {
		return picks
	}
	a, b := text.Tokens(sides[0]), text.Tokens(sides[1])
	if len(a) == 0 || len(b) == 0 || slices.Equal(a, b) {
		return picks
	}
	in := map[int]bool{}
	for _, i := range picks {
		in[i] = true
	}
	out := append([]int(nil), picks...)
	ownA, ownB := ownWords(a, b)
	for _, i := range picks {
		var other, otherOwn, own []string
		switch {
		case p.opensWith(i, a) || p.labelIs(i, a) || p.mentionsOnly(i, ownA, ownB):
			other, otherOwn, own = b, ownB, ownA
		case p.opensWith(i, b) || p.labelIs(i, b) || p.mentionsOnly(i, ownB, ownA):
			other, otherOwn, own = a, ownA, ownB
		default:
			continue
		}
		if p.labelIs(i, a) || p.labelIs(i, b) {
			// Two entries compared ("HISTSIZE" and "SAVEHIST"): the other
			// side's entry opens with its own definition.
			if j := p.entryOpening(other); j >= 0 && !in[j] && !p.duplicates(j, out) {
				in[j] = true
				out = append(out, j)
			}
			continue
		}
		lo, hi := p.paragraphSpan(i)
		best := -1
		for j := lo; j < hi; j++ {
			if j != i && (p.opensWith(j, other) || p.mentionsOnly(j, otherOwn, own)) && (best < 0 || abs(j-i) < abs(best-i)) {
				best = j
			}
		}
		if best >= 0 && !in[best] && !p.duplicates(best, out) {
			in[best] = true
			out = append(out, best)
		}
	}
	return out
}

// mentionsOnly reports whether sentence i names side (its own words, set
// apart from the other side's) and not the other: "For directories, a
// different base-mode of 0777 is used." is about directories.
func (p *pool) mentionsOnly(i int, side, other []string) bool {
	s := &p.sents[i]
	if len(side) == 0 || len(other) == 0 {
		return false
	}
	return !slices.ContainsFunc(side, func(t string) bool { return !s.set[t] }) && !slices.ContainsFunc(other, func(t string) bool { return s.set[t] })
}

// labelIs reports whether sentence i is written under a label that is
// side ("HISTSIZE <S>" for side HISTSIZE).
func (p *pool) labelIs(i int, side []string) bool {
	return labelIs(p.sents[i].label, side)
}

// labelIs reports whether label l is side, without the marks after a
// term ("HISTSIZE <S>").
func labelIs(l string, side []string) bool {
	if l == "" {
		return false
	}
	if n := termName(l); n != "" {
		l = n
	}
	return slices.Equal(text.Tokens(l), side)
}

// entryOpening returns the first sentence of the entry labelled side, on
// the most relevant page that has one, or -1.
func (p *pool) entryOpening(side []string) int {
	e := p.bestEntry(func(label string, _ int) bool { return labelIs(label, side) })
	if len(e.sents) == 0 {
		return -1
	}
	return e.sents[0]
}

// opensWith reports whether sentence i's first tokens are side's, as its
// subject: "Quick SCAN (without DEEP) only …" opens with "quick SCAN",
// not with "deep SCAN".
func (p *pool) opensWith(i int, side []string) bool {
	toks := p.sents[i].toks
	if len(toks) < len(side) {
		return false
	}
	return text.Containment(side, text.NewSet(toks[:len(side)])) == 1
}

// inReadingOrder groups picks by source (sources in the order of their
// best pick) and orders each group as the source does, so that quoted
// sentences read in the order they were written.
func (p *pool) inReadingOrder(picks []int) []int {
	rank := map[int]int{}
	for n, i := range picks {
		if _, ok := rank[p.sents[i].src]; !ok {
			rank[p.sents[i].src] = n
		}
	}
	out := append([]int(nil), picks...)
	sort.SliceStable(out, func(a, b int) bool {
		sa, sb := p.sents[out[a]], p.sents[out[b]]
		if sa.src != sb.src {
			return rank[sa.src] < rank[sb.src]
		}
		return sa.pos < sb.pos
	})
	return out
}

// A sentence beside a lead that states the answer in the form asked must
// add to it: the report's length follows the evidence. It adds when it
// says a word of the question no sentence quoted says, belongs to an
// entry the question names, continues the lead (the next sentences of
// its paragraph, its entry's prose), or scores above the lead. While no
// lead states the answer in the form asked, what the lead's words cover
// proves nothing, and the rest of the rules beside a lead decide.

// addsToAnswer reports whether sentence i adds to the answer to c that
// quoted (the sentences already quoted beside leads) give.
func (p *pool) addsToAnswer(c criterion, i int, quoted, leads []int) bool {
	box := p.sents[i].box
	switch {
	case !p.keepsCondition(c, i, quoted):
		return false
	case box && !slices.ContainsFunc(quoted, func(j int) bool { return p.sameEntry(i, j) }):
		return false // a line of another entry's box states a value of that entry
	case p.addsTerm(c, i, quoted):
		return true
	case p.inNamedEntry(c, i) && !box && !slices.ContainsFunc(leads, func(l int) bool { return p.sameEntry(i, l) && p.givesAnswer(c, l) }):
		return true // the asked entry's prose, until a sentence of its own states the answer; a line of its box only by what it says
	case p.saysAll(c, i) && p.addsDatum(i, quoted):
		return true // the whole of what was asked with a figure of its own: another answer, or one that disagrees
	case box && p.asksKey(c, i) && !slices.ContainsFunc(quoted, func(j int) bool {
		return p.sents[j].box && p.sameEntry(i, j) && boxKeyOf(p.sents[j].text) == boxKeyOf(p.sents[i].text)
	}):
		return true // another line of a quoted entry's box that states another attribute asked ("Minimum: 5" beside "Default: 100")
	case !slices.ContainsFunc(leads, func(l int) bool { return p.givesAnswer(c, l) }):
		// No lead states the answer in its form. A part of a form
		// (a cause, a command) takes what its rules allow; a part of
		// no form, or a box line, takes what may answer it: a figure or
		// quoted term of its own beside half the part's words, or all
		// of the part but the noun it asks for.
		if c.style != stylePlain && !box || p.addsDatum(i, quoted) && p.saysHalf(c, i) || p.saysAllBut(c, i) {
			return true
		}
	}
	for _, l := range leads {
		// Once a lead states the value asked, the rest of its entry and
		// the sentences after it tell of other things; a comparison's
		// sides are described by them.
		gives := !c.compare && p.givesAnswer(c, l)
		if p.sents[l].label != "" && !box && p.sameEntry(i, l) && !gives ||
			p.continues(i, l) && !(gives && (asksValue(c) || p.sents[l].box || p.boxOfLead(c, l) >= 0)) {
			return true
		}
	}
	return false
}

// asksValue reports whether c asks for a value (a figure, a setting's
// value), not for a list, a cause or an instruction.
func asksValue(c criterion) bool {
	return (c.style == styleValue || c.needsNum) && c.enum == ""
}

// boxKeyOf returns the key of a box line ("Default" of "Default: 100"),
// or "" when line is none.
func boxKeyOf(line string) string {
	if m := boxLineRe.FindStringSubmatch(line); m != nil {
		return strings.ToLower(m[1])
	}
	return ""
}

// asksKey reports whether box line i's key names an attribute c asks for
// in words of its own ("Minimum" for "… the default and the minimum value
// …"), not in the name of the thing asked.
func (p *pool) asksKey(c criterion, i int) bool {
	// "max" of "max_vcl_handling" asks no maximum.
	own := strings.ToLower(c.text)
	for _, n := range c.identNames {
		own = strings.ReplaceAll(own, n, " ")
	}
	words := text.Tokens(own)
	return slices.ContainsFunc(text.Tokens(boxKeyOf(p.sents[i].text)), func(t string) bool {
		return attributeWords[t] && slices.Contains(c.core, t) && slices.Contains(words, t)
	})
}

// keepsCondition reports whether sentence i keeps to the figures c
// names as its condition ("set to 0", "in 2.4.53 and earlier"): it writes
// them, or goes on from a sentence of quoted. A sentence of the same
// entry that does not is about the entry under another condition.
func (p *pool) keepsCondition(c criterion, i int, quoted []int) bool {
	figs := figuresOf(c.text)
	if len(figs) == 0 || holdsFigures(p.sents[i].text, figs) {
		return true
	}
	return slices.ContainsFunc(quoted, func(l int) bool { return p.continues(i, l) })
}

// datumRe finds what a sentence can answer a question of no particular
// form with: a figure, or a term set in quotes.
var datumRe = regexp.MustCompile(`\d+(?:[.,]\d+)*|[“"][^”"]{2,60}[”"]`)

// addsDatum reports whether sentence i states a figure or a quoted term
// that none of quoted does: a question of no form the engine recognises
// may be answered by it ("I will call it “immediate resolution”", "capped
// at 256").
func (p *pool) addsDatum(i int, quoted []int) bool {
	for _, d := range datumRe.FindAllString(p.sents[i].text, -1) {
		if !slices.ContainsFunc(quoted, func(j int) bool { return strings.Contains(p.sents[j].text, d) }) {
			return true
		}
	}
	return false
}

// addsTerm reports whether sentence i says a word of c (or a word that
// means the same) that none of quoted says; the question's setting ("…
// in PostgreSQL") does not count.
func (p *pool) addsTerm(c criterion, i int, quoted []int) bool {
	title := p.docs[p.sents[i].src].title
	for _, t := range c.core {
		// A word of its page's title is what the page is about, not
		// something the sentence adds: an article's opening repeats
		// its headline.
		if !p.context[t] && !title[t] && p.says(c, i, t) && !slices.ContainsFunc(quoted, func(j int) bool { return p.saysWord(c, j, t) }) {
			return true
		}
	}
	return false
}

// says reports whether sentence i, or its label, says the word t of c,
// or a word that means the same.
func (p *pool) says(c criterion, i int, t string) bool {
	s := &p.sents[i]
	return p.saysWord(c, i, t) || slices.ContainsFunc(c.meanings[t], func(m string) bool { return s.set[m] })
}

// saysWord reports whether sentence i, or its label, says the word t of
// c itself, in any of its forms: a word of like meaning quoted already
// ("reverse") does not say what a new sentence's own word ("return") does.
func (p *pool) saysWord(c criterion, i int, t string) bool {
	s := &p.sents[i]
	if s.set[t] || slices.Contains(text.Tokens(s.label), t) {
		return true
	}
	return slices.ContainsFunc(c.forms[t], func(m string) bool { return s.set[m] })
}

// saysAllBut reports whether sentence i says every word of c but its
// setting and one more, of three or more: the noun it asks for, which an
// answer names by a member ("creates B-tree indexes" for "Which index
// type does it create?").
func (p *pool) saysAllBut(c criterion, i int) bool {
	n, missing := p.unsaid(c, i)
	return n >= 3 && missing <= 1
}

// saysHalf reports whether sentence i says at least half the words of c
// but its setting.
func (p *pool) saysHalf(c criterion, i int) bool {
	n, missing := p.unsaid(c, i)
	return 2*(n-missing) >= n
}

// saysAll reports whether sentence i says every word of c but its
// setting: it says what was asked, in the question's words or words of
// the same meaning.
func (p *pool) saysAll(c criterion, i int) bool {
	_, missing := p.unsaid(c, i)
	return len(c.core) > 0 && missing == 0
}

// unsaid counts the words of c but its setting (n), and those of them
// sentence i does not say (missing).
func (p *pool) unsaid(c criterion, i int) (n, missing int) {
	for _, t := range c.core {
		if p.context[t] {
			continue
		}
		n++
		if !p.says(c, i, t) {
			missing++
		}
	}
	return n, missing
}

// continueSpan is how many sentences after a lead, in its section, go on
// with what it says.
const continueSpan = 2

// continues reports whether sentence i is one of the continueSpan
// sentences after lead in its section.
func (p *pool) continues(i, lead int) bool {
	a, b := &p.sents[i], &p.sents[lead]
	return a.src == b.src && a.section == b.section && a.pos > b.pos && a.pos-b.pos <= continueSpan
}

// givesAnswer reports whether lead l states the answer to c in the form
// c asks for: the value asked (stated outright, in its entry's box or a
// sentence of its entry), a cause, an instruction. A part of no
// particular form has none to recognise.
func (p *pool) givesAnswer(c criterion, l int) bool {
	switch {
	case c.style == styleValue || c.needsNum || c.enum != "":
		// A lead that says what was asked in the question's own words
		// and gives the figure asked ("Amazon bought Whole Foods in
		// August 2017 for $13.7 billion") states the answer whole; a
		// part that asks for an attribute ("at most", "the default") or
		// a count is answered only by a sentence that states it.
		return p.answerTier(c, l) >= 2 || p.sents[l].box || p.boxOfLead(c, l) >= 0 || p.valueOfEntry(c, l) >= 0 ||
			c.enum != "" && seriesRe.MatchString(p.sents[l].text) ||
			!namesAttribute(c) && c.counted == "" && p.answersType(c, l) && p.saysAll(c, l)
	case c.style == stylePlain:
		return false
	}
	return p.styled(c, l) > 1
}

// answersOf returns, of each part's lead sentences, those that state
// the answer to c (answering).
func (p *pool) answersOf(c criterion, ls []lead) []int {
	var out []int
	for _, l := range ls {
		if len(l.sents) > 0 {
			out = append(out, p.answering(c, l.sents)...)
		}
	}
	return out
}

// namesSide reports whether sentence i, or its label, names one of the
// two sides of a comparison by the words that set it apart.
func (p *pool) namesSide(i int, sides []string) bool {
	ownA, ownB := ownWords(text.Tokens(sides[0]), text.Tokens(sides[1]))
	s := &p.sents[i]
	lab := text.NewSet(text.Tokens(s.label))
	names := func(own []string) bool {
		return len(own) > 0 && !slices.ContainsFunc(own, func(t string) bool { return !s.set[t] && !lab[t] })
	}
	for k, own := range [][]string{ownA, ownB} {
		switch {
		case len(text.Tokens(sides[k])) == 0:
			// A side of no words of its own ("may", a value of a
			// setting, which prose uses as a verb) is named as a value
			// is written: after "=", or in quotes.
			if writesValue(s.text+" "+s.label, sides[k]) {
				return true
			}
		case len(own) == 0, names(own):
			return true // a side whose words the other holds too tells nothing apart
		}
	}
	return false
}

// writesValue reports whether s writes v as a value: after "=" or ":",
// or in quotes.
func writesValue(s, v string) bool {
	s, v = strings.ToLower(s), strings.ToLower(v)
	for at := 0; v != ""; {
		k := strings.Index(s[at:], v)
		if k < 0 {
			return false
		}
		k += at
		quote, _ := utf8.DecodeLastRuneInString(s[:k])
		sign, _ := utf8.DecodeLastRuneInString(strings.TrimRight(s[:k], " \t"))
		after, _ := utf8.DecodeRuneInString(s[k+len(v):])
		if (strings.ContainsRune("\"“'`", quote) || sign == '=' || sign == ':') && !unicode.IsLetter(after) && !unicode.IsDigit(after) && after != '_' {
			return true
		}
		at = k + len(v)
	}
	return false
}

// ownWords returns what tells two sides apart, the words of each the
// other lacks: "files" and "directories" of "newly created files" and
// "newly created directories".
func ownWords(a, b []string) (ownA, ownB []string) {
	ownA = slices.DeleteFunc(slices.Clone(a), func(t string) bool { return slices.Contains(b, t) })
	ownB = slices.DeleteFunc(slices.Clone(b), func(t string) bool { return slices.Contains(a, t) })
	return ownA, ownB
}
