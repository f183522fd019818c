package extractive

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/text"
)

// Question kinds, which decide the supporting criteria of a plan.
const (
	kindDefinition = "definition"
	kindFact       = "fact"
	kindHowTo      = "howto"
	kindWhy        = "why"
	kindWhen       = "when"
	kindWho        = "who"
	kindQuantity   = "quantity"
	kindCompare    = "compare"
	kindYesNo      = "yesno"
	kindOther      = "other"
)

var (
	whWords = set("what which who whom whose when where why how whether")
	auxVerb = set("is are was were do does did can could should would will shall may might must has have had am")
	// fillerWords carry no search value.
	fillerWords = set("tell explain describe know find want like need please give show list " +
		"provide summarize summarise detail details information info anything something thing things " +
		"about me i my you your we our us")
	// softWords are the vocabulary of generic criteria ("key figures",
	// "caveats"): they steer ranking but do not decide whether a criterion
	// is covered.
	softWords = stems("key main fact facts detail details caveat caveats limit limits limitation " +
		"limitations option options requirement requirements prerequisite prerequisites apply " +
		"reason reasons given trade off offs tradeoff counter argument arguments date dates context " +
		"known role roles affiliation affiliations figure figures condition conditions support " +
		"supporting answer common problem problems work works feature features important overview " +
		"summary information aspect aspects step steps used usage hold holds differ difference " +
		"related give gives given sources source say says characteristic characteristics exception exceptions " +
		"differences different differently chosen choose choice each background involved " +
		// Words that name the source or its advice, not the subject: "why
		// does the guide recommend Y over X" is about X and Y.
		"documentation docs manual advise advises advised recommend recommends suggest suggests")

	politeRe  = regexp.MustCompile(`(?i)^(?:(?:please|so|ok|okay|hey|hi|hello)[,!]?\s+)*(?:(?:can|could|would|will) you\s+(?:please\s+)?(?:tell|explain|describe|find|give|show|list|summari[sz]e|help|research|look up|find out)(?:\s+(?:me|us))?\s+(?:(?:about|on)\s+)?|(?:tell|explain to|show) (?:me|us)\s+(?:about\s+)?|i(?:'d| would) like to know\s+(?:about\s+)?|i want to know\s+(?:about\s+)?|i(?:'m| am) (?:curious|wondering)\s+(?:about\s+)?|do you know\s+|help me understand\s+|research\s+)`)
	compareRe = regexp.MustCompile(`(?i)^(?:compare|comparison of|contrast)\s+(.+?)\s+(?:and|with|to|vs\.?|versus)\s+(.+?)(?:\s+(?:for|in|on|when|regarding|in terms of)\s+(.+))?$`)
	diffRe    = regexp.MustCompile(`(?i)\bdifferences?\s+between\s+(.+?)\s+and\s+(.+?)(?:\s+(?:for|in|on|when|regarding|in terms of)\s+(.+))?$`)
	// differsRe reads "what does A do differently from B", "how does A
	// differ from B", "how is A different from B" as a comparison.
	differsRe = regexp.MustCompile(`(?i)^(?:how|what|in what ways?)\s+(?:does|do|is|are)\s+(.+?)\s+(?:do\s+differently|differ|different)\s+(?:from|than|to)\s+(.+?)(?:\s+(?:for|in|on|when|regarding|in terms of)\s+(.+))?$`)
	// differAndRe reads "how do A and B differ (for X)" as a comparison.
	differAndRe = regexp.MustCompile(`(?i)^(?:how|in what ways?)\s+(?:does|do|did)\s+(.+?)\s+and\s+(.+?)\s+(?:differ|compare)(?:\s+(?:for|in|on|when|regarding|in terms of)\s+(.+))?$`)
	// differBetweenRe reads "how do X differ between A and B" as a
	// comparison of A and B for X (its groups named, as the aspect comes
	// first).
	differBetweenRe = regexp.MustCompile(`(?i)^(?:how|in what ways?)\s+(?:does|do|did|would)\s+(?P<aspect>.+?)\s+(?:differ|vary)\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)$`)
	vsWordRe        = regexp.MustCompile(`(?i)\b(?:vs\.?|versus|compared)\b`)
	clauseSepRe     = regexp.MustCompile(`[?;]|\.\s`)
	quotedRe        = regexp.MustCompile(`["“]([^"”]{2,60})["”]`)
	versusRe        = regexp.MustCompile(`(?i)^(?:(?:what|which) is (?:better|faster|best)[,:]?\s+|should i use\s+)?(.+?)\s+(?:vs\.?|versus|or|compared (?:to|with))\s+(.+?)(?:\s+(?:for|in|on|when|regarding)\s+(.+))?$`)
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

func stems(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[text.Stem(w)] = true
	}
	return m
}

// quantifiers are the words after "how" that ask a count, an amount or a
// frequency whatever follows ("how many", "how much", "how often"), with
// the words their answers use. The adjectives of a measure ("how long",
// "how short", "how heavy") are WordNet's (quantityHints).
var quantifiers = map[string]string{
	"many": "number total count", "much": "amount total cost price", "often": "frequency every times per",
}

// quantityHints returns the stems of the words an answer to "how <w> …"
// uses when w asks a quantity: a quantifier's, or, for an adjective that
// is a value of a measure, the measure and its values ("short" → length,
// long, short; "heavy" → weight, light). nil when w asks none ("how
// does", "how important").
func quantityHints(w string) []string {
	w = strings.ToLower(w)
	if h, ok := quantifiers[w]; ok {
		return text.Tokens(h)
	}
	l := lexicon()
	var words []string
	for _, a := range l.Attributes(w) {
		words = append(words, a)
		for _, v := range l.Values(a) {
			words = append(words, v)
			words = append(words, degrees(v)...)
			words = append(words, l.Inflections(v)...)
		}
	}
	return text.Unique(text.Tokens(strings.Join(words, " ")))
}

