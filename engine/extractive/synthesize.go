package extractive

import (
	"context"
	"fmt"
	"strings"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/text"
)

// Synthesize writes the report by quoting the sources verbatim, each
// sentence ending in its [S#]. A question goes through four stages, each in
// its own file:
//
//  1. find the entry (entry.go): on a reference page, the entry of the
//     thing each part of the question names;
//  2. score relevance (relevance.go): every sentence, for every part, from
//     the question's own terms and the form of answer it asks for;
//  3. pick per criterion (pick.go): the lead that states each part's
//     answer, then the further relevant sentences of its section;
//  4. compose (compose.go): the Summary answers first, one paragraph per
//     part in the question's order, then the sections that have more.
//
// The evidence they read is the pool (pool.go): the sources split into
// quotable sentences. On a repair pass the sentences named in the feedback
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
