package report

import (
	"fmt"
	"strings"

	"github.com/quarryhq/quarry/research"
)

// Criterion outcomes: a report answers a success criterion with cited
// sentences, declares it undetermined, or leaves it missing.
const (
	CriterionAnswered     = "answered"
	CriterionUndetermined = "undetermined"
	CriterionMissing      = "missing"
)

// CriterionResult is what a report says for one success criterion: its
// outcome and the citations of the sentences that answer it.
type CriterionResult struct {
	Criterion string   `json:"criterion"`
	Status    string   `json:"status"`
	Section   string   `json:"section,omitempty"`
	Citations []string `json:"citations,omitempty"`
}

// CriterionResults reads each criterion's outcome from a verification.
func CriterionResults(v Verification) []CriterionResult {
	bySentence := map[int]SentenceCheck{}
	for _, s := range v.Sentences {
		bySentence[s.Index] = s
	}
	out := make([]CriterionResult, 0, len(v.Criteria))
	for _, c := range v.Criteria {
		r := CriterionResult{Criterion: c.Criterion, Section: c.Section, Status: CriterionMissing}
		switch {
		case c.Answered:
			r.Status = CriterionAnswered
			seen := map[string]bool{}
			for _, i := range c.Sentences {
				for _, id := range bySentence[i].Citations {
					if !seen[id] {
						seen[id] = true
						r.Citations = append(r.Citations, id)
					}
				}
			}
		case c.Undetermined:
			r.Status = CriterionUndetermined
		}
		out = append(out, r)
	}
	return out
}

// CriteriaMarkdown lists the criteria outcomes as a Markdown section for
// an export: "- ✓ criterion — [S1][S3]" or "- ? criterion — undetermined".
func CriteriaMarkdown(results []CriterionResult) string {
	if len(results) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Criteria\n\n")
	for _, r := range results {
		switch r.Status {
		case CriterionAnswered:
			fmt.Fprintf(&b, "- answered: %s — [%s]\n", oneLine(r.Criterion), strings.Join(r.Citations, "]["))
		case CriterionUndetermined:
			fmt.Fprintf(&b, "- undetermined: %s — the sources do not establish it\n", oneLine(r.Criterion))
		default:
			fmt.Fprintf(&b, "- not addressed: %s\n", oneLine(r.Criterion))
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ExportAppendix is what a Markdown export adds after the report: the
// criteria outcomes, the prior sections the report cites and the
// verification summary (scores nil: not verified).
func ExportAppendix(doc *Report, scores *research.Scores, warning string) string {
	var parts []string
	if doc != nil {
		if c := CriteriaMarkdown(doc.Criteria); c != "" {
			parts = append(parts, c)
		}
		if len(doc.Prior) > 0 {
			var b strings.Builder
			b.WriteString("## Prior research used\n\n")
			for _, p := range doc.Prior {
				fmt.Fprintf(&b, "- [%s] %s\n", p.ID, oneLine(p.Heading))
			}
			parts = append(parts, b.String())
		}
	}
	var b strings.Builder
	b.WriteString("## Verification\n\n")
	if scores == nil {
		b.WriteString("This report was not verified.\n")
	} else {
		verdict := "passed"
		if !scores.Passed {
			verdict = "fell short"
		}
		fmt.Fprintf(&b, "Citation checks %s: validity %s, support %s, coverage %s, grounding %s, criteria %s.\n",
			verdict, pct(scores.Validity), pct(scores.Support), pct(scores.Coverage), pct(scores.Grounding), pct(scores.CriteriaCoverage))
	}
	if w := oneLine(warning); w != "" {
		fmt.Fprintf(&b, "\nWarning: %s\n", w)
	}
	parts = append(parts, b.String())
	return strings.Join(parts, "\n")
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }
