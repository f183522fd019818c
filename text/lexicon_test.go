package text

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// lexicon loads the system WordNet (Debian's wordnet-base, installed by
// scripts/test.sh); a missing database fails the test.
func lexicon(t *testing.T) *Lexicon {
	t.Helper()
	l, err := SharedLexicon()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLexiconRelated(t *testing.T) {
	l := lexicon(t)
	tests := []struct {
		word string
		want []string // must all be present
		not  []string // must all be absent
	}{
		{"maximum", []string{"upper limit", "maximal", "utmost"}, []string{"maximum"}},
		{"maxima", []string{"upper limit"}, nil},                      // irregular plural through noun.exc
		{"max", []string{"maximum", "upper limit"}, []string{"soap"}}, // a clipping means its full word only
		{"stands for", []string{"represent", "stand for", "mean"}, nil},
		{"acronym", []string{"acronymic"}, nil},
		{"configure", []string{"configuration"}, nil},
		{"turn on", []string{"switch on"}, nil},
		{"run", []string{"go", "run away"}, []string{"melt", "campaign"}}, // rare senses are not followed
	}
	for _, tt := range tests {
		got := l.Related(tt.word)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("Related(%q) = %q, want it to hold %q", tt.word, got, w)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(got, w) {
				t.Errorf("Related(%q) = %q, want no %q", tt.word, got, w)
			}
		}
		if !slices.IsSorted(got) {
			t.Errorf("Related(%q) = %q, not sorted", tt.word, got)
		}
	}
	for word, want := range map[string]string{"buy": "bought", "bought": "buy", "won": "win", "geese": "goose"} {
		if got := l.Inflections(word); !slices.Contains(got, want) {
			t.Errorf("Inflections(%q) = %q, want it to hold %q", word, got, want)
		}
	}
	if got := l.Inflections("table"); got != nil {
		t.Errorf("Inflections(table) = %q, want none: a regular word is the stemmer's", got)
	}
	if got := l.Related("qwzxv"); got != nil {
		t.Errorf("Related of an unknown word = %q, want nil", got)
	}
	if got := l.Broader("maximum"); !slices.Contains(got, "limit") {
		t.Errorf("Broader(maximum) = %q, want limit", got)
	}
}

