package text

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// WordNetDir is where Debian's wordnet-base package puts the WordNet 3.0
// database; the WNSEARCHDIR environment variable (WordNet's own) overrides it.
const WordNetDir = "/usr/share/wordnet"

// Lexicon tells which English words share a meaning, from the WordNet
// database files: the words of the same synsets and their derivationally
// related forms ("acronym"/"acronymic", "enable"/"enabling", "maximum"/
// "upper limit"/"maximal"), and one step broader (Broader: "maximum" →
// "limit"). Only the senses WordNet's sense-tagged corpus attests are used
// (the first sense when none is), so rare senses do not make every word
// related to every other. A Lexicon is read-only once loaded and safe for
// concurrent use. A nil *Lexicon knows no relations: its methods fall back
// to comparing stems.
type Lexicon struct {
	pos   [numPOS]part
	cache sync.Map // "r:"/"b:" + word → []string
	// counts are the lemmas' occurrences in the sense-tagged corpus
	// (cntlist.rev, all senses and parts summed), read on first use.
	counts func() map[string]int
	// posCounts are the occurrences of the lemmas' senses by part of
	// speech (the sense key's ss_type: noun, verb, adjective, adverb).
	posCounts func() [numPOS]map[string]int
}

// part is one part of speech: its index (lines sorted by lemma), its data
// file (synsets at byte offsets) and its irregular forms.
type part struct {
	index []byte
	lines []int32 // start of each lemma line of index
	data  []byte
	exc   map[string][]string // irregular form → its bases ("bought" → "buy")
	infl  map[string][]string // base → its irregular forms ("buy" → "bought")
}

const (
	noun = iota
	verb
	adj
	adv
	numPOS
)

var posNames = [numPOS]string{"noun", "verb", "adj", "adv"}

// posOf maps a synset type letter of the data files to its part ("s", an
// adjective satellite, lives in data.adj).
func posOf(c byte) int {
	switch c {
	case 'n':
		return noun
	case 'v':
		return verb
	case 'a', 's':
		return adj
	case 'r':
		return adv
	}
	return -1
}

// LoadLexicon reads the WordNet database in dir (index.*, data.* and *.exc
// for noun, verb, adj and adv). It fails, naming the file, when one is
// missing or unreadable.
func LoadLexicon(dir string) (*Lexicon, error) {
	l := &Lexicon{}
	for p, name := range posNames {
		idx, err := os.ReadFile(filepath.Join(dir, "index."+name))
		if err != nil {
			return nil, fmt.Errorf("load WordNet: %w", err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "data."+name))
		if err != nil {
			return nil, fmt.Errorf("load WordNet: %w", err)
		}
		exc, err := readExceptions(filepath.Join(dir, name+".exc"))
		if err != nil {
			return nil, fmt.Errorf("load WordNet: %w", err)
		}
		l.pos[p] = part{index: idx, lines: lemmaLines(idx), data: data, exc: exc, infl: inflections(exc)}
		if len(l.pos[p].lines) == 0 {
			return nil, fmt.Errorf("load WordNet: %s holds no lemmas", filepath.Join(dir, "index."+name))
		}
	}
	l.posCounts = sync.OnceValue(func() [numPOS]map[string]int { return readPOSCounts(filepath.Join(dir, "cntlist.rev")) })
	l.counts = sync.OnceValue(func() map[string]int { return sumCounts(l.posCounts()) })
	return l, nil
}

// sumCounts adds up each lemma's counts over the parts of speech.
func sumCounts(counts [numPOS]map[string]int) map[string]int {
	out := map[string]int{}
	for p := range numPOS {
		for lemma, n := range counts[p] {
			out[lemma] += n
		}
	}
	return out
}

// posOfSense maps the ss_type digit of a sense key ("%3:00:00::") to its
// part: 1 noun, 2 verb, 3 adjective, 4 adverb, 5 adjective satellite.
var posOfSense = map[byte]int{'1': noun, '2': verb, '3': adj, '4': adv, '5': adj}

