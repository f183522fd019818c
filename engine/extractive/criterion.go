package extractive

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/text"
)

// criterion is a success criterion prepared for matching.
type criterion struct {
	text     string
	words    []string   // the words of text as phrases compare them (phraseWords)
	tokens   []string   // the tokens of text, in order (text.Tokens)
	counted  string     // the stem of the noun a "how many" part counts (countedNoun)
	core     []string   // tokens that decide whether a sentence is evidence
	query    text.Query // tokens that rank sentences
	needsNum bool       // evidence must contain a figure or date
	figures  []string   // the figures the part writes ("set to 0")
	backRefs []string   // the nouns the part refers back to ("that hook" → hook; backReferences)
	year     bool       // evidence must contain a year (asksYear)
	units    []string   // evidence must write its figure in one of these units (askedUnits)
	asked    string     // the stem of the noun the part asks for (askedNoun)
	generic  bool       // only generic words beyond the question's ("key dates for X")
	idents   [][]string // tokens of each identifier named ("max_clients" → maximum, client)
	style    int        // styleDefinition or styleHowTo: sentences of that form rank higher
	// ctx are the words of the part of the question this one leans on
	// ("Why is there such a limit (how many workers can a pool
	// hold)?"): evidence must name some of them as well as core.
	ctx []string
	// ctxIdents are the tokens of each identifier the part leant on
	// names ("Quill::open" → quill, open).
	ctxIdents [][]string
	// head are the words of core before the part's closing adjunct, nil
	// when it has none (headOf).
	head []string
	// amount is the stem of the noun a "how much" part asks the amount
	// of ("memory"), which the answer's units say (amountNoun).
	amount string
	// qualifiers are the stems of the part's words that WordNet uses
	// mainly as adjectives ("single", "whole"): they qualify the thing
	// asked about and name no thing of their own
	// (text.Lexicon.MainlyAdjective).
	qualifiers text.Set
	// advice marks a question about what the source advises ("why is X
	// discouraged", "why recommend Y"): a sentence of advice answers it.
	advice bool
	// purpose marks a why-question about the asker's own act ("why would
	// I turn on X?"): its reason is what the act leads to.
	purpose bool
	// located are the tokens of the file the question says the thing
	// asked is written in ("in my CMakeLists.txt"): evidence need not
	// name it.
	located []string
	// situation are the words of the asker's statement before the question
	// ("My unattended backup keeps retrying forever once the remote disk
	// fills up. Which option makes it abort the copy instead?") that the
	// part does not hold itself: a sentence that describes the same
	// situation answers with fewer of the part's own words
	// (echoesSituation).
	situation []string
	// leaned marks a part that asks nothing of its own but a reason or a
	// value: its core is the words of the part it leans on.
	leaned bool
	// member marks "which one is the default": the answer names one
	// member of a set, not a figure, so a figure implies nothing.
	member bool
	// group is the plural noun of the enumeration a member question leans
	// on ("Which one is the default (which codecs does it ship)?" → codec).
	group string
	// compounds maps a closed compound the pages write ("timezone") to
	// the stems of the two words the question writes it as ("time
	// zone"): a sentence saying it says both (finder.closedCompounds).
	compounds map[string][]string
	// identNames are the identifiers named, lower case as written
	// ("cache.size"), to tell them from longer ones ("cache.sizeLimit").
	identNames []string
	// enum is the token of the plural noun an enumeration asks to list
	// ("Which journal modes does …" → mode): its answer is every item
	// the best source lists, not one sentence.
	enum string
	// enumKind is the token of the noun a classifier of the enumeration
	// qualifies: "collection" of "which collection types": a list may
	// announce collections, whose members are types too.
	enumKind string
	// compare is set when the question compares sides: what each side's
	// entry says is the answer, not only the sentence that states a value.
	compare bool
	// identTails are, for each of idents, the tokens of its last part when
	// it is a qualified name ("functools.lru_cache" → lru, cache), or nil.
	identTails [][]string
	// measures are the stems of what the criterion asks to count or
	// measure ("the number of columns" → column).
	measures []string
	// meanings are, per core word, the stems of the words that say the
	// same (meaningOf, from WordNet).
	meanings map[string][]string
	// alts are, per core word, the stems of the words the question offers
	// as its alternatives ("bad or invalid"): a sentence that says one
	// says what is asked.
	alts map[string][]string
	// forms are, per core word, the stems of its irregular forms
	// ("buy" → "bought"): the same word, where meanings are other words.
	forms map[string][]string
	// caps are the tokens of the words the criterion writes in capitals
	// ("LISTEN", "TCP"): names a value criterion's evidence must say.
	caps []string
	// capsNoun maps a token of caps to the stem of the word of content
	// that follows it, the noun it qualifies ("supervisor" after "ACME"
	// in "an ACME supervisor"; nounAfter).
	capsNoun map[string]string
	// attrNoun are the stems of the noun its attribute word qualifies
	// ("page" of "the default page size"), or nil (attributeNoun).
	attrNoun []string
}

// Criterion styles: what form of sentence answers it best.
const (
	stylePlain = iota
	styleDefinition
	styleHowTo
	styleValue  // "what is the default port": the answer holds a figure or a literal
	styleReason // "why …": the answer gives a cause or a purpose
)

var (
	definitionCritRe = regexp.MustCompile(`(?i)^(?:what|who)\s+(?:is|are|was|were)\s+(?:an?\s+|the\s+)?\S+(?:\s+\S+){0,2}?(?:\s+(?:used|defined|meant|in|by|for|on)\s+.*)?\??$|^(?:define|explain)\b`)
	valueCritRe      = regexp.MustCompile(`(?i)^(?:\w+\s+)?(?:what|which)\b.*\b(?:default|maximum|minimum|max|min|limit|size|port|version|value|timeout|number|count|length|capacity|rate|price|cost|year|date|level|path|location|format|unit|percentage)s?\b`)
	attributeCritRe  = regexp.MustCompile(`(?i)^(?:what|which)\b.*\b(?:default|maximum|minimum|limit|upper bound|lower bound|upper limit|lower limit)s?\b`)
	whyCritRe        = regexp.MustCompile(`(?i)^why\b`)
	extremeAskedRe   = regexp.MustCompile(`(?i)^(?:what|which)(?:\s+is|\s+are|\s+was|\s+were|'s)\s+the\s+(\w+)`)
	howToCritRe      = regexp.MustCompile(`(?i)^how\s+(?:do|does|can|could|should|would|to)\b|^(?:steps|ways)\s+to\b`)
)

// whichNounRe matches a question for one named thing of a kind: "Which
// merge strategy does …", "Which index type is …".
var whichNounRe = regexp.MustCompile(`(?i)^which\s+(?:[\w-]+\s+){0,2}?([\w-]+)\s+(?:does|do|did|is|was|will|would|should|can)\b`)

