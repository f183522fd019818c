package extractive

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// maxSections bounds the report's headings, whatever the spec says.
const maxSections = 12

// feedbackQuoteRe finds the quoted sentences of repair feedback.
var feedbackQuoteRe = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// section is one heading of the report and the criteria it answers.
type section struct {
	heading  string
	summary  bool
	criteria []criterion
	// named marks a heading the plan asks for without a criterion of its
	// own (one a person added on review): it answers to its heading, and
	// says so under it when nothing does.
	named bool
}

// layout maps the spec's sections and criteria onto report sections: the
// summary first (the spec's own summary heading, or "Summary"), then each
// deliverable heading with the criteria it answers. Criteria are matched
// to headings by position when the counts agree (as Plan builds them),
// otherwise by shared words; a criterion that matches no heading gets a
// section of its own.
func layout(spec research.TaskSpec, question string, goal, extra []string) []section {
	var headings []string
	seen := map[string]bool{}
	for _, h := range spec.Sections {
		h = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(h), "#"))
		h = text.OneLine(h)
		if h == "" || seen[strings.ToLower(h)] || strings.EqualFold(h, "sources") || len(headings) >= maxSections {
			continue
		}
		seen[strings.ToLower(h)] = true
		headings = append(headings, h)
	}
	var crits []string
	for _, c := range spec.Criteria {
		if c = strings.TrimSpace(c); c != "" {
			crits = append(crits, c)
		}
	}
	if len(crits) == 0 {
		crits = []string{strings.TrimSpace(question)}
	}
	secs := []section{{heading: summaryHeading, summary: true}}
	if len(headings) > 0 && summaryLikeRe.MatchString(headings[0]) {
		secs[0].heading, headings = headings[0], headings[1:]
	}
	for _, h := range headings {
		secs = append(secs, section{heading: h})
	}
	body := len(secs) - 1 // sections 1…body are the spec's own
	for ci, c := range crits {
		target := -1
		if body == len(crits) {
			target = 1 + ci
		} else {
			ct := text.NewSet(text.Tokens(c))
			best := 0.0
			for si := 1; si <= body; si++ {
				if sc := text.Containment(text.Tokens(secs[si].heading), ct); sc > best {
					best, target = sc, si
				}
			}
		}
		if target < 0 {
			if len(secs) >= maxSections+1 {
				continue
			}
			secs = append(secs, section{heading: heading(c)})
			target = len(secs) - 1
		}
		secs[target].criteria = append(secs[target].criteria, newCriterion(c, secs[target].heading, goal, extra))
	}
	aq := analyse(question)
	compare := len(aq.compare) > 0
	// The words of the asker's statement before the question are the
	// situation every part is asked in (echoesSituation).
	stmt := text.Tokens(aq.context)
	for i := range secs {
		if !secs[i].summary && len(secs[i].criteria) == 0 {
			secs[i].criteria = []criterion{newCriterion(secs[i].heading, secs[i].heading, goal, extra)}
			secs[i].named = true
		}
		for ci := range secs[i].criteria {
			c := &secs[i].criteria[ci]
			// Every part of a comparison is told so: what adds to it
			// differs.
			c.compare = compare
			c.situation = slices.DeleteFunc(text.Unique(stmt), func(t string) bool {
				return slices.Contains(c.core, t) || slices.Contains(c.ctx, t)
			})
		}
	}
	return secs
}

// bannedSentences returns the keys of the previous draft's sentences that
// the feedback names, and of every quoted string in it.
func bannedSentences(feedback []string, previous string) map[string]bool {
	banned := map[string]bool{}
	if len(feedback) == 0 {
		return banned
	}
	// Of two sentences that give different values, the first is the
	// better ranked answer: only the second goes.
	var rest []string
	for _, line := range feedback {
		if _, second, ok := report.ContradictionOf(line); ok {
			banned[text.Fold(research.StripCitations(second))] = true
			continue
		}
		rest = append(rest, line)
	}
	all := text.Fold(strings.Join(rest, "\n"))
	for _, s := range report.ReportSentences(previous) {
		k := text.Fold(s.Plain)
		if len(k) >= 20 && strings.Contains(all, k) {
			banned[k] = true
		}
	}
	for _, line := range rest {
		for _, q := range feedbackQuoteRe.FindAllString(line, -1) {
			if u, err := strconv.Unquote(q); err == nil && len(u) >= 20 {
				banned[text.Fold(research.StripCitations(u))] = true
			}
		}
	}
	return banned
}

// escapeMarkdown makes source text render as itself: inline markers are
// backslash-escaped and a line start that would begin a heading, quote or
// list is neutralised.
func escapeMarkdown(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>|~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	out := b.String()
	if m := listStartRe.FindStringIndex(out); m != nil {
		out = out[:m[1]-1] + "\\" + out[m[1]-1:]
	}
	return out
}

// listStartRe matches a start of line Markdown would read as structure:
// "# ", "- ", "+ ", "1. ", "1) ".
var listStartRe = regexp.MustCompile(`^(?:#{1,6}|[-+]|\d{1,9}[.)])`)

// summaryLikeRe matches headings that already are the report's summary.
var summaryLikeRe = regexp.MustCompile(`(?i)^(?:summary|overview|tl;?dr|key (?:findings|points|takeaways)|in (?:brief|short)|answer|short answer|executive summary)$`)

// heading derives a report heading from a criterion: "What is the default
// port for PostgreSQL?" → "Default port for PostgreSQL"; "How do I change
// it?" → "How to change it".
func heading(criterion string) string {
	c := strings.TrimSpace(strings.TrimRight(criterion, "?.! "))
	var h string
	switch {
	case howWorkRe.MatchString(c):
		h = "How " + howWorkRe.FindStringSubmatch(c)[1] + " works"
	case howDoIRe.MatchString(c):
		h = "How to " + howDoIRe.FindStringSubmatch(c)[1]
	case howToRe.MatchString(c):
		h = c
	case whatIsRe.MatchString(c):
		rest := whatIsRe.FindStringSubmatch(c)[1]
		if len(strings.Fields(rest)) <= 2 {
			h = "What " + rest + " is"
		} else {
			h = capitalise(rest)
		}
	default:
		h = c
	}
	h = text.Shorten(h, 81)
	return capitalise(h)
}