// readPOSCounts reads cntlist.rev ("choose%2:31:00:: 1 80": sense key,
// sense number, count) in one pass into lemma → count per part of speech,
// summed over the lemma's senses of that part. A missing or unreadable
// file gives no counts: every word is then rare.
func readPOSCounts(path string) [numPOS]map[string]int {
	var out [numPOS]map[string]int
	for p := range numPOS {
		out[p] = map[string]int{}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) != 3 {
			continue
		}
		lemma, key, ok := strings.Cut(f[0], "%")
		p, known := 0, false
		if key != "" {
			p, known = posOfSense[key[0]]
		}
		if n, err := strconv.Atoi(f[2]); ok && known && err == nil {
			out[p][lemma] += n
		}
	}
	return out
}

// Frequency returns how often word, in any of its base forms and parts of
// speech, occurs in WordNet's sense-tagged corpus (the largest count of
// its bases): high for the words of everyday speech ("give", "use",
// "show"), low or 0 for a field's own terms ("threshold", "checksum").
func (l *Lexicon) Frequency(word string) int {
	if l == nil || l.counts == nil {
		return 0
	}
	counts, key := l.counts(), lemmaKey(word)
	best := counts[key]
	for p := range numPOS {
		for _, b := range l.bases(p, key) {
			best = max(best, counts[b])
		}
	}
	return best
}

// MainlyAdjective reports whether word (as written, lower case) is used
// as an adjective in more than half of its occurrences in WordNet's
// sense-tagged corpus: "single", "whole" and "entire" qualify a thing and
// name none of their own; "memory", "take" and "value" are not.
func (l *Lexicon) MainlyAdjective(word string) bool {
	if l == nil || l.posCounts == nil {
		return false
	}
	key := lemmaKey(word)
	counts := l.posCounts()
	all := 0
	for p := range numPOS {
		all += counts[p][key]
	}
	return 2*counts[adj][key] > all
}

var shared = sync.OnceValues(func() (*Lexicon, error) {
	dir := os.Getenv("WNSEARCHDIR")
	if dir == "" {
		dir = WordNetDir
	}
	l, err := LoadLexicon(dir)
	if err != nil {
		return nil, fmt.Errorf("%w (install the Debian package wordnet-base, or set WNSEARCHDIR to a WordNet 3.0 dict directory)", err)
	}
	return l, nil
})

// SharedLexicon is the process's one Lexicon, loaded on first use from
// $WNSEARCHDIR or WordNetDir (about 28 MB, read in tens of milliseconds).
// Every call returns the same Lexicon, or the same error.
func SharedLexicon() (*Lexicon, error) { return shared() }

// lemmaLines returns the start of every line of an index file that holds
// a lemma (the licence header's lines start with a space).
func lemmaLines(idx []byte) []int32 {
	var out []int32
	for i := 0; i < len(idx); {
		end := bytes.IndexByte(idx[i:], '\n')
		if end < 0 {
			end = len(idx) - i
		}
		if idx[i] != ' ' && end > 0 {
			out = append(out, int32(i))
		}
		i += end + 1
	}
	return out
}

func readExceptions(path string) (map[string][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string][]string{}
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 {
			m[f[0]] = append(m[f[0]], f[1:]...)
		}
	}
	return m, nil
}

// inflections turns an exception list around: the irregular forms of
// each base.
func inflections(exc map[string][]string) map[string][]string {
	out := map[string][]string{}
	for form, bases := range exc {
		for _, b := range bases {
			out[b] = append(out[b], form)
		}
	}
	for _, forms := range out {
		slices.Sort(forms)
	}
	return out
}

// entry is one index line: the synsets of a lemma in one part of speech,
// most frequent sense first, and how many senses the tagged corpus saw.
type entry struct {
	offsets []int64
	tagged  int
}

// lookup finds lemma (lower case, words joined by "_") in part p.
func (l *Lexicon) lookup(p int, lemma string) (entry, bool) {
	pt := &l.pos[p]
	i, found := slices.BinarySearchFunc(pt.lines, lemma, func(start int32, target string) int {
		return strings.Compare(pt.lemmaAt(start), target)
	})
	if !found {
		return entry{}, false
	}
	f := strings.Fields(pt.lineAt(pt.lines[i]))
	// lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt offset…
	if len(f) < 4 {
		return entry{}, false
	}
	pcnt, err := strconv.Atoi(f[3])
	if err != nil || len(f) < 6+pcnt {
		return entry{}, false
	}
	var e entry
	e.tagged, _ = strconv.Atoi(f[5+pcnt])
	for _, s := range f[6+pcnt:] {
		if off, err := strconv.ParseInt(s, 10, 64); err == nil {
			e.offsets = append(e.offsets, off)
		}
	}
	return e, len(e.offsets) > 0
}

