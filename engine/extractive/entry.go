package extractive

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

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

// finder holds the rules of stage 1; it reads the pool.
type finder struct{ *pool }

// findEntries returns, for each section and each of its criteria, the
// entry of the thing the criterion names.
func findEntries(pl *pool, secs []section) [][]entry {
	p := finder{pl}
	out := make([][]entry, len(secs))
	for si, sec := range secs {
		out[si] = make([]entry, len(sec.criteria))
		for ci := range sec.criteria {
			p.labelledNames(&sec.criteria[ci])
			p.labelledCodes(&sec.criteria[ci])
			p.closedCompounds(&sec.criteria[ci])
			out[si][ci] = p.entryOf(sec.criteria[ci])
		}
	}
	return out
}

// labelledNames makes a name of two hyphenated words in c ("tcp-clients")
// one of c's identifiers when a page read labels an entry with it: alone,
// such a compound is as often a word of prose ("read-only"), and the
// pages say which it is.
func (p finder) labelledNames(c *criterion) {
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

// labelledCodes makes a number of two digits or more in c ("Runtime
// error 217") one of c's identifiers when a page read labels an entry
// with it ("217 Unhandled exception occurred: …"): a code the asker saw,
// whose entry says what it means.
func (p finder) labelledCodes(c *criterion) {
	for _, w := range strings.Fields(c.text) {
		w = strings.Trim(w, ",.;:?!\"'()`“”‘’")
		if !isCode(w) || slices.Contains(c.identNames, w) || !p.labelsCode(w) {
			continue
		}
		c.idents = append(c.idents, []string{w})
		c.identTails = append(c.identTails, nil)
		c.identNames = append(c.identNames, w)
	}
}

// closedCompounds finds the pairs of c's words that the pages read write
// as one word ("time zone" as "timezone", "keep alive" as "keepalive"):
// the compound joins c's query, and a sentence that says it says both
// words (isEvidenceAt).
func (p finder) closedCompounds(c *criterion) {
	words := text.Words(c.text)
	for k := 0; k+1 < len(words); k++ {
		a, b := words[k], words[k+1]
		if a.Stop || b.Stop || a.Num || b.Num || !slices.Contains(c.core, a.Stem) || !slices.Contains(c.core, b.Stem) {
			continue
		}
		toks := text.Tokens(a.Lower + b.Lower)
		if len(toks) != 1 || p.index.DF(toks[0]) == 0 || !p.writesWord(a.Lower+b.Lower) {
			continue
		}
		if c.compounds == nil {
			c.compounds = map[string][]string{}
		}
		c.compounds[toks[0]] = []string{a.Stem, b.Stem}
		c.query.Add(toks, max(c.query[a.Stem], c.query[b.Stem]))
	}
}

// writesWord reports whether some sentence writes w as a word of prose:
// in lower case or with a capital first, not inside a name written as
// code ("tally.keepAlive" does not write "keepalive").
func (p finder) writesWord(w string) bool {
	re := regexp.MustCompile(`(?i)(?:^|[^\pL\pN_.])(` + regexp.QuoteMeta(w) + `)(?:$|[^\pL\pN_.(])`)
	for i := range p.sents {
		for _, m := range re.FindAllStringSubmatch(p.sents[i].text, -1) {
			if rest := m[1][1:]; rest == strings.ToLower(rest) {
				return true
			}
		}
	}
	return false
}

// entryOf returns the entry whose label names what c asks about — a flag
// c names ("-q") or an identifier written as in the question
// ("client_body_size") — on the most relevant page that has one.
func (p finder) entryOf(c criterion) entry {
	if c.generic {
		return entry{}
	}
	flags := c.flags()
	if !p.namesLabelled(c) {
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
			if p.labelNamesOn(l, n, src) && (!strings.HasPrefix(n, "-") || p.flagPage(c, src)) && !p.inSetting(n) {
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
		if e := p.pageEntry(c); len(e.sents) > 0 {
			return e
		}
		return p.entrySpelling(c)
	}
	return best
}

// pageEntry returns, when no label names what c asks about, the page of
// one entry titled with its name ("option" for "option()"): its
// sentences outside any labelled entry, on the most relevant such page.
func (p finder) pageEntry(c criterion) entry {
	best := -1
	for src := range p.docs {
		if p.pageOfNamed(c, src) && !p.docs[src].siteName && (best < 0 || p.docRel[src] > p.docRel[best]) && p.hasProse(src) {
			best = src
		}
	}
	if best < 0 {
		return entry{}
	}
	e := entry{name: p.docs[best].name}
	for i := range p.sents {
		if p.sents[i].src == best && p.sents[i].label == "" {
			e.sents = append(e.sents, i)
		}
	}
	return e
}

// hasProse reports whether page src has a sentence outside any labelled
// entry.
func (p finder) hasProse(src int) bool {
	return slices.ContainsFunc(p.sents, func(s sentence) bool { return s.src == src && s.label == "" })
}

// bestEntry returns the entry whose label is named, on the most relevant
// page that has one (the first on a tie): its sentences from the one that
// opens it to the last under its label.
func (p finder) bestEntry(named func(label string, src int) bool) entry {
	return p.entryUnder(named, nil)
}

// headingWords are the words of c an entry's heading may hold to place
// it (entryUnder): c's core, less the words of the question's setting.
func (p finder) headingWords(c criterion) []string {
	var out []string
	for _, t := range c.core {
		if !p.context[t] {
			out = append(out, t)
		}
	}
	return out
}

// entrySpelling is entryOf for a question that names no identifier: the
// entry, on the most relevant page, whose label spells out what it asks.
func (p finder) entrySpelling(c criterion) entry {
	return p.bestEntry(func(label string, src int) bool {
		return p.spells(c, label) && p.camelOnItsPage(c, label, src)
	})
}

// camelOnItsPage reports whether a camelCase label that spells c's words
// ("defaultMode" for "the default mode of acme's reader") is on a page
// whose title names something else the question does ("acme"), or, when
// the question names no other page of one entry, labels an entry of no
// other page: the same words name a member of many classes or modules,
// and the question says which.
func (p finder) camelOnItsPage(c criterion, label string, src int) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(label), " ")
	run := camelTokens(strings.Trim(first, ",:`"))
	if run == nil {
		return true
	}
	for _, t := range c.core {
		if p.docs[src].title[t] && !slices.Contains(run, t) {
			return true
		}
	}
	// A name no other page read labels an entry with ("TraceLevel" of
	// a daemon's configuration manual) is that entry's alone, unless the
	// question names another page of one entry.
	return !p.namesOtherPage(c, src) && !slices.ContainsFunc(p.sents, func(s sentence) bool { return s.src != src && s.label == label })
}

