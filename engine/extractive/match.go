package extractive

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/text"
)

// What a sentence says about a part of the question: the tests every
// stage asks of one sentence and one criterion — whether it is evidence
// (isEvidence), names the thing asked or another one, states the asked
// attribute, says the part's words. They read the pool and the
// criterion, never a stage's output.

// styleBoost multiplies the score of a sentence in the form a criterion's
// style asks for; commandBoost replaces it for a how-to sentence that
// quotes its command, the most useful answer documentation gives.
const (
	styleBoost   = 1.3
	commandBoost = 1.6
)

// The forms of sentence a criterion's style asks for.
var (
	// definitionRe captures the subject of "A workspace is a …".
	definitionRe  = regexp.MustCompile(`(?i)^(?:(?:a|an|the)\s+)?((?:[^\s,]+\s+){0,3}?[^\s,]+)\s+(?:is|are|was|refers to|means|stands for|is defined as)\s`)
	youCanRe      = regexp.MustCompile(`(?i)\b(?:you|we) (?:can |could |should |need to |must |then |instead )*(?:add|use|run|set|call|pass|write|specify|annotate|put|create|enable|disable|configure|install|edit|change|declare|define|import|invoke|type)\b`)
	instructionRe = regexp.MustCompile(`(?i)^(?:to\s+\w+|run|add|set|use|install|edit|create|open|enable|disable|configure|start|stop|call|pass|specify|change|download|type|select|choose|go to|navigate|restart|remove|update|upgrade|write|put|place|define|import|export|check|make sure|ensure)\b`)
)

// defines reports whether sentence s defines what c asks about: it opens
// with a subject whose head word belongs to c ("A workspace is …", not
// "The workspace root is …").
func (p *pool) defines(c criterion, s string) bool {
	m := definitionRe.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	toks := text.Tokens(m[1])
	if len(toks) == 0 {
		return false
	}
	if first, _, _ := strings.Cut(strings.ToLower(m[1]), " "); subordinators[first] {
		return false // "When the heap is empty, …" states a condition
	}
	next, _, _ := strings.Cut(strings.TrimSpace(s[len(m[0]):]), " ")
	if next = strings.TrimRight(next, ".,;:!?"); len(next) > 4 && strings.HasSuffix(next, "ed") {
		return false // "The heap type was added": passive, not a definition
	}
	head := toks[len(toks)-1]
	if len(toks) > 1 && genericHeads[head] {
		head = toks[len(toks)-2] // "The cargo check command is …"
	}
	for _, t := range c.core {
		if t == head {
			return true
		}
	}
	return false
}

// subordinators open a clause that is not the sentence's subject.
var subordinators = set("when whenever if unless while whereas because since although though once after before until as where")

// genericHeads are nouns that follow the name they classify: "the cargo
// check command", "the ? operator".
var genericHeads = stems("command tool function method type keyword operator attribute macro option flag field setting file crate module package feature trait variable parameter property class library directive statement")

// styled returns the boost of sentence i for criterion c: above 1 when
// it has the form c asks for.
func (p *pool) styled(c criterion, i int) float64 {
	s := &p.sents[i]
	switch {
	case c.enum != "" && s.set[c.enum] && inlineListRe.MatchString(s.text):
		// "There are three kinds of records: "page", "index", and
		// "marker".": the members, named in one sentence.
		return directBoost
	case c.style == styleDefinition && p.defines(c, s.text):
		return directBoost
	case c.style == styleHowTo && s.code != "":
		return commandBoost
	case c.style == styleHowTo && (instructionRe.MatchString(s.text) || youCanRe.MatchString(s.text)):
		return styleBoost
	case c.style == styleValue && s.box && (p.statesAttribute(c, i) || p.namesKey(c, i) && p.inAskedEntry(c, i)):
		return directBoost // "Default: …" or "Type: …" in the asked entry's box
	case c.style == styleValue && s.hasNum && p.statesAttribute(c, i):
		if givesValue(s.text) {
			return directBoost
		}
		return commandBoost
	case c.style == styleValue && (s.hasNum || s.code != ""):
		return styleBoost
	case c.style == styleReason && p.givesReason(c, i):
		return commandBoost
	case c.style == styleReason && c.advice && adviceSentRe.MatchString(s.text):
		return commandBoost
	}
	return 1
}

// statesAttribute reports whether sentence i names the attribute criterion
// c asks for: with a figure, "The default is 64MB" answers "what is the
// default value of cache_pages" where "values are taken as blocks,
// typically 8kB" does not.
// The sentence, its label or its heading must also name the subject (a
// core word that is no value word): "the maximum amount of data per unit
// of time" states no maximum of a message payload.
func (p *pool) statesAttribute(c criterion, i int) bool {
	s := &p.sents[i]
	attribute := false
	var subjects []string
	for _, t := range c.core {
		switch {
		case attributeWords[t]:
			attribute = attribute || s.set[t]
			for a := range attributeWords {
				// "the maximum number … is 125" states an upper bound.
				attribute = attribute || s.set[a] && sameMeaning(t, a, attributeMeanings())
			}
		case !valueWords[t]:
			subjects = append(subjects, t)
		}
	}
	subjects = append(subjects, c.ctx...)
	// The product every page is about ("SQLite") names no subject while
	// the question names another ("columns").
	if own := slices.DeleteFunc(slices.Clone(subjects), func(t string) bool { return p.topical[t] }); len(own) > 0 {
		subjects = own
	}
	if len(c.idents) > 0 {
		// An identifier ("cache_size") is the subject, whatever else the
		// question writes around it ("PRAGMA") or every page says.
		subjects = slices.Concat(c.idents...)
	}
	if len(c.measures) > 0 {
		subjects = c.measures // "the number of columns" is about columns
	} else if len(c.idents) == 0 && len(c.attrNoun) > 0 {
		// "the default page size of a new database" asks the value of a
		// page size, not of whatever else is new or a database.
		if own := slices.DeleteFunc(slices.Clone(c.attrNoun), func(t string) bool { return p.topical[t] || p.context[t] }); len(own) > 0 {
			subjects = own
		}
	}
	// A sentence of the entry the question asks about stands for its
	// subject ("The default is “read committed”." under
	// default_transaction_isolation), as it does for evidence.
	subject := p.inAskedEntry(c, i)
	ew := p.valueEntryWords(i) // "Default: 100" says its entry's words
	for _, t := range subjects {
		subject = subject || s.set[t] || s.head[t] || ew[t]
	}
	if subject && p.namesOtherThing(c, i) {
		// "thread", "pool" and "max" spread over a sentence about two
		// other settings do not name "thread_pool_max".
		subject = false
	}
	return attribute && subject && !p.measuresAnother(c, i)
}

