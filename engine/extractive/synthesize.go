package extractive

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// choose picks the sentences of every section: evidence ranked per
// section and homed where it fits best, then the summary from the
// sections' best and the question as a whole, then the sentences that
// finish a picked one's thought.
func (p *pool) choose(ctx context.Context, secs []section, budget research.Budget, question string, gq text.Query, goal []string) ([][]int, error) {
	exact := exactTerms(question)
	why := kindOf(question) == kindWhy
	perSection, perSummary := sentenceBudget(budget)
	picks := make([][]int, len(secs))
	ranked := make([]ranking, len(secs))
	for si, sec := range secs {
		if !sec.summary {
			ranked[si] = p.rankSection(sec, exact, p.siblingWords(secs, si))
		}
	}
	home := p.homes(secs, ranked)
	sides := analyse(question).compare
	var used []int
	for si, sec := range secs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("synthesize: %w", err)
		}
		if !sec.summary {
			picks[si] = p.pickSection(si, ranked[si], home, perSection, used)
			for _, c := range sec.criteria {
				picks[si] = p.enumerate(c, picks[si], ranked[si].scores)
				if e := p.optionEntry(c, ranked[si].scores); e >= 0 && !slices.Contains(picks[si], e) && !slices.Contains(used, e) {
					picks[si] = append([]int{e}, picks[si]...)
				}
			}
			picks[si] = p.withCounterparts(picks[si], sides)
			used = append(used, picks[si]...)
		}
	}
	for si, sec := range secs {
		if sec.summary {
			ask := newCriterion(question, question, goal, nil)
			picks[si] = p.pickSummary(gq, coreOf(goal), perSummary, secs, picks, why, ask)
		}
	}
	for si, sec := range secs {
		if sec.summary || !allGeneric(sec.criteria) {
			picks[si] = p.withContinuations(picks[si])
		}
	}
	return picks, nil
}

// writeSection emits one section: its heading, then the summary as a
// paragraph or the section's quotes as a list in reading order, or the
// undetermined sentence when nothing was found.
func (p *pool) writeSection(sec section, chosen []int, emit func(string)) {
	emit("## " + sec.heading + "\n\n")
	if len(chosen) == 0 {
		emit(research.Undetermined + "\n\n")
		return
	}
	if sec.summary {
		// The summary leads with the main answer.
		for n, i := range chosen {
			sep := " "
			if n == len(chosen)-1 {
				sep = "\n\n"
			}
			emit(quote(p, i) + sep)
		}
		return
	}
	for _, i := range p.inReadingOrder(chosen) {
		emit("- " + quote(p, i) + "\n")
	}
	for _, d := range p.disagreements(sec, chosen) {
		emit("- " + d + "\n")
	}
	// In a section that answers several criteria, name the ones it could
	// not answer.
	if len(sec.criteria) > 1 {
		for _, c := range sec.criteria {
			if !anyEvidence(p, c, chosen) {
				emit("- " + escapeMarkdown(strings.TrimRight(c.text, "?")) + ": " + research.Undetermined + "\n")
			}
		}
	}
	emit("\n")
}

// summaryRelative is minRelative for the summary's sentences beyond the
// sections' best: only strong answers to the whole question.
const summaryRelative = 0.5

// minRelative drops a candidate scoring under this share of the section's
// best: better a short section than padding.
const minRelative = 0.3

// Synthesize writes the report by quoting, per section, the most relevant
// well-formed sentences of the sources verbatim, each ending in its [S#].
// A criterion without evidence gets research.Undetermined. On a repair pass
// the sentences named in the feedback are not used again.
func (e *Engine) Synthesize(ctx context.Context, req engine.SynthesisRequest, stream func(string)) (string, engine.Usage, error) {
	banned := bannedSentences(req.Feedback, req.Previous)
	p := newPool(req.Sources, req.Prior, banned)
	question := req.Question
	if strings.TrimSpace(question) == "" {
		question = req.Spec.Goal
	}
	goal := text.Tokens(question + " " + req.Spec.Goal)
	extra := text.Tokens(req.Clarification)
	gq := text.Query{}
	gq.Add(extra, 0.5)
	gq.Add(goal, 1)
	p.setRelevance(gq)
	p.context = contextWords(question)

	// Choose first, then write: the summary previews the sections.
	secs := layout(req.Spec, question, goal, extra)
	picks, err := p.choose(ctx, secs, req.Budget, question, gq, goal)
	if err != nil {
		return "", engine.Usage{}, err
	}
	var b strings.Builder
	emit := func(s string) {
		b.WriteString(s)
		if stream != nil {
			stream(s)
		}
	}
	for si, sec := range secs {
		if err := ctx.Err(); err != nil {
			return b.String(), engine.Usage{}, fmt.Errorf("synthesize: %w", err)
		}
		p.writeSection(sec, picks[si], emit)
	}
	return strings.TrimRight(b.String(), "\n") + "\n", engine.Usage{}, nil
}

