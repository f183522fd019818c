package extractive

import (
	"context"
	"fmt"
	"strings"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/text"
)

// Synthesize writes the report by quoting the sources verbatim, each
// sentence ending in its [S#]. A question goes through four stages, each
// a function with its own input and output value, its rules methods of
// its own type over the pool:
//
//  1. find the entry (entry.go, finder → [][]entry): on a reference page,
//     the entry of the thing each part of the question names;
//  2. score relevance (relevance.go, scorer → []ranking): every sentence,
//     for every part, from the question's own terms and the form of answer
//     it asks for;
//  3. pick per criterion (pick.go, picker → picks): the lead that states
//     each part's answer (pick_lead.go), then what may stand beside it
//     (pick_beside.go) and the members of a list (pick_list.go);
//  4. compose (compose.go): the Summary answers first, one paragraph per
//     part in the question's order, then the sections that have more.
//
// Below the stages sit what they all read: the question's words
// (question.go, meaning.go), its parts (criterion.go, layout.go), the
// evidence split into quotable sentences (pool.go, evidence.go) and what
// a sentence says about a part (match.go). Calls go only down this list
// (stages_test.go). On a repair pass the sentences named in the feedback
// are not used again.
func (e *Engine) Synthesize(ctx context.Context, req engine.SynthesisRequest, stream func(string)) (string, engine.Usage, error) {
	question := req.Question
	if strings.TrimSpace(question) == "" {
		question = req.Spec.Goal
	}
	goal := text.Tokens(question + " " + req.Spec.Goal)
	extra := text.Tokens(req.Clarification)
	p := newPool(req.Sources, req.Prior, bannedSentences(req.Feedback, req.Previous))
	gq := text.Query{}
	gq.Add(extra, 0.5)
	gq.Add(goal, 1)
	p.setRelevance(gq)
	p.context = contextWords(question)

	secs := layout(req.Spec, question, goal, extra)
	found := findEntries(p, secs)
	ranked := scoreRelevance(p, secs, found, question)
	chosen, err := pickAnswers(ctx, p, secs, ranked, found, question)
	if err != nil {
		return "", engine.Usage{}, err
	}
	if err := ctx.Err(); err != nil {
		return "", engine.Usage{}, fmt.Errorf("synthesize: %w", err)
	}
	var b strings.Builder
	compose(p, secs, chosen, func(s string) {
		b.WriteString(s)
		if stream != nil {
			stream(s)
		}
	})
	return strings.TrimRight(b.String(), "\n") + "\n", engine.Usage{}, nil
}
