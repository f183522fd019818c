package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/web"
)

// eventPage is how many events one read of run_events returns.
const eventPage = 500

// loadRunView builds the run page's view as of one moment: the run row
// gives the status and LastSeq, and the actions, decisions, budget,
// verification passes and draft are folded from the run's events up to
// LastSeq, so the page and the SSE stream that continues after LastSeq
// never disagree (an action read from its table could be newer than
// LastSeq and then arrive again as an event).
func (s *Server) loadRunView(ctx context.Context, id string) (web.RunView, error) {
	run, err := s.store.GetRun(ctx, id)
	if err != nil {
		return web.RunView{}, err
	}
	return s.runView(ctx, run)
}

// runView is loadRunView for a run already read.
func (s *Server) runView(ctx context.Context, run *db.Run) (web.RunView, error) {
	v := web.RunView{
		ID: run.ID, Question: run.Question, Depth: run.Depth, Status: run.Status,
		StopReason: run.StopReason, Error: run.Error, CreatedAt: run.CreatedAt,
		Spec: decodeSpec(run.TaskSpec), LastSeq: run.LastSeq,
		EventsURL: s.url(fmt.Sprintf("/runs/%s/events?after=%d", run.ID, run.LastSeq)),
		Engines:   s.runEngines(run),
	}
	if v.Spec != nil {
		v.Budget = budgetFromSpec(v.Spec.Budget)
	}
	if run.ParentRunID.Valid {
		v.ParentID = run.ParentRunID.String
		if parent, err := s.store.GetRun(ctx, v.ParentID); err == nil {
			v.ParentQuestion = parent.Question
		} else if !errors.Is(err, db.ErrNotFound) {
			return web.RunView{}, err
		}
	}
	f := newRunFold()
	for after := int64(0); after < run.LastSeq; {
		evs, err := s.store.EventsAfter(ctx, run.ID, after, eventPage)
		if err != nil {
			return web.RunView{}, err
		}
		if len(evs) == 0 {
			break
		}
		for _, ev := range evs {
			if ev.Seq > run.LastSeq {
				break
			}
			f.apply(ev)
		}
		after = evs[len(evs)-1].Seq
	}
	if f.spec != nil {
		// The plan as of LastSeq, like everything else the page shows.
		v.Spec = f.spec
		v.Budget = budgetFromSpec(f.spec.Budget)
	}
	v.Actions = f.actionList()
	if run.Status.Terminal() {
		// An action the run's end interrupted never finishes.
		for i, a := range v.Actions {
			if a.Status == "pending" || a.Status == "running" {
				v.Actions[i].Status = "stopped"
			}
		}
	}
	v.Decisions = f.decisions
	v.Passes = f.passes
	v.Draft, v.DraftPass = f.draft.String(), f.draftPass
	if f.budget != nil {
		v.Budget = *f.budget
	}
	if spend := decodeUsage(run.Spend); spend != nil {
		v.Budget.Tokens = spend.InputTokens + spend.OutputTokens
		v.Budget.USD = spend.USD
	}
	if run.Status == research.StatusDone {
		rv, err := s.reportView(ctx, run, false)
		switch {
		case err == nil:
			v.Report = rv
		case errors.Is(err, db.ErrNotFound):
			// A run completed without a stored report (it should not
			// happen): show what the completion event carried.
			if f.completed != nil {
				v.Report = s.reportFromEvent(run, *f.completed)
			}
		default:
			return web.RunView{}, err
		}
	}
	return v, nil
}

// runEngines are the search engines the run may use: those it asked for,
// else the configured ones.
func (s *Server) runEngines(run *db.Run) []string {
	var opts pipeline.RunOptions
	if json.Unmarshal(run.Options, &opts) == nil && len(opts.Engines) > 0 {
		return opts.Engines
	}
	return s.opt.Settings.SearchEngines
}

// decodeSpec reads the run's task spec column (JSON null before intake).
func decodeSpec(raw json.RawMessage) *research.TaskSpec {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var spec research.TaskSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil
	}
	return &spec
}

// decodeUsage reads the run's spend column, nil when it records nothing.
func decodeUsage(raw json.RawMessage) *engine.Usage {
	var u engine.Usage
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil || u == (engine.Usage{}) {
		return nil
	}
	return &u
}