// namesOtherThing reports whether c names an identifier (not the setting
// every page is about) that sentence i neither belongs to by its entry
// nor writes out.
func (p *pool) namesOtherThing(c criterion, i int) bool {
	s := &p.sents[i]
	asked := false
	l := strings.ToLower(s.text + " " + s.code)
	for _, n := range c.identNames {
		if p.inSetting(n) || strings.HasPrefix(n, "-") {
			continue
		}
		asked = true
		if containsTerm(l, n) || containsParts(l, n) {
			return false
		}
	}
	for _, g := range c.idents {
		if len(g) > 1 && !slices.ContainsFunc(g, func(t string) bool { return !s.head[t] }) {
			return false // under a heading that names it
		}
	}
	return asked && !p.inAskedEntry(c, i)
}

// measuresAnother reports whether sentence i states the measure of
// something else than c asks: "the maximum number of pages … is
// 2147483646" does not give "the maximum number of columns".
func (p *pool) measuresAnother(c criterion, i int) bool {
	if len(c.measures) == 0 {
		return false
	}
	got := measured(p.sents[i].text)
	if len(got) == 0 {
		return false
	}
	for _, m := range got {
		if slices.Contains(c.measures, m) {
			return false
		}
	}
	return true
}

// entryInUnits reports whether box line i belongs to an entry whose prose
// names one of units: "Default: 1048576" of the entry that "specifies the
// number of bytes that are allowed" is a count of bytes.
func (p *pool) entryInUnits(i int, units []string) bool {
	s := &p.sents[i]
	if !s.box || s.label == "" {
		return false
	}
	for _, d := range []int{-1, 1} {
		for j := i + d; j >= 0 && j < len(p.sents) && p.sents[j].src == s.src && p.sents[j].label == s.label; j += d {
			if !p.sents[j].box && inUnits(p.sents[j].text, units) {
				return true
			}
		}
	}
	return false
}

// valueEntryWords returns, for a sentence that states the value of the entry
// it is written under ("Default: 120 seconds.", a line of its box), the
// words of the entry's name and of its sentences of prose before it,
// which the value is a statement about; nil for any other sentence.
func (p *pool) valueEntryWords(i int) text.Set {
	if ew, ok := p.valueEntry[i]; ok {
		return ew
	}
	if p.valueEntry == nil {
		p.valueEntry = map[int]text.Set{}
	}
	p.valueEntry[i] = p.entryWordsOfValue(i)
	return p.valueEntry[i]
}

// entryWordsOfValue is valueEntryWords, uncached.
func (p *pool) entryWordsOfValue(i int) text.Set {
	s := &p.sents[i]
	if s.label != "" && !s.box && labelValueRe.MatchString(s.label) {
		// "--freelist-vol=<number> [default: 20000000]: … freed blocks":
		// the label states the entry's value, and every sentence of the
		// entry says what it is the value of.
		out := text.NewSet(text.Tokens(s.label))
		for _, d := range []int{-1, 1} {
			for j := i; j >= 0 && j < len(p.sents) && p.sents[j].src == s.src && p.sents[j].label == s.label; j += d {
				for t := range p.sents[j].set {
					out[t] = true
				}
			}
		}
		return out
	}
	if !s.box && !givesValue(s.text) {
		return nil
	}
	if s.label == "" {
		if !s.hasNum {
			return nil // "… there is a hard upper bound set at compile-time" states none
		}
		return p.sectionWordsOfValue(i)
	}
	out := text.NewSet(text.Tokens(s.label))
	for t := range s.outer {
		out[t] = true // the section the entry is one of
	}
	for j := i - 1; j >= 0 && p.sents[j].src == s.src && p.sents[j].label == s.label; j-- {
		if !p.sents[j].box && !givesValue(p.sents[j].text) {
			for t := range p.sents[j].set {
				out[t] = true
			}
		}
	}
	return out
}

// labelValueRe matches a label that states its entry's value in
// brackets: "--freelist-vol=<number> [default: 20000000]".
var labelValueRe = regexp.MustCompile(`(?i)[\[(]\s*(?:defaults?|maximum|minimum)\s*[:=]?\s*[^\])\s][^\])]*[\])]`)

// sectionWordsOfValue is entryWordsOfValue for a value stated in prose
// under a heading rather than a label: on a page of one entry, its title
// ("UNITY_BUILD_BATCH_SIZE … If that variable has not been set, the
// initial value will be 8."), the heading and the few sentences of the
// section before it are what the value is of. Nil when nothing of prose
// precedes it under its heading.
func (p *pool) sectionWordsOfValue(i int) text.Set {
	s := &p.sents[i]
	out := text.Set{}
	n := 0
	for j := i - 1; j >= 0 && n < maxValueContext && p.sents[j].src == s.src && p.sents[j].section == s.section && p.sents[j].label == ""; j-- {
		if p.sents[j].box {
			continue
		}
		n++
		for t := range p.sents[j].set {
			out[t] = true
		}
	}
	if n == 0 {
		// "<number> Default: 5000" under "server.idleTimeout", above
		// "The number of milliseconds of inactivity a server needs to
		// wait …": the page gives the value before the prose.
		for j := i + 1; j < len(p.sents) && n < maxValueContext && p.sents[j].src == s.src && p.sents[j].section == s.section && p.sents[j].label == ""; j++ {
			if p.sents[j].box || givesValue(p.sents[j].text) {
				continue
			}
			n++
			for t := range p.sents[j].set {
				out[t] = true
			}
		}
	}
	if n == 0 {
		return nil
	}
	for t := range s.head {
		out[t] = true
	}
	if s.section == 0 {
		for t := range s.title {
			out[t] = true
		}
	}
	return out
}

// maxValueContext is the most sentences of prose before a value, under
// its heading, that it is read as a statement about.
const maxValueContext = 4

// impliedBy returns the words of the criterion that sentence i says in
// other words (meaningOf: "require" for "need", "signify" for "stand
// for").
func (p *pool) impliedBy(c criterion, i int) text.Set {
	s := &p.sents[i]
	out := text.Set{}
	for _, t := range c.core {
		if s.set[t] {
			continue
		}
		for _, m := range slices.Concat(c.meanings[t], actionSynonyms[t], c.alts[t]) {
			if s.set[m] {
				out[t] = true
				break
			}
		}
	}
	return out
}

// isEvidence reports whether sentence i answers criterion c.
func (p *pool) isEvidence(c criterion, i int) bool {
	return p.isEvidenceAt(c, i, coverThreshold)
}