// degrees returns the regular comparative and superlative of adjective
// v ("large" → "larger", "largest"; "heavy" → "heavier", "heaviest"); an
// irregular one ("big" → "biggest") is WordNet's (Inflections).
func degrees(v string) []string {
	switch {
	case strings.Contains(v, " "):
		return nil
	case strings.HasSuffix(v, "e"):
		return []string{v + "r", v + "st"}
	case strings.HasSuffix(v, "y") && len(v) > 2 && !strings.ContainsRune("aeiou", rune(v[len(v)-2])):
		return []string{v[:len(v)-1] + "ier", v[:len(v)-1] + "iest"}
	}
	return []string{v + "er", v + "est"}
}

// asksQuantity reports whether "how <w> …" asks a quantity.
func asksQuantity(w string) bool {
	w = strings.ToLower(w)
	return quantifiers[w] != "" || len(lexicon().Attributes(w)) > 0
}

// question is a message analysed for planning.
type question struct {
	text     string   // cleaned question, as the goal
	kind     string   // one of the kind constants
	clauses  []string // sub-questions, in order
	entities []string // names and technical terms, as written
	topic    string   // what the question is about, as a short phrase
	subject  string   // what the first clause asks about: "EmberDB", "the default port of EmberDB", "change the port"
	compare  []string // the two sides of a comparison
	aspect   string   // what a comparison is about ("for web servers")
	context  string   // statements around the questions ("I run EmberDB on Debian.")
	ask      string   // the asking part of text: all of it unless there is context
	fronted  string   // a condition written before the question word ("with unity builds switched on")
}

// analyse cleans msg and splits it into clauses, kind, topic and entities.
func analyse(msg string) question {
	q := question{text: cleanQuestion(msg)}
	q.ask = q.text
	body := strings.TrimRight(q.text, "?.! ")
	q.entities = entities(body)
	if asks, context := splitContext(q.text); len(asks) > 0 && len(context) > 0 {
		// "I run EmberDB on Debian. How do I change the port?": the
		// criteria come from the questions, the rest is context.
		q.context = strings.Join(context, " ")
		q.ask = pronounNamed(strings.Join(asks, " "), q.context)
		body = strings.TrimRight(q.ask, "?.! ")
	}
	fronted := ""
	if main, head, ok := splitFronted(body); ok {
		// "By default, how many …?" asks "how many …, by default?"; "If a
		// download stalls, how long …?" asks "how long …, if a download
		// stalls?", however many "and"s the condition holds.
		body, fronted = main, head
		q.fronted = head
		q.ask = withFronted(main, head) + "?"
		if exclusions[strings.ToLower(firstWord(head))] {
			// "Besides X and Y, which …?" asks for what is not X or Y:
			// their words are not the answer's.
			fronted, q.fronted, q.ask = "", "", main+"?"
			q.entities = entities(main)
		}
	}
	q.kind = kindOf(body)
	if sides, aspect := comparison(body); len(sides) == 2 {
		q.kind = kindCompare
		q.compare = sides
		q.aspect = aspect
	}
	q.clauses = clauses(body)
	q.ask = restatementRe.ReplaceAllString(q.ask, "")
	if fronted != "" {
		for k := range q.clauses {
			q.clauses[k] = withFronted(q.clauses[k], fronted)
		}
	}
	q.topic = topicOf(q)
	q.subject = q.topic
	if len(q.clauses) > 0 {
		if sub := clauseSubject(q.clauses[0]); sub != "" {
			q.subject = sub
		}
	}
	return q
}

// cleanQuestion trims politeness and white space and capitalises the first
// letter; a question without end punctuation that starts like one gets "?".
func cleanQuestion(msg string) string {
	s := text.OneLine(msg)
	s = strings.Trim(s, "\"'“”‘’ ")
	if loc := politeRe.FindStringIndex(s); loc != nil && loc[1] < len(s) {
		s = s[loc[1]:]
	}
	s = text.Clip(s, 400)
	s = capitalise(s)
	first := strings.ToLower(firstWord(s))
	if s != "" && !strings.ContainsAny(s[len(s)-1:], "?.!") && (whWords[first] || auxVerb[first]) {
		s += "?"
	}
	return s
}

func capitalise(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[0], ",.;:!?\"'")
}

// kindOf classifies a question by its opening words.
func kindOf(s string) string {
	l := strings.ToLower(s)
	w := strings.Fields(l)
	if len(w) == 0 {
		return kindOther
	}
	switch {
	case len(w) > 1 && w[0] == "how" && asksQuantity(w[1]),
		strings.HasPrefix(l, "what is the number of"), strings.HasPrefix(l, "what percentage"):
		return kindQuantity
	case w[0] == "how" || w[0] == "steps" || strings.HasPrefix(l, "ways to") || strings.HasPrefix(l, "guide to"):
		return kindHowTo
	case w[0] == "why":
		return kindWhy
	case w[0] == "when" || strings.HasPrefix(l, "what year") || strings.HasPrefix(l, "what date") ||
		strings.HasPrefix(l, "history of"):
		return kindWhen
	case w[0] == "who" || w[0] == "whom" || w[0] == "whose":
		return kindWho
	case (w[0] == "what" || w[0] == "which") && len(w) > 1 && (w[1] == "is" || w[1] == "are" || w[1] == "was" || w[1] == "were"),
		w[0] == "what's":
		// "What is EmberDB" asks for a definition; "what is the default
		// port of EmberDB" for a fact.
		rest := w[1:]
		if w[0] != "what's" {
			rest = w[2:]
		}
		for len(rest) > 0 && (rest[0] == "the" || rest[0] == "a" || rest[0] == "an") {
			rest = rest[1:]
		}
		if len(rest) <= 3 && !strings.Contains(" "+strings.Join(rest, " ")+" ", " of ") {
			return kindDefinition
		}
		return kindFact
	case w[0] == "define" || w[0] == "explain" || strings.HasPrefix(l, "meaning of") || whatDoesSubjRe.MatchString(s):
		return kindDefinition
	case auxVerb[w[0]]:
		return kindYesNo
	}
	return kindOther
}

