package extractive

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/quarryhq/quarry/text"
)

// queriesFor returns 2–5 distinct search queries: the question condensed to
// keywords, one per distinct clause or compared side, and the question in
// plain words when that is all there is. Queries in avoid are skipped.
func queriesFor(q question, criteria, extra, avoid []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range avoid {
		seen[queryKey(a)] = true
	}
	add := func(words []string) {
		if len(out) >= maxActions || len(words) == 0 {
			return
		}
		if len(words) > maxQueryLen {
			words = words[:maxQueryLen]
		}
		query := searchQuery(words)
		k := queryKey(query)
		if k == "" || seen[k] {
			return
		}
		seen[k] = true
		out = append(out, query)
	}
	main := mergeWords(prioritise(quantityNoun(keywords(q.ask)), q.entities), extra)
	add(main)
	if phrase := multiWordName(q); phrase != "" && len(out) < maxActions {
		// A feature named with several words is searched as that phrase
		// too: its words alone match every page that uses them apart.
		rest := hardKeywords(q.ask, []string{phrase})
		query := `"` + phrase + `" ` + strings.Join(rest[:min(2, len(rest))], " ")
		if k := queryKey(query); !seen[k] {
			seen[k] = true
			out = append(out, strings.TrimSpace(query))
		}
	}
	if q.fronted != "" {
		// "With unity builds switched on, how many …": the condition
		// names the feature the page of the answer is about.
		if words := keywords(q.fronted); len(words) > 0 {
			hard := hardKeywords(q.ask, words)
			add(mergeWords(words, hard[:min(2, len(hard))]))
		}
	}
	if b := boundQuery(q); len(b) > 0 {
		// A manual states a maximum on a page named for its limits, in
		// words the question does not use ("Limits In …").
		add(b)
	}
	switch {
	case q.kind == kindCompare:
		add(append(keywords(q.compare[0]+" vs "+q.compare[1]), keywords(q.aspect)...))
		add(append(keywords(q.compare[0]), keywords(q.aspect)...))
		add(append(keywords(q.compare[1]), keywords(q.aspect)...))
	case len(q.clauses) > 1:
		for i := range q.clauses {
			if i < len(criteria) {
				add(mergeWords(prioritise(keywords(stripTopicParen(criteria[i])), q.entities), extra))
			}
		}
	}
	if named := entities(q.ask); len(named) > 1 && q.kind != kindCompare {
		// One query per name the question itself gives (not its context),
		// with the question's two strongest words.
		hard := hardKeywords(q.ask, named)
		hard = hard[:min(2, len(hard))]
		for _, e := range named {
			if isTechnical(e) || isCamelName(e) {
				// An identifier ("DirectoryIndex", "mod_dir") is the
				// sharpest key a page has: searched alone, a program that
				// wants every word is not thrown off by a verb of the
				// question ("turn", "search") the page never uses.
				add([]string{e})
				continue
			}
			add(mergeWords([]string{e}, hard))
		}
	}
	if len(out) < minActions {
		// One clause: search the question as written too; engines handle
		// natural language, and the two queries find different pages.
		plain := strings.Fields(strings.TrimRight(q.ask, "?.! "))
		if len(plain) > maxPlainQueryLen {
			plain = plain[:maxPlainQueryLen]
		}
		if len(q.entities) > 0 && !containsAny(strings.Join(plain, " "), q.entities[:1]) {
			plain = append(plain, q.entities[0]) // named only in the context
		}
		query := searchQuery(plain)
		if k := queryKey(query); k != "" && !seen[k] && len(out) < maxActions {
			seen[k] = true
			out = append(out, query)
		}
		if len(out) < minActions && len(main) >= minShortenedQuery {
			// A search program that wants every word finds no page that
			// lacks one of them: the same words less the last, the one
			// the question adds least with (often its verb: "declared").
			add(main[:len(main)-1])
		}
		if len(out) < minActions {
			add(mergeWords(prioritise(keywords(q.ask), q.entities), []string{"documentation"}))
		}
	}
	// The question's least everyday words alone: a site's own search that
	// wants every word finds no page that lacks the asker's verbs
	// ("choose", "giving"), which the answering page seldom uses.
	sharp := sharpWords(main)
	if len(sharp) >= minSharpWords && len(sharp) < min(len(main), maxQueryLen) {
		add(sharp)
	}
	if names := contextNames(q, main); len(names) > 0 {
		// "tallydoc skips my private methods. How do I get it to
		// include them?": the asking sentence calls the program "it";
		// the program's name and the question's sharpest words find
		// its page. It comes after the question's own queries, in
		// place of none of them.
		add(mergeWords(names, sharp[:min(len(sharp), maxQueryLen-len(names))]))
	}
	if q.context != "" && slices.ContainsFunc(criteria, bareWhyRe.MatchString) {
		// A bare "Why?" asks about the statement before it: its rarest
		// words are what a page explaining it holds.
		add(sharpWords(keywords(q.context)))
	}
	return out
}

