package text

import (
	"regexp"
	"strings"
)

// A statement's values are what two sources may disagree on about the
// same thing: its numbers and its capitalised names after the first
// word. Its frame is the rest of its content words, in order: what the
// values are values of.

// Statement is a sentence read for disagreement: its frame and values.
type Statement struct {
	frame []string         // content words that are not values, in order
	own   []string         // the frame's words outside identifiers, in order
	nums  map[string]value // normalised number → where and how written
	names map[string]value // lower-cased name → where and how written
	ids   []ident          // identifiers written in the sentence, in order
}

// ident is an identifier as a manual writes one (`cache.size`,
// `pool_max`, `retryLimit`): lower-cased, with its byte offset.
type ident struct {
	name string
	at   int
}

// value is one value of a statement: as written, how many frame words
// come before it, and whether it follows "is"/"was" (a name stated as
// the value of what precedes, not one of several: "the capital is
// Canberra", not "supports JSON").
type value struct {
	raw    string
	at     int
	ownAt  int // how many own frame words come before it
	start  int // byte offset in the sentence
	stated bool
	// names is true when "is"/"was" follows the value: it names what the
	// statement is about ("the integer at offset 52 is zero"), it is not
	// the value stated.
	names bool
}

// Disagreement thresholds: the frames before the differing value must
// share this many words, and the smaller be inside the larger or the
// two overlap this much (Jaccard).
const (
	minFrameShared  = 2
	minFrameOverlap = 0.6
)

var (
	copulas  = map[string]bool{"is": true, "are": true, "was": true, "were": true, "be": true, "been": true, "remains": true, "became": true}
	articles = map[string]bool{"the": true, "a": true, "an": true}
)

// ReadStatement reads sentence s (plain text, without citation markers).
func ReadStatement(s string) Statement {
	st := Statement{nums: map[string]value{}, names: map[string]value{}, ids: identifiers(s)}
	words := Words(s)
	for i, w := range words {
		switch {
		case w.Num && isDigit(w.Raw[0]):
			if _, dup := st.nums[w.Lower]; !dup {
				st.nums[w.Lower] = value{raw: w.Raw, at: len(st.frame), ownAt: len(st.own), start: w.Start,
					names: i+1 < len(words) && copulas[words[i+1].Lower]}
			}
		case i > 0 && isCapitalised(w.Raw) && !atClauseStart(s, w.Start):
			j := i - 1
			if j > 0 && articles[words[j].Lower] {
				j--
			}
			if _, dup := st.names[w.Lower]; !dup {
				st.names[w.Lower] = value{raw: w.Raw, at: len(st.frame), ownAt: len(st.own), start: w.Start, stated: copulas[words[j].Lower]}
			}
		default:
			toks := tokensOf(words[i : i+1])
			st.frame = append(st.frame, toks...)
			if !st.inIdentifier(w.Start) {
				st.own = append(st.own, toks...)
			}
		}
	}
	return st
}

// Disagree reports whether statements a and b give different values for
// the same thing: they differ in exactly one number (or, with the same
// numbers, in exactly one name each states with "is"), and what comes
// before that value in each is the same thing said — "The bridge opened
// in 1932" and "The bridge opened to traffic in 1934". It returns the
// value each gives, as written.
func Disagree(a, b Statement) (va, vb string, ok bool) {
	x, y, ok := swap(a.nums, b.nums)
	if !ok {
		if len(only(a.nums, b.nums)) > 0 || len(only(b.nums, a.nums)) > 0 {
			return "", "", false // several numbers differ: another statement
		}
		if x, y, ok = swap(a.names, b.names); !ok || !x.stated || !y.stated {
			return "", "", false
		}
	}
	if x.names || y.names || !sameFrame(a.frame[:x.at], b.frame[:y.at]) || !sameSubject(a.idsBefore(x.start), b.idsBefore(y.start)) ||
		otherAttribute(a.own[:x.ownAt], b.own[:y.ownAt]) {
		return "", "", false
	}
	return x.raw, y.raw, true
}

// otherAttribute reports whether the words each statement writes before
// its value, outside identifiers, share none while both have some: the
// values are of two attributes of one thing ("thread_pool_min default:
// 100" and "thread_pool_min minimum: 5"), whose identifier alone made the
// frames look alike.
func otherAttribute(a, b []string) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	sa := NewSet(a)
	for _, t := range b {
		if sa[t] {
			return false
		}
	}
	return true
}

// inIdentifier reports whether byte offset at falls inside an identifier
// of the statement.
func (st Statement) inIdentifier(at int) bool {
	for _, id := range st.ids {
		if at >= id.at && at < id.at+len(id.name) {
			return true
		}
	}
	return false
}

// sameSubject reports whether the identifiers each statement names before
// its value can be of the same thing: when both name identifiers, they
// share one. Identifiers differing in one word ("cache.size" and
// "cache.sizeLimit") read as a shared frame word by word, yet are two
// settings; one side naming none ("the default port") leaves it open.
func sameSubject(a, b []string) bool {
	if len(a) == 0 || len(b) == 0 {
		return true
	}
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// idsBefore lists the identifiers written before byte offset at.
func (st Statement) idsBefore(at int) []string {
	var out []string
	for _, id := range st.ids {
		if id.at < at {
			out = append(out, id.name)
		}
	}
	return out
}

// identifiers finds the words of s written as identifiers: letters and
// digits joined by dots or underscores, or a lower-case letter followed
// by a capital inside the word (camelCase).
func identifiers(s string) []ident {
	var out []ident
	for _, m := range wordRe.FindAllStringIndex(s, -1) {
		if w := s[m[0]:m[1]]; isIdentifier(w) {
			out = append(out, ident{name: strings.ToLower(w), at: m[0]})
		}
	}
	return out
}

// wordRe matches a word as an identifier may be written: runs of ASCII
// letters and digits joined by single dots or underscores.
var wordRe = regexp.MustCompile(`[A-Za-z0-9]+(?:[._][A-Za-z0-9]+)*`)

// isIdentifier reports whether w joins parts with a dot or an underscore
// between letters, or turns from lower to upper case inside.
func isIdentifier(w string) bool {
	if len(w) < 4 || w[0] >= '0' && w[0] <= '9' {
		return false // "e.g", "U.S", a number such as 3.14
	}
	for k := 1; k < len(w); k++ {
		c, p := w[k], w[k-1]
		if (c == '.' || c == '_') && k+1 < len(w) {
			return true
		}
		if c >= 'A' && c <= 'Z' && p >= 'a' && p <= 'z' {
			return true
		}
	}
	return false
}

// sameFrame reports whether two frames say the same thing: enough shared
// words, and one inside the other or most words shared.
func sameFrame(a, b []string) bool {
	sa, sb := NewSet(a), NewSet(b)
	shared := 0
	for t := range sa {
		if sb[t] {
			shared++
		}
	}
	if shared < minFrameShared {
		return false
	}
	union := len(sa) + len(sb) - shared
	return shared == min(len(sa), len(sb)) || float64(shared)/float64(union) >= minFrameOverlap
}

// swap returns the one value of a that b lacks and the one of b that a
// lacks, when each has exactly one.
func swap(a, b map[string]value) (value, value, bool) {
	oa, ob := only(a, b), only(b, a)
	if len(oa) != 1 || len(ob) != 1 {
		return value{}, value{}, false
	}
	return oa[0], ob[0], true
}

// only lists the values of a that b lacks.
func only(a, b map[string]value) []value {
	var out []value
	for k, v := range a {
		if _, ok := b[k]; !ok {
			out = append(out, v)
		}
	}
	return out
}
