// Package changes says what changed between two runs of a task: sources
// that are new, facts (sentences with numbers, dates, versions or named
// values) that are new, whose value changed, or that a page no longer
// says. It is pure logic over the runs' fetched text; the pipeline writes
// the result as the report's opening "Changes since …" section, where it
// is verified like any other sentence.
package changes

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// MaxListed caps each list of the section; the rest are counted.
const MaxListed = 10

// Fact is one checkable sentence of a source, verbatim.
type Fact struct {
	Sentence string   `json:"sentence"`
	Cite     string   `json:"cite,omitempty"` // the current run's S#; "" for a fact no longer found
	URL      string   `json:"url"`
	Values   []string `json:"values"` // the numbers or the named value it states
	key      string   // the sentence with its values blanked, folded
}

// Change is a fact whose values differ from the last run's.
type Change struct {
	Now Fact     `json:"now"`
	Was Fact     `json:"was"`
	Old []string `json:"old"` // the values that differ, as the last run's sources had them
	New []string `json:"new"` // and as the current ones have them
}

// newChange pairs two facts with the same key, keeping the values that
// differ (all of them when the two do not line up).
func newChange(now, was Fact) Change {
	c := Change{Now: now, Was: was}
	if len(now.Values) != len(was.Values) {
		c.Old, c.New = was.Values, now.Values
		return c
	}
	for i := range now.Values {
		if now.Values[i] != was.Values[i] {
			c.Old, c.New = append(c.Old, was.Values[i]), append(c.New, now.Values[i])
		}
	}
	return c
}

// NewSource is a page the last run did not read.
type NewSource struct {
	Cite  string `json:"cite"`
	URL   string `json:"url"`
	Title string `json:"title"`
	Lead  string `json:"lead,omitempty"` // a sentence of it to quote, verbatim
}

// Diff is what changed since the last run.
type Diff struct {
	NewSources []NewSource `json:"new_sources,omitempty"`
	Changed    []Change    `json:"changed,omitempty"`
	Added      []Fact      `json:"added,omitempty"`
	Vanished   []Fact      `json:"vanished,omitempty"`
}

// Empty reports whether nothing changed.
func (d Diff) Empty() bool {
	return len(d.NewSources) == 0 && len(d.Changed) == 0 && len(d.Added) == 0 && len(d.Vanished) == 0
}

// Compare finds what changed from the previous run's sources to the
// current ones. Facts are compared page by page only on pages both runs
// read: a page this run did not reach has not lost its facts, and a new
// page is reported as a new source rather than fact by fact.
func Compare(prev, cur []research.Source) Diff {
	var d Diff
	prevURLs := map[string]bool{}
	for _, s := range prev {
		prevURLs[s.URL] = true
	}
	curURLs := map[string]bool{}
	for _, s := range cur {
		curURLs[s.URL] = true
	}
	for _, s := range cur {
		if !prevURLs[s.URL] {
			ns := NewSource{Cite: s.ID, URL: s.URL, Title: text.OneLine(s.Title)}
			if fs := facts(s); len(fs) > 0 {
				ns.Lead = fs[0].Sentence
			}
			d.NewSources = append(d.NewSources, ns)
		}
	}
	// Facts of the pages both runs read.
	var before, now []Fact
	for _, s := range prev {
		if curURLs[s.URL] {
			before = append(before, facts(s)...)
		}
	}
	for _, s := range cur {
		if prevURLs[s.URL] {
			now = append(now, facts(s)...)
		}
	}
	// Every fact of either run, however it is spread over pages, so a
	// sentence that moved between shared pages is not a change.
	seenBefore, seenNow := map[string]bool{}, map[string]bool{}
	for _, s := range prev {
		for _, f := range facts(s) {
			seenBefore[norm(f.Sentence)] = true
		}
	}
	for _, s := range cur {
		for _, f := range facts(s) {
			seenNow[norm(f.Sentence)] = true
		}
	}
	gone := map[string][]int{} // key → indexes into before, facts no longer said
	for i, f := range before {
		if !seenNow[norm(f.Sentence)] {
			gone[f.key] = append(gone[f.key], i)
		}
	}
	used := map[int]bool{}
	reported := map[string]bool{}
	for _, f := range now {
		n := norm(f.Sentence)
		if seenBefore[n] || reported[n] {
			continue
		}
		reported[n] = true
		if was, ok := pick(gone[f.key], before, f.URL, used); ok {
			used[was] = true
			d.Changed = append(d.Changed, newChange(f, before[was]))
			continue
		}
		d.Added = append(d.Added, f)
	}
	for i, f := range before {
		n := norm(f.Sentence)
		if used[i] || seenNow[n] || reported[n] {
			continue
		}
		reported[n] = true
		f.Cite = ""
		d.Vanished = append(d.Vanished, f)
	}
	return d
}

// pick returns the fact among candidates (indexes into before) that a
// current fact replaced: one from the same page first.
func pick(candidates []int, before []Fact, url string, used map[int]bool) (int, bool) {
	best := -1
	for _, i := range candidates {
		if used[i] {
			continue
		}
		if before[i].URL == url {
			return i, true
		}
		if best < 0 {
			best = i
		}
	}
	return best, best >= 0
}

var (
	// valueRe is a number as pages write values: 2.4, 1,200, 10:30,
	// 2026-11-24, v3.1.4.
	valueRe = regexp.MustCompile(`\d+(?:[.,:/-]\d+)*`)
	// namedValueRe is a short "Label: value" line, such as a status page's
	// "Status: Operational" or a release table's "Latest release: 2.4".
	namedValueRe = regexp.MustCompile(`^([\p{L}][\p{L}\p{N} ()/&'-]{0,40}):\s+(\S.{0,80})$`)
	// unsafeRe are characters a quoted sentence must not carry into the
	// report's Markdown (links, HTML, emphasis, tables, code, headings).
	unsafeRe = regexp.MustCompile("[\\[\\]<>`|\\\\*_#]")
)

// Bounds of a fact sentence, in bytes.
const (
	minFact = 12
	maxFact = 400
)

// facts returns the checkable sentences of a source, each once.
func facts(s research.Source) []Fact {
	var out []Fact
	seen := map[string]bool{}
	for _, sp := range text.Sentences(s.Text) {
		sent := text.OneLine(sp.Text)
		if len(sent) < minFact || len(sent) > maxFact || !utf8.ValidString(sent) || unsafeRe.MatchString(sent) || research.LooksLikeCitation(sent) {
			continue
		}
		f, ok := fact(sent)
		if !ok || seen[f.key] && seen[norm(sent)] {
			continue
		}
		seen[f.key], seen[norm(sent)] = true, true
		f.Cite, f.URL = s.ID, s.URL
		out = append(out, f)
	}
	return out
}

// fact reads a sentence as a fact: a named value, or a sentence stating
// numbers or dates. Its key is what stays when the values are blanked.
func fact(sent string) (Fact, bool) {
	if m := namedValueRe.FindStringSubmatch(strings.TrimRight(sent, ".")); m != nil {
		return Fact{Sentence: sent, Values: []string{strings.TrimSpace(m[2])}, key: "named:" + text.Fold(m[1])}, true
	}
	f := text.ExtractFacts(sent)
	if len(f.Numbers) == 0 && len(f.Dates) == 0 {
		return Fact{}, false
	}
	values := valueRe.FindAllString(sent, -1)
	key := valueRe.ReplaceAllString(sent, "#")
	for _, dt := range f.Dates {
		// A date's month is a value too: "4 November 2026" → "# # #".
		key = strings.ReplaceAll(key, valueRe.ReplaceAllString(dt, "#"), "# # #")
	}
	return Fact{Sentence: sent, Values: values, key: norm(key)}, true
}

// norm folds a sentence for comparison: case, spacing, a final period.
func norm(s string) string {
	return strings.TrimRight(text.Fold(text.OneLine(s)), ". ")
}

// Heading opens the section; since is when the last run started.
func Heading(since time.Time) string {
	return "## Changes since " + since.UTC().Format("2 January 2006, 15:04 UTC")
}

// sectionRe finds a "Changes since" section already in a draft (a repair
// pass may carry one over from the draft it was shown).
var sectionRe = regexp.MustCompile(`(?m)^##\s+Changes since\b.*$`)

// Strip removes any "Changes since" section from markdown.
func Strip(markdown string) string {
	loc := sectionRe.FindStringIndex(markdown)
	if loc == nil {
		return markdown
	}
	rest := markdown[loc[1]:]
	end := len(rest)
	if i := regexp.MustCompile(`(?m)^#{1,2}\s`).FindStringIndex(rest); i != nil {
		end = i[0]
	}
	return strings.TrimSpace(markdown[:loc[0]] + rest[end:])
}