// comparison returns the two sides (and the aspect) of "A vs B",
// "compare A and B", "difference between A and B".
func comparison(s string) ([]string, string) {
	for _, re := range []*regexp.Regexp{differBetweenRe, compareRe, diffRe, differsRe, differAndRe, versusRe} {
		m := re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		// The sides are the first two groups and the aspect the third,
		// unless the pattern names them.
		ia, ib, iasp := 1, 2, 3
		if k := re.SubexpIndex("a"); k > 0 {
			ia, ib, iasp = k, re.SubexpIndex("b"), re.SubexpIndex("aspect")
		}
		a, b := trimSide(m[ia]), trimSide(m[ib])
		if re == versusRe && !vsWordRe.MatchString(s) {
			// "A or B" counts only when both sides are names: "Postgres or MySQL".
			if !looksLikeName(a) || !looksLikeName(b) {
				continue
			}
		}
		if a == "" || b == "" || len(strings.Fields(a)) > 6 || len(strings.Fields(b)) > 6 {
			continue
		}
		a = sideAfterName(a, b)
		return []string{a, b}, strings.TrimSpace(m[iasp])
	}
	return nil, ""
}

// sideAfterName returns the first side a of a comparison without the
// name it shares with the second b: in "the smtpd_tls_security_level
// values may and encrypt" the sides are "may" and "encrypt", values of
// the identifier and the word after it that says what they are. a is
// returned whole when b names an identifier too, or nothing follows.
func sideAfterName(a, b string) string {
	if slices.ContainsFunc(strings.Fields(b), isTechnical) {
		return a
	}
	f := strings.Fields(a)
	for k, w := range f {
		if isTechnical(strings.Trim(w, ",.;:?!\"'`()")) {
			if k+2 < len(f) {
				return strings.Join(f[k+2:], " ")
			}
			return a
		}
	}
	return a
}

func trimSide(s string) string {
	s = strings.Trim(strings.TrimSpace(s), ",.;:?!\"'")
	for _, p := range []string{"the ", "a ", "an ", "between ", "using "} {
		// (Not before an operator: the "a" of "a * b" is a name.)
		if strings.HasPrefix(strings.ToLower(s), p) && strings.ContainsFunc(firstWord(s[len(p):]), isAlnum) {
			s = s[len(p):]
		}
	}
	return strings.TrimSpace(s)
}

func looksLikeName(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > 3 {
		return false
	}
	for _, w := range f {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) && !isTechnical(w) {
			return false
		}
	}
	return true
}

// isTechnical matches identifiers and versions: "json.Marshal",
// "max_clients", "v1.2", "C++", "HTTP/2".
func isTechnical(w string) bool {
	hasLetter, hasDigit := false, false
	for _, r := range w {
		switch {
		case unicode.IsLetter(r):
			hasLetter = true
		case unicode.IsDigit(r):
			hasDigit = true
		}
	}
	if strings.ContainsAny(w, "._/+#()") && hasLetter && !strings.HasSuffix(w, ".") {
		return true
	}
	if flagRe.MatchString(w) && strings.HasPrefix(w, "-") {
		return true // a command-line flag: "-Fc", "--tags"
	}
	if sigilName(w) != "" {
		return true // a variable written with its sigil: "$tally_home"
	}
	return hasLetter && hasDigit || isKebabName(w)
}

// sigilName returns the name of the variable w refers to with a "$"
// before it ("$outbox", "${TALLY_HOME}"), or "" when w is no such
// reference ("$5" is a sum of money).
func sigilName(w string) string {
	if !strings.HasPrefix(w, "$") {
		return ""
	}
	n := strings.TrimPrefix(w[1:], "{")
	if strings.HasPrefix(w, "${") {
		n = strings.TrimSuffix(n, "}")
	}
	r, _ := utf8.DecodeRuneInString(n)
	if !unicode.IsLetter(r) && r != '_' || strings.IndexFunc(n, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) >= 0 {
		return ""
	}
	return n
}

// isCodeWord reports whether w is written as code: technical, or a name
// qualified with "::" ("Net::Fetcher"), which the words of prose never are.
func isCodeWord(w string) bool {
	return isTechnical(w) || strings.Contains(w, "::")
}

// isKebabName reports whether w is a name of three or more lower-case
// parts joined by hyphens, as configuration options are written
// ("journal-db-max-size", "max-cache-ttl"); a compound of two parts
// ("read-only") is a word of prose as often as a name.
func isKebabName(w string) bool {
	parts := strings.Split(w, "-")
	if len(parts) < 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.IndexFunc(p, func(r rune) bool { return !unicode.IsLower(r) && !unicode.IsDigit(r) }) >= 0 {
			return false
		}
	}
	return true
}

// entities returns the names and technical terms of s in order: quoted
// phrases, capitalised words after the first, acronyms, identifiers.
// callFormRe matches a word written as a call: "option()", "file(GLOB)".
var callFormRe = regexp.MustCompile(`^[\pL_][\pL\pN_:.]*\([^()\s]*\)[,.;:?!'’]*$`)

func entities(s string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(e string) {
		if !callFormRe.MatchString(e) {
			e = trimBalanced(e)
		}
		k := strings.ToLower(e)
		if e == "" || seen[k] || whWords[k] || auxVerb[k] || text.IsStopword(k) {
			return
		}
		seen[k] = true
		out = append(out, e)
	}
	for _, m := range quotedRe.FindAllStringSubmatch(s, -1) {
		add(m[1])
	}
	fields := strings.Fields(s)
	for i := 0; i < len(fields); i++ {
		w := strings.Trim(fields[i], ",.;:?!\"'()[]“”‘’")
		if w == "" {
			continue
		}
		r, _ := utf8.DecodeRuneInString(w)
		switch {
		case callFormRe.MatchString(strings.TrimLeft(fields[i], "(\"'“‘")):
			// "option()", "ExternalProject_Add()": a name written as a
			// call names a function or command, however plain its word
			// (and whatever opens a parenthesis before it).
			add(strings.TrimRight(strings.TrimLeft(fields[i], "(\"'“‘"), ",.;:?!'’"))
		case isTechnical(w):
			add(fields[i]) // whole: `ENV["HOME"]` keeps its brackets
		case unicode.IsUpper(r) && (i > 0 || isAcronymOrMixed(w)):
			// Join a run of capitalised words: "Great Barrier Reef".
			span := w
			for i+1 < len(fields) {
				next := strings.Trim(fields[i+1], ",.;:?!\"'()[]“”‘’")
				nr, _ := utf8.DecodeRuneInString(next)
				if next == "" || !unicode.IsUpper(nr) || strings.ContainsAny(fields[i], ",.;:?!") || isCodeWord(next) {
					break // an identifier after a name ("Tallyshell AUTO_ENTER") is one of its own
				}
				if next == "I" {
					break // "In Tally I wrote …": the asker, not a part of the name
				}
				span += " " + next
				i++
			}
			add(span)
		}
	}
	return out
}

