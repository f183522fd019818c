package report

import (
	"strings"
	"unicode/utf8"
)

// contextBytes is how much cited text is kept on each side of a passage.
const contextBytes = 280

// AddContext keeps, with each cited passage, the cited text around it, so
// the report page shows the passage in its context without loading the
// fetched pages. texts maps an id to the text it cites (a source's fetched
// text, a prior section's text).
func (r *Report) AddContext(texts map[string]string) {
	for i := range r.Sentences {
		for j := range r.Sentences[i].Evidence {
			e := &r.Sentences[i].Evidence[j]
			if e.Passage != "" {
				e.Before, e.After = passageContext(texts[e.Cite], e.PassageStart, e.PassageEnd, e.Passage)
			}
		}
	}
}

// passageContext locates passage in body (at the given byte offsets, else
// by search) and returns up to contextBytes of the text on each side of
// it, cut at word boundaries and marked with an ellipsis where cut; none
// when the passage is not in body.
func passageContext(body string, start, end int, passage string) (before, after string) {
	if start < 0 || end > len(body) || start >= end || body[start:end] != passage {
		i := strings.Index(body, passage)
		if passage == "" || i < 0 {
			return "", ""
		}
		start, end = i, i+len(passage)
	}
	b := max(0, start-contextBytes)
	for b > 0 && b < start && !utf8.RuneStart(body[b]) {
		b++
	}
	if b > 0 {
		if j := strings.IndexAny(body[b:start], " \n\t"); j >= 0 {
			b += j + 1
		}
	}
	a := min(len(body), end+contextBytes)
	for a < len(body) && a > end && !utf8.RuneStart(body[a]) {
		a--
	}
	if a < len(body) {
		if j := strings.LastIndexAny(body[end:a], " \n\t"); j >= 0 {
			a = end + j
		}
	}
	before, after = body[b:start], body[end:a]
	if b > 0 {
		before = "…" + strings.TrimLeft(before, " \n\t")
	}
	if a < len(body) {
		after = strings.TrimRight(after, " \n\t") + "…"
	}
	return before, after
}