// isEvidenceAt is isEvidence with the share of the criterion's words the
// sentence must hold set to cover.
func (p *pool) isEvidenceAt(c criterion, i int, cover float64) bool {
	s := &p.sents[i]
	if c.needsNum && !s.hasNum || c.year && !yearRe.MatchString(s.text) || c.units != nil && !inUnits(s.text, c.units) && !p.entryInUnits(i, c.units) {
		return false
	}
	// The sentence itself, or the heading it sits under, must name part of
	// the criterion: a matching page title alone is not enough, and nor is
	// the question's setting when it asks about something in it ("Go"
	// of "a heap in Go").
	named, subject := false, false
	for _, t := range c.core {
		subject = subject || !p.context[t]
	}
	for _, t := range slices.Concat(c.core, c.ctx) {
		if (s.set[t] || s.head[t]) && (!p.context[t] || !subject) {
			named = true
			break
		}
	}
	implied := text.Set{}
	for t, parts := range c.compounds {
		if s.set[t] || s.head[t] {
			// "timezone" says "time zone".
			named = true
			for _, w := range parts {
				implied[w] = true
			}
		}
	}
	if !named || !p.namesIdentifiers(c, i) || p.labelsAnother(c, i) || !p.asksKeyOf(c, i) {
		return false
	}
	if p.namesFlag(c, i) && !c.needsNum && len(c.ctx) == 0 {
		return true // "-q: Suppress all output": the asked flag's own words
	}
	if c.style == styleValue && s.hasNum && !c.member {
		maps.Copy(implied, valueWords)
	}
	if c.style == styleValue && !p.namesSubject(c, i) {
		return false // "well within the 16kB maximum" of something else
	}
	for t := range p.impliedBy(c, i) {
		implied[t] = true
	}
	for _, t := range c.located {
		implied[t] = true
	}
	if ew := p.valueEntryWords(i); ew != nil {
		// "Default: 120 seconds." under "connect retry time: Time in
		// seconds to wait before retrying a failed attempt": the line
		// says what its entry's name and description say.
		for _, t := range c.core {
			implied[t] = implied[t] || ew[t]
		}
	}
	if p.inAskedEntry(c, i) {
		// "The minimum length is 4." under core.abbrev's label: the entry
		// stands for the thing asked about; only what is asked of it
		// must be said.
		for _, t := range c.core {
			if !attributeWords[t] && !valueWords[t] {
				implied[t] = true
			}
		}
	}
	if len(c.ctx) > 0 && !p.namesContext(c, i) && !p.refersBack(c, i) {
		return false // about something else than the part it leans on
	}
	have := p.coverageWith(c.core, i, implied)
	if c.leaned && c.style == styleReason {
		// "… — why is there such a limit?": a sentence that gives a cause
		// and names some of what the part before asked about answers it
		// ("This limit arises from …" under "Number of workers in a pool");
		// one that only restates the limit does not.
		if !p.givesReason(c, i) && !(c.advice && adviceSentRe.MatchString(s.text)) {
			return false
		}
		return have >= ctxThreshold || p.explains(c, i)
	}
	if have < cover && len(c.head) > 0 && p.coverageWith(c.head, i, implied) >= headCover {
		// What the part asks before its scene answers it: "To start the
		// profiler, press the Alt+F9 keyboard shortcut" answers "… a
		// keyboard shortcut that starts the profiler in a running desktop
		// session".
		return true
	}
	// A sentence that says the asker's situation needs fewer of the
	// part's own words.
	return have >= cover || c.style == styleReason && p.causeOfNext(c, i) || have >= echoCover && p.echoesSituation(c, i)
}

// echoCover is the share of a part's words a sentence that describes the
// asker's situation must hold (echoesSituation).
const echoCover = 0.15

// echoesSituation reports whether sentence i describes the situation the
// asker states before the question: of the statement's words beyond the
// part's that are not on nearly every page, it holds at least echoMin and
// at least a third, counting the words of the sentence just before it
// ("With --strict it aborts at once." after "During an unattended backup
// the remote disk may fill up, and it then keeps retrying forever.").
func (p *pool) echoesSituation(c criterion, i int) bool {
	s := &p.sents[i]
	before := text.Set{}
	if b := p.justBefore(i); b >= 0 {
		before = p.sents[b].set
	}
	n, total := 0, 0
	for _, t := range c.situation {
		if p.topical[t] {
			continue
		}
		total++
		if s.set[t] || before[t] {
			n++
		}
	}
	return n >= echoMin && 3*n >= total
}

// echoMin is the fewest words of the asker's statement a sentence holds
// when it describes the same situation.
const echoMin = 3

// causeOfNext reports whether sentence i is the cause the sentence after
// it draws a consequence from, when that sentence restates what a reason
// is asked for: "the readFile operation holds a semi-closed handle … It
// follows that an attempt to write to a file … opened by readFile will
// usually result in failure" answers why the write fails.
func (p *pool) causeOfNext(c criterion, i int) bool {
	j := i + 1
	if j >= len(p.sents) || p.sents[j].src != p.sents[i].src || p.sents[j].pos != p.sents[i].pos+1 || !consequenceRe.MatchString(p.sents[j].text) {
		return false
	}
	n := 0
	for _, t := range c.core {
		if p.sents[j].set[t] {
			n++
		}
	}
	return n >= max(minRestated, len(c.core)/4)
}

// minRestated is the fewest of a why-question's words a consequence must
// hold to restate what the question asks the reason for (a quarter of
// them, when that is more).
const minRestated = 3

// pageOfNamed reports whether page src is a page of one entry titled
// with a name c gives ("option" for "option()").
func (p *pool) pageOfNamed(c criterion, src int) bool {
	name := p.docs[src].name
	return name != "" && slices.ContainsFunc(c.identNames, func(n string) bool { return strings.TrimSuffix(n, "()") == name })
}

// inAskedEntry reports whether sentence i belongs to the entry of an
// identifier c names: its label is that identifier.
func (p *pool) inAskedEntry(c criterion, i int) bool {
	s := &p.sents[i]
	if s.label == "" {
		// A page of one entry is titled by its name ("option" for
		// "option()"): its prose is that entry's.
		return p.pageOfNamed(c, s.src)
	}
	l := strings.ToLower(s.label)
	for _, n := range c.identNames {
		if p.labelNamesOn(l, n, s.src) && (!strings.HasPrefix(n, "-") || p.flagPage(c, s.src)) {
			return true
		}
	}
	if p.spells(c, s.label) {
		return true // "default_transaction_isolation" for "the default isolation level"
	}
	if w := p.entryWord(c); w != "" && strings.EqualFold(strings.TrimSpace(s.label), w) {
		return true // "Severity" for "the default severity of lines read"
	} else if w == "" && slices.Contains(p.sectionEntry(c).sents, i) {
		return true // "noise, n" under "silencedetect" for "the silencedetect filter's noise level"
	}
	// A name the question writes in capitals labels its entry as well
	// ("ZDOTDIR: The directory to search …").
	if lt := text.Tokens(s.label); len(lt) == 1 && slices.Contains(c.caps, lt[0]) {
		return true
	}
	return false
}