// trimBalanced trims the punctuation around a name, but not a closing
// bracket whose opening one the name holds: a quoted message
// "Unknown keys: [x]" keeps its "]".
func trimBalanced(e string) string {
	const cut = ",.;:?!\"'()[]“”‘’"
	e = strings.TrimLeft(e, cut)
	for e != "" {
		r, size := utf8.DecodeLastRuneInString(e)
		if r == ')' && strings.Count(e, "(") >= strings.Count(e, ")") ||
			r == ']' && strings.Count(e, "[") >= strings.Count(e, "]") || !strings.ContainsRune(cut, r) {
			return e
		}
		e = e[:len(e)-size]
	}
	return e
}

func isAcronymOrMixed(w string) bool {
	upper := 0
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			upper++
		}
	}
	return upper > 0
}

// itRe matches the pronoun "it" as a word.
var itRe = regexp.MustCompile(`(?i)\bit\b`)

// pronounNamed replaces the "it" of a question that names nothing written
// as code with what the statements before it are about: the subject of
// the last one when it opens with a determiner ("The cache is meant for
// tests only. How do I turn it off?", statedSubject), else what the asker
// says they acted on ("I removed a class …", askersObject), else the one
// name written as code in them: "I'm calling tally.scan on a line … How
// do I make it match exactly?" asks about tally.scan, whose entry a
// reference page labels with that name. A statement naming two such
// names leaves "it" as it is, unless it opens by saying what one name is
// ("Tally is a …").
func pronounNamed(ask, context string) string {
	if len(codeNames(ask)) > 0 || !itRe.MatchString(ask) {
		return ask
	}
	// "… The cache is meant for tests only. How do I turn it off?": the
	// subject of the statement just before is what "it" points back to.
	names := statedSubject(context)
	if names == nil && itIsObject(ask) {
		names = askersObject(context)
	}
	if names == nil {
		names = outermost(codeNames(context))
	}
	if len(names) != 1 {
		// "Int is a fixed-size type. What range is it guaranteed to
		// cover?": a statement that says what a name is is about it.
		names = nil
		if f := strings.Fields(context); len(f) > 2 && (f[1] == "is" || f[1] == "are") && !text.IsStopword(strings.ToLower(f[0])) {
			if r, _ := utf8.DecodeRuneInString(f[0]); unicode.IsUpper(r) {
				names = f[:1]
			}
		}
		if names == nil {
			return ask
		}
	}
	loc := itRe.FindStringIndex(ask)
	return ask[:loc[0]] + names[0] + ask[loc[1]:]
}

// statedSubject returns the subject of the last statement of context
// when it opens with a determiner and a noun before its verb: "… The
// setting is meant for tests only. How do I turn it off?" turns off "the
// setting", what the sentence before the question is about.
func statedSubject(context string) []string {
	sents := messageSentences(context)
	if len(sents) == 0 {
		return nil
	}
	f := strings.Fields(sents[len(sents)-1])
	if len(f) < 4 || !determiners[strings.ToLower(f[0])] || !auxVerb[strings.ToLower(f[2])] || text.IsStopword(strings.ToLower(f[1])) {
		return nil
	}
	return []string{"the " + strings.ToLower(strings.Trim(f[1], ",;:"))}
}

// askerObjectRe matches a statement opening with the asker's own action
// on a thing: "I removed a class …", "I'm calling the scanner …".
var askerObjectRe = regexp.MustCompile(`(?m)(?:^|[.!?]\s+)I(?:'m|'ve| am| have| just| also)?\s+[a-z]+\s+(?:a|an|the|my|our|this|that)\s+([a-z][a-z0-9_-]*)(?:\s+([a-z][a-z0-9_-]*))?`)

// askersObject returns what the asker says they acted on, a determiner
// before it: "I removed a class from my code, but it still shows up in
// the HTML. How do I get rid of it?" gets rid of "the class", not of the
// HTML.
func askersObject(context string) []string {
	m := askerObjectRe.FindStringSubmatch(context)
	if m == nil || text.IsStopword(m[1]) {
		return nil
	}
	obj := m[1]
	if m[2] != "" && !text.IsStopword(m[2]) && !auxVerb[m[2]] {
		obj += " " + m[2] // "a source file that …"
	}
	return []string{"the " + obj}
}

// itIsObject reports whether the "it" of ask is acted on, not acting:
// nothing or a preposition or conjunction follows it ("get rid of it?",
// "write it so …"), where a verb follows a subject ("it just printed").
func itIsObject(ask string) bool {
	loc := itRe.FindStringIndex(ask)
	f := phraseWords(ask[loc[1]:])
	return len(f) == 0 || f[0] == "" || linkWords[f[0]]
}

// linkWords are the prepositions and conjunctions that may follow an
// object.
var linkWords = set("so to when without with in on for from again back up off out into as if because before after")

// codeNames are the entities of s written as code: identifiers, calls,
// flags; not a quoted figure ("1.5").
func codeNames(s string) []string {
	var out []string
	for _, e := range entities(s) {
		if callFormRe.MatchString(e) || isCodeWord(e) && strings.ContainsFunc(e, unicode.IsLetter) && !strings.Contains(e, " ") {
			out = append(out, e)
		}
	}
	return out
}

// outermost drops the names written inside another of names: the quoted
// key of `ENV["HOME"]` is part of that one name.
func outermost(names []string) []string {
	return slices.DeleteFunc(names, func(n string) bool {
		return slices.ContainsFunc(names, func(o string) bool { return o != n && strings.Contains(o, n) })
	})
}

