package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/text"
)

// Chat answers a message directly, streaming the visible text. With
// sources (the browse route) it answers from them, citing [S#]; the sources
// are ranked against the message and cut to fit the window.
func (e *Engine) Chat(ctx context.Context, req engine.ChatRequest, stream func(delta string)) (string, engine.Usage, error) {
	if strings.TrimSpace(req.Message) == "" {
		return "", engine.Usage{}, errors.New("chat: empty message")
	}
	system, err := e.render("chat", promptData{})
	if err != nil {
		return "", engine.Usage{}, err
	}
	budget := e.inputBudget() - estimateTokens(system) - 50
	msg := text.ClipBytes(strings.TrimSpace(req.Message), min(maxQuestionChars*4, budget*4/2))
	var b strings.Builder
	if len(req.Prior) > 0 {
		// A follow-up ("simplify that") is about the earlier reports: they
		// get up to half the room.
		prior := priorBlock("Earlier reports in this conversation, oldest first, citable as [P#]:", req.Prior, (budget-estimateTokens(msg))*4/2)
		budget -= estimateTokens(prior)
		b.WriteString(prior)
	}
	if len(req.Sources) > 0 {
		pack, _ := packSources(req.Sources, relevanceQuery(msg), (budget-estimateTokens(msg))*4)
		if pack != "" {
			b.WriteString("Sources:\n\n")
			b.WriteString(pack)
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "Message:\n%s\n", msg)
	call, err := e.fit(system, []message{{Role: roleUser, Content: b.String()}}, 0.3)
	if err != nil {
		return "", engine.Usage{}, fmt.Errorf("chat: %w", err)
	}
	return e.writeText(ctx, "chat", call, stream, len(req.Sources)+len(req.Prior) > 0, "answer")
}