func TestLexiconSame(t *testing.T) {
	l := lexicon(t)
	tests := []struct {
		a, b string
		want bool
	}{
		{"maximum", "limit", true},    // one step broader
		{"limit", "maximum", true},    // either way round
		{"max", "maximal", true},      // clipping, then WordNet
		{"enabled", "enabling", true}, // same stem
		{"stands for", "represents", true},
		{"turned on", "switch on", true}, // a phrase inflects its first word
		{"why", "reason", true},
		{"maximum", "minimum", false},
		{"server", "database", false},
		{"", "limit", false},
	}
	for _, tt := range tests {
		if got := l.Same(tt.a, tt.b); got != tt.want {
			t.Errorf("Same(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if got := l.RelatedStems("maximum"); !slices.Contains(got, Stem("maximal")) || !slices.Contains(got, "upper limit") {
		t.Errorf("RelatedStems(maximum) = %q, want the stem of maximal and the phrase upper limit", got)
	}
}

func TestLexiconNilFallsBackToStems(t *testing.T) {
	var l *Lexicon
	if !l.Same("servers", "server") || l.Same("maximum", "limit") {
		t.Error("a nil Lexicon must compare stems only")
	}
	if l.Related("maximum") != nil || l.Broader("maximum") != nil {
		t.Error("a nil Lexicon must know no relations")
	}
}

func TestLoadLexiconMissingFiles(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadLexicon(dir)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "index.noun")) {
		t.Fatalf("LoadLexicon(empty dir) error = %v, want one naming index.noun", err)
	}
	// A database whose index lacks lemmas is refused too.
	for _, name := range posNames {
		for _, f := range []string{"index." + name, "data." + name, name + ".exc"} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("  1 licence header\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := LoadLexicon(dir); err == nil || !strings.Contains(err.Error(), "no lemmas") {
		t.Fatalf("LoadLexicon(header-only files) error = %v, want no lemmas", err)
	}
}

func TestLexiconConcurrentUse(t *testing.T) {
	l := lexicon(t)
	words := []string{"maximum", "limit", "enable", "release", "version", "length", "cause", "fast"}
	var wg sync.WaitGroup
	results := make([][]string, 4*len(words))
	for i := range results {
		wg.Go(func() { results[i] = l.Related(words[i%len(words)]) })
	}
	wg.Wait()
	for i, r := range results {
		if !slices.Equal(r, results[i%len(words)]) {
			t.Errorf("Related(%q) differs between goroutines: %q vs %q", words[i%len(words)], r, results[i%len(words)])
		}
	}
}

func TestLexiconMeasure(t *testing.T) {
	l := lexicon(t)
	for _, w := range []string{"megabytes", "year", "seconds", "dollar", "byte", "miles", "temperature", "date"} {
		if !l.Measure(w) {
			t.Errorf("Measure(%q) = false, want true", w)
		}
	}
	// Things that are counted, not measures; and words whose common
	// sense is not a measure even if a rare one is ("port", "job").
	for _, w := range []string{"jobs", "user", "connection", "format", "version", "port", "percent", "memory", "qwertyuiop"} {
		if l.Measure(w) {
			t.Errorf("Measure(%q) = true, want false", w)
		}
	}
	if got := l.Units("megabytes"); !slices.Contains(got, "mb") || !slices.Contains(got, "megabyte") {
		t.Errorf(`Units("megabytes") = %q, want "megabyte" and "mb"`, got)
	}
	if got := l.Units("jobs"); got != nil {
		t.Errorf(`Units("jobs") = %q, want nil`, got)
	}
	var nilLex *Lexicon
	if nilLex.Measure("year") || nilLex.Units("year") != nil {
		t.Error("a nil Lexicon knows no measures")
	}
}

func TestLexiconUnitsOfKind(t *testing.T) {
	l := lexicon(t)
	tests := []struct {
		word       string
		has, hasnt []string
	}{
		{"megabytes", []string{"byte", "kilobyte", "kb", "mb", "gigabyte"}, []string{"second", "dollar"}},
		{"seconds", []string{"minute", "min", "s", "hour", "day"}, []string{"byte"}},
		{"dollars", []string{"euro", "dollar"}, []string{"minute"}},
		// "days" and "hours" are lemmas of their own ("in his final
		// days"); their singulars are the units.
		{"days", []string{"day", "hour", "second"}, []string{"byte"}},
		{"hours", []string{"hour", "minute"}, []string{"byte"}},
		{"year", nil, nil},  // a period, not a unit: asksYear decides
		{"jobs", nil, nil},  // not a measure
		{"port", nil, nil},  // not a measure
		{"qwzxv", nil, nil}, // unknown
	}
	for _, tt := range tests {
		checkLemmas(t, "UnitsOfKind", tt.word, l.UnitsOfKind(tt.word), tt.has, tt.hasnt)
	}
}

func TestLexiconUnitsMeasuring(t *testing.T) {
	l := lexicon(t)
	tests := []struct {
		word       string
		has, hasnt []string
	}{
		{"memory", []string{"byte", "kilobyte", "megabyte"}, []string{"second", "dollar"}},
		{"time", []string{"second", "minute", "hour"}, []string{"byte"}},
		{"processing", nil, nil}, // "central processing unit" is no unit of measure
		{"char", nil, nil},
		{"qwzxv", nil, nil},
	}
	for _, tt := range tests {
		checkLemmas(t, "UnitsMeasuring", tt.word, l.UnitsMeasuring(tt.word), tt.has, tt.hasnt)
	}
}

// checkLemmas asserts that fn(word) returned got holding every lemma of
// has and none of hasnt, and nil when has is nil.
func checkLemmas(t *testing.T, fn, word string, got, has, hasnt []string) {
	t.Helper()
	if has == nil && got != nil {
		t.Errorf("%s(%q) = %v, want nil", fn, word, got)
	}
	for _, w := range has {
		if !slices.Contains(got, w) {
			t.Errorf("%s(%q) lacks %q", fn, word, w)
		}
	}
	for _, w := range hasnt {
		if slices.Contains(got, w) {
			t.Errorf("%s(%q) holds %q", fn, word, w)
		}
	}
}

func TestLexiconMainlyAdjective(t *testing.T) {
	l := lexicon(t)
	for word, want := range map[string]bool{"single": true, "whole": true, "entire": true, "take": false, "wait": false,
		"memory": false, "value": false, "char": false, "server": false, "qwzxv": false} {
		if got := l.MainlyAdjective(word); got != want {
			t.Errorf("MainlyAdjective(%q) = %v, want %v", word, got, want)
		}
	}
}

func TestLexiconAttributesAndValues(t *testing.T) {
	l := lexicon(t)
	for _, tt := range []struct {
		word string
		want []string
	}{
		{"short", []string{"length"}},
		{"long", []string{"length"}},
		{"shorter", []string{"length"}}, // through adj.exc / detachment
		{"heavy", []string{"weight"}},
		{"old", []string{"age"}},
		{"brief", []string{"length"}}, // a satellite, through its head "short"
	} {
		got := l.Attributes(tt.word)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("Attributes(%q) = %v, want %q among them", tt.word, got, w)
			}
		}
	}
	for _, w := range []string{"default", "package", "quickly", "good", "important", "easy"} {
		if got := l.Attributes(w); len(got) != 0 {
			t.Errorf("Attributes(%q) = %v, want none", w, got)
		}
	}
	if got := l.Values("length"); !slices.Contains(got, "long") || !slices.Contains(got, "short") {
		t.Errorf(`Values("length") = %v, want "long" and "short"`, got)
	}
	if got := l.Values("package"); len(got) != 0 {
		t.Errorf(`Values("package") = %v, want none`, got)
	}
	var nl *Lexicon
	if nl.Attributes("short") != nil || nl.Values("length") != nil {
		t.Error("a nil Lexicon knows no attributes")
	}
}

func TestFrequency(t *testing.T) {
	l := lexicon(t)
	for _, w := range []string{"giving", "shows", "used", "choose"} {
		if f := l.Frequency(w); f < 100 {
			t.Errorf("Frequency(%q) = %d, want an everyday word's", w, f)
		}
	}
	for _, w := range []string{"threshold", "compression", "checksum", "vendor"} {
		if f := l.Frequency(w); f >= 100 {
			t.Errorf("Frequency(%q) = %d, want a field's term's", w, f)
		}
	}
	var none *Lexicon
	if none.Frequency("give") != 0 {
		t.Error("a nil lexicon knows no counts")
	}
}

func TestLexiconIsVerb(t *testing.T) {
	l := lexicon(t)
	for w, want := range map[string]bool{"use": true, "drift": true, "client": false, "kerberos": false, "": false} {
		if got := l.IsVerb(w); got != want {
			t.Errorf("IsVerb(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestLexiconKnows(t *testing.T) {
	l := lexicon(t)
	for w, want := range map[string]bool{"server": true, "servers": true, "Warning": true, "generates": true, "tallydoc": false, "tallyd": false, "": false} {
		if got := l.Knows(w); got != want {
			t.Errorf("Knows(%q) = %v, want %v", w, got, want)
		}
	}
	var none *Lexicon
	if none.Knows("server") {
		t.Error("a nil lexicon knows no word")
	}
}