// Prepend puts the section at the top of the report, after its title (a
// leading "# " line) if it has one, replacing any earlier such section.
func Prepend(markdown, section string) string {
	markdown = Strip(markdown)
	if section == "" {
		return markdown
	}
	if strings.HasPrefix(markdown, "# ") {
		title, rest, _ := strings.Cut(markdown, "\n")
		return title + "\n\n" + section + "\n\n" + strings.TrimSpace(rest)
	}
	return section + "\n\n" + markdown
}

// Markdown writes the section. Every sentence that states something about
// the world is a current source's sentence, verbatim, with its [S#], so
// verification checks it like any other; what the last run's sources
// said is written as a remark about the sources and cites nothing (the
// last run's pages are not this run's evidence).
func (d Diff) Markdown(since time.Time) string {
	var b strings.Builder
	b.WriteString(Heading(since) + "\n\n")
	if d.Empty() {
		b.WriteString("Nothing changed in the sources read again since the last run.\n")
		return strings.TrimSpace(b.String())
	}
	list := func(lead string, n int, item func(i int) string) {
		if n == 0 {
			return
		}
		b.WriteString(lead + ":\n\n")
		for i := 0; i < n && i < MaxListed; i++ {
			b.WriteString("- " + item(i) + "\n")
		}
		if n > MaxListed {
			fmt.Fprintf(&b, "- %d more are not listed here; see the sources.\n", n-MaxListed)
		}
		b.WriteString("\n")
	}
	list("Changed values", len(d.Changed), func(i int) string {
		c := d.Changed[i]
		return cited(c.Now.Sentence, c.Now.Cite) + " The sources of the last run said " + quoteValues(c.Old) + "."
	})
	list("New facts", len(d.Added), func(i int) string { return cited(d.Added[i].Sentence, d.Added[i].Cite) })
	list("No longer found in the sources", len(d.Vanished), func(i int) string {
		return "The sources of the last run said: “" + strings.TrimRight(d.Vanished[i].Sentence, ". ") + "”."
	})
	list("New sources", len(d.NewSources), func(i int) string {
		s := d.NewSources[i]
		if s.Lead != "" {
			return cited(s.Lead, s.Cite)
		}
		return cited(s.Title, s.Cite)
	})
	return strings.TrimSpace(b.String())
}

// cited puts a citation before the sentence's final punctuation.
func cited(sentence, cite string) string {
	s := strings.TrimSpace(sentence)
	end := ""
	if n := len(s); n > 0 && strings.ContainsRune(".!?", rune(s[n-1])) {
		s, end = s[:n-1], s[n-1:]
	}
	if end == "" {
		end = "."
	}
	return s + " [" + cite + "]" + end
}

func quoteValues(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "“" + v + "”"
	}
	switch len(q) {
	case 0:
		return "otherwise"
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// Summary is the change list in plain text, a line per item, for
// notifications and the task page; "" when nothing changed.
func (d Diff) Summary() string {
	if d.Empty() {
		return ""
	}
	var lines []string
	counts := []string{}
	for _, c := range []struct {
		n    int
		noun string
	}{{len(d.Changed), "changed"}, {len(d.Added), "new"}, {len(d.Vanished), "no longer found"}, {len(d.NewSources), "new sources"}} {
		if c.n > 0 {
			counts = append(counts, strconv.Itoa(c.n)+" "+c.noun)
		}
	}
	lines = append(lines, strings.Join(counts, ", ")+".")
	for i, c := range d.Changed {
		if i == MaxListed {
			break
		}
		lines = append(lines, "Changed: "+cited(c.Now.Sentence, c.Now.Cite)+" (was "+quoteValues(c.Old)+")")
	}
	for i, f := range d.Added {
		if i == MaxListed {
			break
		}
		lines = append(lines, "New: "+cited(f.Sentence, f.Cite))
	}
	for i, f := range d.Vanished {
		if i == MaxListed {
			break
		}
		lines = append(lines, "No longer found: "+f.Sentence)
	}
	for i, s := range d.NewSources {
		if i == MaxListed {
			break
		}
		lines = append(lines, "New source: "+s.Title+" ["+s.Cite+"] "+s.URL)
	}
	return strings.Join(lines, "\n")
}
