package extractive

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// Plan limits (DESIGN.md, Intake). A question gets as many criteria as it
// has parts, at most maxCriteria.
const (
	maxCriteria      = 6
	minActions       = 2
	maxActions       = 5
	maxQueryLen      = 8  // words per keyword query
	maxPlainQueryLen = 16 // words of the question searched as written
)

// defaultEngine is the search engine used when the request names none.
const defaultEngine = "duckduckgo"

// summaryHeading opens every report.
const summaryHeading = "Summary"

var (
	leadRe     = regexp.MustCompile(`(?i)^(what|which)\s+(is|are|was|were)\b`)
	whatIsRe   = regexp.MustCompile(`(?i)^(?:what|which)\s+(?:is|are|was|were)\s+(?:the\s+|a\s+|an\s+)?(.+)$`)
	howDoIRe   = regexp.MustCompile(`(?i)^how\s+(?:do|does|can|should|could|would|to)\s+(?:i|you|we|one)\s+(.+)$`)
	howToRe    = regexp.MustCompile(`(?i)^how\s+to\s+(.+)$`)
	howWorkRe  = regexp.MustCompile(`(?i)^how\s+(?:does|do)\s+(.+?)\s+work$`)
	leadConjRe = regexp.MustCompile(`(?i)^(?:and|but|also|plus|then|or)\s+`)
	pronounRe  = regexp.MustCompile(`(?i)\b(it|they|them|its|their)\b`)
	bareWhyRe  = regexp.MustCompile(`(?i)^\W*why\W*$`)
	// doLeadRe matches the opening of a question asking how the asker
	// does something: a later part that opens on a verb asks the same of
	// a second action ("How do I call it from a script and get the
	// results back?" asks "How do I get the results back?").
	doLeadRe = regexp.MustCompile(`(?i)^how\s+(?:do|does|can|could|should|would)\s+(?:i|you|we|one)\b`)
	vagueRe  = regexp.MustCompile(`\b(?:stuff|things|something|anything|everything|best|good|latest)\b`)
)

// Plan routes the message and, for research, builds a TaskSpec from the
// question's clauses without any model.
func (e *Engine) Plan(ctx context.Context, req engine.PlanRequest) (research.TaskSpec, engine.Usage, error) {
	if err := ctx.Err(); err != nil {
		return research.TaskSpec{}, engine.Usage{}, fmt.Errorf("plan: %w", err)
	}
	route, urls := Route(req.Question)
	switch route {
	case research.RouteChat:
		return research.TaskSpec{Route: route, Goal: cleanQuestion(req.Question), Clarity: 1, Budget: req.Budget}, engine.Usage{}, nil
	case research.RouteBrowse:
		return browseSpec(req, urls), engine.Usage{}, nil
	}
	return researchSpec(req), engine.Usage{}, nil
}

// browseSpec reads the named pages and answers the rest of the message.
func browseSpec(req engine.PlanRequest, urls []string) research.TaskSpec {
	rest := strings.TrimSpace(urlRe.ReplaceAllString(req.Question, " "))
	rest = text.OneLine(rest)
	spec := research.TaskSpec{
		Route:       research.RouteBrowse,
		Goal:        cleanQuestion(req.Question),
		URLs:        urls,
		Clarity:     1,
		Budget:      req.Budget,
		Assumptions: []string{"Only the named pages are read; no search is run."},
	}
	for _, u := range urls {
		spec.Actions = append(spec.Actions, research.ActionSpec{Kind: research.ActionNavigate, URL: u, Reason: "page named in the message"})
	}
	if contentCount(rest) >= 2 && !readSiteRe.MatchString(req.Question) {
		spec.Criteria = []string{capitalise(strings.TrimRight(rest, "?.! ")) + "?", "What are the main points of the page?", "What key facts or figures does it give?"}
		spec.Sections = []string{summaryHeading, "Answer", "Main points", "Key facts"}
		return spec
	}
	spec.Criteria = []string{"What is the page about?", "What are its main points?", "What key facts, figures or dates does it give?"}
	spec.Sections = []string{summaryHeading, "What the page is about", "Main points", "Key facts"}
	return spec
}