func (pt *part) lineAt(start int32) string {
	rest := pt.index[start:]
	if end := bytes.IndexByte(rest, '\n'); end >= 0 {
		rest = rest[:end]
	}
	return string(rest)
}

func (pt *part) lemmaAt(start int32) string {
	rest := pt.index[start:]
	if end := bytes.IndexByte(rest, ' '); end >= 0 {
		rest = rest[:end]
	}
	return string(rest)
}

// synset is one parsed line of a data file.
type synset struct {
	words []string // lemmas as written in the file, "_" between words
	ptrs  []pointer
}

// pointer is one relation of a synset; source and target are 1-based word
// numbers for a relation between two words, 0 for one between synsets.
type pointer struct {
	symbol         string
	offset         int64
	pos            int
	source, target int
}

var errBadSynset = errors.New("malformed synset line")

// synsetAt parses the synset at byte offset off of part p's data file.
func (l *Lexicon) synsetAt(p int, off int64) (synset, error) {
	data := l.pos[p].data
	if off < 0 || off >= int64(len(data)) {
		return synset{}, errBadSynset
	}
	line := data[off:]
	if end := bytes.IndexByte(line, '\n'); end >= 0 {
		line = line[:end]
	}
	if bar := bytes.Index(line, []byte(" | ")); bar >= 0 {
		line = line[:bar]
	}
	f := strings.Fields(string(line))
	// offset lex_filenum ss_type w_cnt(hex) [word lex_id]… p_cnt [symbol offset pos src/tgt]…
	if len(f) < 4 {
		return synset{}, errBadSynset
	}
	wcnt, err := strconv.ParseInt(f[3], 16, 32)
	if err != nil || len(f) < 5+2*int(wcnt) {
		return synset{}, errBadSynset
	}
	var s synset
	for i := range int(wcnt) {
		w := f[4+2*i]
		if k := strings.IndexByte(w, '('); k > 0 { // adjective markers: "(a)", "(p)", "(ip)"
			w = w[:k]
		}
		s.words = append(s.words, w)
	}
	i := 4 + 2*int(wcnt)
	pcnt, err := strconv.Atoi(f[i])
	if err != nil || len(f) < i+1+4*pcnt {
		return synset{}, errBadSynset
	}
	for j := range pcnt {
		g := f[i+1+4*j : i+5+4*j]
		off, err1 := strconv.ParseInt(g[1], 10, 64)
		st, err2 := strconv.ParseUint(g[3], 16, 16)
		if err1 != nil || err2 != nil || posOf(g[2][0]) < 0 {
			return synset{}, errBadSynset
		}
		s.ptrs = append(s.ptrs, pointer{symbol: g[0], offset: off, pos: posOf(g[2][0]),
			source: int(st >> 8), target: int(st & 0xff)})
	}
	return s, nil
}

// lemmaKey turns a word or phrase into WordNet's lemma form: lower case,
// words joined by "_".
func lemmaKey(w string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(w, "_", " "))), "_")
}