// pickSummary chooses the summary: the best sentence of each section that
// answers a criterion of the question itself (not a generic one) and, for
// a why-question, of the section of reasons, then the sentences that best
// answer the question as a whole.
func (p *pool) pickSummary(q text.Query, core []string, k int, secs []section, picks [][]int, why bool, ask criterion) []int {
	var chosen []int
	for si, sec := range secs {
		if len(chosen) >= k || sec.summary || len(picks[si]) == 0 || allGeneric(sec.criteria) && !(why && givesReasons(sec)) {
			continue
		}
		if i := picks[si][0]; !p.duplicates(i, chosen) {
			chosen = append(chosen, i)
		}
	}
	if len(chosen) >= k {
		return chosen
	}
	scores := p.scores(q)
	// Not the entry of another setting that shares the asked one's words.
	accept := func(i int) bool { return p.coverage(core, i) >= coverThreshold && !p.labelsAnother(ask, i) }
	return append(chosen, p.pick(scores, k-len(chosen), accept, chosen, summaryRelative)...)
}

// givesReasons reports whether sec gathers reasons ("What are the main
// reasons given for …"): the answer to a why-question.
func givesReasons(sec section) bool {
	for _, c := range sec.criteria {
		if slices.Contains(text.Tokens(c.text), reasonStem) {
			return true
		}
	}
	return false
}

var reasonStem = text.Stem("reasons")

func allGeneric(cs []criterion) bool {
	for _, c := range cs {
		if !c.generic {
			return false
		}
	}
	return true
}

// exactBoost multiplies the score of a sentence that names an identifier of
// the question exactly ("max_clients", "json.Marshal", "--release").
const exactBoost = 1.3

// exactTerms are the identifiers and quoted phrases of a question, lower
// case: words a documentation page repeats verbatim.
func exactTerms(question string) []string {
	var out []string
	for _, e := range entities(question) {
		if isTechnical(e) || strings.Contains(e, " ") && quotedRe.MatchString(question) {
			out = append(out, strings.ToLower(e))
		}
	}
	return out
}

// mentionsExactly reports whether sentence i (with its label and command)
// contains one of terms as written.
func (p *pool) mentionsExactly(i int, terms []string) bool {
	if len(terms) == 0 {
		return false
	}
	s := &p.sents[i]
	l := strings.ToLower(s.label + " " + s.text + " " + s.code)
	for _, t := range terms {
		if containsTerm(l, t) {
			return true
		}
	}
	return false
}

// containsTerm reports whether s holds t as a whole term: "sort_mem" is
// not mentioned by "bulk_sort_mem".
func containsTerm(s, t string) bool {
	for off := 0; ; {
		k := strings.Index(s[off:], t)
		if k < 0 {
			return false
		}
		start, end := off+k, off+k+len(t)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if !isTermRune(before) && !isTermRune(after) {
			return true
		}
		off = start + 1
	}
}

