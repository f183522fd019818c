package extractive

import (
	"fmt"
	"strings"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/text"
)

// clarity scores in [0,1] how well the question says what it wants.
func clarity(q question, raw string) float64 {
	n := 0
	for _, w := range keywords(q.text) {
		if !softWords[text.Stem(strings.ToLower(w))] {
			n++
		}
	}
	var c float64
	switch {
	case n == 0:
		c = 0.1
	case n == 1:
		c = 0.35
	case n == 2:
		c = 0.55
	case n == 3:
		c = 0.7
	default:
		c = 0.8
	}
	if len(q.entities) > 0 {
		c += 0.1
	}
	if strings.Contains(raw, "?") || whWords[strings.ToLower(firstWord(q.text))] {
		c += 0.05
	}
	lower := strings.ToLower(q.text)
	if pronounRe.MatchString(lower) && len(q.entities) == 0 && n <= 2 {
		c -= 0.3
	}
	if vagueRe.MatchString(lower) {
		c -= 0.1
	}
	c = max(0, min(1, c))
	return float64(int(c*100+0.5)) / 100
}

// clarifyingQuestions asks what an ambiguous question needs.
func clarifyingQuestions(q question) []string {
	t := q.topic
	if t == "" {
		return []string{
			"What topic or thing is the question about?",
			"What exactly would you like to find out about it?",
		}
	}
	return []string{
		fmt.Sprintf("What exactly would you like to know about %s?", t),
		fmt.Sprintf("Which %s do you mean, if there are several (product, version, place or period)?", t),
		"Is there a time frame, version or region to focus on?",
	}
}

// assumptions states what the plan takes for granted.
func assumptions(q question, req engine.PlanRequest, clarification string) []string {
	var out []string
	if q.topic != "" {
		out = append(out, fmt.Sprintf("%q is read in its most common sense.", q.topic))
	}
	if !req.Now.IsZero() {
		out = append(out, "The most recent information available as of "+req.Now.Format("2 January 2006")+" is wanted.")
	} else {
		out = append(out, "The most recent information available is wanted.")
	}
	if q.kind == kindCompare {
		out = append(out, "The comparison covers the dimensions the sources report most.")
	}
	if q.context != "" {
		out = append(out, "Context given with the question: "+q.context)
	}
	if clarification != "" {
		out = append(out, "Clarified by the user: "+clarification)
	}
	if req.Parent != nil {
		out = append(out, "This follows up an earlier report; its sections may be cited as [P#] and its searches are not repeated.")
	}
	return out
}
