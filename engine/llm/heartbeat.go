package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// maxHeartbeatActions is the most new actions one heartbeat may propose.
const maxHeartbeatActions = 3

// Heartbeat asks the model whether the evidence suffices. It proposes at
// most min(req.MaxNew, 3) actions and never one already in req.Done; with
// MaxNew ≤ 0 it decides done without a call. An answer still invalid after
// one retry becomes done=true (stop gathering, write with what there is).
func (e *Engine) Heartbeat(ctx context.Context, req engine.HeartbeatRequest) (engine.HeartbeatDecision, engine.Usage, error) {
	maxNew := min(req.MaxNew, maxHeartbeatActions)
	if maxNew <= 0 {
		return engine.HeartbeatDecision{Done: true, Reason: "No new actions are allowed."}, engine.Usage{}, nil
	}
	engines, first := engineList(req.Engines)
	system, err := e.render("heartbeat", promptData{Engines: engines, FirstEngine: first, MaxNew: maxNew})
	if err != nil {
		return engine.HeartbeatDecision{}, engine.Usage{}, err
	}
	var decision engine.HeartbeatDecision
	budget := (e.inputBudget() - estimateTokens(system) - 600) * 4 // chars left for the message, with room for a retry
	usage, err := e.askJSON(ctx, "heartbeat", system, heartbeatMessage(req, maxNew, budget), func(text string, final bool) error {
		d, err := parseHeartbeat(text, req, maxNew, final)
		if err == nil {
			decision = d
		}
		return err
	})
	var invalid *invalidAnswer
	if errors.As(err, &invalid) {
		e.log.WarnContext(ctx, "heartbeat fell back to done", "err", invalid.err)
		return engine.HeartbeatDecision{Done: true,
			Reason: "Stopped gathering: the model's decision could not be used."}, usage, nil
	}
	if err != nil {
		return engine.HeartbeatDecision{}, usage, err
	}
	return decision, usage, nil
}

