package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/text"
)

// minAnswerTokens is the smallest answer a call may be left with; a prompt
// that leaves less is cut further or refused.
const minAnswerTokens = 256

// invalidAnswer is a reply that was still unusable after the retry; the
// stage then falls back to a safe default.
type invalidAnswer struct{ err error }

func (e *invalidAnswer) Error() string { return "unusable answer: " + e.err.Error() }
func (e *invalidAnswer) Unwrap() error { return e.err }

// safety is the share of the window kept free for the error of the
// four-characters-a-token estimate.
func (e *Engine) safety() int { return e.window / 20 }

// inputBudget is how many tokens a prompt may use so that the full answer
// still fits in the window.
func (e *Engine) inputBudget() int { return e.window - e.maxOut - e.safety() }

// fit builds a request whose prompt plus answer stays inside the window,
// shrinking the answer when the prompt is large.
func (e *Engine) fit(system string, msgs []message, temperature float64) (request, error) {
	input := estimateTokens(system) + messagesTokens(msgs)
	maxTokens := min(e.maxOut, e.window-input-e.safety())
	if maxTokens < minAnswerTokens {
		return request{}, fmt.Errorf("%s: prompt of about %d tokens does not fit the %d-token context window", e.provider, input, e.window)
	}
	return request{System: system, Messages: msgs, MaxTokens: maxTokens, Temperature: temperature}, nil
}

// askJSON asks for a JSON answer and hands the reasoning-free text to
// accept, which parses, validates and keeps it. When accept refuses the
// first reply, the model is asked once more with the refusal quoted; final
// tells accept it is the last chance (so it may be lenient). A reply still
// refused yields an *invalidAnswer; a failed call yields its error.
func (e *Engine) askJSON(ctx context.Context, stage, system, user string, accept func(text string, final bool) error) (engine.Usage, error) {
	msgs := []message{{Role: roleUser, Content: user}}
	var usage engine.Usage
	for attempt := 0; ; attempt++ {
		final := attempt == 1
		req, err := e.fit(system, msgs, 0.2)
		if err != nil {
			return usage, fmt.Errorf("%s: %w", stage, err)
		}
		r, err := e.complete(ctx, stage, req, nil)
		if err != nil {
			return usage, err
		}
		usage = usage.Add(e.usage(r.InputTokens, r.OutputTokens))
		reply := stripThink(r.Text)
		verr := accept(reply, final)
		if verr == nil {
			return usage, nil
		}
		if r.Truncated || (r.OutputTokens >= req.MaxTokens && req.MaxTokens > 0) {
			verr = fmt.Errorf("%w (the reply was cut off at the length limit: answer with the JSON only, shorter)", verr)
		}
		e.log.WarnContext(ctx, "llm answer rejected", "stage", stage, "attempt", attempt+1, "err", verr)
		if final {
			return usage, &invalidAnswer{err: verr}
		}
		feedback, err := e.render("retry", promptData{Error: verr.Error()})
		if err != nil {
			return usage, err
		}
		previous := text.ClipBytes(strings.TrimSpace(reply), 4000)
		if previous == "" {
			previous = "(empty reply)"
		}
		msgs = append(msgs,
			message{Role: roleAssistant, Content: previous},
			message{Role: roleUser, Content: feedback})
	}
}
