package search

import (
	"context"
	"strings"
	"time"
	"unicode"

	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/text"
)

// maxRelaxed bounds the relaxed queries one search action may ask a site's
// own search program after its first results page named nothing asked,
// and widenTime the time spent on them and the next page (a program whose
// results are drawn by scripts is rendered for each).
const (
	maxRelaxed = 4
	widenTime  = 10 * time.Second
)

// widen reads past a site search's first results page when that page does
// not name what the query asks about (namesQuery): first its next page,
// then the query relaxed (relaxedQueries), stopping at the first relaxed
// query whose page names it. It returns every result seen, the pages that
// name the query first. Only url: engines (a site's own search program)
// are widened: such programs often require every word of a query, list a
// few long pages that happen to hold them all, and answer quickly; a
// public engine ranks by relevance and throttles repeated queries.
func (g *Gatherer) widen(ctx context.Context, res Results) []Result {
	if !strings.HasPrefix(res.Engine, "url:") || namesQuery(res.Results, res.Query) {
		return res.Results
	}
	ctx, cancel := context.WithTimeout(ctx, widenTime)
	defer cancel()
	pool := append([]Result(nil), res.Results...)
	if res.Next != "" {
		if more, err := g.searcher.SearchPage(ctx, res); err == nil {
			pool = append(pool, more.Results...)
			if namesQuery(more.Results, res.Query) {
				return dedupResults(pool)
			}
		}
	}
	for _, q := range relaxedQueries(res.Query, maxRelaxed) {
		if ctx.Err() != nil {
			break
		}
		more, err := g.searcher.Search(ctx, res.Engine, q)
		if err != nil || len(more.Results) == 0 {
			continue
		}
		if namesQuery(more.Results, q) {
			return dedupResults(append(append([]Result(nil), more.Results...), pool...))
		}
		pool = append(pool, more.Results...)
	}
	return dedupResults(pool)
}

// maxWidened bounds the results a widened search returns.
const maxWidened = 2 * maxSiteResults

// dedupResults drops later results for a page already listed, and any
// beyond maxWidened.
func dedupResults(rs []Result) []Result {
	seen := map[string]bool{}
	out := rs[:0:0]
	for _, r := range rs {
		k := extract.CanonicalURL(r.URL)
		if !seen[k] && len(out) < maxWidened {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// namesQuery reports whether some result's title or address names what
// query asks about: holds at least half of its distinctive words (those
// not in most of the results' titles, which are the site's name), and at
// least one. A page listing nothing names nothing.
func namesQuery(results []Result, query string) bool {
	words := text.Unique(text.Tokens(query))
	if len(results) == 0 || len(words) == 0 {
		return false
	}
	df := map[string]int{}
	named := make([]text.Set, len(results))
	for i, r := range results {
		for _, t := range text.Unique(text.Tokens(r.Title)) {
			df[t]++
		}
		named[i] = text.NewSet(text.Tokens(r.Title + " " + text.URLWords(r.URL)))
	}
	var core []string
	for _, w := range words {
		if len(results) < 4 || 2*df[w] < len(results) {
			core = append(core, w)
		}
	}
	if len(core) == 0 {
		core = words
	}
	for _, s := range named {
		hit := 0
		for _, w := range core {
			if s[w] {
				hit++
			}
		}
		if hit > 0 && 2*hit >= len(core) {
			return true
		}
	}
	return false
}

// relaxedQueries are at most max shorter forms of query to ask a site's
// search when query found nothing that names it, best first: the query
// with its hyphenated words split ("copy-on-write" → "copy on write":
// many indexes store the parts), then halves of the query, each keeping
// the words that name something (quoted phrases, identifiers, words with
// capitals or digits) and half of the others, the first half before the
// second, then the halves of those halves. A site's own search usually
// wants every word, and a page about the asked thing seldom holds every
// word of a question; which words it lacks is unknown, so both halves are
// tried, down to one plain word beside the names; when the query has
// names and two plain words or more, the last form is the plain words
// alone.
func relaxedQueries(query string, max int) []string {
	words := queryWords(query)
	var out []string
	seen := map[string]bool{strings.Join(words, " "): true}
	add := func(ws []string) {
		q := strings.Join(ws, " ")
		if len(out) < max && len(ws) > 0 && !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	split := make([]string, 0, len(words))
	for _, w := range words {
		if !strings.HasPrefix(w, `"`) && strings.Contains(strings.Trim(w, "-"), "-") {
			split = append(split, strings.Fields(strings.ReplaceAll(strings.Trim(w, "-"), "-", " "))...)
		} else {
			split = append(split, w)
		}
	}
	add(split)
	capitals := true // a query in capitals throughout names nothing by its case
	for _, w := range split {
		if strings.ToUpper(w) != w {
			capitals = false
		}
	}
	var names, plain []int
	for i, w := range split {
		if namesThing(w, !capitals) {
			names = append(names, i)
		} else {
			plain = append(plain, i)
		}
	}
	keep := func(part []int) []string {
		in := map[int]bool{}
		for _, i := range names {
			in[i] = true
		}
		for _, i := range part {
			in[i] = true
		}
		var ws []string
		for i, w := range split {
			if in[i] {
				ws = append(ws, w)
			}
		}
		return ws
	}
	// A name the index does not hold (a place the asker gives as an
	// example) empties every form that keeps it: the last form asks the
	// plain words alone.
	bound := max
	if len(names) > 0 && len(plain) >= 2 && max >= 3 {
		bound = max - 1
	}
	level := [][]int{plain}
	for len(out) < bound {
		var next [][]int
		for _, part := range level {
			if len(part) < 2 {
				continue
			}
			h := len(part) / 2
			next = append(next, part[:h], part[h:])
		}
		if len(next) == 0 {
			break
		}
		for _, part := range next {
			if len(out) < bound {
				add(keep(part))
			}
		}
		level = next
	}
	if bound < max {
		var ws []string
		for _, i := range plain {
			ws = append(ws, split[i])
		}
		add(ws)
	}
	return out
}

// queryWords splits a query into words, a quoted phrase counting as one.
func queryWords(q string) []string {
	var out []string
	for rest := strings.TrimSpace(q); rest != ""; rest = strings.TrimSpace(rest) {
		if strings.HasPrefix(rest, `"`) {
			if end := strings.Index(rest[1:], `"`); end >= 0 {
				out = append(out, rest[:end+2])
				rest = rest[end+2:]
				continue
			}
		}
		w, r, _ := strings.Cut(rest, " ")
		out = append(out, w)
		rest = r
	}
	return out
}

// namesThing reports a word a relaxed query keeps: a quoted phrase, an
// identifier (inner dot or underscore, mixed case), or a word with
// capitals or digits (capitals only when byCase: a query written in
// capitals throughout names nothing by its case).
func namesThing(w string, byCase bool) bool {
	if strings.HasPrefix(w, `"`) || strings.ContainsAny(strings.Trim(w, "._"), "._") {
		return true
	}
	upper, lower, digit := false, false, false
	for _, r := range w {
		switch {
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsLower(r):
			lower = true
		case unicode.IsDigit(r):
			digit = true
		}
	}
	return digit || byCase && upper && (lower || len([]rune(w)) > 1)
}
