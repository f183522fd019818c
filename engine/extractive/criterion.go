package extractive

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/text"
)

// criterion is a success criterion prepared for matching.
type criterion struct {
	text     string
	words    []string   // the words of text as phrases compare them (phraseWords)
	counted  string     // the stem of the noun a "how many" part counts (countedNoun)
	core     []string   // tokens that decide whether a sentence is evidence
	query    text.Query // tokens that rank sentences
	needsNum bool       // evidence must contain a figure or date
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
	// advice marks a question about what the source advises ("why is X
	// discouraged", "why recommend Y"): a sentence of advice answers it.
	advice bool
	// leaned marks a part that asks nothing of its own but a reason or a
	// value: its core is the words of the part it leans on.
	leaned bool
	// member marks "which one is the default": the answer names one
	// member of a set, not a figure, so a figure implies nothing.
	member bool
	// group is the plural noun of the enumeration a member question leans
	// on ("Which one is the default (which codecs does it ship)?" → codec).
	group string
	// identNames are the identifiers named, lower case as written
	// ("cache.size"), to tell them from longer ones ("cache.sizeLimit").
	identNames []string
	// enum is the token of the plural noun an enumeration asks to list
	// ("Which journal modes does …" → mode): its answer is every item
	// the best source lists, not one sentence.
	enum string
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
	// forms are, per core word, the stems of its irregular forms
	// ("buy" → "bought"): the same word, where meanings are other words.
	forms map[string][]string
	// caps are the tokens of the words the criterion writes in capitals
	// ("LISTEN", "TCP"): names a value criterion's evidence must say.
	caps []string
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

// styleBoost multiplies the score of a sentence in the form a criterion's
// style asks for; commandBoost replaces it for a how-to sentence that
// quotes its command, the most useful answer documentation gives.
const (
	styleBoost   = 1.3
	commandBoost = 1.6
)

var (
	definitionCritRe = regexp.MustCompile(`(?i)^(?:what|who)\s+(?:is|are|was|were)\s+(?:an?\s+|the\s+)?\S+(?:\s+\S+){0,2}?(?:\s+(?:used|defined|meant|in|by|for|on)\s+.*)?\??$|^(?:define|explain)\b`)
	valueCritRe      = regexp.MustCompile(`(?i)^(?:what|which)\b.*\b(?:default|maximum|minimum|max|min|limit|size|port|version|value|timeout|number|count|length|capacity|rate|price|cost|year|date|level|path|location|format|unit|percentage)s?\b`)
	attributeCritRe  = regexp.MustCompile(`(?i)^(?:what|which)\b.*\b(?:default|maximum|minimum|limit|upper bound|lower bound|upper limit|lower limit)s?\b`)
	whyCritRe        = regexp.MustCompile(`(?i)^why\b`)
	howToCritRe      = regexp.MustCompile(`(?i)^how\s+(?:do|does|can|could|should|would|to)\b|^(?:steps|ways)\s+to\b`)
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
	case c.style == styleReason && reasonRe.MatchString(s.text):
		return commandBoost
	case c.style == styleReason && c.advice && adviceSentRe.MatchString(s.text):
		return commandBoost
	}
	return 1
}

// whichNounRe matches a question for one named thing of a kind: "Which
// merge strategy does …", "Which index type is …".
var whichNounRe = regexp.MustCompile(`(?i)^which\s+(?:[\w-]+\s+){0,2}?([\w-]+)\s+(?:does|do|did|is|was|will|would|should|can)\b`)

// asksName reports whether c asks which thing of a kind, by a noun that
// names no figure (not "which value", "which port number").
func asksName(c string) bool {
	m := whichNounRe.FindStringSubmatch(strings.TrimSpace(c))
	return m != nil && !valueWords[text.Stem(strings.ToLower(m[1]))] && !attributeWords[text.Stem(strings.ToLower(m[1]))] &&
		!valueCritRe.MatchString("what "+m[1])
}