// namesOtherPage reports whether c names, in its words, a page of one
// entry other than src by that page's name ("tallyfile: File Input
// Module" for "… that tallyfile assigns").
func (p finder) namesOtherPage(c criterion, src int) bool {
	for d := range p.docs {
		if d == src || p.docs[d].siteName {
			continue
		}
		if n := text.Tokens(p.docs[d].name); len(n) > 0 && !slices.ContainsFunc(n, func(t string) bool { return !slices.Contains(c.tokens, t) }) {
			return true
		}
	}
	return false
}

// entryByWord is entryOf for a question that names no identifier, flag
// or capitals name, and whose words spell no identifier: the entry whose
// label is one of c's words as it stands ("Severity", "ort" for "the default severity", "the ort merge
// strategy"): of the words some entry of a page is labelled with, the
// rarest in the pool, on the most relevant page. The words that ask for
// a value of the thing ("default", "maximum"), the noun a "what" or
// "which" asks for ("At what score …") and the words of the question's
// setting name no entry.
func (p finder) entryByWord(c criterion) entry {
	best := p.entryWord(c)
	if best == "" {
		return p.sectionEntry(c)
	}
	e := p.entryUnder(func(label string, src int) bool {
		return labelSpellsWord(label, best) && p.labelCount(src) >= 2
	}, p.headingWords(c))
	if s := p.sectionEntry(c); len(s.sents) > 0 && (len(e.sents) == 0 || !sameSection(p.sents[e.sents[0]], p.sents[s.sents[0]])) {
		// "the true peak of the loudnorm filter": the entry the
		// section names, not a "peak" of another section.
		return s
	}
	return e
}

// sameSection reports whether two sentences sit under one real heading
// of one page.
func sameSection(a, b sentence) bool {
	return a.src == b.src && a.section == b.section
}