// splitContext separates the sentences of a message that ask something
// from those that only set the scene.
func splitContext(msg string) (asks, context []string) {
	sents := messageSentences(msg)
	if len(sents) < 2 {
		return nil, nil
	}
	for _, t := range sents {
		first := strings.ToLower(firstWord(t))
		if strings.HasSuffix(t, "?") || whWords[first] && !opensClause(t) || auxVerb[first] || isImperative(first) || first == "please" {
			asks = append(asks, t)
		} else {
			context = append(context, t)
		}
	}
	return asks, context
}

// opensClause reports whether sentence t, opening with a question word
// but not ending in a question mark, is a statement: the word opens a
// clause with its own subject ("When I load the file, Tally warns …"),
// where a question puts a verb or a quantity next ("When does …", "How
// many …").
func opensClause(t string) bool {
	f := phraseWords(t)
	return len(f) > 2 && subjectWords[f[1]]
}

// subjectWords open a clause's subject: personal pronouns and
// determiners.
var subjectWords = set("i we you he she they it my our your his her their the a an this that these those")

// messageSentences splits a message into its sentences: text.Sentences,
// and a sentence ending in a lower-case letter that names a value ("… a
// Row of length k. When does it …?"), which text.Sentences reads as an
// initial, where a question opens after it.
func messageSentences(msg string) []string {
	var out []string
	for _, sp := range text.Sentences(msg) {
		t := strings.TrimSpace(sp.Text)
		for {
			k := -1
			for _, m := range letterEndRe.FindAllStringSubmatchIndex(t, -1) {
				if w := strings.ToLower(t[m[2]:m[3]]); whWords[w] || auxVerb[w] {
					k = m[0] + strings.IndexByte(t[m[0]:], '.') + 1 // after "n."
					break
				}
			}
			if k < 0 {
				break
			}
			out = append(out, t[:k])
			t = strings.TrimSpace(t[k:])
		}
		out = append(out, t)
	}
	return out
}

// letterEndRe matches a lower-case letter alone before a period and the
// capitalised word after it.
var letterEndRe = regexp.MustCompile(`\s\p{Ll}\.\s+(\p{Lu}\w*)`)

// clauses splits a question into its sub-questions: at "?" and ";", at
// "and"/","/"but" before a question word, and at "and" between two
// substantial phrases ("the default port and the maximum connections").
func clauses(s string) []string {
	var out []string
	for _, part := range splitClauses(s) {
		part = strings.TrimSpace(restatementRe.ReplaceAllString(part, ""))
		if part == "" {
			continue
		}
		out = append(out, sharePredicate(splitConjunctions(part))...)
	}
	return out
}

// splitClauses cuts s at "?", ";" and a period that ends a sentence: not
// the period of an abbreviation ("…, i.e. how many …").
func splitClauses(s string) []string {
	var out []string
	start := 0
	for _, m := range clauseSepRe.FindAllStringIndex(s, -1) {
		if s[m[0]] == '.' {
			f := strings.Fields(s[start:m[0]])
			if len(f) > 0 && text.IsAbbreviation(f[len(f)-1]) {
				continue
			}
		}
		out = append(out, s[start:m[0]])
		start = m[1]
	}
	return append(out, s[start:])
}

// restatementRe matches a part's restatement of itself in other words, a
// question after "i.e." or "that is" ("What is the largest Tally batch,
// i.e. how many rows can one insert hold?"): the part asks its first
// wording, and the second's words are not more it asks.
var restatementRe = regexp.MustCompile(`(?i),?\s+(?:i\.\s?e\.|that is,)\s+(?:what|which|how|who|where|when|why|is|are|does|do|can)\b[^?;]*`)

// sharePredicate gives a question phrase that has no verb of its own the
// predicate of the part after it, which both ask: "What noise level and
// what minimum length does the filter use?" asks "What noise level does
// the filter use?" and "What minimum length does the filter use?"; "On
// which IP address and port does it listen?" asks "On which IP address
// does it listen?" and "On which port does it listen?".
func sharePredicate(parts []string) []string {
	for k := 0; k+1 < len(parts); k++ {
		a, b := strings.Fields(parts[k]), strings.Fields(parts[k+1])
		wa, ab := whAt(a), auxAt(b)
		if wa < 0 || wa+1 >= len(a) || auxAt(a) >= 0 || ab <= 0 || strings.Contains(parts[k], ",") || subordinateAux(b, ab) {
			continue
		}
		parts[k] = strings.Join(append(slices.Clone(a), b[ab:]...), " ")
		if whAt(b) < 0 {
			parts[k+1] = strings.Join(append(slices.Clone(a[:wa+1]), b...), " ")
		}
	}
	return parts
}

// whAt is the index of the question word that opens words, alone or after
// a preposition ("On which …"), or -1.
func whAt(words []string) int {
	for j := 0; j < len(words) && j < 2; j++ {
		if whWords[strings.ToLower(strings.Trim(words[j], ",;:?"))] {
			return j
		}
	}
	return -1
}

// auxAt is the index of the first auxiliary verb in words, or -1: a
// negative one too ("won't", "doesn’t").
func auxAt(words []string) int {
	for j, w := range words {
		w = strings.ToLower(strings.Trim(w, ",;:?"))
		if auxVerb[w] || strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "n’t") {
			return j
		}
	}
	return -1
}

// subordinateAux reports whether the auxiliary at words[ab] belongs to a
// clause of its own inside the part, after "if", "when" or the like: "what
// happens if k is larger …" has no predicate to share.
func subordinateAux(words []string, ab int) bool {
	for _, w := range words[max(whAt(words), 0):ab] {
		if subordinators[strings.ToLower(strings.Trim(w, ",;:?"))] {
			return true
		}
	}
	return false
}

