package extractive

import (
	"slices"
	"strings"
	"testing"
)

// Words that are common English but name the thing asked about — a
// keyword of a technical vocabulary written in capitals, a word in a code
// span — stay in every query.
func TestKeywordsKeepNamingWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"What does a WITHOUT ROWID table save in SQLite?", []string{"WITHOUT", "ROWID", "table", "save", "SQLite"}},
		{"How do I use INSERT INTO with a SELECT?", []string{"INSERT", "INTO", "SELECT"}},
		{"What does `git commit --only` do?", []string{"git", "commit", "--only"}},
		{"When is the `after` hook run?", []string{"after", "hook", "run"}},
		{"What is the default value of work_mem?", []string{"default", "value", "work_mem"}},
		// Shouting marks nothing: its common words go as usual.
		{"WHAT IS THE DEFAULT PORT OF EMBERDB?", []string{"DEFAULT", "PORT", "EMBERDB"}},
	}
	for _, tt := range tests {
		got := keywords(tt.in)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("keywords(%q) = %q, missing %q", tt.in, got, w)
			}
		}
		if strings.HasPrefix(tt.in, "WHAT") && (slices.Contains(got, "THE") || slices.Contains(got, "IS")) {
			t.Errorf("keywords(%q) = %q kept shouted stopwords", tt.in, got)
		}
	}
}

// A feature with a name of several words is searched as that phrase too,
// and the phrase search is not taken for a repeat of its words.
func TestQueriesSearchMultiWordNameAsPhrase(t *testing.T) {
	q := analyse("What does the WITHOUT ROWID optimization do in SQLite?")
	criteria, _ := criteriaFor(q)
	qs := queriesFor(q, criteria, nil, nil)
	var phrase, plain string
	for _, s := range qs {
		if strings.Contains(s, `"WITHOUT ROWID"`) {
			phrase = s
		} else if strings.Contains(s, "WITHOUT") && strings.Contains(s, "ROWID") {
			plain = s
		}
	}
	if phrase == "" || plain == "" {
		t.Fatalf("queries %q: want the name both as a phrase and as keywords", qs)
	}
	if queryKey(phrase) == queryKey(strings.ReplaceAll(phrase, `"`, "")) {
		t.Errorf("queryKey does not tell %q from its words", phrase)
	}
	if !strings.Contains(phrase, "SQLite") {
		t.Errorf("phrase query %q lost the product it is about", phrase)
	}
}
