package text

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"The servers are running on port 8080.", []string{"server", "run", "port", "8080"}},
		{"It costs $1,000 or 3.5% of three units", []string{"cost", "1000", "3.5", "3", "unit"}},
		{"The user's max_connections setting", []string{"user", "maximum", "connect", "set"}},
		{"Go 1.26.8 isn't released", []string{"go", "1.26.8", "releas"}},
		{"Use the ? operator. Works?", []string{"question", "mark", "oper", "work"}},
		{`Who struck on the "Day of Action"?`, []string{"struck", "day", "action"}},
		{`What does "?" match?`, []string{"question", "mark", "match"}},
		{"Set max_connections in the config", []string{"set", "maximum", "connect", "configur"}},
	}
	for _, tt := range tests {
		got := Tokens(tt.in)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStemConflatesForms(t *testing.T) {
	groups := [][]string{
		{"configure", "configured", "configuring", "configuration", "configurations"},
		{"server", "servers"},
		{"library", "libraries"},
		{"install", "installed", "installing", "installation"},
		{"run", "runs", "running"},
		{"implement", "implemented", "implementation", "implements"},
		{"process", "processes"},
		{"setting", "settings"},
		{"connect", "connection", "connections", "connected"},
		{"generously", "generous"},
		// British -ise spelling meets American -ize
		{"rasterize", "rasterise", "rasterised", "rasterising", "raster"},
		{"optimize", "optimise", "optimised", "optimisation"},
	}
	for _, g := range groups {
		want := Stem(g[0])
		for _, w := range g[1:] {
			if got := Stem(w); got != want {
				t.Errorf("Stem(%q) = %q, want %q (as %q)", w, got, want, g[0])
			}
		}
	}
	// A word that ends in -ise of its own is no British form of another.
	for _, w := range []string{"promise", "exercise", "advise", "wise", "raise"} {
		if z := Stem(strings.TrimSuffix(w, "ise") + "ize"); Stem(w) == z {
			t.Errorf("Stem(%q) = %q, the stem of its -ize spelling", w, z)
		}
	}
	if Stem("apply") == Stem("app") {
		t.Errorf("apply and app must stay apart, both %q", Stem("app"))
	}
	// Snowball keeps the final e of "queue" and drops it with "queued";
	// a word that writes its lemma whole is stemmed as the lemma is, and
	// a word that does not stays its own ("rats" is no form of "rate").
	if Stem("queued") != Stem("queue") || Stem("queues") != Stem("queue") {
		t.Errorf("Stem(queued) = %q, Stem(queues) = %q, want Stem(queue) = %q", Stem("queued"), Stem("queues"), Stem("queue"))
	}
	if Stem("rats") == Stem("rate") {
		t.Errorf("rats and rate must stay apart, both %q", Stem("rate"))
	}
}

// A name spelt with and without its accents is one token.
func TestTokensFoldAccents(t *testing.T) {
	a, b := Tokens("Strongilovoúni hill, São Paulo"), Tokens("Strongilovouni hill, Sao Paulo")
	if !slices.Equal(a, b) {
		t.Errorf("Tokens with accents = %q, without = %q", a, b)
	}
}