// asksName reports whether c asks which thing of a kind, by a noun that
// names no figure (not "which value", "which port number").
func asksName(c string) bool {
	m := whichNounRe.FindStringSubmatch(strings.TrimSpace(c))
	if m == nil {
		m = whichSubject(c)
	}
	return m != nil && !valueWords[text.Stem(strings.ToLower(m[1]))] && !attributeWords[text.Stem(strings.ToLower(m[1]))] &&
		!valueCritRe.MatchString("what "+m[1])
}

// whichDoesRe matches a question whose which-phrase is the subject of its
// verb: "Which tool writes …", "Which flag turns off …".
var whichDoesRe = regexp.MustCompile(`(?i)^which\s+(?:[\w-]+\s+){0,2}?([\w-]+)\s+([a-z]+?)(e?s)\b`)

// whichSubject returns whichNounRe's match for a question whose
// which-phrase does what its verb says ("Which tool writes …": the noun
// "tool", then a verb in the third person), or nil.
func whichSubject(c string) []string {
	m := whichDoesRe.FindStringSubmatch(strings.TrimSpace(c))
	if m == nil || !lexicon().IsVerb(m[2]) && !lexicon().IsVerb(m[2]+m[3][:len(m[3])-1]) {
		return nil
	}
	return m[:2]
}

// forwardRe matches a marker that names a cause before it and its effect
// after it: "Offloading causes confusion", "Small values result in …".
var forwardRe = regexp.MustCompile(`(?i)\b(?:(?:results?|resulting) in|leads? to|causes|causing)\b`)

// memberRe matches a question for one member of a set: "which one is the
// default", "which of them is fastest".
var memberRe = regexp.MustCompile(`(?i)^which\s+(?:one|ones|of)\b`)

// reasonRe matches a sentence that states a cause, a purpose or a
// consequence: "This limit arises from the fact that …", "… because …",
// "… so that …", "Small values will result in the loss of …".
var reasonRe = regexp.MustCompile(`(?i)\b(?:because|since (?:the|it|they|this|that|there|an?)\b|works by|by \w+ing\b|due to|owing to|(?:arises?|arising|results?|resulting|stems?|follows?) from|(?:results?|resulting) in|leads? to|causes|causing|caused by|the reason|reasons? (?:is|are|for|why)|so that|in order to|so as to|this is why|which is why|that is why|for (?:this|that|these) reasons?|as a (?:result|consequence)|therefore|hence|the fact that|to (?:avoid|prevent|ensure|guarantee)|otherwise)\b`)

// reasonHints are words of the sentences that give a reason.
const reasonHints = "because due reason arises result fact so order therefore avoid prevent ensure"

// adviceRe matches a question about advice ("why is X discouraged",
// "why recommend Y", "warn"); adviceHints are the words its
// answer uses.
var adviceRe = regexp.MustCompile(`(?i)\b(?:advis|recommend|discourag|warn|suggest)\w*`)

// purposeRe matches a why-question whose subject is the asker or anyone
// ("why would I …", "why should you …", "why do we …"): it asks what the
// act is for, not what causes a state of things.
var purposeRe = regexp.MustCompile(`(?i)\bwhy\s+(?:` + askerAux + `)\s+(?:` + asker + `|a user|an administrator)\b`)

// askerAux and asker are the auxiliary and the subject of a question
// about what the asker does ("why would I …", "how can you …").
const (
	askerAux = `would|should|do|does|might|could|must|can`
	asker    = `i|you|we|one|anyone|someone`
)

// askerActRe matches a question about what the asker is to do, up to
// its verb ("How do I stop …", "How can you make …", "how to keep …").
var askerActRe = regexp.MustCompile(`(?i)\bhow\s+(?:(?:` + askerAux + `|will)\s+(?:` + asker + `)|to)\s+(\pL+)`)

// askerVerb returns the verb of the act a how-question asks how to do
// ("stop" in "How do I stop the shell from …"), or "".
func askerVerb(q string) string {
	if m := askerActRe.FindStringSubmatch(q); m != nil {
		return m[1]
	}
	return ""
}

// adviceSentRe matches a sentence that gives advice.
var adviceSentRe = regexp.MustCompile(`(?i)\b(?:should(?: not|n't)?|avoid(?:ed)?|(?:not )?recommended|discouraged|unless (?:strictly )?needed)\b`)

const adviceHints = "should avoid avoided not recommended unless needed instead overhead cost"

// attributeWords name the attribute a value question asks for ("the
// default value of", "the maximum size of").
var attributeWords = stems(attributeWordList)

const attributeWordList = "default maximum minimum max min limit size length capacity upper lower bound"

// directValueRe matches a sentence that gives an attribute's value
// outright: "The default is 64MB", "the maximum value is 1200", "defaults
// to 7070", "Default: 4.0", "(default: 20)", "By default, it reports its
// kind to the peer as vt52." (the value closing the sentence), "The port
// for uploads is 7071, which is used by default".
var directValueRe = regexp.MustCompile(`(?i)\b(?:defaults?|initial|maximum|minimum|max|min|limit)\b(?:\s+[\w-]+){0,3}?\s+(?:is|are|was|of|to|=|will\s+be):?\s+(\S+)|\b(?:is|are)\s+(\S+?),?\s+which\s+(?:is|are)\s+(?:used\s+)?(?:by\s+default|the\s+default)\b|\bdefaults\s+to\b|^(?:defaults?|maximum|minimum)(?:\s+value)?\s*:\s*\S|\((?:defaults?|maximum|minimum)\s*[:=]\s*[^\s)]|\bby\s+default\b[^.;]*?\sas\s+([\w.-]+?)\.?$`)

// mainClause returns c up to the condition it ends with ("What does X
// return | when the string isn't a valid number?"), or c when it has
// none: the form of the answer is asked by the main clause.
func mainClause(c string) string {
	f := strings.Fields(c)
	for k := 2; k < len(f); k++ {
		if w := strings.ToLower(strings.Trim(f[k], ",;:?")); conditionWords[w] || w == "when" || w == "because" {
			return strings.Join(f[:k], " ")
		}
	}
	return c
}

// givesValue reports whether s gives an attribute's value outright
// (directValueRe), and not what is done with it: "the default cache size
// is -2000", not "the default cache size is stored at offset 48".
func givesValue(s string) bool {
	for _, m := range directValueRe.FindAllStringSubmatch(s, -1) {
		if w := strings.ToLower(strings.Trim(m[1], ",.;:")); !strings.HasSuffix(w, "ed") && w != "set" {
			return true
		}
	}
	return false
}

// directBoost ranks a sentence that states the asked value outright above
// the sentences that only talk about it.
const directBoost = 2.0

