package text

import (
	"golang.org/x/text/unicode/norm"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Word is one word of a text as written, with its normalised forms.
type Word struct {
	Raw   string // as written ("Servers", "3.5", "1,000")
	Lower string // lower case; numbers without thousands separators
	Stem  string // Lower after light stemming; number words become digits
	Start int    // byte offset of Raw in the text
	Stop  bool   // an English stopword
	Num   bool   // a number
}

// Words splits s into words: runs of letters and digits, where a number may
// hold inner "." or "," ("3.5", "1,000", "1.26.8"). Apostrophe suffixes
// ("user's", "don't") are dropped; hyphens, underscores and dots between
// letters separate words.
func Words(s string) []Word {
	var out []Word
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '?' && standalone(s, i) {
			// "the ? operator": documentation names the symbol in words too.
			out = append(out, newWord("question", i, false), newWord("mark", i, false))
			i++
			continue
		}
		if !isWordRune(r) {
			i += size
			continue
		}
		start := i
		digits := true
		for i < len(s) {
			r, size = utf8.DecodeRuneInString(s[i:])
			if isWordRune(r) {
				if !unicode.IsDigit(r) {
					digits = false
				}
				i += size
				continue
			}
			// "3.5", "1,000": a separator between digits stays inside a number.
			if (r == '.' || r == ',') && digits && i+1 < len(s) && isDigit(s[i+1]) && i > start {
				i++
				continue
			}
			break
		}
		raw := s[start:i]
		// Skip an apostrophe suffix: "user's", "don't", "we're".
		if i < len(s) {
			if r, size := utf8.DecodeRuneInString(s[i:]); r == '\'' || r == '’' {
				j := i + size
				for j < len(s) && isLetterByte(s[j]) {
					j++
				}
				if j-i-size <= 2 {
					i = j
				}
			}
		}
		out = append(out, newWord(raw, start, digits))
	}
	return out
}

// standalone reports whether the byte at i stands between spaces (or
// brackets), as a symbol named in a sentence rather than punctuation.
func standalone(s string, i int) bool {
	before := i == 0 || strings.IndexByte(" \t\n(`'\"", s[i-1]) >= 0
	after := i+1 == len(s) || strings.IndexByte(" \t\n)`'\"", s[i+1]) >= 0
	if i > 0 && strings.IndexByte("`'\"", s[i-1]) >= 0 && (i+1 == len(s) || s[i+1] != s[i-1]) {
		// `… the "Day of Disruption"?` ends a question after a quote;
		// only `"?"` quotes the operator.
		return false
	}
	return before && after && (i > 0 || i+1 < len(s))
}