func splitConjunctions(s string) []string {
	fields := strings.Fields(s)
	var out []string
	start := 0
	for i := 1; i < len(fields); i++ {
		word := strings.ToLower(strings.Trim(fields[i], ",;:"))
		prevComma := strings.HasSuffix(fields[i-1], ",")
		conj := word == "and" || word == "but" || word == "also" || word == "plus"
		if !conj && !prevComma {
			continue
		}
		next := i
		if conj {
			next = i + 1
		}
		if next >= len(fields) {
			continue
		}
		nextWord := strings.ToLower(strings.Trim(fields[next], ",;:?"))
		left := strings.Join(fields[start:i], " ")
		right := strings.Join(fields[next:], " ")
		startsClause := whWords[nextWord] || auxVerb[nextWord] && next > i
		substantial := conj && contentCount(left) >= 2 && contentCount(right) >= 2 && !isVerbPhrase(right) &&
			!(titleWordRe.MatchString(fields[i-1]) && titleWordRe.MatchString(fields[next]))
		if substantial && !startsClause && subjectOpen(fields[start:i]) {
			// "How far apart can the clocks of a client and the KDC
			// drift …": the auxiliary still waits for its verb, so the
			// "and" joins two subjects, not two questions.
			substantial = false
		}
		if substantial && !startsClause && word == "and" && closesSeries(fields, i) {
			// "keeping the red, green and blue parts, with …": the
			// last item of a series of single words, not a question.
			substantial = false
		}
		if substantial && !startsClause && word == "and" && !prevComma && inCommaAdjunct(fields[start:i]) && !adjunctOpeners[nextWord] {
			// "How do I document each key it accepts, with its type
			// and default value?": the "and" joins the objects of a
			// phrase set off by a comma, not two questions ("…, for a
			// null argument and for an index out of range" are two, and
			// so are "…, in a file, and stop recording later").
			substantial = false
		}
		if substantial && !startsClause && word == "and" && inExamples(fields[start:i]) {
			// "How do I read flags like -q and --log FILE?": the "and"
			// joins the examples of one thing asked about.
			substantial = false
		}
		if substantial && !startsClause && conj && parallelPhrase(fields[i-1], fields[next:]) {
			// "Does it document private class members and static file
			// members by default": two phrases of one head noun are the
			// objects of one verb, not two questions.
			substantial = false
		}
		if !startsClause && !substantial {
			continue
		}
		out = append(out, strings.TrimRight(left, ", "))
		start = next
		i = next
	}
	out = append(out, strings.Join(fields[start:], " "))
	return out
}

// adjunctOpeners open a closing adjunct (headOf, inCommaAdjunct).
var adjunctOpeners = set("in on for from with using under inside within via through")

// inCommaAdjunct reports whether words end in a phrase set off by a
// comma that opens on a preposition ("…, with its type"), with no
// question word or auxiliary of its own.
func inCommaAdjunct(words []string) bool {
	k := -1
	for j, w := range words[:len(words)-1] {
		if strings.HasSuffix(w, ",") {
			k = j
		}
	}
	if k < 0 || !adjunctOpeners[strings.ToLower(words[k+1])] {
		return false
	}
	for _, w := range words[k+2:] {
		w = strings.ToLower(strings.Trim(w, ",;:?"))
		if whWords[w] || auxVerb[w] {
			return false
		}
	}
	return true
}

// inExamples reports whether words end in the first of a few examples
// given after "like", "such as" or "e.g." ("flags like -v"), with no
// comma between.
func inExamples(words []string) bool {
	for j := len(words) - 1; j >= 0 && j >= len(words)-maxExampleWords-1; j-- {
		w := strings.ToLower(words[j])
		if j < len(words)-1 && strings.ContainsAny(w, ",;:") {
			return false
		}
		if w == "like" || w == "e.g." || w == "as" && j > 0 && strings.ToLower(words[j-1]) == "such" {
			return j < len(words)-1
		}
	}
	return false
}

// maxExampleWords is how many words an example after "like" may take.
const maxExampleWords = 3

// closesSeries reports whether the "and" at fields[i] joins the last
// item of a series of single words written with commas ("red, green
// and blue"): the word before it follows a comma, and the
// word after it ends the clause or is followed by a comma.
func closesSeries(fields []string, i int) bool {
	if i < 2 || i+1 >= len(fields) || !strings.HasSuffix(fields[i-2], ",") || strings.ContainsAny(fields[i-1], ",;:") {
		return false
	}
	last := fields[i+1]
	return i+2 == len(fields) || strings.HasSuffix(last, ",") || strings.HasSuffix(last, "?")
}

// parallelPhrase reports whether the phrase that opens right ends on the
// noun last, the word before an "and", ends on: "static file members"
// after "private class members".
func parallelPhrase(last string, right []string) bool {
	last = strings.ToLower(strings.Trim(last, ",;:?"))
	if last == "" || text.IsStopword(last) {
		return false
	}
	for j, w := range right {
		w = strings.ToLower(strings.Trim(w, ",;:?"))
		if j >= 4 || whWords[w] || auxVerb[w] || j > 0 && text.IsStopword(w) {
			return false
		}
		if j > 0 && text.Stem(w) == text.Stem(last) {
			return true
		}
	}
	return false
}

// subjectOpen reports whether the clause of words has a modal or "do"
// auxiliary and then a subject, but no verb yet: no word after the
// auxiliary is a verb's base form ("… can the clocks of a client", not
// "… does the server use").
func subjectOpen(words []string) bool {
	k := -1
	for j, w := range words {
		if modalAux[strings.ToLower(strings.Trim(w, ",;:"))] {
			k = j
		}
	}
	if k < 0 || k >= len(words)-2 {
		return false
	}
	l := lexicon()
	if l == nil {
		return false
	}
	for _, w := range words[k+1:] {
		w = strings.ToLower(strings.Trim(w, ",;:?"))
		if text.IsStopword(w) {
			continue
		}
		if l.IsVerb(w) || strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing") {
			return false
		}
	}
	return true
}

// modalAux are the auxiliaries a verb must follow: "can the clocks …
// drift", "does the server use".
var modalAux = set("can could do does did will would should may might must shall")

// titleWordRe matches a word written in title case ("Recovery",
// "Growth"): an "and" between two of them joins the words of one name
// ("the Economic Recovery and Growth Plan"), not two phrases.
var titleWordRe = regexp.MustCompile(`^\p{Lu}\p{Ll}+$`)

