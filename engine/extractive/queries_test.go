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
	t.Parallel()
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
	t.Parallel()
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

// A flag goes into a query without its dash, which engines read as "not".
func TestSearchQueryDropsLeadingDashes(t *testing.T) {
	t.Parallel()
	if got := searchQuery([]string{"quill_dump", "-Fc", "--format", "archive", `"-x"`, "-O"}); got != `quill_dump Fc format archive "-x"` {
		t.Errorf("searchQuery = %q", got)
	}
	q := analyse("What kind of archive does quill_dump -Fc produce?")
	criteria, _ := criteriaFor(q)
	for _, s := range queriesFor(q, criteria, nil, nil) {
		if strings.Contains(s, " -") || strings.HasPrefix(s, "-") {
			t.Errorf("query %q keeps a leading dash", s)
		}
	}
}

// After the long queries, the follow-ups narrow down to the names the
// criterion gives with one word each, then the names alone: a site's own
// search that requires every word finds nothing for a long query.
func TestQueryVariantsNarrowDown(t *testing.T) {
	t.Parallel()
	goal := analyse("What kind of archive does quill_dump -Fc produce?")
	vs := queryVariants("What kind of archive does quill_dump -Fc produce?", goal)
	last := vs[len(vs)-1]
	if n := len(strings.Fields(last)); n > 2 || !strings.Contains(last, "quill_dump") {
		t.Errorf("variants %q: want the last to be the names alone", vs)
	}
	keys := map[string]bool{}
	for _, v := range vs {
		keys[queryKey(v)] = true
	}
	if len(keys) < 4 {
		t.Errorf("variants %q: want at least four different searches", vs)
	}
}

// A question asking for a maximum also searches the limits of what it
// names: manuals state bounds on a page named for them ("Limits In …"),
// whose title has none of the question's words.
func TestQueriesSearchLimitsOfBound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		question string
		want     string // "" when no limits query is wanted
	}{
		{"What is the maximum size of a database file in EmberDB?", "EmberDB limits"},
		{"What is the largest value allowed for the page cache in EmberDB?", "EmberDB limits"},
		{"What is the default port of EmberDB?", ""},
		{"What is the maximum size of a payload?", ""}, // names nothing
	} {
		q := analyse(tc.question)
		criteria, _ := criteriaFor(q)
		qs := queriesFor(q, criteria, nil, nil)
		var got string
		for _, s := range qs {
			if strings.Contains(s, "limits") {
				got = s
			}
		}
		if got != tc.want {
			t.Errorf("%q: queries %q; limits query %q, want %q", tc.question, qs, got, tc.want)
		}
	}
}

// A possessive is searched as the bare name: a search program that wants
// every word finds nothing for "Askar's".
func TestSearchQueryDropsPossessives(t *testing.T) {
	t.Parallel()
	if got := searchQuery([]string{"Ammar", "Askar", "Minecraft", "exploit", "Askar's", `"Askar's exploit"`, "Tally’s"}); got != `Ammar Askar Minecraft exploit "Askar's exploit" Tally` {
		t.Errorf("searchQuery = %q", got)
	}
}

// A search program that wants every word of a query finds no page that
// lacks one: a question of one clause is searched with its words and
// again with one fewer, the last ("declared") dropped.
func TestQueriesSearchOneWordFewer(t *testing.T) {
	t.Parallel()
	q := analyse("Which datatypes may a column of a STRICT table be declared with?")
	criteria, _ := criteriaFor(q)
	qs := queriesFor(q, criteria, nil, nil)
	if len(qs) < 2 {
		t.Fatalf("queries %q: want two", qs)
	}
	full, short := strings.Fields(qs[0]), strings.Fields(qs[1])
	if len(short) != len(full)-1 || !slices.Equal(short, full[:len(full)-1]) {
		t.Errorf("queries %q: want the first less its last word second", qs)
	}
}