// foldMarks drops the accents of a word ("strongilovoúni" →
// "strongilovouni"): a page and a question spell a name with and without
// them.
func foldMarks(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return w
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(w) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

func newWord(raw string, start int, digits bool) Word {
	w := Word{Raw: raw, Start: start, Num: digits}
	if digits {
		w.Lower = normalizeNumber(raw)
		w.Stem = w.Lower
		return w
	}
	w.Lower = foldMarks(strings.ToLower(raw))
	w.Stop = stopwords[w.Lower]
	if n, ok := numberWords[w.Lower]; ok {
		w.Stem = n
		w.Num = true
		w.Stop = false
		return w
	}
	if full, ok := clipped(w.Lower); ok {
		w.Stem = Stem(full)
		return w
	}
	w.Stem = Stem(w.Lower)
	return w
}

// clippings are the short forms documentation writes beside the full word
// ("opt-level" for the optimisation level, "max_clients" for the maximum
// number of connections). WordNet does not know them, or knows them in
// other senses ("db" the decibel, "max" a drug), so they are listed here;
// both sides of a match are mapped to the full word's stem.
var clippings = map[string]string{
	"config": "configuration", "configs": "configuration", "repos": "repository", "dirs": "directory",
	"args": "argument", "params": "parameter", "specs": "specification", "libs": "library",
	"docs": "documentation", "pkgs": "package", "deps": "dependency", "certs": "certificate",
	"apps": "application", "vars": "variable", "refs": "reference", "utils": "utility", "conf": "configuration", "env": "environment",
	"auth": "authentication", "repo": "repository", "dir": "directory", "arg": "argument",
	"param": "parameter", "spec": "specification", "lib": "library", "doc": "documentation",
	"info": "information", "max": "maximum", "min": "minimum", "opt": "optimization",
	"db": "database", "pkg": "package", "msg": "message", "err": "error", "num": "number",
	"str": "string", "len": "length", "tmp": "temporary", "temp": "temporary",
	"dev": "development", "prod": "production", "perf": "performance", "sync": "synchronous",
	"async": "asynchronous", "init": "initialization", "dep": "dependency", "cert": "certificate",
	"app": "application", "admin": "administrator", "addr": "address", "req": "request",
	"resp": "response", "ctx": "context", "fn": "function", "func": "function", "var": "variable",
	"const": "constant", "ref": "reference", "mem": "memory", "proc": "process",
	"exe": "executable", "distro": "distribution", "util": "utility", "impl": "implementation",
}

// clipped returns the full word of a clipping.
func clipped(w string) (string, bool) {
	full, ok := clippings[w]
	return full, ok
}

// normalizeNumber drops thousands separators: "1,000" → "1000". A comma that
// is not a thousands separator ("3,5") becomes a decimal point.
func normalizeNumber(raw string) string {
	if !strings.Contains(raw, ",") {
		return raw
	}
	parts := strings.Split(raw, ",")
	thousands := len(parts[0]) <= 3
	for _, p := range parts[1:] {
		if len(p) < 3 || len(p) > 3 && !strings.Contains(p, ".") {
			thousands = false
		}
	}
	if thousands {
		return strings.ReplaceAll(raw, ",", "")
	}
	return strings.ReplaceAll(raw, ",", ".")
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isLetterByte(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// Tokens returns the content tokens of s: lower-cased, stemmed words without
// stopwords or one-letter words. Numbers are kept (normalised) and small
// number words become digits, so "three" and "3" match.
func Tokens(s string) []string { return tokensOf(Words(s)) }

// tokensOf is Tokens over already split words.
func tokensOf(words []Word) []string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		if w.Stop || !w.Num && utf8.RuneCountInString(w.Lower) < 2 {
			continue
		}
		out = append(out, w.Stem)
	}
	return out
}

// IsStopword reports whether the lower-case word w is an English stopword.
func IsStopword(w string) bool { return stopwords[w] }

// Unique returns the distinct tokens of toks in first-seen order.
func Unique(toks []string) []string {
	seen := make(map[string]bool, len(toks))
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// Stem reduces a lower-case English word to its Snowball (Porter2) stem so
// that inflected and derived forms meet: "servers"/"server",
// "configured"/"configuring"/"configuration", "libraries"/"library". Words
// with letters outside a–z (other scripts, digits) are returned unchanged.
func Stem(w string) string {
	if len(w) <= 2 || !isASCIIWord(w) {
		return w
	}
	w = americanZ(w)
	s := english.Stem(w, true)
	if len(w) > len(s)+1 && w[len(s)] == 'e' && strings.HasPrefix(w, s) && isLemma(s+"e") {
		// Snowball keeps the final e of "queue" but drops it with the
		// suffix of "queued": a word that writes a lemma whole is
		// stemmed as that lemma is.
		return english.Stem(s+"e", true)
	}
	return s
}

// britishZ are the endings of a verb in -ise and of its forms, as British
// spelling writes what American writes with z.
var britishZ = []string{"isations", "isation", "ising", "isers", "iser", "ised", "ises", "ise"}

// americanZ writes a word of British spelling in -ise ("normalise",
// "optimised", "initialising") with z, as its stem is written in
// American spelling ("normalize" → "normal"), unless WordNet lists its
// -ise form as a word and no -ize form ("promise", "exercise", "advise").
func americanZ(w string) string {
	for _, suf := range britishZ {
		stem, ok := strings.CutSuffix(w, suf)
		if !ok {
			continue
		}
		if len(stem) < 3 || isLemma(stem+"ise") && !isLemma(stem+"ize") {
			return w
		}
		return stem + strings.Replace(suf, "is", "iz", 1)
	}
	return w
}

// isLemma reports whether w is a noun or verb WordNet lists; false when
// WordNet cannot be read.
func isLemma(w string) bool {
	l, err := shared()
	if err != nil {
		return false
	}
	_, noun := l.lookup(noun, w)
	_, verb := l.lookup(verb, w)
	return noun || verb
}

func isASCIIWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// numberWords maps small English number words to digits.
var numberWords = map[string]string{
	"zero": "0", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
	"seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
	"thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
	"eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40",
	"fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
	"hundred": "100", "thousand": "1000", "dozen": "12",
}

// stopwords is a standard English list plus question words and contraction
// stems left by Words ("don", "isn").
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are
aren as at be because been before being below between both but by can cannot could couldn did didn
do does doesn doing don down during each either else etc even ever every few for from further get
gets got had hadn has hasn have haven having he her here hers herself him himself his how however i
if in into is isn it its itself just let lets like ll may me might mine more most much must mustn
my myself neither no nor not now of off often on once one ones only or other others otherwise ought our
ours ourselves out over own per perhaps please quite rather re really same shall shan she should
shouldn since so some such than that the their theirs them themselves then there thereby therefore
these they this those though through thus to too toward towards under until up upon us use used
using ve very via was wasn we well were weren what whatever when whenever where whereas wherever
whether which while who whoever whom whose why will with within without won would wouldn yet you
your yours yourself yourselves also s t d m o y ain`) {
		m[w] = true
	}
	return m
}()