// splitFronted splits off a phrase written before the question word:
// "By default, how many headers …" → ("How many headers …", "by
// default"). Such a phrase qualifies the question rather than being a
// part of its own: a few words opening on a function word ("By default",
// "On Debian", "After a reboot"), or a clause opening on a subordinator
// ("If a download stalls and no bytes move", "When I kill it with
// kill -9").
func splitFronted(s string) (main, head string, ok bool) {
	// The question word follows the condition's last comma: "If I run
	// it without naming a file, in a directory that has one, which file
	// does it write?"
	i := -1
	for k, c := range s {
		if c != ',' {
			continue
		}
		if first := strings.ToLower(firstWord(strings.TrimSpace(s[k+1:]))); whWords[first] || auxVerb[first] {
			i = k
			break
		}
	}
	if i <= 0 {
		return s, "", false
	}
	head, rest := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
	f := strings.Fields(head)
	if len(f) == 0 {
		return s, "", false
	}
	lead := strings.ToLower(f[0])
	if k := strings.Index(head, ", "); k > 0 && len(f) <= maxFrontedClause {
		// "In a domain XML, if I give …, what unit …": a short setting
		// before the condition is the condition's.
		if pf := strings.Fields(head[:k]); len(pf) <= maxFrontedSetting && text.IsStopword(lead) && !slices.ContainsFunc(pf, func(w string) bool {
			w = strings.ToLower(w)
			return whWords[w] || auxVerb[w]
		}) {
			lead = strings.ToLower(firstWord(head[k+2:]))
		}
	}
	switch {
	case attributionRe.MatchString(", " + head):
		// "According to the Tallyfile Handbook, how long …": whose word is asked
		// for, not a part of its own.
	case (subordinators[lead] || frontPrepositions[lead] || exclusions[lead]) && len(f) <= maxFrontedClause:
		// "With unity builds switched on, how many …": a condition
		// however many words it takes, as a subordinate clause is. "When
		// does it …, what …?" is two questions: an auxiliary right after
		// "when" makes it one.
		if whWords[lead] && len(f) > 1 && auxAt(f[1:2]) == 0 {
			return s, "", false
		}
		for _, w := range f[1:] {
			if w = strings.ToLower(w); whWords[w] {
				return s, "", false
			}
		}
	case len(f) <= 4 && text.IsStopword(lead):
		for _, w := range f {
			if w = strings.ToLower(w); whWords[w] || auxVerb[w] {
				return s, "", false
			}
		}
	default:
		return s, "", false
	}
	return capitalise(rest), strings.ToLower(head[:1]) + head[1:], true
}

// frontPrepositions open a phrase that sets the circumstances of the
// question written before it ("With X switched on", "Under heavy load",
// "Without a stash file", "Inside a handler that takes …", "In a
// counted loop"): a closed class of words, like subordinators (and
// exclusions, which open such a phrase too).
var frontPrepositions = set("with without under in inside within on during after before")

// exclusions open a fronted phrase that names what the question leaves
// out ("Besides X and Y", "Except for Z").
var exclusions = set("besides except")

// maxFrontedSetting is the most words a setting written before a
// fronted condition may have ("In a libvirt domain XML, if …").
const maxFrontedSetting = 6

// maxFrontedClause is the most words a condition written before a
// question's question word may have.
const maxFrontedClause = 20

// withFronted writes a question part with the phrase that opened the
// question after it, before a name in parentheses that closes it ("… in
// its cache, by default (max-ncache-ttl)").
func withFronted(part, head string) string {
	part = strings.TrimRight(part, "?.! ")
	if k := strings.LastIndex(part, " ("); k > 0 && strings.HasSuffix(part, ")") {
		return part[:k] + ", " + head + part[k:]
	}
	return part + ", " + head
}

// isVerbPhrase guesses whether a phrase after "and" continues the same
// action ("and configure nginx") rather than naming a new thing.
func isVerbPhrase(s string) bool {
	w := strings.ToLower(firstWord(s))
	return strings.HasSuffix(w, "ing") || set("configure install run use set change enable disable create build deploy make add remove update")[w]
}

func contentCount(s string) int {
	n := 0
	for _, w := range keywords(s) {
		if !softWords[text.Stem(strings.ToLower(w))] {
			n++
		}
	}
	return n
}

// keywords returns the search-worthy words of s as written (case and inner
// punctuation kept), without question words, auxiliaries, stopwords and
// filler.
func keywords(s string) []string {
	var out []string
	seen := map[string]bool{}
	codeWords := codeSpanWords(s)
	shouted := mostlyCapitals(s)
	for _, f := range strings.Fields(s) {
		w := strings.Trim(f, ",.;:?!\"'()[]{}“”‘’`")
		if i := strings.IndexAny(w, "'’"); i > 0 && !isTechnical(w) {
			w = w[:i]
		}
		l := strings.ToLower(w)
		if w == "" || seen[l] || !(keepsWord(w, codeWords) && !shouted) && (whWords[l] || auxVerb[l] || fillerWords[l] || text.IsStopword(l) || conditionWords[l]) {
			continue
		}
		if utf8.RuneCountInString(w) < 2 && !unicode.IsDigit([]rune(w)[0]) {
			continue
		}
		seen[l] = true
		out = append(out, w)
	}
	return out
}

// conditionWords open a condition and name nothing a page is found by.
var conditionWords = set("unless whenever whereas although though while if once")

// keepsWord reports a common English word that names something in the
// question and so must stay in a search: written in capitals, the way a
// technical vocabulary writes its keywords ("ORDER BY", "INSERT
// INTO"), or inside a code span. code holds the words of the message's
// code spans, lower case.
func keepsWord(w string, code map[string]bool) bool {
	if code[strings.ToLower(w)] {
		return true
	}
	return isCapitalsWord(w)
}

// isCapitalsWord reports a word of two or more letters written in capitals.
func isCapitalsWord(w string) bool {
	letters := 0
	for _, r := range w {
		switch {
		case unicode.IsLower(r):
			return false
		case unicode.IsUpper(r):
			letters++
		}
	}
	return letters >= 2
}

// mostlyCapitals reports a message written in capitals throughout, whose
// capitals mark nothing.
func mostlyCapitals(s string) bool {
	upper, lower := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsUpper(r):
			upper++
		case unicode.IsLower(r):
			lower++
		}
	}
	return upper > 3*lower
}

// codeSpanRe matches a Markdown code span.
var codeSpanRe = regexp.MustCompile("`([^`]{1,80})`")