// contextNames returns, at most two, the words of a question's context
// that WordNet does not know and the query words lack: the program, file
// or function the asker works with ("I run tallyd with -q."), which the
// asking sentence often calls only "it".
func contextNames(q question, query []string) []string {
	lex := lexicon()
	if q.context == "" || lex == nil {
		return nil
	}
	var out []string
	have := strings.ToLower(strings.Join(query, " "))
	for _, w := range keywords(q.context) {
		if len(out) < maxContextNames && nameWordRe.MatchString(w) && !lex.Knows(w) && !strings.Contains(have, strings.ToLower(w)) {
			out = append(out, w)
		}
	}
	return out
}

// nameWordRe matches a word that may name a program, file or function:
// letters and digits, joined by "_", "-", "." or "::".
var nameWordRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*(?:(?:[_.-]|::)[A-Za-z0-9]+)*(?:\(\))?$`)

// maxContextNames is the most names a query takes from the question's
// context.
const maxContextNames = 2

// everydayFrequency is the count in WordNet's sense-tagged corpus from
// which a word is everyday speech rather than a term of the field searched
// (text.Lexicon.Frequency: "give" 781, "choose" 110; "threshold" 10).
const everydayFrequency = 100

// maxSharpWords and minSharpWords bound the query of a question's rarest
// words.
const (
	maxSharpWords = 5
	minSharpWords = 2
)

// sharpWords returns, in their order, the rarest of words: names and terms
// WordNet does not know first, then the least frequent, at most
// maxSharpWords, and none that is everyday speech.
func sharpWords(words []string) []string {
	lex := lexicon()
	if lex == nil {
		return nil
	}
	type ranked struct {
		w        string
		at, freq int
	}
	var rs []ranked
	seen := map[string]bool{}
	for i, w := range words {
		st := text.Stem(strings.ToLower(w))
		if seen[st] {
			continue // "compacts" after "compact"
		}
		seen[st] = true
		if f := lex.Frequency(w); f < everydayFrequency || isCapitalsWord(w) || isTechnical(w) {
			rs = append(rs, ranked{w, i, f})
		}
	}
	sort.SliceStable(rs, func(a, b int) bool { return rs[a].freq < rs[b].freq })
	rs = rs[:min(len(rs), maxSharpWords)]
	sort.Slice(rs, func(a, b int) bool { return rs[a].at < rs[b].at })
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.w
	}
	return out
}

// minShortenedQuery is the fewest words a query has before a shorter one
// is searched too.
const minShortenedQuery = 4

// boundWords mark a question asking for a maximum or an upper bound.
var boundWords = map[string]bool{"maximum": true, "max": true, "largest": true, "upper": true, "limit": true, "limits": true}

// boundQuery is the query for the limits of what a question asking for a
// maximum names ("What is the maximum size of a database file in
// EmberDB?" → EmberDB limits): its first two names and "limits"; nil when
// the question asks for no bound or names nothing.
func boundQuery(q question) []string {
	if len(q.entities) == 0 {
		return nil
	}
	for _, w := range strings.Fields(strings.ToLower(q.ask)) {
		if boundWords[strings.Trim(w, ",.;:?!\"'()")] {
			return mergeWords(q.entities[:min(2, len(q.entities))], []string{"limits"})
		}
	}
	return nil
}

// searchQuery joins words into a query. Search engines read "-Fc" as
// "without Fc", which excludes the very pages about the flag: a flag goes
// in without its dashes, and a one-character flag is left out (a site
// search finds nothing for the phrase "-f", and "f" names nothing).
//
// A name written as a call ("option()", "file(GLOB)") goes in as its
// words: a search program reads parentheses as grouping, or not at all.
func searchQuery(words []string) string {
	out := make([]string, 0, len(words))
	seen := map[string]bool{}
	var split []string
	for _, w := range words {
		if strings.HasPrefix(w, `"`) || !strings.ContainsAny(w, "()") {
			split = append(split, w)
			continue
		}
		split = append(split, strings.FieldsFunc(w, func(r rune) bool { return r == '(' || r == ')' })...)
	}
	for _, w := range split {
		if t := strings.TrimLeft(w, "-"); t != "" && t != w && !strings.HasPrefix(w, `"`) {
			if utf8.RuneCountInString(t) == 1 {
				continue // "-f" as "f" matches every page, quoted it matches none
			}
			w = t
		}
		if !strings.HasPrefix(w, `"`) {
			// "Askar's": a search program that wants every word finds
			// nothing for the possessive, and the name is "Askar".
			for _, suffix := range []string{"'s", "’s"} {
				if t := strings.TrimSuffix(w, suffix); t != w && t != "" {
					w = t
				}
			}
		}
		if seen[strings.ToLower(w)] {
			continue
		}
		seen[strings.ToLower(w)] = true
		out = append(out, w)
	}
	if len(out) == 0 {
		return strings.Join(words, " ")
	}
	return strings.Join(out, " ")
}

