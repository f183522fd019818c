package llm

import (
	"context"

	"github.com/quarryhq/quarry/engine"
)

// AskJSON asks one question whose answer is JSON, for callers outside the
// research stages (the site agent): accept parses and validates the reply;
// a refused reply is asked again once with the refusal quoted, and a reply
// still refused is an error. system is the caller's fixed instructions.
func (e *Engine) AskJSON(ctx context.Context, stage, system, user string, accept func(reply string, final bool) error) (engine.Usage, error) {
	return e.askJSON(ctx, stage, system, user, accept)
}
