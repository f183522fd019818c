package llm

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// Caps on what a model's answer may contribute to a run.
const (
	maxGoalLen     = 300
	maxItemLen     = 200 // a criterion, assumption, question or reason
	maxSectionLen  = 80
	maxQueryLen    = 200
	maxURLLen      = 2048
	maxCriteria    = 6
	maxSections    = 8
	maxPlanActions = 5
	maxAssumptions = 5
	maxQuestions   = 3
	maxPriority    = 9
)

// cleanText drops control characters, collapses white space and cuts s to
// at most n characters, at a word boundary when one is near.
func cleanText(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = text.OneLine(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)*3/4 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut)
}

// cleanList cleans every item, drops empty ones and case-insensitive
// duplicates, and keeps at most count items.
func cleanList(items []string, n, count int) []string {
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		it = cleanText(it, n)
		key := strings.ToLower(it)
		if it == "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, it)
		if len(out) == count {
			break
		}
	}
	return out
}

// httpURL returns raw as a normalised absolute http(s) URL, or false.
func httpURL(raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > maxURLLen {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return "", false
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	u.Fragment = ""
	return u.String(), true
}

// actionFilter sanitizes proposed actions and refuses repeats of earlier
// ones, of each other, and of a parent run's queries and URLs.
type actionFilter struct {
	engines []string
	seen    map[string]bool
}

func newActionFilter(engines []string, done []research.ActionSpec, queries, urls []string) *actionFilter {
	f := &actionFilter{engines: engines, seen: map[string]bool{}}
	for _, a := range done {
		f.remember(a)
	}
	for _, q := range queries {
		f.remember(research.ActionSpec{Kind: research.ActionSearch, Query: q})
	}
	for _, u := range urls {
		f.remember(research.ActionSpec{Kind: research.ActionNavigate, URL: u})
	}
	return f
}

// repeats reports whether a (already cleaned) is the same action as one
// seen before, by research.ActionSpec.Key.
func (f *actionFilter) repeats(a research.ActionSpec) bool { return f.seen[a.Key()] }

// engine returns the available engine named name, in the list's spelling.
func (f *actionFilter) engine(name string) (string, bool) {
	name = strings.TrimSpace(name)
	for _, e := range f.engines {
		if strings.EqualFold(e, name) {
			return e, true
		}
	}
	return "", false
}

func (f *actionFilter) remember(a research.ActionSpec) { f.seen[a.Key()] = true }

// problem describes what is wrong with a proposed action, or "" when it is
// acceptable as given.
func (f *actionFilter) problem(a research.ActionSpec) string {
	switch strings.ToLower(strings.TrimSpace(a.Kind)) {
	case research.ActionSearch:
		q := cleanText(a.Query, maxQueryLen)
		if q == "" {
			return "a search action needs a non-empty \"query\""
		}
		if _, ok := f.engine(a.Engine); !ok && strings.TrimSpace(a.Engine) != "" && len(f.engines) > 0 {
			return fmt.Sprintf("engine %q is not available (use one of: %s)", a.Engine, strings.Join(f.engines, ", "))
		}
		if f.repeats(research.ActionSpec{Kind: research.ActionSearch, Query: q}) {
			return fmt.Sprintf("query %q was already run; choose a different query", q)
		}
	case research.ActionNavigate:
		u, ok := httpURL(a.URL)
		if !ok {
			return fmt.Sprintf("url %q is not an absolute http(s) URL", text.ClipBytes(text.OneLine(a.URL), 100))
		}
		if f.repeats(research.ActionSpec{Kind: research.ActionNavigate, URL: u}) {
			return fmt.Sprintf("url %q was already visited", u)
		}
	default:
		return fmt.Sprintf("kind %q must be \"search\" or \"navigate\"", a.Kind)
	}
	return ""
}

// accept returns the sanitized action, or false when it is unusable or a
// repeat. Accepted actions count as seen.
func (f *actionFilter) accept(a research.ActionSpec) (research.ActionSpec, bool) {
	out := research.ActionSpec{
		Kind:     strings.ToLower(strings.TrimSpace(a.Kind)),
		Priority: min(max(a.Priority, 0), maxPriority),
		Reason:   cleanText(a.Reason, maxItemLen),
	}
	switch out.Kind {
	case research.ActionSearch:
		out.Query = cleanText(a.Query, maxQueryLen)
		if out.Query == "" {
			return out, false
		}
		if e, ok := f.engine(a.Engine); ok {
			out.Engine = e
		} else if len(f.engines) > 0 {
			out.Engine = f.engines[0]
		} else {
			out.Engine = cleanText(a.Engine, maxURLLen)
		}
	case research.ActionNavigate:
		u, ok := httpURL(a.URL)
		if !ok {
			return out, false
		}
		out.URL = u
	default:
		return out, false
	}
	if f.repeats(out) {
		return out, false
	}
	f.remember(out)
	return out, true
}

// problemList joins validation problems into one error message.
func problemList(problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	if len(problems) > 8 {
		problems = append(problems[:8], fmt.Sprintf("and %d more", len(problems)-8))
	}
	return fmt.Errorf("%s", strings.Join(problems, "; "))
}