// containsParts reports whether s (lower case) writes identifier n's
// parts as words in a row: "the default cache size" for "cache_size".
func containsParts(s, n string) bool {
	parts := strings.FieldsFunc(n, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	if len(parts) < 2 {
		return false
	}
	return containsTerm(partSepRe.ReplaceAllString(s, " "), strings.Join(parts, " "))
}

// partSepRe matches what separates the parts of a name or the words of
// a text: spaces, underscores, dots and hyphens.
var partSepRe = regexp.MustCompile(`[\s_.-]+`)

// measureRe finds what a figure counts or measures: "the number of
// columns", "the size of a page".
var measureRe = regexp.MustCompile(`(?i)\b(?:number|amount|size|length|count)\s+of\s+(?:(?:the|a|an)\s+)?([\pL\pN_-]+)`)

// measured returns the stems of what s counts or measures.
func measured(s string) []string {
	var out []string
	for _, m := range measureRe.FindAllStringSubmatch(s, -1) {
		// "a page size of 65536", "a size of about …" give a value, not
		// what is measured.
		if r, _ := utf8.DecodeRuneInString(m[1]); !unicode.IsDigit(r) && len(text.Tokens(m[1])) > 0 {
			out = append(out, text.Stem(strings.ToLower(m[1])))
		}
	}
	return out
}

var howQuantityRe = regexp.MustCompile(`(?i)^how\s+(\w+)\b`)

// whenDateRe matches questions whose answer is a date: "when" of the
// past or the future. "When does grow() allocate …?" and "When is the
// index flushed?" ask a condition, which a figure may state ("when the
// journal reaches 500 pages") and words may too: a figure is preferred,
// not required.
var whenDateRe = regexp.MustCompile(`(?i)^when (?:did|was|were|will)\b`)

// askedNounRe finds the noun a part asks a figure or a choice of: the
// words after "how many" or after a leading "what" or "which" ("In what
// year …", "Which port …").
var askedNounRe = regexp.MustCompile(`(?i)(?:\bhow\s+many|^(?:\w+\s+)?(?:what|which))\s+([\pL-]+)`)

// asksMeasure reports whether part c asks for so many of a measure, or
// which one ("How many megabytes …", "In what year …"): the answer is a
// figure, and a sentence without one does not state it however well it
// names the subject. That the noun is a measure (a unit, a period, an
// amount) comes from WordNet; "How many jobs …" counts things, and may be
// answered in words ("one per CPU").
func asksMeasure(c string) bool {
	w, _ := askedWord(c)
	return w != "" && !text.IsStopword(w) && lexicon().Measure(w)
}

// askedWord returns, lower case, the word after "how many" or a leading
// "what" or "which" in c (askedNounRe), and whether it followed "how
// many"; "" when there is none.
func askedWord(c string) (word string, howMany bool) {
	m := askedNounRe.FindStringSubmatch(c)
	if m == nil {
		return "", false
	}
	return strings.ToLower(m[1]), strings.HasPrefix(strings.ToLower(strings.TrimSpace(m[0])), "how")
}

// askedNoun returns the stem of the noun part c asks for ("On which port
// …" → port), or "" when it asks for none or only for a value ("what
// default", "how many").
func askedNoun(c string) string {
	w, howMany := askedWord(c)
	if w == "" || howMany || text.IsStopword(w) || auxVerb[w] {
		return ""
	}
	if t := text.Stem(w); !valueWords[t] && !softWords[t] {
		return t
	}
	return ""
}

// asksYear reports whether part c asks which year ("In what year was …
// released?"): its answer is a date, and a version number or a count is
// not one.
func asksYear(c string) bool {
	w, _ := askedWord(c)
	return w != "" && slices.Contains(lexicon().Units(w), "year")
}

// askedUnits returns, when part c asks for so many of a unit ("How many
// megabytes …", "How many seconds …"), every unit of its kind as WordNet
// lists them (text.Lexicon.UnitsOfKind): a figure in kilobytes answers,
// one of another kind ("MaxConnectionsPerChild 0") does not. nil
// otherwise.
func askedUnits(c string) []string {
	if w := amountNoun(c); w != "" {
		return lexicon().UnitsMeasuring(w)
	}
	w, howMany := askedWord(c)
	if !howMany || w == "" || text.IsStopword(w) {
		return nil
	}
	if next := countedHead(c, w); next != "" {
		// "How many Tesla workers …": the count is of workers;
		// the word before qualifies them, whatever else it may mean.
		w = next
	}
	return lexicon().UnitsOfKind(w)
}

// countedHeadRe finds the word after "how many" and the one after it.
var countedHeadRe = regexp.MustCompile(`(?i)\bhow\s+many\s+[\pL-]+\s+([\pL-]+)`)

// countedHead returns the plural noun after w in a "how many w" part
// when w, singular, only qualifies it ("how many Tesla workers"), or
// "".
func countedHead(c, w string) string {
	m := countedHeadRe.FindStringSubmatch(c)
	if m == nil || strings.HasSuffix(w, "s") {
		return ""
	}
	next := strings.ToLower(m[1])
	if !strings.HasSuffix(next, "s") || text.IsStopword(next) || auxVerb[next] {
		return ""
	}
	return next
}

// nounAfter returns the token of the word that follows the word whose
// token is t in c ("supervisor" after "ACME" in "an ACME supervisor"),
// when it is a word of content, or "".
func nounAfter(c, t string) string {
	words := text.Words(c)
	for k := 0; k+1 < len(words); k++ {
		if words[k].Stem == t && !words[k+1].Stop && !words[k+1].Num && !auxVerb[words[k+1].Lower] {
			return words[k+1].Stem
		}
	}
	return ""
}

// qualifiersOf returns the stems of the words of c that are mainly
// adjectives.
func qualifiersOf(c string) text.Set {
	out := text.Set{}
	for _, w := range text.Words(c) {
		if !w.Stop && !w.Num && lexicon().MainlyAdjective(w.Lower) {
			out[w.Stem] = true
		}
	}
	return out
}

// howMuchRe finds the noun a "how much" part asks the amount of.
var howMuchRe = regexp.MustCompile(`(?i)\bhow\s+much\s+([\pL]+)`)

// amountNoun returns the noun part c asks the amount of ("How much
// memory …" → "memory"), when some kind of unit measures it (WordNet's
// "computer memory unit"): the part is answered by a figure in those
// units, which says the noun ("four bytes" is an amount of memory). ""
// otherwise.
func amountNoun(c string) string {
	m := howMuchRe.FindStringSubmatch(c)
	if m == nil || text.IsStopword(m[1]) {
		return ""
	}
	w := strings.ToLower(m[1])
	if lexicon().UnitsMeasuring(w) == nil {
		return ""
	}
	return w
}

// unitWordRe finds the words of a sentence, and the letters written onto
// a figure ("300s", "10MB").
var unitWordRe = regexp.MustCompile(`(\d)?([\pL]+)`)

// inUnits reports whether sentence s names one of units: as a word
// ("bytes", "MB"), or as letters written onto a figure that begin one
// ("5d", "300s").
func inUnits(s string, units []string) bool {
	for _, m := range unitWordRe.FindAllStringSubmatch(s, -1) {
		w := strings.ToLower(m[2])
		if slices.Contains(units, w) || len(w) > 3 && slices.Contains(units, strings.TrimSuffix(w, "s")) {
			return true
		}
		if m[1] != "" && len(w) <= 3 && slices.ContainsFunc(units, func(u string) bool { return strings.HasPrefix(u, w) }) {
			return true
		}
	}
	return false
}

// yearRe matches a year as dates write it.
var yearRe = regexp.MustCompile(`\b(?:1[5-9]|20)\d\d\b`)

// needsNumRe matches criteria whose answer is a figure or a date: a
// requirement for generic criteria ("key figures"), a preference otherwise.
var needsNumRe = regexp.MustCompile(`(?i)\b(?:figures?|numbers?|statistics?|dates?|years?|how (?:many|much|long|big|large|fast)|price|cost|percent(?:age)?)\b|^when (?:did|was|were|will|is|does|do)\b`)

// maskNames replaces each name of hyphenated parts in s (isKebabName),
// and each name written with an operator ("string->number",
// "std::string::npos"), with a neutral word, so that no pattern reads its
// parts as words.
func maskNames(s string) string {
	f := strings.Fields(s)
	for i, w := range f {
		if w := strings.Trim(w, ",.;:?!\"'()[]`"); isKebabName(w) || strings.Contains(w, "->") || strings.Contains(w, "::") {
			f[i] = "name"
		}
	}
	return strings.Join(f, " ")
}

// newCriterion prepares c; goal gives the core when c has only generic
// words, and the wider context of the ranking query.
func newCriterion(c, heading string, goal, extra []string) criterion {
	full := c
	c, lean, _ := splitLean(c)
	c, lean = stripAttribution(c), stripAttribution(lean)
	c = phrasalRe.ReplaceAllStringFunc(c, phrasalVerb)
	if !defaultWordRe.MatchString(c) {
		c = unsetRe.ReplaceAllString(c, "by default")
		c = unsetAndRe.ReplaceAllString(c, "${1}by default")
	}
	c = defaultSettingsRe.ReplaceAllString(c, "by default")
	c = askerPurposeRe.ReplaceAllString(c, "")
	if m := contrastRe.FindStringIndex(c); m != nil && !conditionWordRe.MatchString(c[:m[0]]) {
		c = c[:m[0]] + c[m[1]:]
	}
	var located text.Set
	if rest := fileLocationRe.ReplaceAllString(c, ""); rest != c && len(text.Tokens(stripTopicParen(rest))) >= 2 {
		// "… declare an option() in my CMakeLists.txt": the file is
		// where the thing asked is written, which its own page need not
		// say (isEvidenceAt).
		located = text.Set{}
		for _, m := range fileLocationRe.FindAllString(c, -1) {
			for _, e := range entities(m) {
				for _, t := range text.Tokens(e) {
					located[t] = true
				}
			}
		}
	}
	toks := text.Unique(append(text.Tokens(stripTopicParen(c)), flagTokens(c)...))
	// The form asked for is read from the question's words, not from the
	// parts of a name it writes ("journal-db-max-size" asks for no
	// maximum), and from its main clause, not its condition.
	styled := strings.TrimSpace(maskNames(c))
	main := mainClause(styled)
	cr := criterion{text: full, words: phraseWords(full), tokens: text.Tokens(full), counted: countedNoun(full), query: text.Query{}, needsNum: needsNumRe.MatchString(main), figures: figureRe.FindAllString(full, -1), backRefs: backReferences(full)}
	var hints []string
	if m := howQuantityRe.FindStringSubmatch(c); m != nil && asksQuantity(m[1]) {
		// "How large is Titan?": "large" asks for a figure, it is not a topic word.
		cr.style = styleValue
		adj := text.Stem(strings.ToLower(m[1]))
		toks = slices.DeleteFunc(toks, func(t string) bool { return t == adj })
		hints = quantityHints(m[1])
	}
	if m := extremeAskedRe.FindStringSubmatch(styled); m != nil {
		// "What is the highest weight …?" asks for the extreme value, at
		// whichever end: the answer states a limit and need not repeat
		// the superlative ("the maximal value is 64").
		for _, w := range m[1:] {
			if superlativeOfMeasure(w) {
				sup := text.Stem(strings.ToLower(strings.Trim(w, ",.;:?!\"'()")))
				toks = slices.DeleteFunc(toks, func(t string) bool { return t == sup })
				// "limit" ranks as a word of the part itself; being soft,
				// no sentence must say it.
				toks = append(toks, text.Stem("limit"))
				hints = append(hints, extremeHints()...)
				cr.style = styleValue
			}
		}
	}
	switch {
	case cr.style != stylePlain:
	case asksName(styled):
		// "Which index type does it create by default?": a name, not a
		// figure.
	case attributeCritRe.MatchString(main):
		cr.style = styleValue // "What is the upper bound?" asks for a value, not a definition
	case definitionCritRe.MatchString(styled):
		cr.style = styleDefinition
	case howToCritRe.MatchString(styled):
		cr.style = styleHowTo
	case valueCritRe.MatchString(main):
		// (The words of a condition ask for no value: "What does
		// string->number return when the string isn't a valid number?")
		cr.style = styleValue
	case whyCritRe.MatchString(styled):
		cr.style = styleReason
		hints = append(hints, text.Tokens(reasonHints)...)
		hints = append(hints, hintsFor(text.Tokens("reasons"))...)
	}
	if cr.member = memberRe.MatchString(c); cr.member && lean != "" {
		cr.group = enumNoun(stripTopicParen(lean))
	}
	cr.purpose = purposeRe.MatchString(c)
	if cr.advice = adviceRe.MatchString(c); cr.advice {
		// "Why is X discouraged?": the answer says what should be
		// avoided, and why.
		hints = append(hints, text.Tokens(adviceHints)...)
	}
	// A word of an identifier is never soft: "work" is filler in "how
	// does it work" but the topic in "sort_mem".
	identWords := text.Set{}
	for _, w := range compoundHeads(stripTopicParen(c)) {
		identWords[w] = true
	}
	for _, e := range entities(c) {
		g := text.Unique(text.Tokens(e))
		if len(g) > 0 && !slices.ContainsFunc(g, func(t string) bool { return !located[t] }) {
			cr.located = append(cr.located, g...)
			continue // a file the thing is written in, not the thing
		}
		if isTechnical(e) {
			for _, t := range g {
				identWords[t] = true
			}
		}
		if isTechnical(e) && len(g) > 1 {
			cr.idents = append(cr.idents, g)
			cr.identTails = append(cr.identTails, qualifiedTail(e))
			cr.identNames = append(cr.identNames, strings.ToLower(strings.Trim(e, "`")))
			if name, _, ok := strings.Cut(e, "("); ok && callFormRe.MatchString(e) {
				// `tally.stats("size")` calls the function
				// tally.stats(), whose entry names it so.
				cr.identNames = append(cr.identNames, strings.ToLower(name)+"()")
			}
		} else if isTechnical(e) && len(g) == 1 && strings.ContainsAny(e, "_.") {
			// "t_strsplit": one word beside a prefix too short to be a
			// token, still a name an entry is labelled with.
			cr.identNames = append(cr.identNames, strings.ToLower(strings.Trim(e, "`")))
		} else if callFormRe.MatchString(e) {
			// "option()": the page or entry of the command is named so.
			name, _, _ := strings.Cut(e, "(")
			cr.identNames = append(cr.identNames, strings.ToLower(name)+"()")
		} else if isCamelName(e) {
			// "KeepAliveTimeout": a name written as code, whose entry a
			// reference page labels with it (entryOf).
			cr.identNames = append(cr.identNames, strings.ToLower(e))
		}
		if n := sigilName(strings.Trim(e, "`")); n != "" {
			// "$outbox": a reference page labels the variable's entry
			// with its name, with the sigil or without it.
			for _, name := range []string{"$" + n, n} {
				if name = strings.ToLower(name); !slices.Contains(cr.identNames, name) {
					cr.identNames = append(cr.identNames, name)
				}
			}
		}
	}
	if !isCapitalsWord(c) { // a criterion written all in capitals names nothing by them
		for _, w := range strings.Fields(stripTopicParen(c)) {
			if w = strings.Trim(w, ".,;:!?()\"'`"); isCapitalsWord(w) && len(w) >= 3 {
				cr.caps = append(cr.caps, text.Tokens(w)...)
			}
		}
		for _, t := range cr.caps {
			if h := nounAfter(cr.text, t); h != "" {
				if cr.capsNoun == nil {
					cr.capsNoun = map[string]string{}
				}
				cr.capsNoun[t] = h
			}
		}
	}
	// A flag asked about ("the -q option") must be named by its evidence,
	// as an identifier's words must: "command line option" alone is what
	// every option's sentence says.
	for _, f := range flagTokens(c) {
		cr.idents = append(cr.idents, []string{f})
	}
	// Nor is a word of a side compared: "prefers" is a verb in "what
	// does the guide prefer" but a side in "how do Requires and Prefers
	// differ".
	if sides, _ := comparison(strings.TrimRight(stripTopicParen(c), "?.! ")); len(sides) == 2 {
		for _, side := range sides {
			for _, t := range text.Tokens(side) {
				identWords[t] = true
			}
		}
	}
	isSoft := func(t string) bool { return softWords[t] && !identWords[t] || quantifierStems()[t] }
	for _, t := range toks {
		if !isSoft(t) {
			cr.core = append(cr.core, t)
		}
	}
	// A criterion is generic when it adds only soft words of its own to
	// the question's ("What are the key facts about X?" of an edited
	// plan); a part of the question is never generic, whatever its words.
	goalSet := text.NewSet(goal)
	soft := false
	for _, t := range toks {
		soft = soft || isSoft(t) && !goalSet[t]
	}
	cr.generic = soft
	for _, t := range cr.core {
		if !goalSet[t] {
			cr.generic = false
		}
	}
	// The part leant on names what this part asks about: its words, but
	// not the value or reason it asked for, must be on the answer too.
	own := text.NewSet(cr.core)
	if m := howQuantityRe.FindStringSubmatch(lean); m != nil && asksQuantity(m[1]) {
		own[text.Stem(strings.ToLower(m[1]))] = true // "how many": no word of the subject
	}
	for _, t := range text.Unique(append(text.Tokens(stripTopicParen(lean)), flagTokens(lean)...)) {
		if !isSoft(t) && !valueWords[t] && !own[t] {
			cr.ctx = append(cr.ctx, t)
		}
	}
	for _, e := range entities(lean) {
		if g := text.Unique(text.Tokens(e)); isCodeWord(e) && len(g) > 1 {
			cr.ctxIdents = append(cr.ctxIdents, g)
		}
	}
	switch {
	case len(cr.core) == 0 && len(cr.ctx) > 0:
		// "… — why?": the part asks only for a reason, about what the
		// part before it named.
		cr.core, cr.ctx, cr.generic, cr.leaned = cr.ctx, nil, false, true
	case len(cr.core) == 0:
		cr.core = coreOf(goal)
		cr.generic = true
	case len(cr.ctx) > 0:
		cr.generic = false
	}
	cr.amount = text.Stem(amountNoun(c))
	if cr.needsNum && !cr.generic && !whenDateRe.MatchString(c) && !asksMeasure(c) && cr.amount == "" {
		// "How many jobs run by default?" may be answered by "the number
		// of logical CPUs": prefer figures, do not require them.
		cr.needsNum = false
		if cr.style == stylePlain {
			cr.style = styleValue
		}
	}
	cr.year, cr.asked, cr.units = asksYear(c), askedNoun(full), askedUnits(c)
	cr.enum = enumNoun(stripTopicParen(c))
	if m := classifiedRe.FindStringSubmatch(stripTopicParen(c)); m != nil {
		cr.enumKind = text.Stem(strings.ToLower(m[1]))
	}
	cr.query.Add(hints, 0.7)
	cr.query.Add(goal, 0.4)
	cr.query.Add(extra, 0.4)
	cr.query.Add(hintsFor(toks), 0.6)
	if cr.style == styleHowTo {
		cr.query.Add(text.Tokens(howToHints), 0.3)
	}
	cr.query.Add(cr.ctx, 0.7)
	cr.query.Add(text.Tokens(heading), 1)
	cr.query.Add(toks, 1)
	cr.meanings = meaningsOf(c)
	cr.alts = alternatives(c)
	cr.forms = formsOf(c)
	cr.measures = measured(c)
	cr.qualifiers = qualifiersOf(c)
	if cr.amount != "" {
		// "four bytes" says how much memory.
		for _, u := range cr.units {
			cr.meanings[cr.amount] = append(cr.meanings[cr.amount], text.Tokens(u)...)
		}
	}
	for _, t := range toks {
		cr.query.Add(cr.meanings[t], meaningWeight)
		cr.query.Add(actionSynonyms[t], 0.8)
	}
	cr.query.Add(text.Tokens(c), 1) // the topic in parentheses too
	cr.attrNoun = attributeNoun(cr)
	if !cr.leaned && len(cr.ctx) == 0 && !cr.generic && cr.style != styleReason && cr.enum == "" {
		// (A reason must say the whole of what it explains, and a list's
		// members are each of what the whole part asks.)
		cr.head = headOf(c, cr.core)
	}
	return cr
}

// headOf returns the words of core that part c asks before its closing
// adjunct — the phrase after "in", "for", "from" … that sets the scene
// ("… Tally's built-in profiler in a running desktop session", "build a
// small plugin from a terminal", "… expect for the names I give to
// widgets") — when they name enough of their own to stand as the
// question: four words at least, not attributes or values alone, before
// the first adjunct ("Which codecs can I use for a session when …" has
// too few, and its words after "for" are part of what it asks). A
// sentence that says the head answers the part without the scene's words
// (headCover). It is nil when c has no such adjunct, or when the adjunct
// is part of a condition ("What happens if I drop a table on a replica
// that is still syncing?"), a condition moved after the question (",
// when the daemon binds a port") or an act ("for word wrapping", "from
// flushing it"): what is asked, not where.
func headOf(c string, core []string) []string {
	words := strings.Fields(stripTopicParen(c))
	inCore := text.NewSet(core)
	for k := 2; k < len(words)-1; k++ {
		w := strings.ToLower(strings.Trim(words[k], ",;:?!."))
		if subordinators[w] {
			return nil
		}
		if !adjunctOpeners[w] {
			continue
		}
		if strings.HasSuffix(words[k-1], ",") || opensAct(words[k+1:]) {
			return nil
		}
		var head []string
		specific := 0
		for _, t := range text.Unique(text.Tokens(strings.Join(words[:k], " "))) {
			if !inCore[t] {
				continue
			}
			head = append(head, t)
			if !attributeWords[t] && !valueWords[t] {
				specific++
			}
		}
		if specific < minHeadWords || len(head) == len(core) {
			return nil
		}
		return head // the first adjunct decides: what comes before it is the question
	}
	return nil
}

// opensAct reports whether the words after an adjunct's opener name an
// act, a gerund first or after a bare noun ("flushing it", "word
// wrapping"), not a thing ("a running session").
func opensAct(words []string) bool {
	gerund := func(w string) bool { return strings.HasSuffix(strings.ToLower(strings.Trim(w, ",;:?!.")), "ing") }
	return gerund(words[0]) || len(words) > 1 && !determiners[strings.ToLower(words[0])] && gerund(words[1])
}

// determiners open a noun phrase.
var determiners = set("a an the this that these those my your our their its his her some any every each another")

// minHeadWords is the fewest words of its own a part's head names (headOf).
const minHeadWords = 4

// meaningWeight is the query weight of a word that says what a word of
// the criterion says: below the criterion's own words.
const meaningWeight = 0.5

// qualifiedTail returns the tokens of the last part of a qualified name
// ("functools.lru_cache" → lru, cache; "os.path.join" → join), or nil
// when e has no qualifier or its last part names nothing of its own.
func qualifiedTail(e string) []string {
	e = strings.Trim(e, "`()")
	k := strings.LastIndexAny(e, ".:/")
	if k <= 0 || k == len(e)-1 {
		return nil
	}
	toks := text.Tokens(e[k+1:])
	if len(toks) == 0 || len(toks) == len(text.Tokens(e)) {
		return nil
	}
	return toks
}

// isCamelName reports whether w is one word written in camel case, as
// code names are ("KeepAliveTimeout", "maxRetries"): a lower-case letter
// followed by a capital inside it, letters and digits only.
func isCamelName(w string) bool {
	if len(w) < 4 {
		return false
	}
	prevLower := false
	camel := false
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
		camel = camel || prevLower && unicode.IsUpper(r)
		prevLower = unicode.IsLower(r)
	}
	return camel
}