// researchSpec builds the research plan.
func researchSpec(req engine.PlanRequest) research.TaskSpec {
	message := req.Question
	clarification := strings.TrimSpace(req.Clarification)
	if clarification != "" && contentCount(message) <= 4 {
		// A short question answered by a clarification: read them together.
		message = strings.TrimRight(strings.TrimSpace(message), "?.!") + ": " + clarification
	}
	q := analyse(message)
	parentTopic := ""
	if req.Parent != nil && len(q.entities) == 0 {
		// A follow-up like "what about its licence?" is about the parent's topic.
		pq := analyse(req.Parent.Goal)
		parentTopic = pq.topic
		if parentTopic != "" && (pronounRe.MatchString(q.text) || contentCount(q.text) <= 3) {
			if loc := pronounRe.FindStringIndex(q.text); loc != nil {
				// "what is its license?" → "What is EmberDB's license?"
				sub := parentTopic
				if p := strings.ToLower(q.text[loc[0]:loc[1]]); p == "its" || p == "their" {
					sub += "'s"
				}
				q = analyse(q.text[:loc[0]] + sub + q.text[loc[1]:])
			}
			q.topic = parentTopic
			for _, e := range pq.entities {
				q.entities = appendUnique(q.entities, e)
			}
		}
	}
	criteria, headings := criteriaFor(q)
	spec := research.TaskSpec{
		Route:    research.RouteResearch,
		Goal:     q.text,
		Criteria: criteria,
		Sections: append([]string{summaryHeading}, headings...),
		Budget:   req.Budget,
	}
	spec.Clarity = clarity(q, req.Question)
	if spec.Clarity < 0.5 {
		spec.Questions = clarifyingQuestions(q)
	}
	spec.Assumptions = assumptions(q, req, clarification)
	engine := defaultEngine
	if len(req.Engines) > 0 && strings.TrimSpace(req.Engines[0]) != "" {
		engine = strings.TrimSpace(req.Engines[0])
	}
	var avoid []string
	if req.Parent != nil {
		avoid = req.Parent.Queries
	}
	extra := keywords(clarification)
	if parentTopic != "" && q.topic == parentTopic {
		extra = append(extra, keywords(parentTopic)...)
	}
	for _, query := range queriesFor(q, criteria, extra, avoid) {
		spec.Actions = append(spec.Actions, research.ActionSpec{
			Kind: research.ActionSearch, Engine: engine, Query: query, Priority: 0, Reason: reasonFor(query, criteria),
		})
	}
	return spec
}

// bareWhy is the part of a question that asks only "Why?" of the
// statement before it.
const bareWhy = "Why?"

// criteriaFor returns 3–6 success criteria and one report heading for each.
func criteriaFor(q question) (criteria, headings []string) {
	add := func(c, h string) {
		if len(criteria) >= maxCriteria || c == "" {
			return
		}
		key := partKey(c)
		for _, have := range criteria {
			if partKey(have) == key {
				return
			}
		}
		for _, have := range headings {
			if strings.EqualFold(have, h) {
				h = h + " (" + fmt.Sprint(len(headings)+1) + ")"
			}
		}
		criteria = append(criteria, c)
		headings = append(headings, h)
	}
	t := q.subject
	if t == "" {
		t = "the topic"
	}
	if q.kind == kindCompare {
		a, b := q.compare[0], q.compare[1]
		suffix := ""
		if q.aspect != "" {
			suffix = " for " + q.aspect
		}
		add(fmt.Sprintf("How do %s and %s differ%s?", a, b, suffix), "Differences")
	}
	if len(q.clauses) <= 1 && q.kind != kindCompare {
		if q.context != "" && leansOnContext(q.ask) {
			// "I want a smaller build and don't care about cleanup on a
			// crash. What goes in the config file?": the question asks
			// little of its own; it carries that statement as context.
			add(withLean(q.ask, q.context), heading(q.ask))
		} else {
			add(q.ask, heading(q.ask))
		}
	}
	if len(q.clauses) > 1 {
		lead := ""
		if m := leadRe.FindStringSubmatch(q.clauses[0]); m != nil {
			lead = capitalise(strings.ToLower(m[1])) + " " + strings.ToLower(m[2])
		} else if m := doLeadRe.FindString(q.clauses[0]); m != "" {
			lead = capitalise(strings.ToLower(m[:1])) + m[1:]
		}
		prev := ""
		for i, c := range q.clauses {
			cr := clauseCriterion(q, i, c, lead)
			if q.context != "" && bareWhyRe.MatchString(c) {
				// "… and a changed as well. Why, and how do I …": the
				// reason asked for is the statement's, as for a question
				// of a bare "Why?" alone.
				cr = bareWhy
			}
			h := heading(cr)
			if prev != "" && leansOn(q, cr) && !sharesPredicate(prev, cr) {
				// "… and why is there such a limit?" asks about what the
				// part before it named: it carries that part as context.
				cr = withLean(cr, prev)
			}
			if prev == "" && cr != bareWhy {
				prev = stripTopicParen(cr)
			}
			add(cr, h)
		}
	}
	if len(criteria) == 0 || len(criteria) == 1 && !asksSomething(criteria[0]) {
		// A bare topic ("kubernetes") asks for an overview: what it is,
		// and the facts the sources give about it.
		criteria, headings = nil, nil
		for _, tpl := range topicCriteria {
			add(fmt.Sprintf(tpl.criterion, t), tpl.heading)
		}
	}
	return criteria, headings
}

