package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// replyIntents are the readings ReadReply may return.
var replyIntents = []string{"approve", "amend", "skip", "cancel", "new_question", "unclear"}

// ReadReply asks the model what a person's reply to a plan awaiting
// review asks for: one of approve, amend (with the words it adds), skip,
// cancel, new_question or unclear. It only reads; the pipeline decides
// what to do with the reading and confirms what cannot be undone.
func (e *Engine) ReadReply(ctx context.Context, spec research.TaskSpec, reply string) (string, string, engine.Usage, error) {
	system, err := e.render("reply", promptData{})
	if err != nil {
		return "", "", engine.Usage{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Plan goal: %s\n", text.ClipBytes(text.OneLine(spec.Goal), maxGoalLen))
	for _, q := range spec.Questions {
		fmt.Fprintf(&b, "Clarifying question asked: %s\n", text.ClipBytes(text.OneLine(q), maxItemLen))
	}
	fmt.Fprintf(&b, "\nThe person's reply:\n%s\n", text.ClipBytes(strings.TrimSpace(reply), 4000))
	var intent, added string
	usage, err := e.askJSON(ctx, "reply", system, b.String(), func(answer string, final bool) error {
		obj, err := extractJSON(answer)
		if err != nil {
			return err
		}
		var r struct {
			Intent string `json:"intent"`
			Text   string `json:"text"`
		}
		if err := json.Unmarshal(obj, &r); err != nil {
			return fmt.Errorf("the JSON does not match the reply format: %v", err)
		}
		if !slices.Contains(replyIntents, r.Intent) {
			return fmt.Errorf("intent %q is not one of %s", r.Intent, strings.Join(replyIntents, ", "))
		}
		intent, added = r.Intent, cleanText(r.Text, 2000)
		return nil
	})
	if err != nil {
		return "", "", usage, err
	}
	return intent, added, usage, nil
}