// codeSpanWords are the words, lower case, inside the code spans of s.
func codeSpanWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, m := range codeSpanRe.FindAllStringSubmatch(s, -1) {
		for _, w := range strings.Fields(m[1]) {
			out[strings.ToLower(strings.Trim(w, ",.;:?!\"'()[]{}"))] = true
		}
	}
	return out
}

// clauseSubject is what a clause asks about, for templates and for the
// pronouns of later clauses: "what is the default port of EmberDB" → "the
// default port of EmberDB"; "how do I change the port" → "change the
// port"; "how does X work" → "X". It is "" for other shapes.
func clauseSubject(c string) string {
	c = strings.TrimSpace(strings.TrimRight(c, "?.! "))
	if m := subjectRe.FindStringSubmatch(c); m != nil {
		return strings.TrimSpace(m[1])
	}
	if m := whatDoesSubjRe.FindStringSubmatch(c); m != nil {
		return strings.TrimSpace(m[1])
	}
	if m := howWorkSubjRe.FindStringSubmatch(c); m != nil {
		return strings.TrimSpace(m[1])
	}
	if m := howDoSubjRe.FindStringSubmatch(c); m != nil {
		return strings.TrimSpace(m[1])
	}
	if m := howToSubjRe.FindStringSubmatch(c); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

var (
	subjectRe      = regexp.MustCompile(`(?i)^(?:what|which)\s+(?:is|are|was|were)\s+(.+)$`)
	whatDoesSubjRe = regexp.MustCompile(`(?i)^what\s+(?:does|do|did)\s+(.+?)\s+(?:do|mean|return|stand for|represent)(?:\s+(?:in|for|with)\s+.+)?$`)
	howWorkSubjRe  = regexp.MustCompile(`(?i)^how\s+(?:does|do)\s+(.+?)\s+work$`)
	howToSubjRe    = regexp.MustCompile(`(?i)^how\s+to\s+(.+)$`)
	howDoSubjRe    = regexp.MustCompile(`(?i)^how\s+(?:do|does|can|should|could|would|to)\s+(?:i|you|we|one)\s+(.+)$`)
)

// topicOf is what the question is about: its names, or else the keywords of
// its first clause.
func topicOf(q question) string {
	if len(q.compare) == 2 {
		return q.compare[0] + " and " + q.compare[1]
	}
	if len(q.entities) > 0 {
		var parts []string
		for i, e := range q.entities {
			inside := false
			for j, o := range q.entities {
				if i != j && len(o) > len(e) && strings.Contains(strings.ToLower(o), strings.ToLower(e)) {
					inside = true
				}
			}
			if !inside && len(parts) < 2 {
				parts = append(parts, e)
			}
		}
		return strings.Join(parts, " ")
	}
	first := q.text
	if len(q.clauses) > 0 {
		first = q.clauses[0]
	}
	var kw []string
	for _, w := range keywords(first) {
		if !softWords[text.Stem(strings.ToLower(w))] {
			kw = append(kw, w)
		}
	}
	if len(kw) > 4 {
		kw = kw[:4]
	}
	return strings.Join(kw, " ")
}

// contextRe matches a question's closing qualifier: "in Python", "on
// Linux", "for PostgreSQL 15".
var contextRe = regexp.MustCompile(`(?i)\s(?:in|on|for|with|using|under)\s+((?:[\w.+#-]+\s+){0,1}[\w.+#-]+)\s*[?.!]*\s*$`)

// contextNameRe matches a closing qualifier that is a name of several
// capitalised words: "in Network UPS Tools", "for Apache HTTP Server".
var contextNameRe = regexp.MustCompile(`\s(?:in|on|for|with|using|under)\s+((?:\p{Lu}[\w.+#-]*\s+){1,3}\p{Lu}[\w.+#-]*)\s*[?.!]*\s*$`)

// attributionRe matches the phrase that names whose word a question asks
// for, closing it or a part of it: "…, according to the handbook?",
// "… according to the manual (its topic)". It says where the answer is
// to be read, not what is asked: its words are the question's context,
// no part of what a sentence must say.
var attributionRe = regexp.MustCompile(`(?i),?\s+according\s+to\s+([^,?!()]+?)\s*[?.!]*\s*(?:$|\s\()`)

// stripAttribution removes the attribution phrase from question part c,
// keeping a topic in parentheses after it.
func stripAttribution(c string) string {
	m := attributionRe.FindStringIndex(c)
	if m == nil {
		return c
	}
	head := strings.TrimSpace(c[:m[0]])
	if strings.HasSuffix(c[m[0]:m[1]], "(") {
		return head + " (" + c[m[1]:]
	}
	if strings.HasSuffix(strings.TrimSpace(c), "?") {
		return head + "?"
	}
	return head
}

// contextWords returns the tokens of question's closing qualifier, if any.
func contextWords(question string) text.Set {
	if m := attributionRe.FindStringSubmatch(strings.TrimSpace(question)); m != nil {
		return text.NewSet(text.Tokens(m[1]))
	}
	if m := contextNameRe.FindStringSubmatch(strings.TrimSpace(question)); m != nil {
		return text.NewSet(text.Tokens(m[1]))
	}
	m := contextRe.FindStringSubmatch(strings.TrimSpace(question))
	if m == nil {
		return nil
	}
	return text.NewSet(text.Tokens(m[1]))
}

func isImperative(w string) bool {
	return set("list explain describe compare summarize summarise give show define name outline identify find")[w]
}

// phraseWords are the words of s as phrases compare them: lower case,
// without the punctuation at their ends ("" for a word of punctuation).
func phraseWords(s string) []string {
	f := strings.Fields(strings.ToLower(s))
	for i, w := range f {
		f[i] = strings.Trim(w, ".,;:!?\"'()“”‘’")
	}
	return f
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

// flagTokens returns a token for each flag in s, kept whole and
// case-sensitive ("-O" is not "-o"): the tokenizer drops a one-letter
// flag, and then "What does the -O option do?" names nothing.
func flagTokens(s string) []string {
	var out []string
	for _, m := range flagRe.FindAllStringSubmatch(s, -1) {
		out = append(out, flagPrefix+m[1])
	}
	return out
}