// clauseCriterion turns clause i into a stand-alone question: a leading
// conjunction dropped, a pronoun replaced by the topic, the topic named when
// the clause lacks it, a question lead added to a bare noun phrase.
func clauseCriterion(q question, i int, clause, lead string) string {
	c := strings.TrimSpace(leadConjRe.ReplaceAllString(strings.TrimSpace(clause), ""))
	c = strings.Trim(c, ",;: ")
	if c == "" {
		return ""
	}
	mentions := false
	for _, e := range q.entities {
		if strings.Contains(strings.ToLower(c), strings.ToLower(e)) {
			mentions = true
			break
		}
	}
	if !mentions && i > 0 && !sharesPredicate(q.clauses[i-1], c) {
		// "… and how do I change it": "it" is what the clause before asked
		// about; "on its own" points at the clause's own subject.
		if loc := pronounRe.FindStringIndex(c); loc != nil && !strings.HasPrefix(strings.ToLower(c[loc[1]:]), " own") {
			sub := clauseSubject(q.clauses[i-1])
			plural := strings.HasPrefix(strings.ToLower(c[loc[0]:loc[1]]), "th")
			if sub == "" && plural {
				// "… and how do I turn them on": "them" is not the
				// product the question names; the part leans on the one
				// before it instead (leansOn).
			} else if sub == "" || strings.HasPrefix(strings.ToLower(sub), "change") {
				sub = q.topic
			}
			if sub != "" {
				if p := strings.ToLower(c[loc[0]:loc[1]]); p == "its" || p == "their" {
					sub += "'s"
				}
				c = c[:loc[0]] + sub + c[loc[1]:]
				mentions = containsAny(c, q.entities) || len(q.entities) == 0
			}
		}
	}
	first := strings.ToLower(firstWord(c))
	if w := strings.Fields(c); whAt(w) == 1 {
		first = strings.ToLower(strings.Trim(w[1], ",;:?")) // "On which port …"
	}
	if !whWords[first] && !auxVerb[first] && !isImperative(first) {
		if doLeadRe.MatchString(lead) && !lexicon().IsVerb(first) {
			lead = "" // "How do I …" leads a second action, not a thing
		}
		if lead != "" {
			c = lead + " " + c
		} else {
			c = "What about " + c
		}
		first = "what"
	}
	if !mentions && len(q.entities) > 0 && q.topic != "" {
		c += " (" + q.topic + ")"
	}
	c = capitalise(c)
	if whWords[first] || auxVerb[first] {
		c += "?"
	}
	return c
}

// sharesPredicate reports whether clauses a and b end on the same
// predicate, b's verb and all (sharePredicate): a pronoun in b points
// where a's does, not at a's subject. (Two parts that end on one fronted
// condition share no more than that.)
func sharesPredicate(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	n := 0
	for n < len(fa) && n < len(fb) && strings.EqualFold(fa[len(fa)-1-n], fb[len(fb)-1-n]) {
		n++
	}
	ab := auxAt(fb)
	return n >= minSharedPredicate && ab >= 0 && ab >= len(fb)-n
}

// minSharedPredicate is the words two parts must end on alike to share a
// predicate.
const minSharedPredicate = 4

// withLean writes part c of a question with the part it leans on in
// parentheses, where a clause criterion names its topic: "Why is there such
// a limit (how many workers can a pool hold)?". Searches for
// the part use its own words, as for any topic in parentheses; its
// evidence must also name what the parentheses ask about (newCriterion).
func withLean(c, lean string) string {
	own := strings.TrimRight(stripTopicParen(c), "?.! ")
	return own + " (" + lowerFirst(strings.TrimRight(lean, "?.! ")) + ")?"
}

// anaphorRe matches words that point back at what an earlier part of the
// question named: "such a limit", "this option", "which one", "them".
var anaphorRe = regexp.MustCompile(`(?i)\b(?:such|this|these|those|it|its|they|them|their)\b|\b(?:which|the|that)\s+one\b`)

