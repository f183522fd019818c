package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/a-h/templ"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/web"
)

// fragmenter turns a run's events into the HTML fragments the run page
// swaps in (hx-swap-oob), for one SSE connection. It remembers the actions
// it has seen so that an update of an action renders its full line.
type fragmenter struct {
	s         *Server
	page      web.Page
	runID     string
	engines   []string
	actions   map[int]web.ActionView
	stored    map[int]db.Action // the action table, read once when needed
	draftPass int               // pass of the draft text sent; -1 before the first delta
}

func newFragmenter(s *Server, p web.Page, run *db.Run) *fragmenter {
	return &fragmenter{s: s, page: p, runID: run.ID, engines: s.runEngines(run), actions: map[int]web.ActionView{}, draftPass: -1}
}

// statusField is the part of every payload that may carry a new status.
type statusField struct {
	Status research.RunStatus `json:"status"`
	Error  string             `json:"error"`
}

// render returns the fragments for ev; nil when the page shows nothing of it.
func (f *fragmenter) render(ctx context.Context, ev db.Event) ([]byte, error) {
	var st statusField
	if ev.Type != research.EventAction { // an action's status is the action's, not the run's
		json.Unmarshal(ev.Payload, &st)
	}
	if isTerminalEvent(ev.Type) || st.Status.Terminal() {
		return f.final(ctx, ev, st)
	}
	var parts []templ.Component
	if st.Status != "" {
		v := web.RunView{ID: f.runID, Status: st.Status, Error: st.Error}
		parts = append(parts, web.StatusBlock(v, true), web.RunControls(f.page, v, true))
	}
	switch ev.Type {
	case research.EventPlan, research.EventAwaitingApproval:
		var p research.PlanPayload
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			return nil, nil
		}
		status := p.Status
		if status == "" {
			status = st.Status
		}
		parts = append(parts, web.PlanBlock(f.page, web.RunView{ID: f.runID, Status: status, Spec: &p.Spec, Engines: f.engines}, true))
		// The plan carries the budget's limits; spend follows in budget
		// events, which always come after it.
		parts = append(parts, web.BudgetBlock(budgetFromSpec(p.Spec.Budget), true))
	case research.EventAction:
		var p research.ActionPayload
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			return nil, nil
		}
		a, err := f.action(ctx, p)
		if err != nil {
			return nil, err
		}
		if p.Status == "pending" {
			parts = append(parts, web.ActionAppend(a))
		} else {
			parts = append(parts, web.ActionItem(a, "replace"))
		}
	case research.EventHeartbeatDecision:
		var p research.DecisionPayload
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			return nil, nil
		}
		parts = append(parts, web.DecisionItem(decisionView(p), true))
	case research.EventBudget:
		var p research.BudgetPayload
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			return nil, nil
		}
		parts = append(parts, web.BudgetBlock(budgetView(p), true))
	case research.EventVerification:
		var p research.VerificationPayload
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			return nil, nil
		}
		parts = append(parts, web.PassAppend(web.PassView{Pass: p.Pass, Scores: scoresView(p)}))
	case research.EventSynthesisDelta:
		var p research.DeltaPayload
		if err := json.Unmarshal(ev.Payload, &p); err != nil || p.Text == "" {
			return nil, nil
		}
		if f.draftPass >= 0 && p.Pass != f.draftPass {
			// A new pass without a repair event (a resumed run writes its
			// pass again): start the draft afresh, as the page's fold does.
			parts = append(parts, web.ReportBlock(web.RunView{ID: f.runID, Draft: p.Text, DraftPass: p.Pass}, true))
		} else {
			parts = append(parts, web.DraftDelta(p.Text))
		}
		f.draftPass = p.Pass
	case research.EventRepairStarted:
		var p research.RepairPayload
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			return nil, nil
		}
		// A repair pass writes the report again: start the draft afresh.
		parts = append(parts, web.ReportBlock(web.RunView{ID: f.runID, DraftPass: p.Pass}, true), web.PassAppend(repairPass(p)))
		f.draftPass = p.Pass
	}
	return renderParts(ctx, parts)
}

// final renders a run's last event: the whole run as a reload would show
// it (the report in place when done), and an empty stream holder, which
// closes the page's stream. The status is the event's, so the page follows
// the events even if the row were to say otherwise.
func (f *fragmenter) final(ctx context.Context, ev db.Event, st statusField) ([]byte, error) {
	run, err := f.s.store.GetRun(ctx, f.runID)
	if err != nil {
		return nil, err
	}
	v, err := f.s.runView(ctx, run)
	if err != nil {
		return nil, err
	}
	if st.Status != "" && st.Status != v.Status {
		v.Status, v.Error, v.StopReason = st.Status, st.Error, ""
	}
	if ev.Type == research.EventRunCompleted && v.Report == nil {
		var p research.CompletedPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			v.Report = f.s.reportFromEvent(run, p)
		}
	}
	return renderParts(ctx, []templ.Component{web.LiveConnection(v, true), web.RunArticle(f.page, v, true)})
}

func renderParts(ctx context.Context, parts []templ.Component) ([]byte, error) {
	if len(parts) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	for _, c := range parts {
		if err := c.Render(ctx, &buf); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// action merges an action event into the connection's view of it. An
// update for an action this connection has not seen (it was on the page
// already) is completed from the action table.
func (f *fragmenter) action(ctx context.Context, p research.ActionPayload) (web.ActionView, error) {
	a, ok := f.actions[p.Idx]
	if !ok && p.Kind == "" {
		if f.stored == nil {
			rows, err := f.s.store.Actions(ctx, f.runID)
			if err != nil && !errors.Is(err, db.ErrNotFound) {
				return web.ActionView{}, err
			}
			f.stored = map[int]db.Action{}
			for _, row := range rows {
				f.stored[row.Idx] = row
			}
		}
		if row, ok := f.stored[p.Idx]; ok {
			a = web.ActionView{Idx: row.Idx, Kind: row.Kind, Engine: row.Engine, Query: row.Query, URL: row.URL}
		}
	}
	a = mergeAction(a, p)
	f.actions[p.Idx] = a
	return a, nil
}