// memberRe matches a question for one member of a set: "which one is the
// default", "which of them is fastest".
var memberRe = regexp.MustCompile(`(?i)^which\s+(?:one|ones|of)\b`)

// reasonRe matches a sentence that states a cause, a purpose or a
// consequence: "This limit arises from the fact that …", "… because …",
// "… so that …", "Small values will result in the loss of …".
var reasonRe = regexp.MustCompile(`(?i)\b(?:because|since (?:the|it|they|this|that|there|an?)\b|works by|by \w+ing\b|due to|owing to|(?:arises?|arising|results?|resulting|stems?|follows?) from|(?:results?|resulting) in|leads? to|caused by|the reason|reasons? (?:is|are|for|why)|so that|in order to|so as to|this is why|which is why|that is why|for (?:this|that|these) reasons?|as a (?:result|consequence)|therefore|hence|the fact that|to (?:avoid|prevent|ensure|guarantee)|otherwise)\b`)

// reasonHints are words of the sentences that give a reason.
const reasonHints = "because due reason arises result fact so order therefore avoid prevent ensure"

// adviceRe matches a question about advice ("why is X discouraged",
// "why recommend Y", "warn"); adviceHints are the words its
// answer uses.
var adviceRe = regexp.MustCompile(`(?i)\b(?:advis|recommend|discourag|warn|suggest)\w*`)

// adviceSentRe matches a sentence that gives advice.
var adviceSentRe = regexp.MustCompile(`(?i)\b(?:should(?: not|n't)?|avoid(?:ed)?|(?:not )?recommended|discouraged|unless (?:strictly )?needed)\b`)

const adviceHints = "should avoid avoided not recommended unless needed instead overhead cost"

// attributeWords name the attribute a value question asks for ("the
// default value of", "the maximum size of").
var attributeWords = stems(attributeWordList)

const attributeWordList = "default maximum minimum max min limit size length capacity upper lower bound"

