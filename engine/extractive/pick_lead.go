package extractive

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/quarryhq/quarry/text"
)

// Stage 3, the lead: of a part's candidates, the sentence that states its
// answer — in the asked entry first, of the asked form (a figure in the
// asked unit, a definition, a command, a reason), the value in the
// entry's key/value box beside the prose that names it.

// boxOfLead returns the line of the box of the entry lead describes that
// states what c asks of it: "Default: 300" of the entry whose description
// answers "How often does it poll … by default?" though the question does
// not name the entry. -1 when lead is of no entry or its box has no such
// line.
func (p picker) boxOfLead(c criterion, lead int) int {
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
func (p picker) valueOfEntry(c criterion, lead int) int {
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

// additiveRe opens a sentence that adds to the one before it: "In
// addition, …", "Also, …".
var additiveRe = regexp.MustCompile(`^(?:In addition|Additionally|Also|Furthermore|Moreover|Likewise|Similarly),?\s`)

// addedTo returns the sentence before i in its paragraph when i opens by
// adding to it, -1 otherwise.
func (p picker) addedTo(i int) int {
	s := &p.sents[i]
	if s.para || s.label != "" || !additiveRe.MatchString(s.text) {
		return -1
	}
	if b := p.justBefore(i); b >= 0 && p.sents[b].section == s.section {
		return b
	}
	return -1
}

// describedBy returns, for a lead that states the value of the entry it
// is written under in a sentence of prose and holds too few of c's words
// to say what it is the value of ("Default: 120 seconds." after "Time in
// seconds to wait before retrying …"), the entry's sentence before it
// that best says so; -1 for any other lead. A line of a key/value box is
// quoted with its entry's name instead.
func (p picker) describedBy(c criterion, r ranking, lead int) int {
	s := &p.sents[lead]
	if s.box || p.valueEntryWords(lead) == nil || p.coverage(c.core, lead) >= coverThreshold {
		return -1
	}
	best := -1
	for j := lead - 1; j >= 0 && p.sents[j].src == s.src && p.sents[j].label == s.label; j-- {
		if t := &p.sents[j]; !t.box && !givesValue(t.text) && r.scores[j] > 0 && (best < 0 || r.scores[j] > r.scores[best]) {
			best = j
		}
	}
	return best
}

// statesAskedAttribute reports whether sentence j states, with a figure,
// an attribute c asks for by name ("The default value is 101").
func (p picker) statesAskedAttribute(c criterion, j int) bool {
	t := &p.sents[j]
	gives := givesValue(t.text)
	figure := t.hasNum && (gives || statesValue(t.text))
	if t.box || !figure && (c.style == styleValue && !quotedValueRe.MatchString(t.text) || c.needsNum || !gives) {
		// A value that is no figure ("The default value is: png.")
		// answers only a part that asks for no figure, or one that asks
		// for a value when it is written as one, in quotes ("The
		// default is "warn".").
		return false
	}
	if !slices.ContainsFunc(c.core, func(w string) bool { return attributeWords[w] }) {
		// "How many nodes will it draw before it cuts the graph
		// short?" names no attribute: the entry's figure asked is the
		// one it holds unless set, its default.
		_, howMany := askedWord(c.text)
		return howMany && t.set[defaultToken]
	}
	return slices.ContainsFunc(c.core, func(w string) bool { return attributeWords[w] && t.set[w] })
}

// quotedValueRe finds a value written in quotes: a word or two, as a
// setting takes it.
var quotedValueRe = regexp.MustCompile(`["“][^"”\s]+(?:\s[^"”\s]+)?["”]`)

// ofEntry returns sents without the sentences of entries other than
// lead's that do not name lead's entry.
func (p picker) ofEntry(sents []int, lead int) []int {
	return slices.DeleteFunc(slices.Clone(sents), func(i int) bool { return !p.inScope(i, []int{lead}) })
}

// inNamedEntry reports whether sentence i is of the entry of an
// identifier c names ("AUTO_CD", "message_size_limit"), not only of one
// whose name is an ordinary word of the question.
func (p picker) inNamedEntry(c criterion, i int) bool {
	l := strings.ToLower(p.sents[i].label)
	return l != "" && slices.ContainsFunc(c.identNames, func(n string) bool { return labelNames(l, n) })
}

// sameEntry reports whether sentences i and j are of one entry of one
// page.
func (p picker) sameEntry(i, j int) bool {
	return p.sents[i].src == p.sents[j].src && p.sents[i].label == p.sents[j].label
}

// ofOtherEntry reports whether sentence i is of an entry other than the
// entries of leads, whatever it names; false when leads is empty.
func (p picker) ofOtherEntry(i int, leads []int) bool {
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
func (p picker) inScope(i int, leads []int) bool {
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
func (p picker) leadOf(c criterion, r ranking, e entry, cands []int) int {
	if len(e.sents) > 0 {
		// The entry's best evidence, a sentence of the asked form first
		// ("Maximum value is 4095." over the entry's description), then
		// one that holds the figures the question names ("If X is 0, …"
		// for "What happens when X is set to 0?").
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
			f := holdsFigures(p.sents[i].text, c.figures)
			if best < 0 || t > bestTier || t == bestTier && (f && !bestFigs || f == bestFigs && r.scores[i] > r.scores[best]) {
				best, bestTier, bestFigs = i, t, f
			}
		}
		opening := e.opening(p.pool)
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
	if typed, _ := p.typedLead(c, r, p.valuesBeside(c, r, cands)); typed >= 0 {
		return typed
	}
	if (c.style == styleValue || c.needsNum) && c.enum == "" && !c.member {
		return -1 // a value question is not answered without a value
	}
	first, news := -1, -1
	for _, i := range cands {
		if !r.evidenceFor(p.pool, c, i) {
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
func (p picker) answerBesideEntry(c criterion, r ranking, e entry, cands []int) int {
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
		if !slices.Contains(e.sents, i) && r.evidenceFor(p.pool, c, i) && saysOwn(i) {
			return i
		}
	}
	return -1
}

// mostAsked returns, of the candidates near first's score that are
// evidence and pass ok, the one that says most of what is asked beyond
// its page's title (untitled); first when none says more.
func (p picker) mostAsked(c criterion, r ranking, cands []int, first int, ok func(int) bool) int {
	best, most := first, p.untitled(c, first)
	for _, i := range cands {
		if i == first || r.scores[i] < leadNear*r.scores[first] || !r.evidenceFor(p.pool, c, i) || !ok(i) {
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
func (p picker) untitled(c criterion, i int) int {
	title := p.docs[p.sents[i].src].title
	n := 0
	for _, t := range c.core {
		if !p.context[t] && !title[t] && p.says(c, i, t) {
			n++
		}
	}
	return n
}

// valuesBeside returns cands and, after them, the relevant sentences
// beside a candidate, in its section, that state a value in the form c
// asks for: a page gives the value in a short sentence of its own next
// to those that say what it is of and how to change it ("The prefix is
// set by tally-prefix." / "The default value is “tallyhost”." / "To
// change it, set it to the desired string:"), and ranked below them it
// is not among the candidates a large page gives.
func (p picker) valuesBeside(c criterion, r ranking, cands []int) []int {
	var more []int
	for _, k := range cands {
		for i := max(0, k-continueSpan); i <= k+continueSpan && i < len(p.sents); i++ {
			if (p.continues(i, k) || p.continues(k, i)) && !slices.Contains(cands, i) && !slices.Contains(more, i) &&
				r.relevant(i, minRelative) && p.answerTier(c, i) >= 2 {
				more = append(more, i)
			}
		}
	}
	slices.Sort(more)
	return slices.Concat(cands, more)
}

// continueSpan is how many sentences after a lead, in its section, go on
// with what it says.
const continueSpan = 2

// continues reports whether sentence i is one of the continueSpan
// sentences after lead in its section.
func (p picker) continues(i, lead int) bool {
	a, b := &p.sents[i], &p.sents[lead]
	return a.src == b.src && a.section == b.section && a.pos > b.pos && a.pos-b.pos <= continueSpan
}

// typedLead returns the candidate that states the value c asks for most
// directly, and its answerTier; -1 when none has the asked form.
func (p picker) typedLead(c criterion, r ranking, cands []int) (int, int) {
	typed, tier, cover, lent, counts := -1, 0, 0.0, false, false
	for _, i := range cands {
		if !r.evidenceFor(p.pool, c, i) {
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
		case p.valueOfEntry(c, i) >= 0:
			// So does a sentence of that entry ("The default value is
			// 101"), whatever its rank: i leads and it follows. Where
			// it is a candidate itself, it leads instead (the
			// tie-break below prefers the value stated itself).
			t, l = 2, true
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

// echoesFigures reports whether every figure sentence i writes is one
// the part writes itself: "Never use mode 0 in production" states no
// figure for "With mode 0 set, how many retries does it make?".
func (p picker) echoesFigures(c criterion, i int) bool {
	if len(c.figures) == 0 {
		return false
	}
	s := &p.sents[i]
	have := figureRe.FindAllString(s.text+" "+s.code, -1)
	return len(have) > 0 && !slices.ContainsFunc(have, func(f string) bool { return !slices.Contains(c.figures, f) })
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
func (p picker) asksOnlyEntry(c criterion) bool {
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
func (p picker) namesAskedNoun(c criterion, i int) bool {
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
func (p picker) answerTier(c criterion, i int) int {
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

// givesAnswer reports whether lead l states the answer to c in the form
// c asks for: the value asked (stated outright, in its entry's box or a
// sentence of its entry), a cause, an instruction. A part of no
// particular form has none to recognise.
func (p picker) givesAnswer(c criterion, l int) bool {
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

// restateShare is the share of a sentence's words that are the
// criterion's own above which it only restates what was asked.
const restateShare = 0.6

// restates reports whether sentence i only restates criterion c: most of
// its words are c's ("X is being investigated by Y" for "why is Y
// investigating X"), so it cannot say why or how.
func (p picker) restates(c criterion, i int) bool {
	s := &p.sents[i]
	if len(s.toks) == 0 {
		return true
	}
	own := 0
	for _, t := range text.Unique(s.toks) {
		// A bare "Why?" after a statement has the statement's words as
		// its core, below a part's own weight in its query.
		if c.query[t] >= 1 || slices.Contains(c.core, t) {
			own++
		}
	}
	return float64(own) >= restateShare*float64(len(text.Unique(s.toks)))
}

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
func (p picker) answersType(c criterion, i int) bool {
	s := &p.sents[i]
	switch {
	case c.style == styleValue || c.needsNum:
		if s.box {
			return p.statesAttribute(c, i) || p.namesKey(c, i) && p.inAskedEntry(c, i) // "Default: …" for the default, not "Context: …"
		}
		return s.hasNum && !p.echoesFigures(c, i) || statesValue(s.text) || s.code != "" || quantityRe.MatchString(s.text) || givesValue(s.text) ||
			!c.needsNum && namesPath(c, s.text)
	case c.style == styleReason:
		return p.givesReason(c, i) || c.advice && adviceSentRe.MatchString(s.text)
	}
	return true
}

// namesPath reports whether s writes a file name or path that the
// question does not ("cachegrind.out.<pid>", "/etc/app.conf"): the value
// of a question that asks for a name, not a figure. (A setting's name,
// "FILES_TTL", is what a value is of, not a value.)
func namesPath(c criterion, s string) bool {
	asked := strings.ToLower(c.text)
	for _, w := range strings.Fields(s) {
		w = strings.Trim(w, ",;:()[]\"'`“”‘’")
		w = strings.TrimRight(w, ".")
		if strings.ContainsAny(w, "./") && isTechnical(w) && !strings.Contains(asked, strings.ToLower(w)) {
			return true
		}
	}
	return false
}

// namedValueLead returns, for a question asking a value, the best scored
// sentence that says what is asked but for the value, through a setting
// it names ("If a file was not seen in FILES_TTL backups, its entry is
// removed."), with the sentence that states that setting's value
// ("FILES_TTL: … (default: 20)"), when it outscores lead; (-1, -1)
// otherwise.
func (p picker) namedValueLead(c criterion, r ranking, lead int) (int, int) {
	if c.style != styleValue && !c.needsNum {
		return -1, -1
	}
	var cands []int
	for j := range p.sents {
		s := &p.sents[j]
		if lead >= 0 && r.scores[j] <= r.scores[lead] || r.scores[j] < minRelative*r.top ||
			s.hasNum || s.box || !strings.Contains(s.text, "_") || p.coverage(c.core, j) < coverThreshold {
			continue
		}
		cands = append(cands, j)
	}
	// The best scored first; of equal scores, the first read.
	slices.SortStableFunc(cands, func(a, b int) int { return cmp.Compare(r.scores[b], r.scores[a]) })
	for _, j := range cands {
		for _, name := range settingNames(p.sents[j].text) {
			if v := p.valueOfSetting(c, name); v >= 0 {
				return j, v
			}
		}
	}
	return -1, -1
}

// settingNames returns the names of settings sentence s writes: words
// joined by underscores, as code writes them ("FILES_CACHE_TTL",
// "max_clients").
func settingNames(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		w := strings.Trim(f, ",.;:!?()[]{}\"'`“”‘’")
		if strings.Contains(w, "_") && len(w) > 3 && strings.Trim(w, "_") != "" {
			out = append(out, w)
		}
	}
	return out
}

// valueOfSetting returns the sentence of the entry labelled name, or one
// that names it, that states the attribute c asks of a value ("(default:
// 20)", "defaults to 20"), or -1.
func (p picker) valueOfSetting(c criterion, name string) int {
	for i := range p.sents {
		s := &p.sents[i]
		if !s.hasNum || !strings.EqualFold(strings.TrimSpace(s.label), name) && !strings.Contains(s.text, name) {
			continue
		}
		if p.statesAskedAttribute(c, i) || s.box && p.statesAttribute(c, i) {
			return i
		}
	}
	return -1
}
