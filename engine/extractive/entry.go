package extractive

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/text"
)

// Stage 1 of synthesis: find the entry. A reference page documents many
// things side by side — one entry per option, directive, function or
// setting, each opening with its name as a label, a term line or a
// key/value box. When a part of the question names such a thing ("the
// -q option", "client_body_size"), the entry that carries that name is
// where its answer is; sentences of the other entries answer only when
// they name it themselves (pool.labelsAnother).

// entry is the entry of the thing one criterion asks about: the
// sentences under the label that names it, in page order, on the page
// where it reads best. An empty entry means the criterion names nothing
// that a page documents as an entry of its own.
type entry struct {
	name  string // the label as the page writes it ("--sort, --no-sort")
	sents []int
}

// opening is the entry's first sentence of prose (after its key/value
// box), else its first line, or -1.
func (e entry) opening(p *pool) int {
	for _, i := range e.sents {
		if !p.sents[i].box && !isBoxLine(p.sents[i].text) {
			return i
		}
	}
	if len(e.sents) == 0 {
		return -1
	}
	return e.sents[0]
}

// findEntries returns, for each section and each of its criteria, the
// entry of the thing the criterion names.
func findEntries(p *pool, secs []section) [][]entry {
	out := make([][]entry, len(secs))
	for si, sec := range secs {
		out[si] = make([]entry, len(sec.criteria))
		for ci := range sec.criteria {
			p.labelledNames(&sec.criteria[ci])
			out[si][ci] = p.entryOf(sec.criteria[ci])
		}
	}
	return out
}

// labelledNames makes a name of two hyphenated words in c ("tcp-clients")
// one of c's identifiers when a page read labels an entry with it: alone,
// such a compound is as often a word of prose ("read-only"), and the
// pages say which it is.
func (p *pool) labelledNames(c *criterion) {
	for _, w := range strings.Fields(c.text) {
		w = strings.ToLower(strings.Trim(w, ",.;:?!\"'()`“”‘’"))
		if parts := strings.Split(w, "-"); len(parts) != 2 || parts[0] == "" || parts[1] == "" ||
			strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLower(r) && !unicode.IsDigit(r) && r != '-' }) >= 0 ||
			slices.Contains(c.identNames, w) || !p.labelsEntry(w) {
			continue
		}
		c.idents = append(c.idents, text.Unique(text.Tokens(w)))
		c.identTails = append(c.identTails, nil)
		c.identNames = append(c.identNames, w)
	}
}

// entryOf returns the entry whose label names what c asks about — a flag
// c names ("-q") or an identifier written as in the question
// ("client_body_size") — on the most relevant page that has one.
func (p *pool) entryOf(c criterion) entry {
	if c.generic {
		return entry{}
	}
	flags := c.flags()
	if !c.namesThing() {
		if e := p.entrySpelling(c); len(e.sents) > 0 {
			return e
		}
		return p.entryByWord(c)
	}
	var src int // the page of the label being matched
	names := func(label string) bool {
		for _, f := range flagTokens(label) {
			if slices.Contains(flags, f) && p.flagPage(c, src) {
				return true
			}
		}
		// A name in capitals labels its entry alone ("ZDOTDIR").
		if lt := text.Tokens(label); len(lt) == 1 && isCapitalsWord(strings.TrimSpace(label)) && slices.Contains(c.caps, lt[0]) {
			return true
		}
		l := strings.ToLower(label)
		for _, n := range c.identNames {
			if labelNames(l, n) && (!strings.HasPrefix(n, "-") || p.flagPage(c, src)) && !p.inSetting(n) {
				return true
			}
		}
		return false
	}
	best := p.bestEntry(func(label string, s int) bool {
		src = s
		return names(label)
	})
	if len(best.sents) == 0 {
		return p.entrySpelling(c)
	}
	return best
}