// coreOf drops generic words from toks.
func coreOf(toks []string) []string {
	var out []string
	for _, t := range text.Unique(toks) {
		if !softWords[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return text.Unique(toks)
	}
	return out
}

// hintGroups expand a generic criterion word into words its evidence uses.
var hintGroups = []struct{ when, add string }{
	{"requirement requirements prerequisite prerequisites", "require requires required need needs must install version support supported prerequisite"},
	{"caveat caveats limit limits limitation limitations problem problems", "note warning limit cannot only however caveat not unsupported deprecated error"},
	{"option options", "option flag set default configure parameter setting value"},
	{"reason reasons why", "because reason due since allows benefit designed so whether alleged allegedly allegation allegations accused over amid concern concerns questions include engaged"},
	{"differ difference differences", "whereas unlike differ difference than while but instead compared"},
	{"chosen choose choice", "use prefer recommend choose best suited when better"},
	{"work works used usage", "use used allows provides works lets enables example"},
	{"steps step", "step run first then command set create add configure enable"},
	{"feature features", "feature support supports provides includes allows"},
	{"date dates when history", "year date released introduced since first version launched"},
	{"known background role", "known founded created role developed author led"},
	{"condition conditions", "if only unless when requires depends default"},
	{"figure figures number statistics", "number total percent average million billion"},
}

// howToHints are words of instructions, for "how do I …" criteria.
const howToHints = "run add set configure enable install create edit command step"

// compoundRe finds a word after a determiner or "what"/"which" and
// before another word: "what hold time", "the source file".
var compoundRe = regexp.MustCompile(`(?i)\b(?:what|which|the|a|an|its|their|my|your|this|that)\s+([a-z]+)\s+([a-z][a-z-]*)\b`)

// compoundHeads returns the stems of the soft words c uses to name a
// thing, as the first word of a compound noun: "hold" of "what hold time
// does it use" is the name's, not the verb of "does the rule hold". A
// soft word followed by another soft word or a stopword ("the key
// facts", "the main reasons", "a limit is") stays soft.
func compoundHeads(c string) []string {
	var out []string
	for _, m := range compoundRe.FindAllStringSubmatch(c, -1) {
		head, next := text.Stem(strings.ToLower(m[1])), strings.ToLower(m[2])
		nt := text.Tokens(next)
		if softWords[head] && len(nt) == 1 && !softWords[nt[0]] && !text.IsStopword(next) && !valueWords[nt[0]] && !attributeWords[nt[0]] {
			out = append(out, head)
		}
	}
	return out
}

// phrasalRe matches "turn/switch (it|them|…) on/off", which manuals
// write as "enable"/"disable".
var phrasalRe = regexp.MustCompile(`(?i)\b(?:turn|turning|switch|switching)\s+(?:(?:it|them|this|that|these|those)\s+)?(on|off)\b`)

// unsetRe matches a clause that asks what holds when the asker leaves
// something unset, which a manual writes as the default. Its forms are
// the clause's structure, whatever the verb:
//   - "without (giving it) any arguments", "… options", "… flags";
//   - the asker not acting: "when I don't set one", "if you never change
//     anything", "if we haven't changed any settings" (the settings as a
//     whole name no setting);
//   - the asker acting otherwise: "unless I change it", "unless I set my
//     own", "unless I raise its limit" (a determiner's noun stays a word
//     of the part: "limit");
//   - the asker leaving a thing out or giving it nothing: "if I leave X
//     out", "if I give it no options";
//   - what is configured saying nothing: "if the configuration doesn't
//     set …", "sets nothing", "when nothing tells it which …";
//   - "out of the box";
//   - the asker saying nothing of it: "without saying anything about
//     its colour" (the thing named stays a word of the part);
//   - the asker spared an act each time: "without my passing -c every
//     time".
var unsetRe = regexp.MustCompile(`(?i)` + strings.Join([]string{
	`\bwithout\s+(?:(?:giving|passing|setting|specifying)\s+(?:it\s+|them\s+)?)?(?:any\s+|a\s+|an\s+)?(?:arguments?|options?|flags?|values?|parameters?)\b`,
	`\b(?:when|if)\s+(?:i|you|we)\s+(?:do\s+not|don't|don’t|never|have\s+not|haven't|haven’t)\s+[a-z]+` + unsetObject,
	`\bunless\s+(?:i|you|we)\s+[a-z]+` + unsetObject,
	`\b(?:if|when)\s+(?:i|you|we)\s+(?:leave|omit|skip)\b`,
	`\b(?:if|when)\s+(?:i|you|we)\s+(?:give|pass)\s+(?:\S+\s+){0,4}?no\b`,
	`\b(?:if|when)\s+(?:the\s+|my\s+|its\s+)?[\w.-]+(?:\s+[\w.-]+)?\s+(?:does\s+not|doesn't|doesn’t)\s+(?:set|specify|give|configure|name)\b`,
	`\b(?:sets|says|specifies|configures)\s+nothing\b`,
	`\b(?:when|if)\s+nothing\s+(?:else\s+)?(?:tells|says|sets|specifies|names|asks|requests|chooses|configures|is\s+(?:set|given|specified|configured))\b[^,;?]*`,
	`\bout\s+of\s+the\s+box\b`,
	`\bwithout\s+(?:saying|specifying|setting|giving|mentioning|stating)\s+anything\s+(?:about|for|on|of)\b`,
	`\bwithout\s+(?:(?:my|me|you|your|us|our)\s+)?(?:having\s+to\s+)?[a-z]+ing\b(?:\s+\S+){0,4}?\s+(?:every|each)\s+time\b`,
}, "|"))

// defaultSettingsRe matches "with its default settings": the settings as
// a whole name no setting; the part asks what holds by default.
var defaultSettingsRe = regexp.MustCompile(`(?i)\b(?:with|under|in)\s+(?:its|the|their|my|our|your)\s+default\s+(?:settings|configuration|config|values|options)\b`)

// askerPurposeRe matches a clause that says what the asker will do with
// the answer ("… so that I can paste it into a ticket") or must do past
// it ("… before I have to buy more disks"): the asker's aim, which the
// page that answers need not name.
var askerPurposeRe = regexp.MustCompile(`(?i),?\s+(?:(?:so\s+that|so|in\s+order\s+that)\s+(?:i|we)\s+(?:can|could|may|might)|before\s+(?:i|we)\s+(?:need|have|must|would\s+need|would\s+have)\s+to)\s[^?;]*`)

// contrastRe matches the alternative a question sets its ask against
// ("… as a real primality test rather than a probable-prime check",
// "… gives me Nothing instead of crashing"): what the answer is not,
// whose words it need not say.
//
// Inside a condition ("if I pass NULL instead of a hash function") it
// says what the asker does, and stays (conditionWordRe).
var contrastRe = regexp.MustCompile(`(?i),?\s+(?:rather\s+than|instead\s+of)\s[^?;,()]*`)

// conditionWordRe finds a word that opens a condition.
var conditionWordRe = regexp.MustCompile(`(?i)\b(?:if|when|whenever|unless|while)\b`)

// unsetAndRe matches the asker not acting as the second verb of a
// condition: "if I give it a device … and don't name a source file".
var unsetAndRe = regexp.MustCompile(`(?i)(\b(?:if|when)\s+(?:i|you|we)\s[^,;?]*?)\band\s+(?:do\s+not|don't|don’t|never)\s+[a-z]+` + unsetObject)

// unsetObject is what may follow the verb of an unset clause and goes
// with it: a pronoun ("it", "one", "my own") or a determiner, whose noun
// stays.
const unsetObject = `(?:\s+(?:it|one|them|anything(?:\s+else)?|otherwise|that|this|(?:my|your|our|its|their)\s+own|(?:any|the|my|your)\s+(?:settings|configuration)|any|a|an|the|my|your|its|their))?\b`

// fileLocationRe matches a phrase that names the file something is
// written in: "in my CMakeLists.txt", "in krb5.conf", "into the
// .bashrc file".
var fileLocationRe = regexp.MustCompile(`(?i)\s(?:in|inside|into|to|from)\s+(?:(?:my|the|your|our|its|their|a)\s+)?(?:[\w-]+\.[a-z][a-z0-9]{0,4}|\.[a-z][\w-]*)(?:\s+files?)?\b`)

// defaultWordRe matches a question that already says "default".
var defaultWordRe = regexp.MustCompile(`(?i)\bdefaults?\b`)

func phrasalVerb(m string) string {
	if strings.HasSuffix(strings.ToLower(m), "off") {
		return "disable"
	}
	return "enable"
}

// actionSynonyms are the two verb pairs manuals use for one instruction
// that WordNet 3.0 does not relate: its "enable" is "render capable", its
// "activate" "set in motion", and neither is Related or Broader to the
// other. Everything else that says the same comes from the lexicon
// (meaningOf).
var actionSynonyms = map[string][]string{
	text.Stem("enable"):     {text.Stem("activate")},
	text.Stem("activate"):   {text.Stem("enable")},
	text.Stem("disable"):    {text.Stem("deactivate")},
	text.Stem("deactivate"): {text.Stem("disable")},
}

// hintsFor returns the hint tokens for the generic words among toks.
func hintsFor(toks []string) []string {
	set := text.NewSet(toks)
	var out []string
	for _, g := range hintGroups {
		for _, w := range strings.Fields(g.when) {
			if set[text.Stem(w)] {
				out = append(out, text.Tokens(g.add)...)
				break
			}
		}
	}
	return out
}

// valueWords name the kind of figure a question asks for ("the maximum
// size of a payload"): a sentence that states a figure answers them
// without repeating them ("it must be shorter than 8000 bytes").
var valueWords = stems("default value maximum minimum max min limit size length number count amount total capacity upper lower bound")

// enumRes match a question that asks for the members of a set: "Which
// journal modes does X support?", "Which types of objects …", "what do
// the other levels do?", "list the …". The group is the plural noun.
var enumRes = []*regexp.Regexp{
	regexp.MustCompile(`(?i)^(?:(?:in|through|on|at|from|for|to|by|with|into|under)\s+)?(?:which|what)\s+(?:(?:kinds?|types?|sorts?|forms?)\s+of\s+)?(?:[\w-]+\s+){0,3}?([\w-]+[^s\W]s)\s+(?:does|do|did|can|could|may|might|should|are|were|exist|will|is|besides|except|apart\s+from|other\s+than)\b`),
	regexp.MustCompile(`(?i)^(?:which|what)\s+(?:kinds?|types?|sorts?|forms?)\s+of\s+([\w-]+[^s\W]s)\b`),
	regexp.MustCompile(`(?i)\bthe\s+other\s+([\w-]+[^s\W]s)\b`),
	regexp.MustCompile(`(?i)^(?:list|name|enumerate)\s+(?:all\s+|the\s+)*(?:[\w-]+\s+){0,3}?([\w-]+[^s\W]s)\b`),
}

// classifiedRe matches an enumeration asked with a classifier ("Which
// collection types does it provide?"), the classified noun first.
var classifiedRe = regexp.MustCompile(`(?i)^(?:which|what)\s+(?:[\w-]+\s+){0,2}?([\w-]+)\s+(?:types|kinds|sorts)\s+(?:does|do|did|can|could|may|might|should|are|were|exist|will|is)\b`)

// pluralOfRe matches a question for the things of a kind that something
// has: "What are the possible values of X?". The members are asked for
// when the asked entry lists them (pick_list.go, entryItems).
var pluralOfRe = regexp.MustCompile(`(?i)^(?:what|which)\s+(?:are|were)\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?[\w-]+[^s\W]s\s+(?:of|for)\b`)

// enumNoun returns the token of the plural noun criterion c asks to
// enumerate, or "".
func enumNoun(c string) string {
	for _, re := range enumRes {
		if m := re.FindStringSubmatch(c); m != nil {
			if toks := text.Tokens(m[1]); len(toks) == 1 {
				return toks[0]
			}
		}
	}
	return ""
}

// ofNounRe matches the words between an attribute and the noun it
// qualifies when the noun follows it: "the size of the cache".
var ofNounRe = regexp.MustCompile(`^(?:of|for|the|a|an)$`)

// attributeNoun returns the stems of the noun an attribute word of c
// qualifies: "page" of "the default page size of a new database",
// "ssl session cache" of "the default size of HAProxy's SSL session
// cache"; nil when c writes none after its attribute word.
func attributeNoun(c criterion) []string {
	var words []string
	for _, f := range strings.Fields(strings.ToLower(stripTopicParen(c.text))) {
		words = append(words, strings.Trim(f, ",.;:?!\"'()[]“”‘’`"))
	}
	k := slices.IndexFunc(words, func(w string) bool { return attributeWords[text.Stem(w)] })
	if k < 0 {
		return nil
	}
	var out []string
	skipped := false // past "of", "the", "a" after the attribute
	for _, w := range words[k+1:] {
		t := text.Stem(w)
		switch {
		case w == "":
			continue
		case attributeWords[t] || valueWords[t]:
			if len(out) > 0 {
				return out
			}
		case text.IsStopword(w) || whWords[w] || auxVerb[w]:
			if len(out) > 0 || !ofNounRe.MatchString(w) {
				return out // "the default in Quillstore" names a setting, not a noun
			}
			skipped = true
		default:
			if !slices.Contains(c.core, t) {
				if len(out) > 0 || skipped {
					return out
				}
				continue
			}
			out = append(out, t)
		}
	}
	return out
}

// splitLean returns the part and the part it leans on of a criterion
// written by withLean; ok is false for any other criterion, whose
// parentheses (if any) name a topic, not a question.
func splitLean(c string) (own, lean string, ok bool) {
	i := strings.LastIndex(c, " (")
	if i <= 0 {
		return c, "", false
	}
	inner := strings.TrimSuffix(strings.TrimRight(c[i+2:], "?.! "), ")")
	first := strings.ToLower(firstWord(inner))
	if !whWords[first] && !auxVerb[first] && !askerWords[first] {
		return c, "", false
	}
	return c[:i] + "?", inner, true
}

// askerWords open a statement of the asker's own situation, which a
// question after it may lean on ("I want a smaller binary …", "My tests
// write to the same file …").
var askerWords = map[string]bool{"i": true, "my": true, "we": true, "our": true}

// stripTopicParen removes the " (topic)" appended to a clause criterion,
// whose words the query gets through prioritise anyway.
func stripTopicParen(c string) string {
	if i := strings.LastIndex(c, " ("); i > 0 {
		return c[:i]
	}
	return c
}

// countedNoun is the stem of the noun question part c asks the number
// of ("How many wild goats …" → goat), or "".
func countedNoun(c string) string {
	m := howManyRe.FindStringSubmatch(c)
	if m == nil {
		return ""
	}
	noun := ""
	for _, w := range strings.Fields(m[1]) {
		lw := strings.ToLower(w)
		if auxVerb[lw] || text.IsStopword(lw) {
			break
		}
		noun = lw
	}
	if toks := text.Tokens(noun); len(toks) == 1 {
		return toks[0]
	}
	return ""
}

// flags are the tokens of the command-line flags c names ("-q").
func (c criterion) flags() []string {
	var out []string
	for _, t := range c.core {
		if strings.HasPrefix(t, flagPrefix+"-") {
			out = append(out, t)
		}
	}
	return out
}

// namesThing reports whether c names what it asks about as a flag, an
// identifier or a name in capitals.
func (c criterion) namesThing() bool {
	return len(c.flags()) > 0 || len(c.identNames) > 0 || len(c.caps) > 0
}

// extremeHints returns the words a statement of an extreme value uses:
// "maximum" and "minimum" and what shares their meaning in WordNet
// ("maximal", "upper limit", "utmost").
func extremeHints() []string {
	words := []string{"maximum", "minimum"}
	for _, w := range []string{"maximum", "minimum"} {
		words = append(words, lexicon().Related(w)...)
	}
	return text.Unique(text.Tokens(strings.Join(words, " ")))
}

// superlativeOfMeasure reports a superlative of an adjective that is a
// value of a measure ("highest", "largest", "longest"; WordNet's
// attributes, through the adjective's base form): "what is the highest
// weight" asks for the extreme value a setting takes.
func superlativeOfMeasure(w string) bool {
	w = strings.ToLower(strings.Trim(w, ",.;:?!\"'()"))
	return strings.HasSuffix(w, "est") && len(lexicon().Attributes(w)) > 0
}

// orRe matches two words the question offers as alternatives: "bad or
// invalid", "a file or directory".
var orRe = regexp.MustCompile(`\b([\p{L}][\p{L}\d_-]*)\s+or\s+([\p{L}][\p{L}\d_-]*)\b`)

// alternatives returns, for each content word of c that "or" joins to
// another, the stems of that other word, both ways.
func alternatives(c string) map[string][]string {
	var out map[string][]string
	for _, m := range orRe.FindAllStringSubmatch(c, -1) {
		a, b := text.Tokens(m[1]), text.Tokens(m[2])
		if len(a) != 1 || len(b) != 1 || a[0] == b[0] {
			continue // "whether or not", "more or less": grammar words
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[a[0]] = append(out[a[0]], b[0])
		out[b[0]] = append(out[b[0]], a[0])
	}
	return out
}

// quantifierStems are the stems of the quantifiers: outside "how many"
// ("many of the packets") a quantifier says how much, not what of.
var quantifierStems = sync.OnceValue(func() text.Set {
	out := text.Set{}
	for w := range quantifiers {
		out[text.Stem(w)] = true
	}
	return out
})

// pointingRe matches a demonstrative before a word: "that hook".
var pointingRe = regexp.MustCompile(`(?i)\b(?:that|this|these|those)\s+([\pL_-]+)`)

// backReferences returns the stems of the words s writes after a
// demonstrative ("that hook" → hook), stop words left out ("so that it").
func backReferences(s string) []string {
	var out []string
	for _, m := range pointingRe.FindAllStringSubmatch(s, -1) {
		if !text.IsStopword(m[1]) && !auxVerb[strings.ToLower(m[1])] {
			out = append(out, text.Stem(strings.ToLower(m[1])))
		}
	}
	return out
}