// namesContext reports whether sentence i is about what the part c leans
// on asks about: it holds ctxThreshold of those words, one of them not a
// word of every page ("replica" in "how many replicas can a store have",
// not "store" in a storage engine's manual).
func (p *pool) namesContext(c criterion, i int) bool {
	s := &p.sents[i]
	if c.group != "" && (s.set[c.group] || s.head[c.group]) {
		return true // "The lz4 codec, tuned for speed. This is the default."
	}
	for _, g := range c.ctxIdents {
		// The identifier the part leant on names, in the sentence or
		// the heading it sits under: "The default is currently 16 KB."
		// under Quill::open is about the reader opened with it.
		if !slices.ContainsFunc(g, func(t string) bool { return !s.set[t] && !s.head[t] }) {
			return true
		}
	}
	if p.inAskedEntry(c, i) && slices.ContainsFunc(c.identNames, func(n string) bool { return slices.Contains(c.ctx, n) }) {
		// The entry of the code the statement quotes ("Runtime error
		// 217") is about what the statement says.
		return true
	}
	// The page's title is what all its sentences are about: "To stop
	// tracking a file, use …" on the page titled "gitignore" is about
	// files added to .gitignore.
	titled := text.Set{}
	lead := p.docs[s.src].lead
	for _, t := range c.ctx {
		// The page's opening sentences say what it is about as well:
		// "a similar discovery has been made in Greece" makes "190 miles
		// north of Athens" a statement about the lost city.
		if s.title[t] || lead[t] {
			titled[t] = true
		}
	}
	if p.coverageWith(c.ctx, i, titled) < ctxThreshold {
		return false
	}
	for _, t := range c.ctx {
		if (s.set[t] || s.head[t] || titled[t]) && !p.topical[t] {
			return true
		}
	}
	// Every word it holds is on nearly every page: it must hold most.
	return p.coverage(c.ctx, i) >= coverThreshold
}

// refersBack reports whether sentence i refers back to what part c leans
// on as c does — both write "that" or "this" before one noun ("… when
// that hook is missing?", "If that hook is missing, …") — right after a
// sentence of its paragraph that names it: the page's "that hook" is the
// one the sentence before named, as the question's is the one its first
// part asked about.
func (p *pool) refersBack(c criterion, i int) bool {
	if len(c.backRefs) == 0 || !slices.ContainsFunc(backReferences(p.sents[i].text), func(n string) bool { return slices.Contains(c.backRefs, n) }) {
		return false
	}
	lo, _ := p.paragraphSpan(i)
	for j := max(lo, i-maxReferenceGap); j < i; j++ {
		if p.namesContext(c, j) {
			return true
		}
	}
	return false
}

// maxReferenceGap is how many sentences back a back-reference reaches.
const maxReferenceGap = 2

// explains reports whether sentence i stands in the paragraph of a
// sentence that answers what c's part leans on: the mechanism "COMPACT
// works by copying the store into a scratch file" explains "as much as
// twice the size of the store is required in free disk space" two
// sentences on, without repeating its words.
func (p *pool) explains(c criterion, i int) bool {
	lo, hi := p.paragraphSpan(i)
	for j := lo; j < hi; j++ {
		if j != i && p.coverage(c.core, j) >= coverThreshold {
			return true
		}
	}
	return false
}

// ctxThreshold is the share of the words of the part a criterion leans
// on that its evidence must hold: enough to be about the same thing.
const ctxThreshold = 0.3

// namesSubject reports whether sentence i, its label, heading or page
// title names what a value criterion asks the value of: a core word that
// is not a value word ("maximum", "size"); the setting a question names
// ("… set with cache.size") counts, since it may be all it asks about.
// A figure with the asked attribute alone is some other thing's.
func (p *pool) namesSubject(c criterion, i int) bool {
	s := &p.sents[i]
	// A name written in capitals ("the LISTEN payload") is what is asked
	// about; "payload" alone may be any payload's — unless the page opens
	// by naming it, and goes on to call it "the telescope".
	// A name in the question's setting ("… in Network UPS Tools") is where
	// the thing is asked about, not the thing; one every page read says
	// ("an HTTP request" of a web server's manual) goes without saying
	// when the sentence names the rest of what is asked ("headers"), but
	// not when it qualifies an identifier the question names ("SETTING
	// max_rows"), which a page about something else may share.
	ew := p.valueEntryWords(i)
	if caps := slices.DeleteFunc(slices.Clone(c.caps), func(t string) bool { return p.context[t] }); len(caps) > 0 {
		topical := false
		for _, t := range caps {
			// A value's entry may name it ("-scale": "… formats such as
			// SVG …", then "The default factor is 2 …").
			if s.set[t] || s.head[t] || s.title[t] || p.docs[s.src].lead[t] || ew[t] {
				return true
			}
			if h := c.capsNoun[t]; h != "" && (s.head[h] || s.title[h]) {
				// "an ACME supervisor" on the page titled "Supervisor
				// Guide": the capitals qualify the thing the page is
				// about.
				return true
			}
			topical = topical || p.topical[t] && len(c.idents) == 0
		}
		if !topical {
			return false
		}
		// Said by every page, it names nothing here: the question's
		// other words must (below).
	}
	// The unit a "how many milliseconds" question counts in is the
	// answer's, not its subject.
	units := text.NewSet(text.Tokens(strings.Join(c.units, " ")))
	// The product every page is about ("Tally", in every page's title)
	// names no subject while the question names another ("open a file"); an
	// identifier in the question's setting does, when the sentence says it
	// ("… the effective value of view.shortLen" for "… set with
	// view.shortLen"), but a platform does not ("on Linux").
	var own, setting []string
	for _, t := range c.core {
		switch {
		case valueWords[t] || attributeWords[t] || units[t] || t == c.amount:
			// "How much storage" asks what the units say.
		case p.context[t] || p.topical[t]:
			setting = append(setting, t)
		default:
			own = append(own, t)
		}
	}
	// "a single glyph value" is a glyph value: the words that name things
	// name the subject, when there are any besides the question's
	// setting.
	if named := slices.DeleteFunc(slices.Clone(own), func(t string) bool { return c.qualifiers[t] }); len(named) < len(own) {
		if len(named) > 0 {
			own = named
		} else if kept := slices.DeleteFunc(slices.Clone(setting), func(t string) bool { return c.qualifiers[t] || p.context[t] }); len(kept) > 0 {
			own, setting = nil, kept
		}
	}
	if p.inAskedEntry(c, i) {
		return true // the entry of the thing asked speaks of it
	}
	says := func(t string) bool { return s.set[t] || s.head[t] || ew[t] }
	identWord := text.NewSet(slices.Concat(c.idents...))
	if len(own) > 0 {
		if slices.ContainsFunc(own, func(t string) bool { return says(t) || s.title[t] }) ||
			slices.ContainsFunc(setting, func(t string) bool { return s.set[t] && !p.topical[t] && identWord[t] }) {
			return true
		}
		// "This file keeps track of the exact versions of dependencies
		// in your project": words every page says, but most of those the
		// question names its subject with, say together what it is.
		subject := slices.DeleteFunc(slices.Concat(own, setting), func(t string) bool { return p.context[t] || c.qualifiers[t] })
		n := 0
		for _, t := range subject {
			if s.set[t] {
				n++
			}
		}
		return len(subject) >= minSubjectWords && 2*n >= len(subject)
	}
	return len(setting) == 0 || slices.ContainsFunc(setting, func(t string) bool { return says(t) || s.title[t] })
}