// bestEntry returns the entry whose label is named, on the most relevant
// page that has one (the first on a tie): its sentences from the one that
// opens it to the last under its label.
func (p *pool) bestEntry(named func(label string, src int) bool) entry {
	best, bestRel := entry{}, -1.0
	for i := 0; i < len(p.sents); i++ {
		s := &p.sents[i]
		if s.label == "" || i > 0 && p.sents[i-1].src == s.src && p.sents[i-1].label == s.label || !named(s.label, s.src) {
			continue // not the first sentence of an entry that is named
		}
		e := entry{name: s.label}
		for j := i; j < len(p.sents) && p.sents[j].src == s.src && p.sents[j].label == s.label; j++ {
			e.sents = append(e.sents, j)
		}
		if rel := p.docRel[s.src]; rel > bestRel {
			best, bestRel = e, rel
		}
	}
	return best
}

// labelNames reports whether label (lower case) names identifier n as its
// term: the label's first term is n, not a longer name that contains it
// ("cache.size" is not named by "cache.sizeLimit").
func labelNames(label, n string) bool {
	for _, alt := range strings.Split(label, ",") {
		// Each of the names a label gives ("--sort, --no-sort") is the
		// first term of its part: "200 thread_pool_min" names 200.
		term, rest, _ := strings.Cut(strings.TrimLeft(alt, " (`"), " ")
		if strings.Trim(term, "(`)") != n {
			continue
		}
		// "workspace_client overflows" names a counter after the
		// parameter, not the parameter; "AUTO_CD (-J)", "--timeout
		// seconds" and "maximal_queue_lifetime (default: 5 days)" name
		// the thing itself.
		if r, _ := utf8.DecodeRuneInString(strings.TrimSpace(rest)); strings.HasPrefix(n, "-") || !unicode.IsLetter(r) {
			return true
		}
	}
	return false
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

// commandTokens are the tokens of the names written as code in a page's
// title ("git-config(1)" → git, config), figures left out: the command a
// manual page documents.
func commandTokens(title string) []string {
	var out []string
	for _, w := range strings.Fields(title) {
		if w = strings.Trim(w, ",:;"); !isTechnical(w) && !strings.Contains(w, "-") {
			continue
		}
		for _, t := range text.Tokens(w) {
			if !unicode.IsDigit([]rune(t)[0]) {
				out = append(out, t)
			}
		}
	}
	return out
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
	if !strings.Contains(first, "_") && !(strings.Contains(first, ".") && isTechnical(first)) {
		return false // a name written as code: snake_case or dotted
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
	return asked >= 2 && float64(held) >= spelledShare*float64(asked)
}

// entrySpelling is entryOf for a question that names no identifier: the
// entry, on the most relevant page, whose label spells out what it asks.
func (p *pool) entrySpelling(c criterion) entry {
	return p.bestEntry(func(label string, _ int) bool { return p.spells(c, label) })
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

// entryByWord is entryOf for a question that names no identifier, flag
// or capitals name, and whose words spell no identifier: the entry whose
// label is one of c's words as it stands ("Severity", "ort" for "the default severity", "the ort merge
// strategy"): of the words some entry of a page is labelled with, the
// rarest in the pool, on the most relevant page. The words that ask for
// a value of the thing ("default", "maximum"), the noun a "what" or
// "which" asks for ("At what score …") and the words of the question's
// setting name no entry.
func (p *pool) entryByWord(c criterion) entry {
	best := p.entryWord(c)
	if best == "" {
		return entry{}
	}
	return p.bestEntry(func(label string, src int) bool {
		return strings.EqualFold(strings.TrimSpace(label), best) && p.labelCount(src) >= 2
	})
}

// entryWord is the word of c that names its entry (entryByWord), or "".
func (p *pool) entryWord(c criterion) string {
	if w, ok := p.entryWords[c.text]; ok {
		return w
	}
	best, bestIDF := "", 0.0
	if !c.namesThing() {
		asked, _ := askedWord(c.text)
		for _, w := range c.words {
			toks := text.Tokens(w)
			if len(toks) != 1 || valueWords[toks[0]] || p.context[toks[0]] || text.IsStopword(w) || strings.EqualFold(w, asked) {
				continue // "At what score …": the noun asked for is the answer's kind, not the thing it is asked of
			}
			if df := p.index.DF(toks[0]); df > minEntryWordDF && float64(df) > maxEntryWordShare*float64(len(p.sents)) {
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
		if l := strings.TrimSpace(p.sents[i].label); len(l) == len(w) && strings.EqualFold(l, w) && p.labelCount(p.sents[i].src) >= 2 {
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