// detachments are WordNet's rules for reaching a base form from an
// inflected one, per part of speech (morphy).
var detachments = [numPOS][][2]string{
	noun: {{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	verb: {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
	adj:  {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
}

// bases returns the lemmas of part p that the word or phrase key (in
// lemma form) is a form of, as WordNet's morphy finds them: the key
// itself, its irregular bases, then its regular ones; a phrase inflects
// its first word ("turned_on" → "turn_on").
func (l *Lexicon) bases(p int, key string) []string {
	var out []string
	add := func(c string) {
		if _, ok := l.lookup(p, c); ok && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	add(key)
	head, tail, phrase := strings.Cut(key, "_")
	for _, b := range l.pos[p].exc[head] {
		if phrase {
			b += "_" + tail
		}
		add(b)
	}
	for _, d := range detachments[p] {
		if strings.HasSuffix(head, d[0]) && len(head) > len(d[0])+1 {
			b := head[:len(head)-len(d[0])] + d[1]
			if phrase {
				b += "_" + tail
			}
			add(b)
		}
	}
	return out
}

// maxSenses bounds the senses of one lemma in one part of speech that
// Related follows: a verb like "run" has dozens of attested senses, and
// following them all would relate it to "campaign" and "melt".
const maxSenses = 3

// senses returns the synsets of the common senses of lemma in part p: those
// the tagged corpus attests, at most maxSenses, at least the first.
func (l *Lexicon) senses(p int, lemma string) []int64 {
	e, ok := l.lookup(p, lemma)
	if !ok {
		return nil
	}
	n := min(maxSenses, max(1, e.tagged))
	return e.offsets[:min(n, len(e.offsets))]
}

// wordsRelation is what Related follows from a word of a synset: the
// derivationally related form (+), the noun an adjective pertains to, or
// the adjective an adverb derives from (\), and for a synset as a whole
// the similar adjectives (&) and verb groups ($).
var wordRelations = map[string]bool{"+": true, `\`: true}
var synsetRelations = map[string]bool{"&": true, "$": true}

// Related returns the words and phrases that share a meaning with word
// (a word or a phrase such as "stand for"), in lower case with spaces
// between words, without word itself: the other lemmas of its common
// senses in every part of speech, their derivationally related forms and
// pertainyms, and the adjectives similar to an adjective. A documentation
// clipping ("max", "config", "repo") is taken as its full word. The result
// is sorted; nil when WordNet does not know the word.
func (l *Lexicon) Related(word string) []string {
	return l.cached("r:", word, l.related)
}

// Inflections returns the other forms of word that WordNet lists as
// irregular, in lower case, sorted: its bases and their irregular forms
// ("bought" → "buy"; "buy" → "bought"; "win" → "won"). Regular forms are
// the stemmer's. nil when there are none.
func (l *Lexicon) Inflections(word string) []string {
	return l.cached("i:", word, l.inflections)
}

func (l *Lexicon) inflections(key string) []string {
	seen := map[string]bool{}
	for p := range numPOS {
		for _, lemma := range l.bases(p, key) {
			if strings.Contains(lemma, "_") {
				continue
			}
			seen[lemma] = true
			for _, f := range l.pos[p].infl[lemma] {
				seen[f] = true
			}
		}
	}
	delete(seen, key)
	return sortedKeys(seen)
}

// Broader returns the words and phrases one step more general than word's
// common senses (WordNet hypernyms: "maximum" → "limit", "bound"), in lower
// case, sorted.
func (l *Lexicon) Broader(word string) []string {
	return l.cached("b:", word, l.broader)
}

func (l *Lexicon) cached(kind, word string, f func(string) []string) []string {
	if l == nil {
		return nil
	}
	key := lemmaKey(word)
	if v, ok := l.cache.Load(kind + key); ok {
		return v.([]string)
	}
	out := f(key)
	l.cache.Store(kind+key, out)
	return out
}

// forms returns the lemma forms word stands for: itself, or for a
// documentation clipping its full word only (WordNet's own senses of "max"
// or "doc" are not the ones documentation means).
func forms(key string) []string {
	if full, ok := clipped(key); ok {
		return []string{full}
	}
	return []string{key}
}

// eachSense calls visit with every synset a sense of key (or of its lemma
// forms) belongs to, and the lemma it was reached by.
func (l *Lexicon) eachSense(key string, visit func(s synset, lemma string)) {
	for _, form := range forms(key) {
		for p := range numPOS {
			for _, lemma := range l.bases(p, form) {
				for _, off := range l.senses(p, lemma) {
					if s, err := l.synsetAt(p, off); err == nil {
						visit(s, lemma)
					}
				}
			}
		}
	}
}

func (l *Lexicon) related(key string) []string {
	seen := map[string]bool{}
	add := func(w string) {
		w = strings.ReplaceAll(strings.ToLower(w), "_", " ")
		if w != strings.ReplaceAll(key, "_", " ") {
			seen[w] = true
		}
	}
	for _, form := range forms(key) {
		add(form)
	}
	l.eachSense(key, func(s synset, lemma string) {
		own := 0 // 1-based number of lemma in s
		for i, w := range s.words {
			add(w)
			if strings.EqualFold(w, lemma) {
				own = i + 1
			}
		}
		for _, ptr := range s.ptrs {
			switch {
			case wordRelations[ptr.symbol] && ptr.source == own && own > 0:
				if t, err := l.synsetAt(ptr.pos, ptr.offset); err == nil && ptr.target <= len(t.words) {
					add(t.words[ptr.target-1])
				}
			case synsetRelations[ptr.symbol] && ptr.source == 0:
				if t, err := l.synsetAt(ptr.pos, ptr.offset); err == nil {
					for _, w := range t.words {
						add(w)
					}
				}
			}
		}
	})
	return sortedKeys(seen)
}

func (l *Lexicon) broader(key string) []string {
	seen := map[string]bool{}
	l.eachSense(key, func(s synset, _ string) {
		for _, ptr := range s.ptrs {
			if ptr.symbol != "@" && ptr.symbol != "@i" {
				continue
			}
			if t, err := l.synsetAt(ptr.pos, ptr.offset); err == nil {
				for _, w := range t.words {
					seen[strings.ReplaceAll(strings.ToLower(w), "_", " ")] = true
				}
			}
		}
	})
	return sortedKeys(seen)
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for w := range m {
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

// Same reports whether a and b (words or phrases) can mean the same thing
// in a question and its answer: the same stems, one Related to the other,
// or one a Broader word for the other ("maximum" and "limit"). Forms are
// compared by stems, so inflections count ("enabled" and "enabling").
func (l *Lexicon) Same(a, b string) bool {
	sa, sb := stemPhrase(a), stemPhrase(b)
	if sa == "" || sb == "" {
		return false
	}
	if sa == sb {
		return true
	}
	has := func(list []string, stem string) bool {
		for _, r := range list {
			if stemPhrase(r) == stem {
				return true
			}
		}
		return false
	}
	return has(l.Related(a), sb) || has(l.Related(b), sa) || has(l.Broader(a), sb) || has(l.Broader(b), sa)
}

// RelatedStems returns the stems (as Tokens makes them) of the one-word
// Related forms of word, and of each phrase its stems joined by a space,
// sorted and without word's own stem: what a caller matching token sets
// adds to a word.
func (l *Lexicon) RelatedStems(word string) []string {
	own := stemPhrase(word)
	seen := map[string]bool{}
	for _, r := range l.Related(word) {
		if s := stemPhrase(r); s != "" && s != own {
			seen[s] = true
		}
	}
	return sortedKeys(seen)
}

// stemPhrase is the stems of the words of s, joined by a space, as Tokens
// makes them but keeping stopwords ("stand for", "turn on").
func stemPhrase(s string) string {
	ws := Words(s)
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, w.Stem)
	}
	return strings.Join(out, " ")
}

// maxKindDepth bounds the hypernym steps Measure climbs; WordNet's noun
// hierarchy is at most about 20 deep, a measure's well under that.
const maxKindDepth = 16

// Measure reports whether word, in its most common noun sense, names a
// measure — a unit or an amount of time, size, money or the like
// ("megabyte", "year", "second", "dollar"): a synset below WordNet's
// "measure, quantity, amount". A question asking for so many of them, or
// for which one, asks for a figure.
func (l *Lexicon) Measure(word string) bool {
	if l == nil {
		return false
	}
	return len(l.cached("m:", word, l.measure)) > 0
}

// Knows reports whether WordNet has word, in any of its base forms and
// parts of speech: "server" and "servers" it has, a program's own name
// ("tallyd") or a made-up term it has not.
func (l *Lexicon) Knows(word string) bool {
	if l == nil || word == "" {
		return false
	}
	key := lemmaKey(word)
	for p := range numPOS {
		if len(l.bases(p, key)) > 0 {
			return true
		}
	}
	return false
}

// IsVerb reports whether word, as written (lower case, no inflection),
// is the base form of a verb: "use" and "drift" are, "client" is not.
func (l *Lexicon) IsVerb(word string) bool {
	if l == nil || word == "" {
		return false
	}
	_, ok := l.lookup(verb, strings.ToLower(word))
	return ok
}

// Units returns the lemmas of word's most common noun sense when that
// sense is a measure (Measure), in lower case: the ways a figure of it may
// be written ("megabyte", "m", "mb"); nil otherwise.
func (l *Lexicon) Units(word string) []string {
	if l == nil {
		return nil
	}
	return l.cached("m:", word, l.measure)
}

func (l *Lexicon) measure(key string) []string {
	s, ok := l.measureSense(key)
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	for _, w := range s.words {
		seen[strings.ReplaceAll(strings.ToLower(w), "_", " ")] = true
	}
	return sortedKeys(seen)
}

// measureSense returns the synset of key's most common noun sense, and
// whether that sense is a measure (below "measure, quantity, amount").
func (l *Lexicon) measureSense(key string) (synset, bool) {
	ss := l.firstSenses(key)
	if len(ss) == 0 {
		return synset{}, false
	}
	return ss[0], l.below(ss[0], isMeasureSynset, maxKindDepth)
}

// firstSenses returns the most common noun sense of each base form of key
// WordNet has, in the order of its base forms.
func (l *Lexicon) firstSenses(key string) []synset {
	var out []synset
	for _, form := range forms(key) {
		for _, lemma := range l.bases(noun, form) {
			if offs := l.senses(noun, lemma); len(offs) > 0 {
				if s, err := l.synsetAt(noun, offs[0]); err == nil {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// UnitsOfKind returns, when the most common noun sense of word (or of
// one of its base forms: "day" of "days") is a unit of measurement (a
// measure whose broader term is a kind of unit: "megabyte" → "computer
// memory unit", "second" → "time unit"), the lemmas of every
// unit of that kind and of the units below them, in lower case ("byte",
// "kb", "kilobyte", "mb", …): the ways a figure of that kind may be
// written. nil when word is no unit, or a period such as "year" whose
// broader term is no kind of unit.
func (l *Lexicon) UnitsOfKind(word string) []string {
	if l == nil {
		return nil
	}
	return l.cached("k:", word, l.unitsOfKind)
}

func (l *Lexicon) unitsOfKind(key string) []string {
	// A plural may be a lemma of its own ("days": a time of life) and
	// its singular the unit ("day"): each base form is tried in turn.
	for _, s := range l.firstSenses(key) {
		if !l.below(s, isMeasureSynset, maxKindDepth) {
			continue
		}
		seen := map[string]bool{}
		for _, ptr := range s.ptrs {
			if ptr.symbol != "@" {
				continue
			}
			kind, err := l.synsetAt(ptr.pos, ptr.offset)
			if err != nil || !slices.ContainsFunc(kind.words, isUnitLemma) {
				continue
			}
			l.addHyponyms(kind, 2, seen)
		}
		if len(seen) > 0 {
			return sortedKeys(seen)
		}
	}
	return nil
}

// UnitsMeasuring returns, when word names what a kind of unit measures
// ("memory" of "computer memory unit", "time" of "time unit"), the lemmas
// of the units of every such kind and of the units below them, in lower
// case ("byte", "kilobyte", "second" …): the ways an amount of it may be
// written, so that "How much storage …" is answered by "four bytes". nil
// when no kind of unit is named after word.
func (l *Lexicon) UnitsMeasuring(word string) []string {
	if l == nil || word == "" {
		return nil
	}
	return l.cached("u:", word, l.unitsMeasuring)
}

func (l *Lexicon) unitsMeasuring(key string) []string {
	seen := map[string]bool{}
	pt := &l.pos[noun]
	for _, start := range pt.lines {
		lemma := pt.lemmaAt(start)
		parts := strings.Split(lemma, "_")
		if len(parts) < 2 || !isUnitLemma(lemma) || !slices.Contains(parts, key) {
			continue
		}
		for _, off := range l.senses(noun, lemma) {
			if s, err := l.synsetAt(noun, off); err == nil && l.below(s, isMeasureSynset, maxKindDepth) {
				l.addHyponyms(s, 2, seen)
			}
		}
	}
	return sortedKeys(seen)
}

// isUnitLemma reports whether a lemma names a kind of unit
// ("computer_memory_unit", "unit_of_time").
func isUnitLemma(w string) bool {
	return slices.Contains(strings.Split(strings.ToLower(w), "_"), "unit")
}

// addHyponyms adds to seen, in lower case, the lemmas of the synsets
// below s, depth levels down.
func (l *Lexicon) addHyponyms(s synset, depth int, seen map[string]bool) {
	if depth == 0 {
		return
	}
	for _, ptr := range s.ptrs {
		if ptr.symbol != "~" {
			continue
		}
		h, err := l.synsetAt(ptr.pos, ptr.offset)
		if err != nil {
			continue
		}
		for _, w := range h.words {
			seen[strings.ReplaceAll(strings.ToLower(w), "_", " ")] = true
		}
		l.addHyponyms(h, depth-1, seen)
	}
}

// isMeasureSynset reports whether s is WordNet's "measure, quantity,
// amount" (how much there is of something that can be quantified).
func isMeasureSynset(s synset) bool {
	return slices.Contains(s.words, "measure") && slices.Contains(s.words, "quantity")
}

// below reports whether a hypernym of s, within depth steps, satisfies is.
func (l *Lexicon) below(s synset, is func(synset) bool, depth int) bool {
	if depth == 0 {
		return false
	}
	for _, ptr := range s.ptrs {
		if ptr.symbol != "@" && ptr.symbol != "@i" {
			continue
		}
		if t, err := l.synsetAt(ptr.pos, ptr.offset); err == nil && (is(t) || l.below(t, is, depth-1)) {
			return true
		}
	}
	return false
}

// Attributes returns the measurable nouns an adjective is a value of, from
// WordNet's attribute pointers ("short", "long" → "length"; "heavy" →
// "weight"), in lower case, sorted: what a "how short …" question asks the
// measure of. A satellite adjective reaches them through its head ("brief"
// → "short" → "length"). Only attributes that are a measure, a property
// or a relation of magnitude count ("size", "age", "speed", "distance"):
// a quality ("good" → "goodness", "important" → "importance") is judged,
// not measured. nil when no common adjective sense of word has one.
func (l *Lexicon) Attributes(word string) []string {
	return l.cached("a:", word, l.attributes)
}

// isMagnitudeSynset reports the roots a measurable attribute sits below:
// "measure, quantity, amount", "property" (size, age, weight) and
// "relation" (distance, speed); a quality sits below "quality".
func isMagnitudeSynset(s synset) bool {
	return isMeasureSynset(s) || len(s.words) == 1 && (s.words[0] == "property" || s.words[0] == "relation")
}

func (l *Lexicon) attributes(key string) []string {
	seen := map[string]bool{}
	for _, form := range forms(key) {
		for _, lemma := range l.bases(adj, form) {
			for _, off := range l.senses(adj, lemma) {
				if s, err := l.synsetAt(adj, off); err == nil {
					l.addAttributes(s, seen, true)
				}
			}
		}
	}
	return sortedKeys(seen)
}

// addAttributes adds the words of the nouns adjective synset s is a value
// of; a satellite without attributes of its own takes its head's (one
// step of "&").
func (l *Lexicon) addAttributes(s synset, seen map[string]bool, viaHead bool) {
	found := false
	for _, ptr := range s.ptrs {
		if ptr.symbol != "=" || ptr.pos != noun {
			continue
		}
		if t, err := l.synsetAt(noun, ptr.offset); err == nil && l.below(t, isMagnitudeSynset, maxKindDepth) {
			for _, w := range t.words {
				seen[strings.ReplaceAll(strings.ToLower(w), "_", " ")] = true
				found = true
			}
		}
	}
	if found || !viaHead {
		return
	}
	for _, ptr := range s.ptrs {
		if ptr.symbol == "&" && ptr.pos == adj {
			if t, err := l.synsetAt(adj, ptr.offset); err == nil {
				l.addAttributes(t, seen, false)
			}
		}
	}
}

// Values returns the adjectives that are values of the attribute noun
// word names, in lower case, sorted ("length" → "long", "short"): the
// words a statement of that measure may use. nil when word's common noun
// senses are no attribute.
func (l *Lexicon) Values(word string) []string {
	return l.cached("v:", word, l.values)
}

func (l *Lexicon) values(key string) []string {
	seen := map[string]bool{}
	for _, form := range forms(key) {
		for _, lemma := range l.bases(noun, form) {
			for _, off := range l.senses(noun, lemma) {
				s, err := l.synsetAt(noun, off)
				if err != nil {
					continue
				}
				for _, ptr := range s.ptrs {
					if ptr.symbol != "=" || ptr.pos != adj {
						continue
					}
					if t, err := l.synsetAt(adj, ptr.offset); err == nil {
						for _, w := range t.words {
							seen[strings.ReplaceAll(strings.ToLower(w), "_", " ")] = true
						}
					}
				}
			}
		}
	}
	return sortedKeys(seen)
}
