package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// undetermined is the sentence the report uses for a criterion without
// evidence (DESIGN.md, Synthesize).
const undetermined = research.Undetermined

// Synthesize writes the report, streaming its visible text to stream as it
// arrives. The model is given each part of the question (a criterion) with
// the passages of the sources that bear on it, cut to fit both the model's
// window and req.Budget.ContextTokens; its report is then held to the
// answer-first rules (holdAnswerFirst). On a repair pass the feedback and
// the previous draft are included. A Sources list written by the model is
// dropped: code renders that from the run's sources.
func (e *Engine) Synthesize(ctx context.Context, req engine.SynthesisRequest, stream func(delta string)) (string, engine.Usage, error) {
	system, err := e.render("synthesize", promptData{})
	if err != nil {
		return "", engine.Usage{}, err
	}
	parts := questionParts(req.Question, req.Spec, req.Sources)
	user := e.synthesisMessage(req, parts, e.inputBudget()-estimateTokens(system)-messagesTokens([]message{{}}))
	call, err := e.fit(system, []message{{Role: roleUser, Content: user}}, 0.2)
	if err != nil {
		return "", engine.Usage{}, fmt.Errorf("synthesize: %w", err)
	}
	report, usage, err := e.writeText(ctx, "synthesize", call, stream, !sectionNamedSources(req.Spec.Sections), "report")
	if err != nil {
		return "", usage, err
	}
	return holdAnswerFirst(report, parts), usage, nil
}

// writeText streams a prose answer for stage and cleans it: reasoning
// blocks dropped and, when cut, any Sources list the model wrote (code
// renders that from the run's sources). An empty text is an error naming
// what was asked for ("report", "answer").
func (e *Engine) writeText(ctx context.Context, stage string, call request, stream func(string), cut bool, what string) (string, engine.Usage, error) {
	r, err := e.complete(ctx, stage, call, newTextSink(stream, cut))
	if err != nil {
		return "", engine.Usage{}, err
	}
	usage := e.usage(r.InputTokens, r.OutputTokens)
	text := stripThink(r.Text)
	if cut {
		text = cutSourcesList(text)
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", usage, fmt.Errorf("%s: the model returned an empty %s", stage, what)
	}
	return text, usage, nil
}

// synthesisMessage builds the user turn in at most budget tokens. The fixed
// parts (question, criteria, sections, feedback) always go in; the previous
// draft and prior sections get bounded shares; the evidence for the parts
// of the question gets the rest, further capped by the run's context budget.
func (e *Engine) synthesisMessage(req engine.SynthesisRequest, parts []part, budget int) string {
	var task strings.Builder
	fmt.Fprintf(&task, "Question: %s\n", text.ClipBytes(strings.TrimSpace(req.Question), maxQuestionChars))
	if g := strings.TrimSpace(req.Spec.Goal); g != "" {
		fmt.Fprintf(&task, "Goal: %s\n", text.ClipBytes(text.OneLine(g), maxGoalLen))
	}
	if c := strings.TrimSpace(req.Clarification); c != "" {
		fmt.Fprintf(&task, "The user clarified: %s\n", text.ClipBytes(c, 2000))
	}
	if len(req.Spec.Criteria) > 0 {
		task.WriteString("\nSuccess criteria (each must be answered, or declared undetermined with the exact sentence \"" + undetermined + "\"):\n")
		for _, c := range req.Spec.Criteria {
			fmt.Fprintf(&task, "- %s\n", text.ClipBytes(text.OneLine(c), maxItemLen))
		}
	}
	sections := req.Spec.Sections
	if len(sections) == 0 {
		sections = []string{"Answer"}
	}
	task.WriteString("\nWrite these sections, in this order:\n")
	for _, s := range sections {
		fmt.Fprintf(&task, "## %s\n", text.ClipBytes(text.OneLine(s), maxSectionLen))
	}

	var repair strings.Builder
	if len(req.Feedback) > 0 {
		repair.WriteString("\nThis is a revision. Verification found these problems in the previous draft:\n")
		for i, f := range req.Feedback {
			if i == 40 {
				fmt.Fprintf(&repair, "- … and %d more\n", len(req.Feedback)-40)
				break
			}
			fmt.Fprintf(&repair, "- %s\n", text.ClipBytes(text.OneLine(f), 500))
		}
	}
	fixed := estimateTokens(task.String()) + estimateTokens(repair.String()) + 100
	room := max(budget-fixed, 0)

	var previous string
	if p := strings.TrimSpace(req.Previous); p != "" && len(req.Feedback) > 0 {
		previous = text.ClipBytes(p, room*4*2/5)
		room -= estimateTokens(previous) + 20
	}
	prior := priorBlock("Sections of the earlier reports, citable as [P#]:", req.Prior, room)
	room -= estimateTokens(prior)
	evidence := room
	if req.Budget.ContextTokens > 0 {
		evidence = min(evidence, req.Budget.ContextTokens)
	}
	pack := partsBlock(parts, req.Sources, max(evidence, 0)*4)

	var b strings.Builder
	if pack != "" {
		b.WriteString(pack)
	} else {
		b.WriteString("Sources: none of the sources read bears on the question. Declare every criterion undetermined.\n")
	}
	if prior != "" {
		b.WriteString("\n")
		b.WriteString(prior)
	}
	b.WriteString("\n")
	b.WriteString(task.String())
	b.WriteString(repair.String())
	if previous != "" {
		fmt.Fprintf(&b, "\nPrevious draft:\n<<<\n%s\n>>>\n", previous)
		b.WriteString("\nRewrite the complete report, fixing every problem listed: rephrase or remove each sentence its cited source does not support, and cite only the ids listed above.\n")
	} else {
		b.WriteString("\nWrite the report now.\n")
	}
	return b.String()
}

// sectionNamedSources reports whether the plan itself asks for a section
// that looks like a source list, in which case it is not cut.
func sectionNamedSources(sections []string) bool {
	for _, s := range sections {
		if sourcesHeading.MatchString("## " + s) {
			return true
		}
	}
	return false
}

// priorBlock lists the earlier reports' sections under title, each with
// its [P#] id, in at most limit characters.
func priorBlock(title string, prior []research.PriorSection, limit int) string {
	if len(prior) == 0 || limit <= 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(title + "\n")
	for _, p := range prior {
		block := fmt.Sprintf("[%s] %s\n%s\n\n", p.ID, text.ClipBytes(text.OneLine(p.Heading), maxSectionLen), strings.TrimSpace(p.Text))
		if b.Len()+len(block) > limit {
			block = text.ClipBytes(block, max(limit-b.Len(), 0))
		}
		b.WriteString(block)
		if b.Len() >= limit {
			break
		}
	}
	return b.String()
}
