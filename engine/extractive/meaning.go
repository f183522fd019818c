package extractive

import (
	"slices"
	"strings"
	"sync"

	"github.com/quarryhq/quarry/text"
)

// Meaning: which words of a sentence say what a word of the question says
// in other words. It comes from WordNet through text.Lexicon — the
// words of the same common senses, their derived forms, and the words one
// step broader ("maximum" → "limit", "bound") — never from a list written
// here. Without WordNet installed the lexicon is nil and only the stems
// themselves match.

// lexicon returns the process's lexicon, or nil when WordNet is missing.
func lexicon() *text.Lexicon {
	l, err := text.SharedLexicon()
	if err != nil {
		return nil
	}
	return l
}

// meaningCache holds meaningOf's answers: criteria are prepared for every
// synthesis and coverage check, and WordNet lookups are not free.
var meaningCache sync.Map // lower-case word → []string

// meaningOf returns the stems of the one-word terms that share a meaning
// with word or are one step broader than it, without word's own stem.
func meaningOf(word string) []string {
	word = strings.ToLower(word)
	if v, ok := meaningCache.Load(word); ok {
		return v.([]string)
	}
	var out []string
	if l := lexicon(); l != nil {
		seen := map[string]bool{text.Stem(word): true}
		out = oneWordStems(out, l.Inflections(word), seen)
		out = oneWordStems(out, l.Related(word), seen)
		out = oneWordStems(out, l.Broader(word), seen)
	}
	meaningCache.Store(word, out)
	return out
}

// oneWordStems appends to out the stems of the terms that are one word
// and no stop word, each once: a phrase is no one token of a sentence.
// seen holds the stems already given, and gets the new ones.
func oneWordStems(out, terms []string, seen map[string]bool) []string {
	for _, t := range terms {
		if strings.ContainsAny(t, " -") || text.IsStopword(t) {
			continue
		}
		if st := text.Stem(t); st != "" && !seen[st] {
			seen[st] = true
			out = append(out, st)
		}
	}
	return out
}

// formsOf returns, for each content word of s with irregular forms, the
// stems of those forms ("buy" → "bought"), keyed by the word's own stem.
func formsOf(s string) map[string][]string {
	out := map[string][]string{}
	l := lexicon()
	if l == nil {
		return out
	}
	for _, w := range text.Words(s) {
		if w.Stop || w.Num || out[w.Stem] != nil {
			continue
		}
		for _, f := range l.Inflections(w.Lower) {
			if st := text.Stem(f); st != w.Stem {
				out[w.Stem] = append(out[w.Stem], st)
			}
		}
	}
	return out
}

// meaningsOf returns, for each content word of s, the stems that say the
// same (meaningOf), and those of the phrase it is a word of when WordNet
// has the phrase as one lemma (phraseAt), keyed by the word's own stem.
func meaningsOf(s string) map[string][]string {
	out := map[string][]string{}
	words := text.Words(s)
	for _, w := range words {
		if w.Stop || w.Num || out[w.Stem] != nil {
			continue
		}
		if m := meaningOf(w.Lower); len(m) > 0 {
			out[w.Stem] = m
		}
	}
	for k := 0; k < len(words); k++ {
		n, m := phraseAt(s, words, k)
		if n == 0 {
			continue
		}
		// "at the same time" says "simultaneously": what the phrase
		// means is meant by each content word of it.
		for _, w := range words[k : k+n] {
			if w.Stop || w.Num {
				continue
			}
			// The word's own meanings are meaningOf's cached slice,
			// shared by every caller: append to a copy.
			own := slices.Clip(out[w.Stem])
			for _, st := range m {
				if st != w.Stem && !slices.Contains(own, st) {
					own = append(own, st)
				}
			}
			out[w.Stem] = own
		}
		k += n - 1
	}
	return out
}

// maxPhraseWords is the most words of a phrase WordNet is asked for.
const maxPhraseWords = 4

// phraseAt returns the number of words of the longest phrase starting at
// words[k] that WordNet has as one lemma ("at the same time", "give up"),
// its words written with only spaces between them and at least one a
// content word, and the stems of the single words that share its
// meaning ("concurrently", "simultaneously"); 0 and nil when there is
// none.
func phraseAt(s string, words []text.Word, k int) (int, []string) {
	l := lexicon()
	if l == nil {
		return 0, nil
	}
	for n := min(maxPhraseWords, len(words)-k); n >= 2; n-- {
		run := words[k : k+n]
		parts, content, joined := make([]string, n), false, true
		for j, w := range run {
			parts[j] = w.Lower
			content = content || !w.Stop && !w.Num
			if j > 0 {
				// Only spaces between the two words (Raw need not be
				// the text as written: a number's separators go).
				end := run[j-1].Start + len(run[j-1].Raw)
				joined = joined && end <= w.Start && strings.TrimSpace(s[end:w.Start]) == ""
			}
		}
		if !content || !joined {
			continue
		}
		// WordNet relates nothing to a phrase it does not have.
		if stems := oneWordStems(nil, l.Related(strings.Join(parts, " ")), map[string]bool{}); len(stems) > 0 {
			return n, stems
		}
	}
	return 0, nil
}

// sameMeaning reports whether the stems a and b can say the same thing:
// one is among the other's meanings. words maps stems to their meanings.
func sameMeaning(a, b string, words map[string][]string) bool {
	for _, m := range words[a] {
		if m == b {
			return true
		}
	}
	for _, m := range words[b] {
		if m == a {
			return true
		}
	}
	return false
}

// attributeMeanings are the meanings of the attribute words (attributeWords),
// by stem: a page states "the upper bound" as "the maximum …", whose
// broader words are "bound" and "limit".
var attributeMeanings = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{}
	for _, w := range strings.Fields(attributeWordList) {
		out[text.Stem(w)] = meaningOf(w)
	}
	return out
})
