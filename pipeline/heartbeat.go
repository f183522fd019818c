package pipeline

import (
	"context"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// heartbeat asks the engine whether the evidence suffices and queues at
// most three new, never-repeated actions when it does not.
func (r *Runner) heartbeat(ctx context.Context, run *db.Run, st *State, batch []research.ActionSpec) error {
	budget := st.Spec.Budget
	sources, err := r.engineSources(ctx, run.ID)
	if err != nil {
		return err
	}
	// Coverage is computed here, once, by one rule for every engine: the
	// engine decides with it and the page shows it.
	coverage := extractive.Coverage(*st.Spec, sources)
	dec := engine.HeartbeatDecision{Done: true, Reason: "no budget left for another batch"}
	stop := r.gatherStop(st, budget)
	if stop == "" {
		if err := r.checkSpend(st, budget); err != nil {
			stop = err.Error()
		}
	}
	if stop == "" {
		room := budget.MaxActions - len(st.Done) - len(st.Pending)
		if room > 3 {
			room = 3
		}
		var usage engine.Usage
		dec, usage, err = r.opt.Engine.Heartbeat(ctx, engine.HeartbeatRequest{Spec: *st.Spec, Sources: sources, Done: st.Done,
			Batch: st.Batch, Budget: budget, MaxNew: max(room, 0), Engines: st.Engines, Unread: unreadOf(st, sources), Empty: st.Empty,
			Coverage: coverage, Elapsed: st.elapsed(), Clarification: st.Clarification})
		st.addUsage(SpendHeartbeat, usage)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			dec = engine.HeartbeatDecision{Done: len(st.Pending) == 0, Reason: "the engine could not decide (" + text.Clip(err.Error(), 120) + "); continuing with the plan"}
		}
		var added []research.ActionSpec
		for _, a := range dec.Actions {
			if len(added) >= room {
				break
			}
			na, err := SanitizeAction(a, st.Engines)
			if err != nil || st.seen(na) {
				continue
			}
			na.Priority = st.Batch // after everything already planned
			added = append(added, na)
		}
		dec.Actions = added
		st.Pending = append(st.Pending, added...)
	} else {
		dec.Reason = stop
	}
	if dec.Done && len(dec.Actions) == 0 {
		st.Pending = nil
	}
	events := []event{
		{research.EventCheckpoint, research.CheckpointPayload{Stage: StageGather, Batch: st.Batch, Sources: len(sources),
			Covered: research.CoveredCount(coverage), Coverage: coverage}},
		{research.EventHeartbeatDecision, research.DecisionPayload{Batch: st.Batch, Done: dec.Done || len(st.Pending) == 0, Reason: dec.Reason, Actions: dec.Actions}},
		{research.EventBudget, r.budgetPayload(st, "")},
	}
	return r.commit(ctx, run, st, db.RunUpdate{Spend: mustJSON(st.Spend())}, events...)
}

// unreadOf is the run's unread results without the pages it has since
// read (another search may have visited one).
func unreadOf(st *State, sources []research.Source) []research.Hit {
	have := map[string]bool{}
	for _, s := range sources {
		have[extract.CanonicalURL(s.URL)] = true
	}
	var out []research.Hit
	for _, h := range st.Unread {
		if k := extract.CanonicalURL(h.URL); !have[k] {
			have[k] = true
			out = append(out, h)
		}
	}
	return out
}