// minSubjectWords is the fewest words a subject must be named with for
// a sentence to name it by saying most of them (namesSubject).
const minSubjectWords = 4

// namesIdentifiers reports whether sentence i (with its heading or label)
// holds every part of each identifier c names: "max_clients" is not
// answered by a sentence that says "maximum" but nothing of clients.
func (p *pool) namesIdentifiers(c criterion, i int) bool {
	s := &p.sents[i]
	// A page titled with the name ("pg_dump", "Module mod_ssl") documents
	// it: its sentences outside any entry of their own, or in the entry
	// asked about, need not repeat it.
	titled := s.label == "" || p.inAskedEntry(c, i)
	has := func(g []string) bool {
		for _, t := range g {
			if !s.set[t] && !s.head[t] && (!titled || !s.title[t]) {
				return false
			}
		}
		return true
	}
	for k, g := range c.idents {
		// A qualified name is named by its last part: "lru_cache" names
		// "functools.lru_cache" on the page that documents it.
		if !has(g) && (k >= len(c.identTails) || len(c.identTails[k]) == 0 || !has(c.identTails[k])) && !namesSquashed(c, s, strings.Join(g, " ")) {
			return false
		}
	}
	return true
}

// namesSquashed reports whether sentence s names, written in another
// convention as one word, an identifier of c whose tokens join to key:
// "SpoolDir" names "spool_dir", "maxConn" names "max-conn".
func namesSquashed(c criterion, s *sentence, key string) bool {
	for _, n := range c.identNames {
		if strings.Join(text.Tokens(n), " ") != key {
			continue
		}
		sq := text.Tokens(strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r == '.' {
				return -1
			}
			return r
		}, n))
		if len(sq) == 1 && (s.set[sq[0]] || s.head[sq[0]]) {
			return true
		}
	}
	return false
}

// labelsAnother reports whether sentence i belongs to the entry of another
// setting than the one c asks about: its label is an identifier that
// shares the asked one's words but is not it ("cache.sizeLimit" for
// "cache.size"), and neither label nor sentence names the asked one.
func (p *pool) labelsAnother(c criterion, i int) bool {
	s := &p.sents[i]
	if s.label == "" || len(c.identNames) == 0 {
		return false
	}
	first, _, _ := strings.Cut(s.label, " ")
	if !s.entry && !isTechnical(strings.Trim(first, ",:`")) {
		return false
	}
	l := strings.ToLower(s.label + " " + s.text)
	asked := false
	for _, name := range c.identNames {
		if p.inSetting(name) {
			continue // "in PostgreSQL" is where, not what, is asked
		}
		asked = true
		// "EventEmitters" names the class EventEmitter.
		if containsTerm(l, name) || containsTerm(l, name+"s") || p.labelNamesOn(strings.ToLower(s.label), name, s.src) {
			return false
		}
	}
	return asked && !p.spells(c, s.label)
}

// hasEvidence reports whether any sentence answers c.
func (p *pool) hasEvidence(c criterion) bool {
	for i := range p.sents {
		if p.isEvidence(c, i) {
			return true
		}
	}
	return false
}

// isCode reports whether n is a number of two digits or more, as an
// error or status code is written.
func isCode(n string) bool {
	return len(n) >= 2 && strings.Trim(n, "0123456789") == ""
}

// labelNames reports whether label (lower case) names identifier n as its
// term: the label's first term is n, not a longer name that contains it
// ("cache.size" is not named by "cache.sizeLimit").
func labelNames(label, n string) bool {
	if strings.Contains(label, "=") {
		// "waitforit(int msecs = 300)": a function's label with its
		// parameters names the function.
		if m := callLabelRe.FindStringSubmatch(label); m != nil && m[1]+"()" == n {
			return true
		}
	}
	for _, alt := range strings.Split(label, ",") {
		// Each of the names a label gives ("--sort, --no-sort") is the
		// first term of its part: "200 thread_pool_min" names 200.
		term, rest, _ := strings.Cut(strings.TrimLeft(alt, " (`"), " ")
		if strings.Trim(term, "(`)") != n && strings.Trim(term, "`") != n {
			// "tally.stats()" names the function a call to it names.
			continue
		}
		// "workspace_client overflows" names a counter after the
		// parameter, not the parameter; "AUTO_CD (-J)", "--timeout
		// seconds" and "maximal_queue_lifetime (default: 5 days)" name
		// the thing itself.
		if r, _ := utf8.DecodeRuneInString(strings.TrimSpace(rest)); strings.HasPrefix(n, "-") || !unicode.IsLetter(r) || isCode(n) {
			// (A code's label says what it means after it: "217
			// Unhandled exception occurred".)
			return true
		}
	}
	return false
}

// callLabelRe matches a label that is a function's name and its
// parameters with a default value among them (declarationLabel).
var callLabelRe = regexp.MustCompile(`^([\pL_][\pL\pN_]*)\(.*=.*\)$`)