// Each identifier a question names is searched alone: the verbs around
// it ("turn", "search") are words its page may never use.
func TestQueriesSearchIdentifiersAlone(t *testing.T) {
	t.Parallel()
	q := analyse("How do you turn off mod_dir's search for an index file with the DirectoryIndex directive?")
	criteria, _ := criteriaFor(q)
	qs := queriesFor(q, criteria, nil, nil)
	for _, want := range []string{"DirectoryIndex", "mod_dir"} {
		if !slices.Contains(qs, want) {
			t.Errorf("queries %q: want %q alone", qs, want)
		}
	}
}

// A question's everyday verbs ("choose", "giving") keep a search program
// that wants every word from the page that answers: the plan searches its
// rarest words alone too.
func TestQueriesSearchTheRarestWords(t *testing.T) {
	t.Parallel()
	got := queriesFor(analyse("If I choose zstd compression in Borg without giving a level, which compression level does it use?"), nil, nil, nil)
	want := "compression zstd Borg"
	if !slices.Contains(got, want) {
		t.Errorf("queries = %q, want one of them %q", got, want)
	}
	if s := sharpWords([]string{"compact", "compacts", "threshold", "run"}); !slices.Equal(s, []string{"compact", "threshold"}) {
		t.Errorf("sharpWords = %q, want one form of a word and no everyday verb", s)
	}
}

// A name written as a call ("option()") is searched alone, as its bare
// word: search programs read parentheses as grouping or drop them. A
// condition written before the question word names the feature the
// answer's page is about, and is searched too.
func TestQueriesSearchCallFormsAndFrontedConditions(t *testing.T) {
	t.Parallel()
	q := analyse("If I declare an option() in my BuildList.txt without giving it a value, what value does it start with?")
	criteria, _ := criteriaFor(q)
	qs := queriesFor(q, criteria, nil, nil)
	if !slices.Contains(qs, "option") {
		t.Errorf("queries %q: want %q alone", qs, "option")
	}
	for _, s := range qs {
		if strings.ContainsAny(s, "()") {
			t.Errorf("query %q holds parentheses", s)
		}
	}
	if got := searchQuery([]string{"file(GLOB)", "sources"}); got != "file GLOB sources" {
		t.Errorf("searchQuery = %q, want the call's words", got)
	}
	q = analyse("With unity builds switched on, how many source files does the tool put into each combined file unless I change it?")
	criteria, _ = criteriaFor(q)
	qs = queriesFor(q, criteria, nil, nil)
	if !slices.ContainsFunc(qs, func(s string) bool { return strings.HasPrefix(s, "unity builds") }) {
		t.Errorf("queries %q: want one of the fronted condition", qs)
	}
	for _, s := range qs {
		if strings.Contains(s, "unless") {
			t.Errorf("query %q holds a word that opens a condition", s)
		}
	}
}

// The statements before a question lend it what it calls "it": a name
// WordNet does not know is searched with the question's sharpest words;
// a bare "Why?" is searched with the statement's rarest words.
func TestQueriesSearchTheContextsNames(t *testing.T) {
	t.Parallel()
	q := "tallydoc only documents my public methods. How do I get it to include my private methods as well?"
	crit, _ := criteriaFor(analyse(q))
	got := queriesFor(analyse(q), crit, nil, nil)
	if !slices.ContainsFunc(got, func(s string) bool {
		return strings.Contains(strings.ToLower(s), "tallydoc") && strings.Contains(s, "private")
	}) {
		t.Errorf("queries = %q, want one with the program's name and the question's words", got)
	}
	q = "I open a ledger with tally_open() and close it twice, and I get a warning and a crash. Why?"
	crit, _ = criteriaFor(analyse(q))
	got = queriesFor(analyse(q), crit, nil, nil)
	if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "ledger") && strings.Contains(s, "crash") }) {
		t.Errorf("queries = %q, want one with the statement's words", got)
	}
}
