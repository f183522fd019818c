package pipeline

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Reply intents for a free-text answer to a plan awaiting review.
const (
	IntentApprove     = "approve"      // go ahead with the plan as it is
	IntentAmend       = "amend"        // go ahead, with what the reply adds (re-planned first)
	IntentSkip        = "skip"         // write from what is already known, without searching
	IntentCancel      = "cancel"       // end the run (confirmed first)
	IntentNewQuestion = "new_question" // replace the run by a new question (confirmed first)
	IntentUnclear     = "unclear"      // cannot tell: offer the options
)

// Reply is how a free-text answer to a paused plan reads.
type Reply struct {
	Intent string
	// Text is what the reply adds: the clarification of an amendment, or
	// the new question.
	Text string
	// Why says what made the reply unclear.
	Why string
	// Recognised is whether any word of the reply said what to do (yes,
	// no, cancel, skip, wait…); without one, the reading rests on the
	// reply being a statement or a question.
	Recognised bool
}

// Destructive reports whether carrying the intent out cannot be undone,
// so it needs a person's confirmation first.
func Destructive(intent string) bool { return intent == IntentCancel || intent == IntentNewQuestion }

// ParseReply reads the intent of a free-text reply to a plan. It reads the
// reply clause by clause and is aware of negation: "no, proceed" and
// "don't change anything, go ahead" approve, "no search" skips the search,
// "don't cancel" approves; an approval with more words ("yes but focus on
// Europe") keeps them as an amendment. Yes and no are recognised in
// several languages and through small typos. What it cannot settle —
// a bare "no", both "stop" and "go on" at once, "skip" alone — reads as
// unclear, never as a guess. ParseReply only reads: whether an intent
// is carried out (and confirmed) is Approve's decision.
func ParseReply(reply string) Reply {
	var sig signals
	for _, c := range splitClauses(reply) {
		sig.clause(c)
	}
	return sig.decide(reply)
}

// signals are what the clauses of a reply said.
type signals struct {
	approve, cancel, skip, skipWhich, no, wait int
	content                                    []string // clauses that are neither, in the reply's words
	question                                   bool     // some content asks a question
}

func (s *signals) decide(reply string) Reply {
	r := s.read(reply)
	r.Recognised = s.approve+s.cancel+s.skip+s.skipWhich+s.no+s.wait > 0
	return r
}

func (s *signals) read(reply string) Reply {
	text := strings.Join(s.content, "; ")
	switch {
	case s.cancel > 0 && (s.approve > 0 || s.skip > 0):
		return Reply{Intent: IntentUnclear, Text: text, Why: "the reply asks both to stop and to go on"}
	case s.cancel > 0:
		return Reply{Intent: IntentCancel, Text: text}
	case s.wait > 0:
		return Reply{Intent: IntentUnclear, Text: text, Why: "the reply asks to wait; the plan stays paused"}
	case s.skip > 0:
		return Reply{Intent: IntentSkip, Text: text}
	case len(s.content) > 0 && s.question && s.approve == 0 && s.no == 0:
		return Reply{Intent: IntentNewQuestion, Text: strings.TrimSpace(reply)}
	case len(s.content) > 0:
		return Reply{Intent: IntentAmend, Text: text}
	case s.approve > 0:
		return Reply{Intent: IntentApprove}
	case s.skipWhich > 0:
		return Reply{Intent: IntentUnclear, Why: `"skip" may mean skipping the questions or skipping the search`}
	case s.no > 0:
		return Reply{Intent: IntentUnclear, Why: `a bare "no" may mean "no changes" or "do not go ahead"`}
	}
	return Reply{Intent: IntentUnclear, Why: "the reply says neither to go ahead nor to stop"}
}

// clause is one part of a reply between punctuation or a "but".
type clause struct {
	words    []string // as written
	question bool     // ended with a question mark
}

// clauseBreak splits a reply: sentence and list punctuation (also the
// full-width forms), and conjunctions that open a new intent.
var clauseBreak = regexp.MustCompile(`[,;.!?:…、。！？，；\n]+|\s+(?:but|however|though|although|then|mais|aber|pero|ma|но|instead)\s+|\s+-+\s+|\s+—\s+`)

func splitClauses(reply string) []clause {
	reply = strings.NewReplacer("’", "'", "‘", "'", "`", "'").Replace(reply)
	var out []clause
	last := 0
	add := func(part, sep string) {
		words := strings.FieldsFunc(part, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(`"“”«»()[]{}*_`, r) })
		if len(words) > 0 {
			out = append(out, clause{words: words, question: strings.ContainsAny(sep, "?？")})
		}
	}
	for _, loc := range clauseBreak.FindAllStringIndex(reply, -1) {
		add(reply[last:loc[0]], reply[loc[0]:loc[1]])
		last = loc[1]
	}
	add(reply[last:], "")
	return out
}

