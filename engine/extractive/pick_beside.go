package extractive

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/text"
)

// Stage 3, beside the lead: what else a part's paragraph may quote — the
// sentences that finish the lead's thought, explain it, or state more of
// the same answer — and what it may not: another entry's lines, a
// restatement, a sentence that adds nothing the lead does not say.

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
func (p picker) withSeconds(c criterion, r ranking, lead int, cands []int, quoted map[int]bool) []int {
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
func (p picker) answerFirst(c criterion, picks []int) []int {
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
func (p picker) answering(c criterion, picks []int) []int {
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

// ofAnotherEntry reports whether sentence j is written under the label
// of another entry than the one c names: "BRACE_CCL: … all the
// characters" lists no character that EXTENDED_GLOB makes special.
func (p picker) ofAnotherEntry(c criterion, j int) bool {
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
func (p picker) withSeries(c criterion, sents []int, quoted map[int]bool) []int {
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
func (p picker) answersTypeOf(sec section, i int) bool {
	for _, c := range sec.criteria {
		if p.bearsOnCriterion(c, i) {
			return true
		}
	}
	return false
}

// bearsOnCriterion reports whether sentence i, beside a lead, bears on c
// (answersTypeOf).
func (p picker) bearsOnCriterion(c criterion, i int) bool {
	return p.isEvidence(c, i) && p.answersType(c, i) && p.coverageWith(c.core, i, p.impliedBy(c, i)) >= restCoverage &&
		(c.style != styleValue || !namesAttribute(c) || p.statesAttribute(c, i)) && !pointerRe.MatchString(p.sents[i].text)
}

// restCoverage is the share of a criterion's words a sentence beyond the
// lead must hold, counting the words it says in other words: as much as
// evidence needs (coverThreshold).
const restCoverage = 0.5

// continuationRe opens a sentence that finishes the thought of the one
// before it ("Instead, Rust wraps the value.").
var continuationRe = regexp.MustCompile(`^(?:Instead|However|Otherwise|In (?:that|this|such a) case|This|That|These|It|They|Then|So|Thus|As a result|For example|In other words|Note that)\b`)

// pronounSubjectRe opens a sentence whose subject, after a short opening
// phrase, is a pronoun for what the sentence before named ("Depending on
// the column types, it is between 250 and 1600.").
var pronounSubjectRe = regexp.MustCompile(`^[A-Z][^,.;:]{0,50},\s+(?:it|this|they|these|that)\s+(?:is|are|was|were|can|cannot|may|must|will|has|have|does|do)\b`)

// consequenceRe opens a sentence that draws a consequence from the one
// before it.
var consequenceRe = regexp.MustCompile(`^(?:As a (?:consequence|result)|For (?:this|that|these) reasons?|This is why|That(?:'s|’s| is) why|Therefore|Hence|Thus|Consequently|Because of this|This means that|It follows that)\b`)

// withExplanation adds, beside the lead of a why-question that only
// restates what was asked ("Setting X to a high value may cause
// performance problems …"), the sentence before it in its paragraph when
// that one gives a cause, else the next sentence of its paragraph, which
// says why ("The higher the timeout, the more processes are kept
// occupied …").
func (p picker) withExplanation(c criterion, sents []int) []int {
	if c.style != styleReason || len(sents) == 0 {
		return sents
	}
	i := sents[0]
	if h := i - 1; h >= 0 && !p.sents[i].para && p.sents[h].src == p.sents[i].src && p.sents[h].pos == p.sents[i].pos-1 &&
		p.sents[h].label == p.sents[i].label && !p.givesReason(c, i) && p.givesReason(c, h) && !slices.Contains(sents, h) {
		// "Offloading causes confusion as … . X gets these sums and
		// displays them as invalid …": the sentence before, in the same
		// paragraph, gives the cause of what the lead says.
		return slices.Insert(sents, 0, h)
	}
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

// withFigureAfter adds, beside the lead of a part that asks for so many
// of a unit ("How many days …"), the next sentence of the lead's
// paragraph when it states a figure in those units: the paragraph goes on
// with the quantity asked, in figures of its own ("For example, 2w
// means two weeks." then "“1m” is taken to mean “31d”.").
func (p picker) withFigureAfter(c criterion, sents []int, quoted map[int]bool) []int {
	if len(c.units) == 0 || len(sents) == 0 {
		return sents
	}
	i, j := sents[0], sents[0]+1
	if j >= len(p.sents) || quoted[j] || slices.Contains(sents, j) {
		return sents
	}
	if s := &p.sents[j]; s.src != p.sents[i].src || s.pos != p.sents[i].pos+1 || s.para || s.label != p.sents[i].label ||
		!s.hasNum || !inUnits(s.text, c.units) {
		return sents
	}
	return slices.Insert(slices.Clone(sents), 1, j)
}

// restatesMost reports whether sentence i holds nearly every word of
// criterion c: it says what was asked, not yet why.
func (p picker) restatesMost(c criterion, i int) bool {
	return p.coverage(c.core, i) >= restateCover
}

// restateCover is the share of a why-question's words above which its
// lead only restates it.
const restateCover = 0.8

// withContinuations adds before a pick that draws a consequence the
// sentence it draws it from, and after each pick the next sentence of its source
// when that sentence continues it, so that a quoted answer is not cut off
// before its point.
func (p picker) withContinuations(picks []int) []int {
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
// opening: "Although the dishes are …", or the definite object of the
// phrase that opens the subject: "A common way to avoid the overhead is
// …".
var definiteRe = regexp.MustCompile(`^(?:[A-Z]\w*\s+){0,3}?(?i:the|these|those|this|that)\s+(\w+)\s+(?:is|are|was|were|will|would|can|could|have|has|had)\b|^[A-Z][^,.;:]{0,40}?\s(?:to|of)\s+\w+\s+(?:the|these|those|this|that)\s+(\w+)\s+(?:is|are|was|were)\b`)

// demonstrativeRe captures the noun of a demonstrative subject opening a
// sentence: "This file keeps …".
var demonstrativeRe = regexp.MustCompile(`^(?:This|These|That|Those)\s+(\w+)\s+\w`)

// bearing is withContinuations, less a sentence that follows a pick and
// holds none of c's own words: "This service sends notifications …" goes
// on about the thing, not about what was asked of it.
func (p picker) bearing(c criterion, compare bool, picks []int) []int {
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
func (p picker) refersBack(i int) bool {
	t := p.sents[i].text
	if consequenceRe.MatchString(t) || clauseRefRe.MatchString(t) || backRefRe.MatchString(t) {
		return true
	}
	h := i - 1
	if h < 0 || p.sents[h].src != p.sents[i].src || p.sents[h].pos != p.sents[i].pos-1 {
		return false
	}
	m := definiteRe.FindStringSubmatch(t)
	if m == nil {
		// "This file keeps track of …" after "… a new file at the top
		// level: Crate.lock.": a demonstrative subject, whatever its verb.
		m = demonstrativeRe.FindStringSubmatch(t)
	}
	if m != nil {
		for _, w := range text.Tokens(strings.Join(m[1:], " ")) {
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
func (p picker) withCounterparts(picks []int, sides []string) []int {
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
		// An entry's label says which side it is, whatever its
		// sentence mentions ("max-ncache-ttl: … in the server's
		// cache" is not of max-cache-ttl).
		case p.labelIs(i, a):
			other, otherOwn, own = b, ownB, ownA
		case p.labelIs(i, b):
			other, otherOwn, own = a, ownA, ownB
		case p.opensWith(i, a) || p.mentionsOnly(i, ownA, ownB):
			other, otherOwn, own = b, ownB, ownA
		case p.opensWith(i, b) || p.mentionsOnly(i, ownB, ownA):
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
func (p picker) mentionsOnly(i int, side, other []string) bool {
	s := &p.sents[i]
	if len(side) == 0 || len(other) == 0 {
		return false
	}
	return !slices.ContainsFunc(side, func(t string) bool { return !s.set[t] }) && !slices.ContainsFunc(other, func(t string) bool { return s.set[t] })
}

// labelIs reports whether sentence i is written under a label that is
// side ("HISTSIZE <S>" for side HISTSIZE).
func (p picker) labelIs(i int, side []string) bool {
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

// entryOpening returns the opening sentence of the entry labelled side
// (entry.opening), on the most relevant page that has one, or -1.
func (p picker) entryOpening(side []string) int {
	e := finder{p.pool}.bestEntry(func(label string, _ int) bool { return labelIs(label, side) })
	if len(e.sents) == 0 {
		return -1
	}
	// Its prose says what it is; a line of its box ("Grammar: …") only
	// how it is written.
	return e.opening(p.pool)
}

// opensWith reports whether sentence i's first tokens are side's, as its
// subject: "Quick SCAN (without DEEP) only …" opens with "quick SCAN",
// not with "deep SCAN".
func (p picker) opensWith(i int, side []string) bool {
	toks := p.sents[i].toks
	if len(toks) < len(side) {
		return false
	}
	return text.Containment(side, text.NewSet(toks[:len(side)])) == 1
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
func (p picker) addsToAnswer(c criterion, i int, quoted, leads []int) bool {
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
func (p picker) asksKey(c criterion, i int) bool {
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
func (p picker) keepsCondition(c criterion, i int, quoted []int) bool {
	if len(c.figures) == 0 || holdsFigures(p.sents[i].text, c.figures) {
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
func (p picker) addsDatum(i int, quoted []int) bool {
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
func (p picker) addsTerm(c criterion, i int, quoted []int) bool {
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

// namesSide reports whether sentence i, or its label, names one of the
// two sides of a comparison by the words that set it apart.
func (p picker) namesSide(i int, sides []string) bool {
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
