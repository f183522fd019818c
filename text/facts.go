package text

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Facts are the checkable details of a sentence: the parts a reader would
// notice if a source did not say them.
type Facts struct {
	Numbers  []string `json:"numbers,omitempty"`  // normalised ("1000", "3.5", "2021")
	Dates    []string `json:"dates,omitempty"`    // as written ("March 5, 2021")
	Entities []string `json:"entities,omitempty"` // names as written ("Guido van Rossum", "PostgreSQL")
}

// Empty reports whether f holds nothing to check.
func (f Facts) Empty() bool {
	return len(f.Numbers) == 0 && len(f.Dates) == 0 && len(f.Entities) == 0
}

var dateRe = regexp.MustCompile(`(?i)\b(?:\d{1,2}\s+)?(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?(?:\s+\d{1,2}(?:st|nd|rd|th)?)?,?\s+\d{4}\b|\b\d{4}-\d{2}-\d{2}\b`)

// nameConnectors may join the capitalised words of one name:
// "Bank of America", "Guido van Rossum".
var nameConnectors = map[string]bool{
	"of": true, "van": true, "von": true, "de": true, "der": true, "da": true, "du": true,
	"la": true, "le": true, "del": true, "for": true, "the": true, "al": true, "bin": true,
}

// ExtractFacts returns the numbers, dates and names in sentence (plain text:
// citation markers already removed). Names are capitalised multi-word spans that do not start
// the sentence, plus single words that are acronyms or mixed case
// ("NASA", "PostgreSQL").
func ExtractFacts(sentence string) Facts {
	s := sentence
	var f Facts
	seen := map[string]bool{}
	add := func(list *[]string, v string) {
		if v != "" && !seen[v] {
			seen[v] = true
			*list = append(*list, v)
		}
	}
	words := Words(s)
	for _, w := range words {
		if w.Num && isDigit(w.Raw[0]) {
			add(&f.Numbers, w.Lower)
		}
	}
	for _, d := range dateRe.FindAllString(s, -1) {
		add(&f.Dates, strings.Join(strings.Fields(d), " "))
	}
	for _, e := range names(s, words) {
		add(&f.Entities, e)
	}
	return f
}

// names finds capitalised spans in s.
func names(s string, words []Word) []string {
	var out []string
	i := 0
	for i < len(words) {
		if i == 0 || !isCapitalised(words[i].Raw) || atClauseStart(s, words[i].Start) {
			i++
			continue
		}
		j := i + 1
		last := i
		for j < len(words) {
			gap := s[words[j-1].Start+len(words[j-1].Raw) : words[j].Start]
			if strings.Trim(gap, " -") != "" {
				break
			}
			if isCapitalised(words[j].Raw) {
				last = j
				j++
				continue
			}
			if nameConnectors[words[j].Lower] && j+1 < len(words) && isCapitalised(words[j+1].Raw) {
				j++
				continue
			}
			break
		}
		span := s[words[i].Start : words[last].Start+len(words[last].Raw)]
		if last > i || isAcronymOrMixed(words[i].Raw) {
			out = append(out, span)
		}
		i = last + 1
	}
	// A sentence may open with an acronym or product name: "NASA said …".
	if len(words) > 0 && isAcronymOrMixed(words[0].Raw) {
		out = append([]string{words[0].Raw}, out...)
	}
	return out
}

// atClauseStart reports whether the word at offset starts a new sentence
// inside s (after ". ", ": " or an opening quote).
func atClauseStart(s string, offset int) bool {
	before := strings.TrimRightFunc(s[:offset], unicode.IsSpace)
	if before == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(before)
	return strings.ContainsRune(".!?:\"“‘(•", r)
}

func isCapitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// isAcronymOrMixed matches "NASA", "PostgreSQL", "iOS", "macOS": words with
// an upper-case letter after the first.
func isAcronymOrMixed(w string) bool {
	if utf8.RuneCountInString(w) < 2 {
		return false
	}
	first := true
	for _, r := range w {
		if !first && unicode.IsUpper(r) {
			return true
		}
		first = false
	}
	return false
}

// NumberSet returns the normalised numbers of text, including small number
// words ("three" → "3"), for grounding checks.
func NumberSet(text string) Set {
	s := Set{}
	for _, w := range Words(text) {
		if w.Num {
			s[w.Stem] = true
		}
	}
	return s
}

// Fold lower-cases s and collapses runs of white space to one space, so
// that phrases can be looked up with strings.Contains.
func Fold(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// ContainsFold reports whether text contains phrase, ignoring case and
// runs of white space. Fold a large text once and use strings.Contains when
// looking up many phrases.
func ContainsFold(text, phrase string) bool {
	return strings.Contains(Fold(text), Fold(phrase))
}