// labelNamesOn reports whether label, on page src, names identifier n:
// as labelNames does, or, for a qualified name ("counters.tocount"), by
// its last part on the page titled with the rest ("toCount()" on "Class
// Counters"): an API reference's page per class, an entry per member.
func (p *pool) labelNamesOn(label, n string, src int) bool {
	if labelNames(label, n) {
		return true
	}
	k := strings.LastIndex(n, ".")
	if k <= 0 || k == len(n)-1 || strings.HasPrefix(n, "-") {
		return false
	}
	qual, tail := n[:k], n[k+1:]
	if !labelNames(label, tail) {
		return false // ("toCount()" names "toCount" and "toCount()" both)
	}
	qt := text.Tokens(qual)
	return len(qt) > 0 && !slices.ContainsFunc(qt, func(t string) bool { return !p.docs[src].title[t] })
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

// namesFlag reports whether sentence i (or the label it describes) names a
// command-line flag that criterion c asks about: "-q: Suppress all
// output …" answers "What does the -q option do?" in the manual's words.
func (p *pool) namesFlag(c criterion, i int) bool {
	s := &p.sents[i]
	for _, t := range c.core {
		if strings.HasPrefix(t, flagPrefix+"-") && (s.set[t] || s.head[t] && p.flagPage(c, s.src)) {
			return true
		}
	}
	return false
}

// flagPage reports whether page src can document the flags c names. A
// short flag ("-f") is every other command's too: a page titled with a
// command's name ("git-config(1)") documents that command's flags, so
// it answers only when the question names that command ("git clean …
// -f" is not git-config's). A page titled in words ("Command line and
// environment") may document any.
func (p *pool) flagPage(c criterion, src int) bool {
	for _, t := range p.docs[src].command {
		if !slices.Contains(c.core, t) && c.query[t] == 0 {
			return false
		}
	}
	return true
}

// inSetting reports whether identifier n is the question's setting ("in
// mod_ssl" of "the default of SSLSessionCacheTimeout in mod_ssl"): the
// module that holds the entry, or the product every page is about, not
// the entry asked about.
func (p *pool) inSetting(n string) bool {
	toks := text.Tokens(n)
	if len(toks) == 1 && p.titled[toks[0]] {
		return true // the product the pages are titled with ("ProFTPD's") is the setting too
	}
	for _, t := range toks {
		if !p.context[t] {
			return false
		}
	}
	return len(toks) > 0
}

// spelledShare is the share of the words a question asks with that an
// identifier must spell out to name the asked thing.
const spelledShare = 0.75

// spells reports whether label is an identifier that spells out what c
// asks about in the question's own words: "default_transaction_isolation"
// for "which transaction isolation level is the default". The words of
// the question's setting and of every page do not count.
func (p *pool) spells(c criterion, label string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(label), " ")
	first = strings.Trim(first, ",:`")
	kebab := strings.Contains(first, "-") && keyTermRe.MatchString(first)
	if lt := camelTokens(first); lt != nil {
		// "maxLength" for "its maximum length": the question's words,
		// one after another, written as one camelCase name.
		return len(lt) >= 2 && runOf(c.tokens, lt)
	}
	if !strings.Contains(first, "_") && !(strings.Contains(first, ".") && isTechnical(first)) && !kebab {
		return false // a name written as code: snake_case, dotted or kebab-case
	}
	lt := text.NewSet(text.Tokens(first))
	asked, held := 0, 0
	for _, t := range c.core {
		if p.context[t] {
			continue
		}
		asked++
		if lt[t] {
			held++
		}
	}
	if !kebab && asked >= 2 && float64(held) >= spelledShare*float64(asked) {
		return true
	}
	// "How many nodes will it draw in a dot graph …" names
	// DOT_GRAPH_MAX_NODES: every word of the name, but the one that asks
	// for a value ("max"), is the question's own: three of them, or two
	// with the noun asked or counted among them ("k5login_directory"
	// is not named by "a .k5login file in my home directory").
	if c.counted != "" && !lt[c.counted] || c.asked != "" && !lt[c.asked] {
		return false // the name must hold what is asked about: "nodes" of "how many nodes"
	}
	own, named := text.NewSet(c.core), 0
	for t := range lt {
		switch {
		case valueWords[t]:
		case !own[t] || p.context[t]:
			return false
		default:
			named++
		}
	}
	return named >= 3 || named >= 2 && (c.counted != "" || c.asked != "")
}

// camelRe matches where a camelCase name starts a word: a lower-case
// letter or digit before a capital.
var camelRe = regexp.MustCompile(`([\p{Ll}\pN])(\p{Lu})`)

// camelTokens returns the tokens of the words of a camelCase name
// ("maxLength": maximum, length), or nil for another word.
func camelTokens(name string) []string {
	if !camelRe.MatchString(name) {
		return nil
	}
	return text.Tokens(camelRe.ReplaceAllString(name, "${1}_${2}"))
}

// runOf reports whether run occurs in toks as consecutive tokens.
func runOf(toks, run []string) bool {
	for k := 0; k+len(run) <= len(toks); k++ {
		if slices.Equal(toks[k:k+len(run)], run) {
			return true
		}
	}
	return false
}

// entryWord is the word of c that names its entry (entryByWord), or "".
func (p *pool) entryWord(c criterion) string {
	if w, ok := p.entryWords[c.text]; ok {
		return w
	}
	best, bestIDF := "", 0.0
	if !p.namesLabelled(c) {
		asked, _ := askedWord(c.text)
		// A word the question writes as a name ("How do Requires and
		// Prefers differ") names an entry however often the pages use it
		// in its ordinary sense ("preferred").
		names := map[string]bool{}
		for _, e := range entities(c.text) {
			if !strings.ContainsAny(e, " \t") && titleTermRe.MatchString(e) {
				names[strings.ToLower(e)] = true
			}
		}
		kind := askedHead(c.text)
		act := askerVerb(c.text)
		for _, w := range c.words {
			toks := text.Tokens(w)
			if len(toks) != 1 || valueWords[toks[0]] || p.context[toks[0]] || text.IsStopword(w) || strings.EqualFold(w, asked) || strings.EqualFold(w, kind) {
				continue // "At what score …": the noun asked for is the answer's kind, not the thing it is asked of
			}
			if strings.EqualFold(w, act) && !names[w] {
				continue // "How do I stop …": the act the asker wants done, not the name of an entry
			}
			if slices.Contains(c.caps, toks[0]) {
				continue // a name in capitals ("for NTS") names an entry only as a label in capitals does (entryOf)
			}
			if df := p.index.DF(toks[0]); df > minEntryWordDF && float64(df) > maxEntryWordShare*float64(len(p.sents)) && !names[w] {
				continue // "command", "history": words every page uses in their ordinary sense
			}
			if idf := p.index.IDF(toks[0]); idf > bestIDF && p.labelsEntry(w) {
				best, bestIDF = w, idf
			}
		}
	}
	if p.entryWords == nil {
		p.entryWords = map[string]string{}
	}
	p.entryWords[c.text] = best
	return best
}

// askedHead returns, lower case, the last word of the noun phrase a
// "which" or "what" asks for, up to its verb ("Which environment
// variable can I set …" → "variable"): the kind of thing the answer is,
// not the name of an entry. "" when the phrase is not found.
func askedHead(c string) string {
	words := strings.Fields(c)
	w, a := whAt(words), auxAt(words)
	if w < 0 || a <= w+1 || a-w > 4 || !strings.EqualFold(words[w], "which") && !strings.EqualFold(words[w], "what") {
		return ""
	}
	return strings.ToLower(strings.Trim(words[a-1], ",;:?'’"))
}

// minEntryWordDF is the number of sentences a plain word may occur in
// and name an entry, whatever the share.
const minEntryWordDF = 5

// maxEntryWordShare is the largest share of the pool's sentences a
// plain word may occur in and still name an entry.
const maxEntryWordShare = 0.02

// labelsEntry reports whether some entry of a page of several entries is
// labelled w alone: a label alone on its page ("time" over the time
// module's text) names the page, not one of its entries.
func (p *pool) labelsEntry(w string) bool {
	for i := range p.sents {
		if labelSpellsWord(p.sents[i].label, w) && p.labelCount(p.sents[i].src) >= 2 {
			return true
		}
	}
	return false
}

// labelsCode reports whether a page of several labels opens one with the
// number n as its first term ("217 Unhandled exception occurred").
func (p *pool) labelsCode(n string) bool {
	for i := range p.sents {
		if term, _, _ := strings.Cut(strings.TrimSpace(p.sents[i].label), " "); term == n && p.labelCount(p.sents[i].src) >= 2 {
			return true
		}
	}
	return false
}

