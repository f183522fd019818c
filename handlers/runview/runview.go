// Package runview folds a run's events into what the run page shows. The
// page load folds the stored events through Apply; the page's SSE stream
// applies each live event through the same Apply and sends the blocks it
// changed, so a page built live and a page loaded afresh read the same.
package runview

import (
	"encoding/json"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/web"
)

// Block is a part of the run page that an event can change; a Change
// holds a set of them.
type Block uint16

// The blocks of the run page, in the order a stream sends them.
const (
	// Status is the status line and the run controls.
	Status Block = 1 << iota
	// Plan is the plan, or the form that reviews it.
	Plan
	// Budget is the spend against the limits.
	Budget
	// Action is one action, added or updated (Change.Action says which).
	Action
	// Decision is the newest heartbeat decision, added at the end.
	Decision
	// Draft is the report draft started afresh: the whole block again.
	Draft
	// DraftText is Change.Delta added at the end of the draft.
	DraftText
	// Pass is the newest verification pass or repair, added at the end.
	Pass
	// Run is the whole run: its last event changes everything, so the
	// other blocks of the change need not be sent.
	Run
	// Preliminary is the preliminary search before planning.
	Preliminary
)

// Change is what one event changed in a view.
type Change struct {
	Blocks Block
	// Action is the position in RunView.Actions of the action changed,
	// and NewAction whether the event added it.
	Action    int
	NewAction bool
	// Delta is the text added to the draft (with DraftText).
	Delta string
	// Completed is the completion event's payload, which carries the
	// report for a run whose report row is missing.
	Completed *research.CompletedPayload
}

// Has reports whether the change includes block b.
func (c Change) Has(b Block) bool { return c.Blocks&b != 0 }

// EndsRun reports whether an event of this type is the run's last.
func EndsRun(typ string) bool {
	return typ == research.EventRunCompleted || typ == research.EventRunFailed || typ == research.EventRunCancelled
}

// statusField is the part of every payload that may carry a new status
// (research: every payload that changes the run's status carries it).
type statusField struct {
	Status research.RunStatus `json:"status"`
	Error  string             `json:"error"`
}

// Apply folds one event into v and reports which blocks it changed. An
// event it cannot read changes nothing.
func Apply(v *web.RunView, ev db.Event) Change {
	var c Change
	if ev.Type != research.EventAction { // an action's status is the action's, not the run's
		var st statusField
		if json.Unmarshal(ev.Payload, &st) == nil && st.Status != "" {
			v.Status, v.Error = st.Status, st.Error
			c.Blocks |= Status
		}
	}
	// An event a person's request wrote names them: a plan then is their
	// approval, a cancellation theirs.
	switch {
	case ev.Actor == "":
	case ev.Type == research.EventPlan:
		v.ApprovedBy = ev.Actor
		c.Blocks |= Status
	case ev.Type == research.EventRunCancelled:
		v.CancelledBy = ev.Actor
		c.Blocks |= Status
	}
	switch ev.Type {
	case research.EventPlan, research.EventAwaitingApproval:
		var p research.PlanPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			v.Spec = &p.Spec
			v.ReviewReason = p.Reason
			v.Gate = nil
			if p.GateStep > 0 {
				v.Gate = &web.AgentStepView{RunID: v.ID, ActionIdx: p.GateAction, N: p.GateStep, Shot: true}
			}
			// The plan carries the budget's limits; spend follows in
			// budget events, which always come after it.
			v.Budget = BudgetFromSpec(p.Spec.Budget)
			c.Blocks |= Plan | Budget
		}
	case research.EventAction:
		var p research.ActionPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			c.Action, c.NewAction = applyAction(v, p)
			c.Blocks |= Action
		}
	case research.EventAgentStep:
		var p research.AgentStepPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			if i, ok := applyAgentStep(v, p); ok {
				c.Action = i
				c.Blocks |= Action
			}
		}
	case research.EventPreliminary:
		var p research.PreliminaryPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			v.Preliminary = &p
			c.Blocks |= Preliminary
		}
	case research.EventCheckpoint:
		// The checkpoint comes just before its batch's decision, which
		// shows it; alone it changes no block.
		var p research.CheckpointPayload
		if json.Unmarshal(ev.Payload, &p) == nil && len(p.Coverage) > 0 {
			v.Coverage = &web.CoverageView{Batch: p.Batch, Covered: research.CoveredCount(p.Coverage), Criteria: p.Coverage}
		}
	case research.EventHeartbeatDecision:
		var p research.DecisionPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			d := decisionView(p)
			if v.Coverage != nil && v.Coverage.Batch == p.Batch {
				d.Coverage = v.Coverage
			}
			v.Decisions = append(v.Decisions, d)
			c.Blocks |= Decision
		}
	case research.EventBudget:
		var p research.BudgetPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			v.Budget = budgetView(p)
			c.Blocks |= Budget
		}
	case research.EventVerification:
		var p research.VerificationPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			v.Passes = append(v.Passes, web.PassView{Pass: p.Pass, Scores: ScoresView(p)})
			c.Blocks |= Pass
		}
	case research.EventSynthesisDelta:
		var p research.DeltaPayload
		if json.Unmarshal(ev.Payload, &p) == nil && p.Text != "" {
			c = applyDelta(v, p, c)
		}
	case research.EventRepairStarted:
		var p research.RepairPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			// A repair pass writes the report again: start the draft
			// afresh. The repair belongs to the pass it repairs.
			v.Draft, v.DraftPass = "", p.Pass
			v.Passes = append(v.Passes, web.PassView{Pass: p.Pass - 1, Repair: true, Failures: p.Failures})
			c.Blocks |= Draft | Pass
		}
	case research.EventRunCompleted:
		var p research.CompletedPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			c.Completed = &p
		}
	}
	if EndsRun(ev.Type) || v.Status.Terminal() && c.Has(Status) {
		Settle(v)
		c.Blocks |= Run
	}
	return c
}