// Kinds of opening a clause can have, in the order a tie goes to.
const (
	openNone = iota
	openNoChange
	openNo
	openWait
	openNegation
	openApprove
	openCancel
	openSkip
	openWrite
)

// opening finds what the clause opens with: the longest phrase of any
// list, ties going to the earlier kind. Full-clause kinds (no change, a
// bare no) count only when they cover the whole clause.
func opening(w []string) (kind, n int) {
	lists := []struct {
		kind  int
		list  []phrase
		whole bool
	}{
		{openNoChange, noChange, true}, {openNo, polarNo, true}, {openWait, waitWords, false}, {openNegation, negators, false},
		{openApprove, approveWords, false}, {openCancel, cancelWords, false}, {openSkip, skipWords, false}, {openWrite, writeWords, false},
	}
	for _, l := range lists {
		m := matchPhrase(w, l.list)
		if m == 0 || l.whole && m != len(w) {
			continue
		}
		if m > n {
			kind, n = l.kind, m
		}
	}
	return kind, n
}

// clause reads one clause into the signals.
func (s *signals) clause(c clause) {
	w := stripFillers(c.words)
	if len(w) == 0 {
		return
	}
	kind, n := opening(w)
	switch kind {
	case openNoChange:
		s.approve++
	case openNo:
		s.no++
	case openWait:
		s.wait++
		s.rest(c, w[n:])
	case openNegation:
		s.negated(c, w, w[n:], isPolarNo(w[:n]))
	case openApprove:
		s.approve++
		s.rest(c, stripObjects(stripPhrases(w[n:], approveObjects)))
	case openCancel:
		rest := stripObjects(w[n:])
		if len(rest) > 0 && matchPhrase(rest, searchWords) > 0 {
			s.skip++ // "stop searching"
			return
		}
		s.cancel++
		s.rest(c, rest)
	case openSkip:
		rest := stripObjects(w[n:])
		switch {
		case len(rest) == 0:
			s.skipWhich++
		case matchPhrase(rest, questionWords) > 0:
			s.approve++ // "skip the questions": go ahead as planned
		case matchPhrase(rest, searchWords) > 0:
			s.skip++
		default:
			s.skipWhich++
			s.rest(c, rest)
		}
	case openWrite:
		s.skip++
		s.rest(c, stripObjects(w[n:]))
	default:
		s.addContent(c, w)
	}
}

// negated reads a clause opened by a negation, by what it negates.
func (s *signals) negated(c clause, w, rest []string, polar bool) {
	obj := stripFillers(stripAux(rest))
	switch {
	case len(obj) == 0:
		s.no++
	case matchPhrase(obj, changeWords) > 0:
		s.approve++ // "no changes", "don't change anything"
	case matchPhrase(obj, searchWords) > 0:
		s.skip++ // "no search", "don't search"
	case matchPhrase(obj, cancelWords) > 0:
		s.approve++ // "don't cancel", "do not stop"
	case matchPhrase(obj, approveVerbs) > 0 && len(obj) > 1 && fold(obj[len(obj)-1]) == "yet":
		s.wait++ // "don't start yet"
	case matchPhrase(obj, approveVerbs) > 0:
		s.cancel++ // "don't proceed", "do not start"
	case !polar && matchPhrase(obj, approveWords) > 0:
		s.no++ // "not sure", "not good": it doubts, it does not say what to do
	case matchPhrase(obj, negators) > 0 || matchPhrase(obj, approveWords) > 0 || matchPhrase(obj, polarNo) > 0:
		if polar {
			s.no++
		}
		s.clause(clause{words: obj, question: c.question}) // "no, don't cancel", "no go ahead"
	default:
		if polar {
			s.no++ // "no, I mean the river": a correction
			s.addContent(c, rest)
			return
		}
		s.addContent(c, w) // "not the company, the river"
	}
}

// rest reads what follows a recognised opening: more intent, or content.
func (s *signals) rest(c clause, rest []string) {
	rest = stripFillers(rest)
	if len(rest) > 0 {
		s.clause(clause{words: rest, question: c.question})
	}
}

// addContent keeps words that are neither approval nor refusal. A
// question counts as a new question unless it opens as a request about
// this research ("could you also cover Asia?").
func (s *signals) addContent(c clause, w []string) {
	s.content = append(s.content, strings.Join(w, " "))
	request := matchPhrase(c.words, requests) > 0 || matchPhrase(w, requests) > 0
	if (c.question || matchPhrase(w, interrogatives) > 0) && !request {
		s.question = true
	}
}

