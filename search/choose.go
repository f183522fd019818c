package search

import (
	"sort"
	"strings"

	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/text"
)

// Weights of where a result names what the action looks for. The title
// says what a page is about; the URL's path often names the same thing in
// a documentation site; the snippet only shows that the page mentions it.
const (
	titleWeight   = 3.0
	pathWeight    = 1.5
	snippetWeight = 1.0
	// rankWeight is the engine's own order: worth a little, so that among
	// results that match equally the engine's first comes first, but a
	// page whose title names the asked thing outranks an index or a
	// changelog listed above it.
	rankWeight = 0.75
	// commonShare: a word in at least this share of the results' titles is
	// the site's furniture ("Documentation", the product's name), not a
	// sign of what one result is about.
	commonShare = 0.5
)

// pickTargets chooses which of results to visit: the first n, not
// skipped, of the results ordered by how well their title, URL path and
// snippet match the words of want (in that order of weight), with the
// engine's rank as a tie-break. skip is asked only about the URLs taken
// and those passed over for it, in order of choice, so that a skip that
// claims what it is asked about claims only what is visited.
func pickTargets(results []Result, want string, n int, skip func(string) bool) []string {
	type cand struct {
		url   string
		score float64
	}
	wanted := text.Unique(text.Tokens(want))
	wantedSet := text.NewSet(wanted)
	exact := exactWords(want)
	titles := make([][]string, len(results))
	df := map[string]int{}
	for i, r := range results {
		titles[i] = text.Unique(text.Tokens(r.Title))
		for _, t := range titles[i] {
			df[t]++
		}
	}
	// Words common to most titles say nothing about one result.
	weight := func(t string) float64 {
		if len(results) >= 4 && float64(df[t]) >= commonShare*float64(len(results)) {
			return 0.2
		}
		return 1
	}
	seen := map[string]bool{}
	var cands []cand
	for i, r := range results {
		key := extract.CanonicalURL(r.URL)
		if seen[key] {
			continue
		}
		seen[key] = true
		c := cand{url: r.URL}
		if len(wanted) > 0 {
			c.score = titleWeight*titleMatch(wanted, wantedSet, titles[i], weight) +
				pathWeight*text.Containment(wanted, text.NewSet(pathTokens(r.URL))) +
				snippetWeight*text.Containment(wanted, text.NewSet(text.Tokens(r.Snippet)))
			if namesExactly(r.Title+" "+r.URL, exact) {
				c.score += titleWeight / 2
			}
		}
		c.score += rankWeight * (1 - float64(i)/float64(len(results)))
		cands = append(cands, c)
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].score > cands[b].score })
	var out []string
	for _, c := range cands {
		if len(out) == n {
			break
		}
		if !skip(extract.CanonicalURL(c.url)) {
			out = append(out, c.url)
		}
	}
	return out
}

// titleMatch scores how squarely a title names what is wanted: the share
// of wanted words it holds and the share of its own (weighted) words that
// are wanted, so that a short title made of the asked words ("VACUUM")
// scores as high as a long one that holds them among many others.
func titleMatch(wanted []string, ws text.Set, title []string, weight func(string) float64) float64 {
	if len(title) == 0 {
		return 0
	}
	hit, total := 0.0, 0.0
	for _, t := range title {
		w := weight(t)
		total += w
		if ws[t] {
			hit += w
		}
	}
	precision := 0.0
	if total > 0 {
		precision = hit / total
	}
	return (text.Containment(wanted, text.NewSet(title)) + precision) / 2
}

// pathTokens are the words of a URL's path ("/docs/cli-install.html" →
// docs, cli, install, html).
func pathTokens(raw string) []string { return text.Tokens(text.URLWords(raw)) }

// exactWords are the identifiers of s that a page about them repeats as
// written: words with inner punctuation or mixed case ("cache.size",
// "maxRetries", "pool_size").
func exactWords(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		w := strings.Trim(f, ",;:?!\"'()[]{}“”‘’`.")
		if len(w) < 3 {
			continue
		}
		inner := strings.ContainsAny(w, "._") || strings.ToLower(w) != w && strings.ToUpper(w) != w && strings.ToLower(w[:1]) == w[:1]
		if inner {
			out = append(out, strings.ToLower(w))
		}
	}
	return out
}

// namesExactly reports whether s holds one of the exact words.
func namesExactly(s string, exact []string) bool {
	l := strings.ToLower(s)
	for _, e := range exact {
		if strings.Contains(l, e) {
			return true
		}
	}
	return false
}