// directValueRe matches a sentence that gives an attribute's value
// outright: "The default is 64MB", "the maximum value is 1200", "defaults
// to 7070", "Default: 4.0".
var directValueRe = regexp.MustCompile(`(?i)\b(?:defaults?|maximum|minimum|max|min|limit)\b(?:\s+[\w-]+){0,3}?\s+(?:is|are|was|of|to|=)\s+(\S+)|\bdefaults\s+to\b|^(?:defaults?|maximum|minimum)(?:\s+value)?\s*:\s*\S`)

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
	for _, t := range subjects {
		subject = subject || s.set[t] || s.head[t]
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

var howQuantityRe = regexp.MustCompile(`(?i)^how\s+(\w+)\b`)

// whenDateRe matches questions whose answer is a date.
var whenDateRe = regexp.MustCompile(`(?i)^when (?:did|was|were|will|is|does|do)\b`)

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
	w, howMany := askedWord(c)
	if !howMany || w == "" || text.IsStopword(w) {
		return nil
	}
	return lexicon().UnitsOfKind(w)
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

// yearRe matches a year as dates write it.
var yearRe = regexp.MustCompile(`\b(?:1[5-9]|20)\d\d\b`)

// needsNumRe matches criteria whose answer is a figure or a date: a
// requirement for generic criteria ("key figures"), a preference otherwise.
var needsNumRe = regexp.MustCompile(`(?i)\b(?:figures?|numbers?|statistics?|dates?|years?|how (?:many|much|long|big|large|fast)|price|cost|percent(?:age)?)\b|^when (?:did|was|were|will|is|does|do)\b`)

// maskNames replaces each name of hyphenated parts in s (isKebabName)
// with a neutral word, so that no pattern reads its parts as words.
func maskNames(s string) string {
	f := strings.Fields(s)
	for i, w := range f {
		if isKebabName(strings.Trim(w, ",.;:?!\"'()[]`")) {
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
	c = phrasalRe.ReplaceAllStringFunc(c, phrasalVerb)
	toks := text.Unique(append(text.Tokens(stripTopicParen(c)), flagTokens(c)...))
	cr := criterion{text: full, words: phraseWords(full), counted: countedNoun(full), query: text.Query{}, needsNum: needsNumRe.MatchString(c)}
	var hints []string
	if m := howQuantityRe.FindStringSubmatch(c); m != nil && quantityWords[strings.ToLower(m[1])] != "" {
		// "How large is Titan?": "large" asks for a figure, it is not a topic word.
		cr.style = styleValue
		adj := text.Stem(strings.ToLower(m[1]))
		toks = slices.DeleteFunc(toks, func(t string) bool { return t == adj })
		hints = text.Tokens(quantityWords[strings.ToLower(m[1])])
	}
	// The form asked for is read from the question's words, not from the
	// parts of a name it writes ("journal-db-max-size" asks for no maximum).
	styled := strings.TrimSpace(maskNames(c))
	switch {
	case cr.style != stylePlain:
	case asksName(styled):
		// "Which index type does it create by default?": a name, not a
		// figure.
	case attributeCritRe.MatchString(styled):
		cr.style = styleValue // "What is the upper bound?" asks for a value, not a definition
	case definitionCritRe.MatchString(styled):
		cr.style = styleDefinition
	case howToCritRe.MatchString(styled):
		cr.style = styleHowTo
	case valueCritRe.MatchString(styled):
		cr.style = styleValue
	case whyCritRe.MatchString(styled):
		cr.style = styleReason
		hints = append(hints, text.Tokens(reasonHints)...)
		hints = append(hints, hintsFor(text.Tokens("reasons"))...)
	}
	if cr.member = memberRe.MatchString(c); cr.member && lean != "" {
		cr.group = enumNoun(stripTopicParen(lean))
	}
	if cr.advice = adviceRe.MatchString(c); cr.advice {
		// "Why is X discouraged?": the answer says what should be
		// avoided, and why.
		hints = append(hints, text.Tokens(adviceHints)...)
	}
	// A word of an identifier is never soft: "work" is filler in "how
	// does it work" but the topic in "sort_mem".
	identWords := text.Set{}
	for _, e := range entities(c) {
		g := text.Unique(text.Tokens(e))
		if isTechnical(e) {
			for _, t := range g {
				identWords[t] = true
			}
		}
		if isTechnical(e) && len(g) > 1 {
			cr.idents = append(cr.idents, g)
			cr.identTails = append(cr.identTails, qualifiedTail(e))
			cr.identNames = append(cr.identNames, strings.ToLower(strings.Trim(e, "`")))
		} else if isCamelName(e) {
			// "KeepAliveTimeout": a name written as code, whose entry a
			// reference page labels with it (entryOf).
			cr.identNames = append(cr.identNames, strings.ToLower(e))
		}
	}
	if !isCapitalsWord(c) { // a criterion written all in capitals names nothing by them
		for _, w := range strings.Fields(stripTopicParen(c)) {
			if w = strings.Trim(w, ".,;:!?()\"'`"); isCapitalsWord(w) && len(w) >= 3 {
				cr.caps = append(cr.caps, text.Tokens(w)...)
			}
		}
	}
	// A flag asked about ("the -q option") must be named by its evidence,
	// as an identifier's words must: "command line option" alone is what
	// every option's sentence says.
	for _, f := range flagTokens(c) {
		cr.idents = append(cr.idents, []string{f})
	}
	isSoft := func(t string) bool { return softWords[t] && !identWords[t] }
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
	if m := howQuantityRe.FindStringSubmatch(lean); m != nil && quantityWords[strings.ToLower(m[1])] != "" {
		own[text.Stem(strings.ToLower(m[1]))] = true // "how many": no word of the subject
	}
	for _, t := range text.Unique(append(text.Tokens(stripTopicParen(lean)), flagTokens(lean)...)) {
		if !isSoft(t) && !valueWords[t] && !own[t] {
			cr.ctx = append(cr.ctx, t)
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
	if cr.needsNum && !cr.generic && !whenDateRe.MatchString(c) && !asksMeasure(c) {
		// "How many jobs run by default?" may be answered by "the number
		// of logical CPUs": prefer figures, do not require them.
		cr.needsNum = false
		if cr.style == stylePlain {
			cr.style = styleValue
		}
	}
	cr.year, cr.asked, cr.units = asksYear(c), askedNoun(full), askedUnits(c)
	cr.enum = enumNoun(stripTopicParen(c))
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
	cr.forms = formsOf(c)
	cr.measures = measured(c)
	for _, t := range toks {
		cr.query.Add(cr.meanings[t], meaningWeight)
		cr.query.Add(actionSynonyms[t], 0.8)
	}
	cr.query.Add(text.Tokens(c), 1) // the topic in parentheses too
	cr.attrNoun = attributeNoun(cr)
	return cr
}

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

// phrasalRe matches "turn/switch (it|them|…) on/off", which manuals
// write as "enable"/"disable".
var phrasalRe = regexp.MustCompile(`(?i)\b(?:turn|turning|switch|switching)\s+(?:(?:it|them|this|that|these|those)\s+)?(on|off)\b`)

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
		for _, m := range slices.Concat(c.meanings[t], actionSynonyms[t]) {
			if s.set[m] {
				out[t] = true
				break
			}
		}
	}
	return out
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
	if !named || !p.namesIdentifiers(c, i) || p.labelsAnother(c, i) || !p.asksKeyOf(c, i) {
		return false
	}
	if p.namesFlag(c, i) && !c.needsNum && len(c.ctx) == 0 {
		return true // "-q: Suppress all output": the asked flag's own words
	}
	implied := text.Set{}
	if c.style == styleValue && s.hasNum && !c.member {
		implied = text.Set(maps.Clone(valueWords))
	}
	if c.style == styleValue && !p.namesSubject(c, i) {
		return false // "well within the 16kB maximum" of something else
	}
	for t := range p.impliedBy(c, i) {
		implied[t] = true
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
	if len(c.ctx) > 0 && !p.namesContext(c, i) {
		return false // about something else than the part it leans on
	}
	have := p.coverageWith(c.core, i, implied)
	if c.leaned && c.style == styleReason {
		// "… — why is there such a limit?": a sentence that gives a cause
		// and names some of what the part before asked about answers it
		// ("This limit arises from …" under "Number of workers in a pool");
		// one that only restates the limit does not.
		if !reasonRe.MatchString(s.text) && !(c.advice && adviceSentRe.MatchString(s.text)) {
			return false
		}
		return have >= ctxThreshold || p.explains(c, i)
	}
	return have >= cover
}

// inAskedEntry reports whether sentence i belongs to the entry of an
// identifier c names: its label is that identifier.
func (p *pool) inAskedEntry(c criterion, i int) bool {
	s := &p.sents[i]
	if s.label == "" {
		return false
	}
	l := strings.ToLower(s.label)
	for _, n := range c.identNames {
		if labelNames(l, n) && (!strings.HasPrefix(n, "-") || p.flagPage(c, s.src)) {
			return true
		}
	}
	if p.spells(c, s.label) {
		return true // "default_transaction_isolation" for "the default isolation level"
	}
	if w := p.entryWord(c); w != "" && strings.EqualFold(strings.TrimSpace(s.label), w) {
		return true // "Severity" for "the default severity of lines read"
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

// valueWords name the kind of figure a question asks for ("the maximum
// size of a payload"): a sentence that states a figure answers them
// without repeating them ("it must be shorter than 8000 bytes").
var valueWords = stems("default value maximum minimum max min limit size length number count amount total capacity upper lower bound")

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
	// the thing is asked about, not the thing.
	if caps := slices.DeleteFunc(slices.Clone(c.caps), func(t string) bool { return p.context[t] }); len(caps) > 0 {
		for _, t := range caps {
			if s.set[t] || s.head[t] || s.title[t] || p.docs[s.src].lead[t] {
				return true
			}
		}
		return false
	}
	asked := false
	for _, t := range c.core {
		if valueWords[t] || attributeWords[t] {
			continue
		}
		asked = true
		if s.set[t] || s.head[t] || s.title[t] {
			return true
		}
	}
	return !asked
}

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
		if !has(g) && (k >= len(c.identTails) || len(c.identTails[k]) == 0 || !has(c.identTails[k])) {
			return false
		}
	}
	return true
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
		if containsTerm(l, name) {
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

// enumRes match a question that asks for the members of a set: "Which
// journal modes does X support?", "Which types of objects …", "what do
// the other levels do?", "list the …". The group is the plural noun.
var enumRes = []*regexp.Regexp{
	regexp.MustCompile(`(?i)^(?:(?:in|through|on|at|from|for|to|by|with|into|under)\s+)?(?:which|what)\s+(?:(?:kinds?|types?|sorts?|forms?)\s+of\s+)?(?:[\w-]+\s+){0,3}?([\w-]+[^s\W]s)\s+(?:does|do|did|can|could|may|might|should|are|were|exist|will|is|besides|except|apart\s+from|other\s+than)\b`),
	regexp.MustCompile(`(?i)^(?:which|what)\s+(?:kinds?|types?|sorts?|forms?)\s+of\s+([\w-]+[^s\W]s)\b`),
	regexp.MustCompile(`(?i)\bthe\s+other\s+([\w-]+[^s\W]s)\b`),
	regexp.MustCompile(`(?i)^(?:list|name|enumerate)\s+(?:all\s+|the\s+)*(?:[\w-]+\s+){0,3}?([\w-]+[^s\W]s)\b`),
}

// pluralOfRe matches a question for the things of a kind that something
// has: "What are the possible values of X?". The members are asked for
// when the asked entry lists them (pick.go, entryItems).
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

// enumAnchor returns the sentence that anchors an enumeration: a pick
// that announces a list followed by its entries, else such an
// announcement in a pick's section that names c's group ("… one of the
// following storage classes:"), else the pick whose section has the most
// paragraphs naming the group; the first on a tie.
func (p *pool) enumAnchor(c criterion, picks []int, scores []float64) int {
	if i := p.bestAnnouncement(c, picks, scores); i >= 0 {
		return i
	}
	for _, i := range picks {
		if _, hi := p.sectionSpan(i); p.announcesList(c, i, hi) {
			return i
		}
	}
	best, bestN := picks[0], -1
	for _, i := range picks {
		lo, hi := p.sectionSpan(i)
		n := 0
		for j := lo; j < hi; j++ {
			if s := &p.sents[j]; s.para && s.set[c.enum] {
				if p.announcesList(c, j, hi) {
					return j
				}
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	return best
}

// bestAnnouncement returns the best scored sentence, anywhere in the pool,
// that names c's group and announces a list of it ("The store features
// three built-in codec modules, described in the sections below:"), when it
// scores at least minRelative of the best pick; else -1. The list a page
// announces is the answer to "which … does it provide" even when the
// section's picks come from elsewhere on the page.
func (p *pool) bestAnnouncement(c criterion, picks []int, scores []float64) int {
	if len(scores) != len(p.sents) {
		return -1
	}
	top := 0.0
	for _, i := range picks {
		top = max(top, scores[i])
	}
	// A list after a colon first; a sentence that counts the members
	// only when no page writes one.
	for _, counting := range []bool{false, true} {
		best := -1
		for i := range p.sents {
			s := &p.sents[i]
			if scores[i] <= 0 || scores[i] < minRelative*top || !s.set[c.enum] || strings.HasSuffix(s.text, ":") == counting {
				continue
			}
			if best >= 0 && scores[i] <= scores[best] {
				continue
			}
			if _, hi := p.sectionSpan(i); p.announcesList(c, i, hi) {
				best = i
			}
		}
		if best >= 0 {
			return best
		}
	}
	return -1
}

// announcesList reports whether sentence i ends in a colon and at least
// two entries follow it before hi, the end of its section, or counts the
// members of c's group that follow it ("There are three more special
// permission bits.").
func (p *pool) announcesList(c criterion, i, hi int) bool {
	if strings.HasSuffix(p.sents[i].text, ":") && len(p.listEntries(c, i, hi, 2)) >= 2 {
		return true
	}
	n := countsMembers(c, p.sents[i].text)
	return n > 0 && !strings.HasSuffix(p.sents[i].text, ":") && len(p.countedEntries(i, n)) == n
}

// maxCounted bounds the members a counting sentence may announce.
const maxCounted = 20

// countsMembers returns how many members of c's group sentence s says
// there are, when it writes a count right before the group's noun
// ("eight kinds of name statistics are supported", "three more special
// permission bits"); 0 otherwise.
func countsMembers(c criterion, s string) int {
	if c.enum == "" {
		return 0
	}
	words := text.Words(s)
	for k, w := range words {
		n, err := strconv.Atoi(w.Stem)
		if !w.Num || err != nil || n < 2 || n > maxCounted {
			continue
		}
		for _, v := range words[k+1 : min(len(words), k+6)] {
			if v.Num {
				break
			}
			if v.Stem == c.enum {
				return n
			}
		}
	}
	return 0
}

// countedEntries returns the n members a counting sentence i announces:
// the first sentence of each of the next n entries of its page when
// entries follow it ("clockstats: Enables …", "loopstats: …"), else of
// each of the next n paragraphs. Fewer when the page ends first.
func (p *pool) countedEntries(i, n int) []int {
	var out []int
	label := p.sents[i].label
	entries := i+1 < len(p.sents) && p.sents[i+1].label != "" && p.sents[i+1].label != label
	for j := i + 1; j < len(p.sents) && p.sents[j].src == p.sents[i].src && len(out) < n; j++ {
		s := &p.sents[j]
		switch {
		case entries && s.label != "" && s.label != label && !s.box && !s.row:
			out = append(out, j)
			label = s.label
		case !entries && s.para:
			out = append(out, j)
		}
	}
	return out
}

// listEntries returns up to max entries of the list sentence i announces,
// before hi: labelled entries ("REAL: The value is …"), or the paragraphs
// right after it that each name c's group ("The zstd codec, which
// …"), as a bulleted list of sentences is extracted. The list ends at the
// first paragraph that is neither.
func (p *pool) listEntries(c criterion, i, hi, max int) []int {
	var out []int
	lastLabel := p.sents[i].label
	for j := i + 1; j < hi && len(out) < max; j++ {
		s := &p.sents[j]
		switch {
		case s.row:
			out = append(out, j) // "Emerg: Emergencies - system is unusable; …"
		case s.label != "" && s.label != lastLabel:
			out = append(out, j)
		case s.label != "":
		case s.para && c.enum != "" && s.set[c.enum]:
			out = append(out, j)
		case s.para && len(out) > 0 && p.sents[out[len(out)-1]].label == "":
			return out // a paragraph of prose: the list is over
		}
		lastLabel = s.label
	}
	return out
}

// sectionSpan returns the range [lo, hi) of the sentences that share
// sentence i's source and section: a source's sentences are added
// together and its sections follow in order.
func (p *pool) sectionSpan(i int) (lo, hi int) {
	s := &p.sents[i]
	same := func(j int) bool { return p.sents[j].src == s.src && p.sents[j].section == s.section }
	lo, hi = i, i+1
	for lo > 0 && same(lo-1) {
		lo--
	}
	for hi < len(p.sents) && same(hi) {
		hi++
	}
	return lo, hi
}

// inlineListRe matches a sentence that lists members after a colon: ":
// "page", "index", and "marker"", ": lz4, zstd or deflate", or members
// each with its description, between semicolons: ": rows, which hold
// values; pages, which hold rows; and files, which …".
var inlineListRe = regexp.MustCompile(`:\s+(?:[^,:;]{1,40}(?:,\s+[^,:;]{1,40}){1,},?|[^;:]{1,120}(?:;\s+[^;:]{1,120}){1,};?)\s+(?:and|or)\s+\S`)

// valuesRe matches a sentence that lists the values an entry allows.
var valuesRe = regexp.MustCompile(`(?i)\b(?:valid|possible|allowed|supported|accepted|available)\s+(?:values?|options?|choices?|settings?)\s+(?:are|is|include)\b|\bmust be one of\b|\bcan be (?:one of|either)\b`)

// valuesOfEntry returns the sentence of pick i's labelled entry, at most
// two sentences on, that lists the values the entry allows, or -1.
func (p *pool) valuesOfEntry(i int) int {
	s := &p.sents[i]
	if s.label == "" {
		return -1
	}
	for j := i + 1; j < len(p.sents) && j <= i+2; j++ {
		t := &p.sents[j]
		if t.src != s.src || t.label != s.label {
			return -1
		}
		if valuesRe.MatchString(t.text) {
			return j
		}
	}
	return -1
}

// maxEnumItems bounds the items an enumeration adds to its section.
const maxEnumItems = 8

// enumerate completes the picks of a section whose criterion c asks for a
// set of things: in the section of the page the best pick comes from, the
// items that page lists beside it join the picks — each paragraph that
// names the group ("The TRUNCATE journaling mode …"), each sentence of the
// pick's own entry that does ("logical adds the information …"), and,
// after a pick that announces a list ("… one of the following storage
// classes:"), the first sentence of each entry that follows.
func (p *pool) enumerate(c criterion, picks []int, scores []float64) []int {
	if c.enum == "" || len(picks) == 0 {
		return picks
	}
	anchor := p.enumAnchor(c, picks, scores)
	first := p.sents[anchor]
	counted := countsMembers(c, first.text)
	announces := strings.HasSuffix(first.text, ":") || counted > 0
	in := map[int]bool{}
	for _, i := range picks {
		in[i] = true
	}
	out := append([]int(nil), picks...)
	if !in[anchor] {
		in[anchor] = true
		out = append(out, anchor)
	}
	if j := p.valuesOfEntry(picks[0]); j >= 0 && !in[j] {
		// "Specify the checksum kind (digest algorithm)." and, next
		// in its entry, "The valid values are crc32 and blake3.": the
		// best pick's own entry lists the members.
		in[j] = true
		out = append(out, j)
	}
	added, lastLabel := 0, first.label
	lo, hi := p.sectionSpan(anchor)
	if announces {
		// "… three built-in codec modules:" and the list after it: its
		// entries are the members, not what the section says elsewhere.
		entries := p.listEntries(c, anchor, hi, maxEnumItems)
		if counted > 0 && !strings.HasSuffix(first.text, ":") {
			// No colon: the entries or paragraphs the count
			// announces.
			entries = p.countedEntries(anchor, counted)
		}
		if len(entries) >= 2 {
			for _, j := range entries {
				if !in[j] && (counted > 0 && p.sents[j].label != first.label && p.sents[j].label != "" || !p.duplicates(j, out)) {
					in[j] = true
					out = append(out, j)
				}
			}
			return out
		}
	}
	for j := lo; j < hi && added < maxEnumItems; j++ {
		s := &p.sents[j]
		if in[j] {
			continue
		}
		names := s.set[c.enum] || s.label != "" && slices.Contains(text.Tokens(s.label), c.enum)
		item := false
		switch {
		case s.para && names:
			item = true // a paragraph of its own about one member
		case first.label != "" && s.label == first.label && (names || s.pos > first.pos && s.pos <= first.pos+2):
			// The pick's own entry names another member, or goes on to
			// list them ("The valid values are …").
			item = true
		case announces && s.pos > first.pos && s.label != "" && s.label != lastLabel:
			item = true // the next entry of the announced list
		}
		if s.label != "" {
			lastLabel = s.label
		}
		if item && !p.duplicates(j, out) {
			in[j] = true
			out = append(out, j)
			added++
		}
	}
	return out
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