// Word lists. Each entry is a phrase of one or more words, compared
// after folding case and repeated letters, with a small typo allowed in
// longer words.
var (
	approveWords = phrases(`yes|y|yeah|sure thing|looks fine|looks ok|looks okay|seems fine|seems good|all right|alright|i approve|i agree|i confirm|that's good|works|yea|yep|yup|ya|ok|okay|k|kk|sure|fine|good|great|perfect|approve|approved|proceed|continue|go|go ahead|go on|start|run it|do it|lgtm|sounds good|looks good|looks great|looks good to me|sounds good to me|fine by me|works for me|all good|that's fine|that works|correct|right|agreed|confirm|confirmed|let's go|go for it|ship it|carry on|keep going|👍|✅|` +
		`oui|ouais|d'accord|vas-y|allez-y|allez|ja|jawohl|genau|gut|los|weiter|mach weiter|passt|sí|si|vale|claro|adelante|dale|sim|pode|tak|evet|kyllä|jo|sì|certo|va bene|da|да|давай|хорошо|ок|продолжай|はい|ええ|うん|お願いします|是|是的|好|好的|对|可以|네|예|좋아요`)
	approveVerbs  = phrases(`proceed|continue|go|go ahead|go on|start|run|approve|begin`)
	noChange      = phrases(`i don't know|i dont know|don't know|no idea|no preference|doesn't matter|it doesn't matter|does not matter|up to you|you decide|you choose|whatever|any is fine|either is fine|nothing|nothing else|nothing to add|nothing to change|none|no changes|no change|no edits|no objections|no objection|no problem|no worries|no questions|all fine|rien|nichts|nada|ничего`)
	waitWords     = phrases(`wait|hold on|hold|one moment|one sec|one second|just a moment|not yet|later|attends|attendez|warte|moment|espera|подожди|ちょっと待って|等等|等一下`)
	requests      = phrases(`could you|can you|would you|will you|could we|can we|please|also|include|add|focus|only|limit|exclude|mainly|especially|make sure|and also`)
	polarNo       = phrases(`no|n|nope|nah|non|nein|нет|не|いいえ|不|不是|não|nao|nie|ne|nee|hayır|아니요|아니|no thanks|no thank you|non merci|nein danke|👎`)
	negators      = phrases(`no|n|nope|nah|non|nein|нет|не|いいえ|不|não|nie|ne|not|don't|dont|do not|never|without|nothing|none|kein|keine|nicht|pas|ne pas|sin|sem|ohne|sans|no need|no need to|nothing to|i don't|i do not|we don't|please don't|please do not`)
	changeWords   = phrases(`change|changes|changed|changing|edit|edits|modify|modification|modifications|adjust|adjustment|adjustments|amend|amendment|anything|anything else|nothing|else|worries|problem|objection|objections|questions|comments|need|it's fine|rien|nichts|nada|ничего|changement|changements|änderung|änderungen|cambios|cambio`)
	searchWords   = phrases(`search|the search|the searches|searching|searches|web search|web|browse|browsing|look it up|looking|google|googling|research|more research|recherche|suche|suchen|búsqueda|buscar|поиск|検索`)
	cancelWords   = phrases(`cancel|cancel it|stop|abort|quit|halt|kill|terminate|never mind|nevermind|forget it|forget about it|scrap it|scrap that|drop it|discard|🛑|❌|annuler|annule|arrête|arrête|abbrechen|stopp|cancelar|cancela|отмена|отменить|отмени|стоп|хватит|キャンセル|中止|やめて|やめる|取消|停止|annulla|basta`)
	skipWords     = phrases(`skip|skip it|skip this|skip that`)
	writeWords    = phrases(`just write|write it|write now|write it now|write the report|answer directly|just answer|answer now|from what you know`)
	questionWords = phrases(`questions|the questions|question|the question|clarification|clarifications|review|the review|this step`)
	// interrogatives open a question, in the languages whose yes and no are
	// listed above.
	interrogatives = phrases(`what|why|how|when|where|who|whom|whose|which|is|are|was|were|does|do|did|can|could|should|would|will|has|have|quel|quelle|quels|pourquoi|comment|quand|où|qui|est-ce|was|warum|wie|wann|wo|wer|welche|qué|que|por qué|cómo|cuándo|dónde|quién|cuál|что|почему|как|когда|где|кто|какой`)
)

// fillers carry no intent at the edges of a clause.
var fillers = phrases(`please|pls|plz|just|then|and|also|so|well|actually|hmm|hm|um|uh|oh|ah|thanks|thank you|thx|ty|now|merci|bitte|danke|por favor|gracias|пожалуйста|спасибо|ください|谢谢|请|and then|i think|i guess|anyway|already|really|really?|of course|bien sûr|natürlich|por supuesto|конечно`)