// heartbeatMessage describes the run's state in at most budget characters:
// criteria with their coverage, what was done, then as many sources as fit.
func heartbeatMessage(req engine.HeartbeatRequest, maxNew, budget int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Goal: %s\n", text.ClipBytes(text.OneLine(req.Spec.Goal), maxGoalLen))
	if c := strings.TrimSpace(req.Clarification); c != "" {
		fmt.Fprintf(&b, "The user clarified: %s\n", text.ClipBytes(text.OneLine(c), 2000))
	}
	b.WriteString("\n")
	writeCoverage(&b, req)
	b.WriteString("\nAlready done (never repeat these):\n")
	done := req.Done
	if len(done) > 60 {
		fmt.Fprintf(&b, "- … %d earlier actions\n", len(done)-60)
		done = done[len(done)-60:]
	}
	for _, a := range done {
		if a.Kind == research.ActionNavigate {
			fmt.Fprintf(&b, "- navigate %s\n", text.ClipBytes(text.OneLine(a.URL), 300))
		} else {
			fmt.Fprintf(&b, "- search %s: %q\n", a.Engine, text.ClipBytes(text.OneLine(a.Query), maxQueryLen))
		}
	}
	if len(req.Done) == 0 {
		b.WriteString("- nothing yet\n")
	}
	writeRoom(&b, req, maxNew)
	fmt.Fprintf(&b, "\nSources gathered (%d):\n", len(req.Sources))
	for i, s := range req.Sources {
		line := fmt.Sprintf("[%s] %s (%s)", s.ID, text.ClipBytes(text.OneLine(s.Title), 150), text.ClipBytes(text.OneLine(s.Host), 80))
		if len(s.Findings) > 0 {
			line += ": " + text.ClipBytes(text.OneLine(s.Findings[0]), 200)
		}
		line += "\n"
		if b.Len()+len(line) > budget {
			fmt.Fprintf(&b, "… and %d more sources\n", len(req.Sources)-i)
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// parseHeartbeat decodes and validates a decision. Strictly, any problem
// refuses it; on the final attempt it is kept after sanitizing, a
// "continue" left without a usable action turning into done.
func parseHeartbeat(text string, req engine.HeartbeatRequest, maxNew int, final bool) (engine.HeartbeatDecision, error) {
	obj, err := extractJSON(text)
	if err != nil {
		return engine.HeartbeatDecision{}, err
	}
	var d engine.HeartbeatDecision
	if err := json.Unmarshal(obj, &d); err != nil {
		return engine.HeartbeatDecision{}, fmt.Errorf("the JSON does not match the decision format: %v", err)
	}
	var problems []string
	if !d.Done {
		if len(d.Actions) == 0 {
			problems = append(problems, "done is false but no actions were proposed")
		}
		if len(d.Actions) > maxNew {
			problems = append(problems, fmt.Sprintf("actions: got %d, want at most %d", len(d.Actions), maxNew))
		}
		f := newActionFilter(req.Engines, req.Done, nil, nil)
		for i, a := range d.Actions {
			if why := f.problem(a); why != "" {
				problems = append(problems, fmt.Sprintf("actions[%d]: %s", i, why))
				continue
			}
			f.accept(a)
		}
	}
	if len(problems) > 0 && !final {
		return engine.HeartbeatDecision{}, problemList(problems)
	}

	out := engine.HeartbeatDecision{Done: d.Done, Reason: cleanText(d.Reason, maxItemLen)}
	if !d.Done {
		f := newActionFilter(req.Engines, req.Done, nil, nil)
		for _, a := range d.Actions {
			if a2, ok := f.accept(a); ok && len(out.Actions) < maxNew {
				out.Actions = append(out.Actions, a2)
			}
		}
		if len(out.Actions) == 0 {
			out.Done = true
			out.Reason = "No new, non-repeated action was proposed."
		}
	}
	if out.Reason == "" {
		out.Reason = "Enough evidence gathered."
		if !out.Done {
			out.Reason = "Some criteria still lack evidence."
		}
	}
	return out, nil
}

// writeCoverage lists the criteria with what the pipeline found for each:
// the sources with evidence and their key sentences, or that it is still
// missing. Without a report every criterion is marked unknown.
func writeCoverage(b *strings.Builder, req engine.HeartbeatRequest) {
	cov := map[string]research.CriterionCoverage{}
	for _, c := range req.Coverage {
		cov[c.Criterion] = c
	}
	if len(req.Coverage) > 0 {
		fmt.Fprintf(b, "Success criteria (%d of %d covered by the sources gathered):\n", research.CoveredCount(req.Coverage), len(req.Coverage))
	} else {
		b.WriteString("Success criteria (coverage not reported):\n")
	}
	for i, crit := range req.Spec.Criteria {
		fmt.Fprintf(b, "%d. %s", i+1, text.ClipBytes(text.OneLine(crit), maxItemLen))
		c, known := cov[crit]
		switch {
		case !known:
			b.WriteString(" (coverage unknown)\n")
		case !c.Covered():
			b.WriteString(" (MISSING: no source has evidence for it yet)\n")
		default:
			fmt.Fprintf(b, " (covered by %s)\n", strings.Join(c.Sources, ", "))
			for _, k := range c.Key {
				fmt.Fprintf(b, "   - %s\n", text.ClipBytes(text.OneLine(k), 300))
			}
		}
	}
}

// writeRoom says how much of the budget is used and left: time, actions
// and batches, and how many actions this decision may add.
func writeRoom(b *strings.Builder, req engine.HeartbeatRequest, maxNew int) {
	bu := req.Budget
	b.WriteString("\nBudget:\n")
	if limit := time.Duration(bu.MaxTime); limit > 0 {
		left := max(limit-req.Elapsed, 0)
		fmt.Fprintf(b, "- time: %s of %s used, %s left\n", req.Elapsed.Round(time.Second), limit, left.Round(time.Second))
	}
	if bu.MaxActions > 0 {
		fmt.Fprintf(b, "- actions: %d of %d run, %d left\n", len(req.Done), bu.MaxActions, max(bu.MaxActions-len(req.Done), 0))
	}
	fmt.Fprintf(b, "- batches: %d run", req.Batch)
	if bu.MaxBatches > 0 {
		fmt.Fprintf(b, " of %d, %d left", bu.MaxBatches, max(bu.MaxBatches-req.Batch, 0))
	}
	fmt.Fprintf(b, "\nYou may propose at most %d new actions.\n", maxNew)
}