// labelSpellsWord reports whether label is w, or lists w among the names
// it gives one thing ("noise, n" spells "noise").
func labelSpellsWord(label, w string) bool {
	for _, name := range strings.Split(label, ", ") {
		if strings.EqualFold(strings.TrimSpace(name), w) {
			return true
		}
	}
	return false
}

// labelCount is the number of distinct labels of page src, counted for
// every page on the first call.
func (p *pool) labelCount(src int) int {
	if p.labelCounts == nil {
		p.labelCounts = make([]int, len(p.docs))
		type pageLabel struct {
			src   int
			label string
		}
		seen := map[pageLabel]bool{}
		for i := range p.sents {
			s := &p.sents[i]
			if k := (pageLabel{s.src, s.label}); s.label != "" && !seen[k] {
				seen[k] = true
				p.labelCounts[s.src]++
			}
		}
	}
	return p.labelCounts[src]
}

// namesKey reports whether sentence i is a line of a key/value box
// whose key c asks for in its own words or their meanings ("What type of
// value …" and "Type: integer").
func (p *pool) namesKey(c criterion, i int) bool {
	s := &p.sents[i]
	if !s.box {
		return false
	}
	m := boxLineRe.FindStringSubmatch(s.text)
	if m == nil {
		return false
	}
	for _, t := range text.Tokens(m[1]) {
		if slices.Contains(c.core, t) || c.query[t] >= 1 {
			return true
		}
		for _, ms := range c.meanings {
			if slices.Contains(ms, t) {
				return true
			}
		}
	}
	return false
}

// asksKeyOf reports whether c asks for what sentence i states, when i is
// a line of an entry's key/value box ("Default: 0", "Context: server
// config", "Compatibility: Available in 2.3.9"): the box says one thing
// of the entry per key, and answers only a question that asks for that
// key ("the default", "in which contexts"). Any other sentence passes.
func (p *pool) asksKeyOf(c criterion, i int) bool {
	s := &p.sents[i]
	if !s.box && (s.label == "" || !isBoxLine(s.text)) {
		return true
	}
	m := boxLineRe.FindStringSubmatch(s.text)
	if m == nil {
		return true
	}
	if p.namesKey(c, i) {
		return true
	}
	if slices.ContainsFunc(text.Tokens(m[1]), func(t string) bool { return attributeWords[t] && slices.Contains(c.core, t) }) && p.labelNamesMost(c, i) {
		// "Default: the lowest IPv4 address …" under "router id IPv4
		// address" states the default a question about the router ID
		// asks for.
		return true
	}
	// A value that says what is asked in words of its own ("Compatibility:
	// The default used to be …" for "what was the default") answers too.
	name := text.NewSet(text.Tokens(s.label))
	for _, t := range text.Tokens(m[2]) {
		if slices.Contains(c.core, t) && !name[t] && !p.context[t] && !unicode.IsDigit([]rune(t)[0]) {
			return true
		}
	}
	return false
}

