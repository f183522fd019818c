package extractive

import (
	"slices"
	"sync"
	"testing"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// What a sentence says in other words comes from WordNet: "requires"
// answers "need", and "maximum" states an upper "bound".
func TestMeaningFromTheLexicon(t *testing.T) {
	t.Parallel()
	if lexicon() == nil {
		t.Fatal("WordNet is not installed (Debian package wordnet-base)")
	}
	if m := meaningOf("need"); !slices.Contains(m, text.Stem("require")) {
		t.Errorf("meaningOf(need) = %q, want it to hold require", m)
	}
	if !sameMeaning(text.Stem("bound"), text.Stem("maximum"), attributeMeanings()) {
		t.Error("bound and maximum do not share a meaning")
	}
	p := docPool([2]string{"Replicas — Tallyhall", "Replicas\n\nEvery Tallyhall replica requires a network port of its own on the host."})
	c := newCriterion("What does a Tallyhall replica need?", "What a replica needs", text.Tokens("What does a Tallyhall replica need?"), nil)
	i := sentenceIndex(t, p, "Every Tallyhall replica requires")
	if !p.impliedBy(c, i)[text.Stem("need")] || !p.isEvidence(c, i) {
		t.Errorf("%q does not answer %q in other words", p.sents[i].text, c.text)
	}
}

// A qualified name is named by its last part on the page that documents
// it: "lru_cache" names "functools.lru_cache".
func TestQualifiedNameNamedByItsLastPart(t *testing.T) {
	t.Parallel()
	if got := qualifiedTail("functools.lru_cache"); !slices.Equal(got, text.Tokens("lru_cache")) {
		t.Errorf("qualifiedTail = %q", got)
	}
	if got := qualifiedTail("max_clients"); got != nil {
		t.Errorf("qualifiedTail(max_clients) = %q, want nil", got)
	}
	p := docPool([2]string{"functools — Higher-order functions", "lru_cache\n\nThe decorator leaves the maxsize at its default value of 128 when none is given."})
	c := newCriterion("What is the default maxsize of functools.lru_cache?", "Default maxsize", text.Tokens("What is the default maxsize of functools.lru_cache?"), nil)
	if i := sentenceIndex(t, p, "The decorator leaves"); !p.namesIdentifiers(c, i) {
		t.Errorf("%q does not name functools.lru_cache", p.sents[i].text)
	}
}

// A phrase WordNet has as one lemma means what its single-word synonyms
// do: "at the same time" is said by "simultaneous", and the phrase's
// meaning goes to its content word; words with punctuation between them
// are no phrase.
func TestPhraseMeansItsSynonyms(t *testing.T) {
	t.Parallel()
	if lexicon() == nil {
		t.Fatal("WordNet is not installed (Debian package wordnet-base)")
	}
	m := meaningsOf("How many jobs can the scheduler hold at the same time?")
	if got := m[text.Stem("time")]; !slices.Contains(got, text.Stem("simultaneously")) {
		t.Errorf("meanings of time in \"at the same time\" = %v, want simultaneously's stem", got)
	}
	if got := meaningsOf("What time is it at the same, time?")[text.Stem("time")]; slices.Contains(got, text.Stem("simultaneously")) {
		t.Errorf("meanings of time across punctuation = %v, want no phrase's", got)
	}
	// The word's own meanings are a cached slice every caller shares:
	// two phrases of one word, read at once, must not write into it
	// (go test -race).
	var wg sync.WaitGroup
	for k := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			meaningsOf([]string{"Can it run two jobs at the same time?", "What happens at time out?"}[k%2])
		}()
	}
	wg.Wait()
	if got := meaningOf("time"); slices.Contains(got, text.Stem("simultaneously")) {
		t.Errorf("meaningOf(time) = %v: a phrase's meaning leaked into the word's own", got)
	}
	p := newPool([]research.Source{{ID: "S1", Title: "Scheduler", Text: "Limits\n\nMaxJobs specifies the maximum number of simultaneous jobs the scheduler allows.\n"}}, nil, nil)
	c := newCriterion("How many jobs can the scheduler hold at the same time?", "", nil, nil)
	if i := sentenceIndex(t, p, "MaxJobs specifies"); !p.says(c, i, text.Stem("time")) {
		t.Errorf("%q does not say \"at the same time\"", p.sents[i].text)
	}
}