func isTermRune(r rune) bool {
	return r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// namesFlag reports whether sentence i (or the label it describes) names a
// command-line flag that criterion c asks about: "-q: Suppress all
// output …" answers "What does the -q option do?" in the manual's words.
func (p *pool) namesFlag(c criterion, i int) bool {
	s := &p.sents[i]
	for _, t := range c.core {
		if strings.HasPrefix(t, flagPrefix+"-") && (s.set[t] || s.head[t]) {
			return true
		}
	}
	return false
}

// pointerRe matches a sentence that sends the reader elsewhere for what
// it names ("Section 2 describes the steps …", "See the --depth option
// for details", "… as described in chapter 4"): it names the asked words
// without giving the answer.
var pointerRe = regexp.MustCompile(`(?i)^(?:(?:section|chapter|appendix)\s+[\d.]+\s+(?:describes|explains|covers|shows|lists)|see\s)|\b(?:is|are)\s+(?:described|explained|covered|documented)\s+(?:in|below|above|later)\b`)

// pointerWeight scales the score of a pointer sentence: below any sentence
// that answers in its own words.
const pointerWeight = 0.6

// ranking is a section's scores over the pool and its evidence test.
type ranking struct {
	scores []float64
	top    float64
	accept func(int) bool
}

// rankSection scores every sentence for a section: against its heading,
// criteria and the question, sentences of the form its criteria ask for
// ranking higher; evidence is a sentence that answers one of its criteria.
func (p *pool) rankSection(sec section, exact []string, siblings [][]string) ranking {
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
	return r
}

// siblingPenalty scales the score, in a section answering one part of a
// question, of a sentence that holds what another part asks and this one
// does not: "snapshots not referenced by any branch … 14 days" answers
// the part about unreferenced snapshots, not "how long are snapshots kept".
const siblingPenalty = 0.5

// siblingWords returns, for section si, the words that set apart each other
// part of the question: the core of another section's own criteria that si
// neither asks nor leans on, without value words and the words of every
// page. Generic sections (templates) are no parts.
func (p *pool) siblingWords(secs []section, si int) [][]string {
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
func (p *pool) answersSibling(i int, siblings [][]string) bool {
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
func (p *pool) homes(secs []section, ranked []ranking) []int {
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

// pickSection chooses the sentences of section si: evidence whose home it
// is, unlike the sentences already in the report. When it gets none, it
// takes evidence homed elsewhere but unused, and as a last resort repeats
// the best sentence rather than leave a known answer out.
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

// optionEntry returns the opening sentence of the entry that describes
// the command-line option criterion c asks about (the sentence labelled
// "--sort, --no-sort"), the best scored when several pages describe it,
// or -1. A manual's own entry for an option is the answer to "what does
// --sort do", however long its first sentence runs and
// however many other sentences mention the option in passing.
func (p *pool) optionEntry(c criterion, scores []float64) int {
	if c.generic {
		return -1
	}
	var flags []string
	for _, t := range c.core {
		if strings.HasPrefix(t, flagPrefix+"-") {
			flags = append(flags, t)
		}
	}
	if len(flags) == 0 {
		return -1
	}
	best := -1
	for i := range p.sents {
		s := &p.sents[i]
		if s.label == "" || i > 0 && p.sents[i-1].src == s.src && p.sents[i-1].label == s.label {
			continue // not the first sentence of a labelled entry
		}
		named := false
		for _, f := range flagTokens(s.label) {
			named = named || slices.Contains(flags, f)
		}
		if named && scores[i] > 0 && (best < 0 || scores[i] > scores[best]) {
			best = i
		}
	}
	return best
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
	for _, i := range picks {
		var other []string
		switch {
		case p.opensWith(i, a):
			other = b
		case p.opensWith(i, b):
			other = a
		default:
			continue
		}
		lo, hi := p.paragraphSpan(i)
		best := -1
		for j := lo; j < hi; j++ {
			if j != i && p.opensWith(j, other) && (best < 0 || abs(j-i) < abs(best-i)) {
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

// paragraphSpan returns the range [lo, hi) of the sentences of sentence i's
// paragraph.
func (p *pool) paragraphSpan(i int) (lo, hi int) {
	s := &p.sents[i]
	lo = i
	for lo > 0 && !p.sents[lo].para && p.sents[lo-1].src == s.src && p.sents[lo-1].section == s.section {
		lo--
	}
	hi = i + 1
	for hi < len(p.sents) && !p.sents[hi].para && p.sents[hi].src == s.src && p.sents[hi].section == s.section {
		hi++
	}
	return lo, hi
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

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
		if h := i - 1; consequenceRe.MatchString(p.sents[i].text) && h >= 0 && !in[h] &&
			p.sents[h].src == p.sents[i].src && p.sents[h].pos == p.sents[i].pos-1 && !p.duplicates(h, out) {
			in[h] = true
			out = append(out, h)
		}
		out = append(out, i)
		j := i + 1
		if j < len(p.sents) && !in[j] && p.sents[j].src == p.sents[i].src && p.sents[j].pos == p.sents[i].pos+1 &&
			(continuationRe.MatchString(p.sents[j].text) || pronounSubjectRe.MatchString(p.sents[j].text)) && !p.duplicates(j, out) {
			in[j] = true
			out = append(out, j)
		}
	}
	return out
}

func anyEvidence(p *pool, c criterion, picks []int) bool {
	for _, i := range picks {
		if p.isEvidence(c, i) {
			return true
		}
	}
	return false
}

// quote renders sentence i as it appears in the source, escaped for
// Markdown, with its citation.
func quote(p *pool, i int) string {
	s := p.sents[i]
	out := escapeMarkdown(s.text)
	if s.label != "" {
		out = research.CodeSpan(s.label) + ": " + out
	}
	if s.code != "" {
		// A sentence with its command: the command stays a code span,
		// whatever backticks the page put in it.
		out += " " + research.CodeSpan(s.code)
	}
	return out + " " + p.cite(i)
}