// labelNamesMost reports whether sentence i's label holds at least half
// of c's own words (not its attribute words, nor those of the question's
// setting), and no attribute c does not ask of.
func (p *pool) labelNamesMost(c criterion, i int) bool {
	label := text.NewSet(text.Tokens(p.sents[i].label))
	for t := range label {
		if attributeWords[t] && !slices.Contains(c.core, t) {
			return false // "min keepalive time" is not the keepalive time
		}
	}
	own, named := 0, 0
	for _, t := range c.core {
		if attributeWords[t] || valueWords[t] || p.context[t] {
			continue
		}
		own++
		if label[t] {
			named++
		}
	}
	return own > 0 && 2*named >= own
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

// givesReason reports whether sentence i states a cause of what c asks
// about, or a consequence of what it advises on. "X causes Y" or "X leads
// to Y" gives the cause of Y: it answers "why Y" when the asked words
// stand after the marker, not when they stand before it ("invalid
// checksums may lead to unreassembled packets" tells what bad checksums
// do, not why there are any) — unless the question weighs advice or asks
// what the asker's own act is for, whose reason is what it leads to.
func (p *pool) givesReason(c criterion, i int) bool {
	s := p.sents[i].text
	if !reasonRe.MatchString(s) {
		// "… the hook never runs. Why?": the condition under which
		// the page says it does not ("if you register the table
		// before its hook field is set, the hook will not be
		// called") is the cause.
		// (A bare "Why?" takes its words from the statement before
		// it: its core.)
		return negationRe.MatchString(c.text+" "+strings.Join(c.core, " ")) && conditionRe.MatchString(s) && negationRe.MatchString(s)
	}
	m := forwardRe.FindStringIndex(s)
	if m == nil || c.advice || c.purpose || reasonRe.MatchString(s[:m[0]]+s[m[1]:]) {
		return true
	}
	before, after := text.NewSet(text.Tokens(s[:m[0]])), text.NewSet(text.Tokens(s[m[1]:]))
	nb, na := 0, 0
	for _, t := range c.core {
		if said(before, t, c) {
			nb++
		}
		if said(after, t, c) {
			na++
		}
	}
	return na >= nb
}

// negationRe finds a negation: what does not happen.
var negationRe = regexp.MustCompile(`(?i)\bnot\b|\bnever\b|n't\b|n’t\b|\bcannot\b|\bno longer\b`)

// conditionRe matches a sentence that opens on a condition and then
// states what follows from it: "If …, the object will not …".
var conditionRe = regexp.MustCompile(`(?i)^(?:(?:note|remember) that\s+|moreover,?\s+|however,?\s+|also,?\s+)?(?:if|when|unless)\b[^.;]{5,}?,\s`)

// said reports whether the tokens of set say core word t of c: the word,
// a word of the same meaning or an alternative the question offers.
func said(set text.Set, t string, c criterion) bool {
	if set[t] {
		return true
	}
	for _, m := range slices.Concat(c.meanings[t], c.alts[t]) {
		if set[m] {
			return true
		}
	}
	return false
}

// entryUnder is bestEntry where entries of one name sit under many
// headings — an option of every filter, a directive of every section: the
// entry under the heading that holds the most of the words in under
// (beyond its own label's) is the one asked about ("the noise option of
// the silencedetect filter"), and page relevance decides between equals.
func (p *pool) entryUnder(named func(label string, src int) bool, under []string) entry {
	best, bestHeld, bestRel := entry{}, -1, -1.0
	p.eachEntry(func(e entry) {
		s := &p.sents[e.sents[0]]
		if !named(s.label, s.src) {
			return
		}
		held, label := 0, text.NewSet(text.Tokens(s.label))
		for _, w := range under {
			if (s.head[w] || s.outer[w]) && !label[w] {
				held++
			}
		}
		if rel := p.docRel[s.src]; held > bestHeld || held == bestHeld && rel > bestRel {
			best, bestHeld, bestRel = e, held, rel
		}
	})
	return best
}

// eachEntry calls visit with every labelled entry of the pool, in page
// order: the sentences from the one that opens a label to the last under
// it.
func (p *pool) eachEntry(visit func(e entry)) {
	for i := 0; i < len(p.sents); i++ {
		s := &p.sents[i]
		if s.label == "" || i > 0 && p.sents[i-1].src == s.src && p.sents[i-1].label == s.label {
			continue // not the first sentence of an entry
		}
		e := entry{name: s.label}
		for j := i; j < len(p.sents) && p.sents[j].src == s.src && p.sents[j].label == s.label; j++ {
			e.sents = append(e.sents, j)
		}
		visit(e)
	}
}

// sectionEntry is entryByWord for a part that names an entry by a word
// too common to name one alone, and the section it is one of by a rare
// word of that section's heading: "What noise level does the
// silencedetect filter use?" asks for the entry labelled "noise, n"
// under the heading "8.102 silencedetect", not the "noise" of another
// filter. Nothing when no such heading holds an entry so labelled.
func (p *pool) sectionEntry(c criterion) entry {
	if e, ok := p.sectionEntries[c.text]; ok {
		return e
	}
	e := p.sectionEntryOf(c)
	if p.sectionEntries == nil {
		p.sectionEntries = map[string]entry{}
	}
	p.sectionEntries[c.text] = e
	return e
}

// sectionEntryOf is sectionEntry, uncached.
func (p *pool) sectionEntryOf(c criterion) entry {
	if p.namesLabelled(c) {
		return entry{}
	}
	var labels, rare []string
	kind := askedHead(c.text)
	for _, w := range c.words {
		toks := text.Tokens(w)
		if len(toks) != 1 || valueWords[toks[0]] || p.context[toks[0]] || text.IsStopword(w) || strings.EqualFold(w, kind) {
			continue
		}
		labels = append(labels, w)
		if df := p.index.DF(toks[0]); df > 0 && (df <= minEntryWordDF || float64(df) <= maxEntryWordShare*float64(len(p.sents))) && !p.topical[toks[0]] {
			rare = append(rare, toks[0])
		}
	}
	if len(labels) == 0 || len(rare) == 0 {
		return entry{}
	}
	e := p.entryUnder(func(label string, s int) bool {
		return slices.ContainsFunc(labels, func(w string) bool { return labelSpellsWord(label, w) }) && p.labelCount(s) >= 2
	}, rare)
	if len(e.sents) == 0 {
		return p.describedEntryUnder(c, rare)
	}
	first := &p.sents[e.sents[0]]
	label := text.NewSet(text.Tokens(first.label))
	if !slices.ContainsFunc(rare, func(w string) bool { return first.outer[w] && !label[w] }) {
		return p.describedEntryUnder(c, rare) // no heading over it names the section asked
	}
	return e
}

// describedEntryUnder is sectionEntry for an option whose label is only
// its short names ("I, i" under "loudnorm"): of the entries under a
// heading that holds a rare word of c and whose sentences hold two of
// c's words beyond that heading's at least, the one whose opening holds
// most ("Set integrated loudness target." for "which integrated loudness
// does the loudnorm filter aim for"), then the one whose sentences do,
// then the most relevant page's.
func (p *pool) describedEntryUnder(c criterion, rare []string) entry {
	var want []string
	for _, t := range c.core {
		if !valueWords[t] && !attributeWords[t] && !p.context[t] && !p.topical[t] {
			want = append(want, t)
		}
	}
	best, bestHeld, bestOpen, bestRel := entry{}, 0, -1, -1.0
	p.eachEntry(func(e entry) {
		s := &p.sents[e.sents[0]]
		words := text.NewSet(text.Tokens(s.label))
		if p.labelCount(s.src) < 2 || !slices.ContainsFunc(rare, func(w string) bool { return s.outer[w] && !words[w] }) {
			return // no heading above names a section the entry is one of
		}
		for _, j := range e.sents {
			for t := range p.sents[j].set {
				words[t] = true
			}
		}
		held, open := 0, 0
		for _, t := range want {
			if words[t] && !s.outer[t] {
				held++ // a word of the entry, not of its section's heading
				if s.set[t] {
					open++ // … of its opening, which says what it is
				}
			}
		}
		if held < minDescribedWords {
			return
		}
		if rel := p.docRel[s.src]; open > bestOpen || open == bestOpen && (held > bestHeld || held == bestHeld && rel > bestRel) {
			best, bestHeld, bestOpen, bestRel = e, held, open, rel
		}
	})
	return best
}

// minDescribedWords is the words of a part an entry's sentences must hold
// to be the entry it describes (describedEntryUnder).
const minDescribedWords = 2

// absentName returns a name part c writes with a capital ("Confluence",
// "Ansible", "Bazel BUILD") of which no page read holds some word, in
// its sentences, headings or title: whatever a page says beside it, none
// says anything of the thing named. "" when every name is read
// somewhere.
func (p *pool) absentName(c criterion) string {
	for _, e := range entities(c.text) {
		r, _ := utf8.DecodeRuneInString(e)
		toks := text.Tokens(e)
		if !unicode.IsUpper(r) || len(toks) == 0 || slices.ContainsFunc(toks, func(t string) bool { return p.context[t] }) ||
			!slices.ContainsFunc(toks, func(t string) bool { return slices.Contains(c.core, t) }) {
			continue // the question's setting ("on Linux") or its source ("according to …")
		}
		if slices.ContainsFunc(toks, func(t string) bool { return !p.reads(t) }) {
			// "Bazel BUILD files": a page that named the thing would
			// hold every word of its name.
			return e
		}
	}
	return ""
}

// reads reports whether token t is in some page read: a sentence or a
// title (a document's tokens), or the heading above a sentence.
func (p *pool) reads(t string) bool {
	if p.index.DF(t) > 0 {
		return true
	}
	for _, d := range p.docs {
		if d.set[t] {
			return true
		}
	}
	for i := range p.sents {
		if p.sents[i].head[t] || p.sents[i].outer[t] {
			return true
		}
	}
	return false
}

// namesLabelled reports whether c names its thing as pages label
// entries: a flag or an identifier, or a name in capitals some entry is
// labelled with. A name in capitals that labels nothing ("a QEMU guest",
// "a virtio RNG device") is a word of the question like any other.
func (p *pool) namesLabelled(c criterion) bool {
	if len(c.flags()) > 0 || len(c.identNames) > 0 {
		return true
	}
	return slices.ContainsFunc(c.caps, func(w string) bool {
		for i := range p.sents {
			if l := strings.TrimSpace(p.sents[i].label); l != "" && isCapitalsWord(l) && slices.Equal(text.Tokens(l), []string{w}) {
				return true
			}
		}
		return false
	})
}