// objects are what "cancel" or "skip" may name without adding anything.
var objects = phrases(`it|this|that|the run|this run|the research|this research|the plan|this plan|everything|all|all of it|the whole thing|for now|now|please|thanks`)

// approveObjects are what an approval may name without adding anything
// ("start the search", "go ahead with the plan").
var approveObjects = phrases(`with it|with that|with the plan|with this plan|with the search|with the research|the search|the searches|the research|searching|as planned|as is|as it is`)

// stripPhrases drops phrases of list from the start of w.
func stripPhrases(w []string, list []phrase) []string {
	for len(w) > 0 {
		n := matchPhrase(w, list)
		if n == 0 {
			break
		}
		w = w[n:]
	}
	return w
}

// auxiliaries sit between a negation and what it negates.
var auxiliaries = phrases(`need to|have to|want to|wanna|bother|bother to|bother with|more|any|any more|further|further changes|to|do|do any|go and`)

// phrase is a phrase's words, folded.
type phrase []string

func phrases(list string) []phrase {
	var out []phrase
	for _, p := range strings.Split(list, "|") {
		if f := strings.Fields(p); len(f) > 0 {
			for i := range f {
				f[i] = fold(f[i])
			}
			out = append(out, f)
		}
	}
	return out
}

// matchPhrase returns how many words of w the longest phrase of list
// matching w's start covers (0: none). Typos are forgiven only in a short
// clause, where a word like "cancle" cannot be the start of a question
// about something else ("cancer research").
func matchPhrase(w []string, list []phrase) int {
	best := 0
	fuzzy := len(w) <= 3
	for _, p := range list {
		if len(p) > len(w) || len(p) <= best {
			continue
		}
		ok := true
		for i, pw := range p {
			if !sameWord(fold(w[i]), pw, fuzzy) {
				ok = false
				break
			}
		}
		if ok {
			best = len(p)
		}
	}
	return best
}

func isPolarNo(w []string) bool { return matchPhrase(w, polarNo) == len(w) }

func stripFillers(w []string) []string {
	for len(w) > 0 {
		n := matchPhrase(w, fillers)
		if n == 0 || n == len(w) && matchPhrase(w, approveWords) == n {
			break // "yes please" alone is an approval, not a filler
		}
		w = w[n:]
	}
	for len(w) > 0 && matchPhrase(w[len(w)-1:], fillers) == 1 {
		w = w[:len(w)-1]
	}
	return w
}

func stripObjects(w []string) []string {
	for len(w) > 0 {
		n := matchPhrase(w, objects)
		if n == 0 {
			break
		}
		w = w[n:]
	}
	return stripFillers(w)
}

func stripAux(w []string) []string {
	for len(w) > 0 {
		n := matchPhrase(w, auxiliaries)
		if n == 0 || n == len(w) {
			break
		}
		w = w[n:]
	}
	return w
}

// fold lowers a word, drops the punctuation around it and squeezes
// letters repeated for emphasis ("yesss", "noooo").
func fold(word string) string {
	word = strings.ToLower(strings.TrimFunc(word, func(r rune) bool {
		return unicode.IsPunct(r) && r != '\'' && r != '?' || unicode.IsSpace(r)
	}))
	word = strings.TrimRight(word, "?")
	var b strings.Builder
	var prev rune
	run := 0
	for _, r := range word {
		if r == prev {
			run++
			if run >= 2 {
				continue
			}
		} else {
			run = 0
		}
		prev = r
		b.WriteRune(r)
	}
	return b.String()
}

// sameWord compares a folded word of a reply with a folded list word,
// allowing a doubled letter for emphasis, a swap of two neighbouring
// letters, and in words of five letters or more one letter missing,
// added or wrong.
func sameWord(got, want string, fuzzy bool) bool {
	if got == want || squeeze(got) == squeeze(want) {
		return true
	}
	if !fuzzy {
		return false
	}
	n := utf8.RuneCountInString(want)
	if n < 3 || !isLetters(want) {
		return false
	}
	d := editDistance([]rune(got), []rune(want))
	if n >= 5 {
		return d <= 1
	}
	return d == 1 && utf8.RuneCountInString(got) == n && transposed([]rune(got), []rune(want))
}

// squeeze drops every repeated letter ("approove", "approve" → "aprove").
func squeeze(s string) string {
	var b strings.Builder
	var prev rune
	for _, r := range s {
		if r != prev {
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

func isLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// transposed reports whether a and b differ by one swap of neighbours.
func transposed(a, b []rune) bool {
	for i := 0; i+1 < len(a); i++ {
		if a[i] != b[i] {
			return a[i] == b[i+1] && a[i+1] == b[i] && string(a[i+2:]) == string(b[i+2:])
		}
	}
	return false
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbours.
func editDistance(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