// budgetFromSpec shows the plan's limits before any spend is reported.
func budgetFromSpec(b research.Budget) web.BudgetView {
	return web.BudgetView{Known: true, MaxActions: b.MaxActions, MaxBatches: b.MaxBatches,
		MaxTimeMS: time.Duration(b.MaxTime).Milliseconds(), MaxUSD: b.MaxUSD}
}

func budgetView(p research.BudgetPayload) web.BudgetView {
	return web.BudgetView{Known: true, Actions: p.Actions, MaxActions: p.MaxActions, Batches: p.Batches, MaxBatches: p.MaxBatches,
		ElapsedMS: p.ElapsedMS, MaxTimeMS: p.MaxTimeMS, Tokens: p.Tokens, USD: p.USD, MaxUSD: p.MaxUSD, StopReason: p.StopReason}
}

func scoresView(p research.VerificationPayload) web.Scores {
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

// shareURL is the run's live share link, or "".
func (s *Server) shareURL(run *db.Run) string {
	if !run.ShareToken.Valid || run.ShareToken.String == "" || run.ShareRevokedAt.Valid {
		return ""
	}
	if run.ShareExpiresAt.Valid && run.ShareExpiresAt.Time.Before(time.Now()) {
		return ""
	}
	return s.shareLink(run.ShareToken.String)
}

// shareLink is the URL of a share token: absolute under QUARRY_BASE_URL,
// else a path (the browser resolves it against the page).
func (s *Server) shareLink(token string) string {
	if s.opt.BaseURL != "" {
		return s.opt.BaseURL + "/r/" + token
	}
	return "/r/" + token
}

// runFold accumulates a run's events into what the page shows.
type runFold struct {
	actions   map[int]web.ActionView
	order     []int
	decisions []web.DecisionView
	budget    *web.BudgetView
	passes    []web.PassView
	draft     strings.Builder
	draftPass int
	spec      *research.TaskSpec
	completed *research.CompletedPayload
}

func newRunFold() *runFold { return &runFold{actions: map[int]web.ActionView{}} }

func (f *runFold) apply(ev db.Event) {
	switch ev.Type {
	case research.EventPlan, research.EventAwaitingApproval:
		var p research.PlanPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			f.spec = &p.Spec
		}
	case research.EventAction:
		var p research.ActionPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			f.action(p)
		}
	case research.EventHeartbeatDecision:
		var p research.DecisionPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			f.decisions = append(f.decisions, decisionView(p))
		}
	case research.EventBudget:
		var p research.BudgetPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			b := budgetView(p)
			f.budget = &b
		}
	case research.EventVerification:
		var p research.VerificationPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			f.passes = append(f.passes, web.PassView{Pass: p.Pass, Scores: scoresView(p)})
		}
	case research.EventSynthesisDelta:
		var p research.DeltaPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			if p.Pass != f.draftPass {
				f.draft.Reset()
				f.draftPass = p.Pass
			}
			f.draft.WriteString(p.Text)
		}
	case research.EventRepairStarted:
		var p research.RepairPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			f.passes = append(f.passes, repairPass(p))
			f.draftPass = p.Pass
		}
		f.draft.Reset()
	case research.EventRunCompleted:
		var p research.CompletedPayload
		if json.Unmarshal(ev.Payload, &p) == nil {
			f.completed = &p
		}
	}
}

// repairPass is the list entry of a repair: it belongs to the pass it
// repairs (the one before it).
func repairPass(p research.RepairPayload) web.PassView {
	return web.PassView{Pass: p.Pass - 1, Repair: true, Failures: p.Failures}
}

// action merges an action event into what is known of that action; an
// update that leaves a field empty keeps the earlier value.
func (f *runFold) action(p research.ActionPayload) web.ActionView {
	a, seen := f.actions[p.Idx]
	if !seen {
		f.order = append(f.order, p.Idx)
	}
	a = mergeAction(a, p)
	f.actions[p.Idx] = a
	return a
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

func (f *runFold) actionList() []web.ActionView {
	out := make([]web.ActionView, 0, len(f.order))
	for _, idx := range f.order {
		out = append(out, f.actions[idx])
	}
	return out
}