// quantityNouns replace the adjective of "how big is a char" in a query:
// pages say "size", not "big".
var quantityNouns = map[string]string{
	"big": "size", "large": "size", "small": "size", "long": "length", "old": "age", "tall": "height",
	"high": "height", "far": "distance", "fast": "speed", "heavy": "weight", "wide": "width", "deep": "depth",
}

// quantityNoun applies quantityNouns to the first keyword.
func quantityNoun(words []string) []string {
	if len(words) == 0 {
		return words
	}
	if n, ok := quantityNouns[strings.ToLower(words[0])]; ok {
		out := append([]string{}, words[1:]...)
		return append(out, n)
	}
	return words
}

// prioritise makes sure a query names the question's first two entities
// (a long list of names over-constrains a search).
func prioritise(words, entities []string) []string {
	return mergeWords(words, entities[:min(2, len(entities))])
}

// hardKeywords are the keywords of s that are not entities or soft words.
func hardKeywords(s string, entities []string) []string {
	var out []string
	for _, w := range keywords(s) {
		isEntity := false
		for _, e := range entities {
			if strings.Contains(strings.ToLower(e), strings.ToLower(w)) {
				isEntity = true
			}
		}
		if !isEntity && !softWords[text.Stem(strings.ToLower(w))] {
			out = append(out, w)
		}
	}
	return out
}

// mergeWords appends the words of extra that words lacks (by lower case),
// splitting multi-word entries.
func mergeWords(words, extra []string) []string {
	out := append([]string(nil), words...)
	have := map[string]bool{}
	for _, w := range out {
		have[strings.ToLower(w)] = true
	}
	for _, e := range extra {
		for _, w := range strings.Fields(e) {
			l := strings.ToLower(w)
			if !have[l] && (!text.IsStopword(l) || isCapitalsWord(w)) {
				have[l] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// queryKey normalises a query for near-duplicate detection: lower case,
// content tokens, order does not matter. It is coarser than
// research.ActionSpec.Key, which decides what repeats an action (and which
// the runner applies to whatever an engine proposes): two phrasings of the
// same words find the same pages, so the engine proposes only one of them.
func queryKey(q string) string {
	toks := text.Unique(text.Tokens(q))
	if len(toks) == 0 {
		return strings.ToLower(text.OneLine(q))
	}
	sort.Strings(toks)
	key := strings.Join(toks, " ")
	if strings.Contains(q, `"`) {
		key = `"` + key // a phrase search finds other pages than its words
	}
	return key
}

// multiWordName is the first name of several words the question asks
// about, as written: a quoted phrase or a run of capitalised words after
// the first word ("ORDER BY", "Copy-On-Write"); "" when there is
// none.
func multiWordName(q question) string {
	for _, e := range entities(q.ask) {
		if words := strings.Fields(e); len(words) >= 2 && len(words) <= 4 {
			return e
		}
	}
	return ""
}

// tokenKey is queryKey for criteria.
func tokenKey(s string) string { return queryKey(s) }

// reasonFor names the criterion a query serves best.
func reasonFor(query string, criteria []string) string {
	qs := text.NewSet(text.Tokens(query))
	best, bestScore := "", -1.0
	for _, c := range criteria {
		sc := text.Containment(text.Tokens(c), qs)
		if sc > bestScore {
			best, bestScore = c, sc
		}
	}
	return best
}