// applyDelta adds streamed report text to the draft. Text of another pass
// than the draft's (a resumed run writes its pass again) starts the draft
// afresh, unless the draft is still empty and its block would not change.
func applyDelta(v *web.RunView, p research.DeltaPayload, c Change) Change {
	if p.Pass == v.DraftPass || v.Draft == "" && v.DraftPass <= 1 && p.Pass <= 1 {
		v.Draft += p.Text
		v.DraftPass = p.Pass
		c.Blocks |= DraftText
		c.Delta = p.Text
		return c
	}
	v.Draft, v.DraftPass = p.Text, p.Pass
	c.Blocks |= Draft
	return c
}

// applyAction merges an action event into what is known of that action
// (an update that leaves a field empty keeps the earlier value) and
// returns its position and whether it is new.
func applyAction(v *web.RunView, p research.ActionPayload) (int, bool) {
	for i := range v.Actions {
		if v.Actions[i].Idx == p.Idx {
			v.Actions[i] = mergeAction(v.Actions[i], p)
			return i, false
		}
	}
	v.Actions = append(v.Actions, mergeAction(web.ActionView{}, p))
	return len(v.Actions) - 1, true
}

// applyAgentStep adds or updates a site-agent step of an action shown.
func applyAgentStep(v *web.RunView, p research.AgentStepPayload) (int, bool) {
	for i := range v.Actions {
		a := &v.Actions[i]
		if a.Idx != p.ActionIdx {
			continue
		}
		st := web.AgentStepView{RunID: v.ID, ActionIdx: p.ActionIdx, N: p.N, Action: p.Action, Element: p.Element, Status: p.Status, Error: p.Error, Shot: p.Shot}
		for j := range a.Steps {
			if a.Steps[j].N == p.N {
				a.Steps[j] = st
				return i, true
			}
		}
		a.Steps = append(a.Steps, st)
		return i, true
	}
	return 0, false
}

func mergeAction(a web.ActionView, p research.ActionPayload) web.ActionView {
	a.Idx = p.Idx
	if p.Kind != "" {
		a.Kind = p.Kind
	}
	if p.Engine != "" {
		a.Engine = p.Engine
	}
	if p.Query != "" {
		a.Query = p.Query
	}
	if p.URL != "" {
		a.URL = p.URL
	}
	a.Status = p.Status
	a.Preview = p.Preview
	a.Error = p.Error
	return a
}

// Settle marks the actions an ended run interrupted: they never finish.
func Settle(v *web.RunView) {
	for i, a := range v.Actions {
		if a.Status == research.ActionPending || a.Status == research.ActionRunning {
			v.Actions[i].Status = web.ActionStopped
		}
	}
}

// BudgetFromSpec shows the plan's limits before any spend is reported.
func BudgetFromSpec(b research.Budget) web.BudgetView {
	return web.BudgetView{Known: true, MaxActions: b.MaxActions, MaxBatches: b.MaxBatches,
		MaxTimeMS: time.Duration(b.MaxTime).Milliseconds(), MaxUSD: b.MaxUSD}
}

func budgetView(p research.BudgetPayload) web.BudgetView {
	return web.BudgetView{Known: true, Actions: p.Actions, MaxActions: p.MaxActions, Batches: p.Batches, MaxBatches: p.MaxBatches,
		ElapsedMS: p.ElapsedMS, MaxTimeMS: p.MaxTimeMS, Tokens: p.Tokens, USD: p.USD, MaxUSD: p.MaxUSD, StopReason: p.StopReason, Stages: p.Stages}
}

// ScoresView shows a verification pass's scores.
func ScoresView(p research.VerificationPayload) web.Scores {
	return web.Scores{Known: true, Validity: p.Validity, Coverage: p.Coverage, Support: p.Support, Grounding: p.Grounding,
		CriteriaCoverage: p.CriteriaCoverage, Passed: p.Passed, Warning: p.Warning}
}

func decisionView(p research.DecisionPayload) web.DecisionView {
	d := web.DecisionView{Batch: p.Batch, Done: p.Done, Reason: p.Reason}
	for _, a := range p.Actions {
		d.NewActions = append(d.NewActions, web.ActionView{Kind: a.Kind, Engine: a.Engine, Query: a.Query, URL: a.URL}.Label())
	}
	return d
}