// ellipticalRe matches a part that leaves out its verb, which the part
// before it gives: "how long for snapshots not referenced …", "what about
// the follower?".
var ellipticalRe = regexp.MustCompile(`(?i)^(?:how(?:\s+(?:many|much|long|often|large|big|far|old))?|what|which|when|where|why)\s+(?:for|about|of|with|without|if|in|on)\b`)

// leansOn reports whether criterion c, made from a later part of the
// question, cannot be answered without the part before it: it still
// points back at it, it names none of the question's names, or it asks
// nothing of its own beyond a value or a reason ("and what is the upper
// bound?", "and why?").
func leansOn(q question, c string) bool {
	c = stripTopicParen(c)
	if anaphorRe.MatchString(c) || ellipticalRe.MatchString(c) || len(q.entities) > 0 && !containsAny(c, q.entities) {
		return true
	}
	own := 0
	for _, w := range keywords(c) {
		if t := text.Stem(strings.ToLower(w)); !softWords[t] && !valueWords[t] && !quantityAdjective(w) {
			own++
		}
	}
	return own == 0 || len(q.entities) == 0 && !sharesWord(c, q.clauses[0])
}

// maxOwnContextWords is the most words of its own a question may ask with
// and still lean on the statement before it (leansOnContext).
const maxOwnContextWords = 2

// leansOnContext reports whether a question that follows a statement of
// the asker's situation cannot be answered without it: it asks little of
// its own ("What goes in the config file?"). (One that only points back
// at it, "Which flag makes it scan the nested folders as well?", asks
// enough: a statement's words are the asker's, not the page's.)
func leansOnContext(ask string) bool {
	ask = stripTopicParen(ask)
	if whyCritRe.MatchString(ask) {
		return false // "… Why?" asks about the statement itself
	}
	if backReferenceRe.MatchString(ask) {
		return true // "What does the runtime do at that point?"
	}
	own := 0
	for _, w := range keywords(ask) {
		if t := text.Stem(strings.ToLower(w)); !softWords[t] && !valueWords[t] && !quantityAdjective(w) {
			own++
		}
	}
	return own <= maxOwnContextWords
}

// backReferenceRe matches a phrase that points back at the statement
// before the question for its time or case: "at that point", "in this
// case", "when that happens". The question asks about that moment, so it
// leans on the statement however many words of its own it has.
var backReferenceRe = regexp.MustCompile(`(?i)\b(?:at|in|by) (?:that|this) (?:point|case|stage|moment|time)\b|\bwhen (?:that|this) happens\b`)

// quantityAdjective reports the adjective of a "how long/many …" question.
func quantityAdjective(w string) bool { return asksQuantity(w) }

// sharesWord reports whether a and b share a keyword.
func sharesWord(a, b string) bool {
	bs := text.NewSet(text.Tokens(b))
	for _, t := range text.Tokens(a) {
		if bs[t] && !softWords[t] && !valueWords[t] {
			return true
		}
	}
	return false
}

// partKey is the key that tells criteria apart: a part that leans on
// another ("… — why?") differs from it by its question word.
func partKey(c string) string {
	if own, lean, ok := splitLean(c); ok {
		return strings.ToLower(firstWord(own)) + " " + tokenKey(own) + " (" + tokenKey(lean) + ")"
	}
	return tokenKey(c)
}

// lowerFirst lower-cases the first letter of a question word, so that a
// part reads on after the one it leans on.
func lowerFirst(s string) string {
	w := firstWord(s)
	if whWords[strings.ToLower(w)] || auxVerb[strings.ToLower(w)] {
		return strings.ToLower(s[:1]) + s[1:]
	}
	return s
}

func containsAny(s string, subs []string) bool {
	l := strings.ToLower(s)
	for _, x := range subs {
		if strings.Contains(l, strings.ToLower(x)) {
			return true
		}
	}
	return false
}

type template struct{ criterion, heading string }

// topicCriteria are the criteria of a message that names a topic without
// asking anything of it; %s is the topic. A question gets only its own
// parts: no template adds caveats, trade-offs or "related details" that
// nobody asked for.
var topicCriteria = []template{
	{"What is %s?", "What it is"},
	{"What are the key facts about %s?", "Key facts"},
}

// asksSomething reports whether criterion c is a question or a request
// ("What …?", "Is …?", "List …"), not a bare topic.
func asksSomething(c string) bool {
	first := strings.ToLower(firstWord(c))
	return strings.HasSuffix(strings.TrimSpace(c), "?") || whWords[first] || auxVerb[first] || isImperative(first)
}
