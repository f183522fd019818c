package pipeline

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
)

// gather runs the pending actions batch by batch, in parallel within a
// batch, with a heartbeat after each batch. Budgets are checked before
// every batch. A failed action never fails the run; a run where every
// action failed and nothing was fetched does.
func (r *Runner) gather(ctx context.Context, run *db.Run, st *State) error {
	if err := r.commitStatus(ctx, run, research.StatusGathering, StageGather); err != nil {
		return err
	}
	addBrowseSearches(run.Question, st)
	budget := st.Spec.Budget
	for {
		if stop := r.gatherStop(st, budget); stop != "" || len(st.Pending) == 0 {
			return r.endGather(ctx, run, st, stop)
		}
		batch, rest := nextBatch(st.Pending, budget.MaxActions-len(st.Done))
		if err := r.runBatch(ctx, run, st, batch); err != nil {
			var g *gatesPause
			if errors.As(err, &g) {
				return r.pauseAtGate(ctx, run, st, g.gates)
			}
			return err
		}
		st.Gates = nil
		st.Pending = rest
		if err := r.heartbeat(ctx, run, st, batch); err != nil {
			return err
		}
		if st.Stage != StageGather {
			return nil
		}
	}
}

// gatherStop names the budget that forbids another batch, or "".
func (r *Runner) gatherStop(st *State, b research.Budget) string {
	switch {
	case b.MaxBatches > 0 && st.Batch >= b.MaxBatches:
		return fmt.Sprintf("batch limit reached (%d of %d)", st.Batch, b.MaxBatches)
	case b.MaxActions > 0 && len(st.Done) >= b.MaxActions:
		return fmt.Sprintf("action limit reached (%d of %d)", len(st.Done), b.MaxActions)
	case b.MaxTime > 0 && st.elapsed() >= time.Duration(b.MaxTime):
		return fmt.Sprintf("time limit reached (%s)", time.Duration(b.MaxTime))
	case b.MaxUSD > 0 && st.Usage.USD >= b.MaxUSD:
		return fmt.Sprintf("budget_exceeded: LLM spend $%.4f of $%.2f", st.Usage.USD, b.MaxUSD)
	}
	return ""
}

// endGather moves to synthesis, or fails the run when nothing was fetched.
func (r *Runner) endGather(ctx context.Context, run *db.Run, st *State, stop string) error {
	sources, err := r.opt.Store.Sources(ctx, run.ID)
	if err != nil {
		return err
	}
	if len(sources) == 0 && st.Spec.Route != research.RouteChat && len(st.Prior) == 0 {
		actions, err := r.opt.Store.Actions(ctx, run.ID)
		if err != nil {
			return err
		}
		var reasons []string
		for _, a := range actions {
			if a.Error != "" {
				reasons = append(reasons, fmt.Sprintf("%s: %s", actionLabel(a), a.Error))
			}
		}
		msg := "no page could be fetched"
		switch {
		case len(reasons) > 0:
			msg = "every action failed — " + strings.Join(reasons, "; ")
			if stop != "" {
				msg += " (" + stop + ")"
			}
		case stop != "":
			msg = "stopped before any page was fetched: " + stop
		}
		return &RunError{Msg: msg}
	}
	st.StopReason = stop
	st.Stage = StageSynthesize
	upd := db.RunUpdate{Spend: mustJSON(st.Spend())}
	events := []event{{research.EventStageCompleted, research.StagePayload{Stage: StageGather, Status: research.StatusGathering}}}
	if stop != "" {
		upd.StopReason = &stop
		events = append(events, event{research.EventBudget, r.budgetPayload(st, stop)})
	}
	return r.commit(ctx, run, st, upd, events...)
}

// nextBatch takes the pending actions of the lowest priority, at most room.
func nextBatch(pending []research.ActionSpec, room int) (batch, rest []research.ActionSpec) {
	if room <= 0 || len(pending) == 0 {
		return nil, pending
	}
	sorted := append([]research.ActionSpec(nil), pending...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Priority < sorted[j].Priority })
	p := sorted[0].Priority
	for _, a := range sorted {
		if a.Priority == p && len(batch) < room {
			batch = append(batch, a)
		} else {
			rest = append(rest, a)
		}
	}
	return batch, rest
}

// runBatch records the batch's actions, runs them in parallel and stores
// what they fetched. Actions a previous attempt already finished (the
// process died mid-batch) are not run again.
func (r *Runner) runBatch(ctx context.Context, run *db.Run, st *State, batch []research.ActionSpec) error {
	existing, err := r.opt.Store.Actions(ctx, run.ID)
	if err != nil {
		return err
	}
	rows := make([]db.Action, len(batch))
	err = r.opt.Store.Transition(ctx, run.ID, r.opt.Owner, db.Step{Apply: func(ctx context.Context, tx *db.Tx) error {
		for i, a := range batch {
			if row, ok := findAction(existing, a); ok {
				rows[i] = row
				continue
			}
			row, err := tx.InsertAction(ctx, db.Action{RunID: run.ID, Batch: st.Batch + 1, Priority: a.Priority,
				Kind: a.Kind, Engine: a.Engine, Query: a.Query, URL: a.URL, Reason: a.Reason})
			if err != nil {
				return err
			}
			rows[i] = row
			if _, err := tx.AppendEvent(ctx, run.ID, research.EventAction, actionPayload(row, research.ActionPending, "", "", nil)); err != nil {
				return err
			}
		}
		return nil
	}})
	if err != nil {
		return err
	}

	known, err := r.knownURLs(ctx, run.ID, st)
	if err != nil {
		return err
	}
	start := time.Now()
	bctx := ctx
	if b := st.Spec.Budget; b.MaxTime > 0 {
		var cancel context.CancelFunc
		bctx, cancel = context.WithTimeout(ctx, time.Duration(b.MaxTime)-st.elapsed())
		defer cancel()
	}
	var wg sync.WaitGroup
	unread := &batchNotes{spent: st.Usage.USD, max: st.Spec.Budget.MaxUSD}
	errs := make(chan error, len(rows))
	for i := range rows {
		if rows[i].Status.Finished() {
			continue // finished before a crash: keep its result
		}
		wg.Add(1)
		go func(row db.Action) {
			defer wg.Done()
			if err := r.runAction(bctx, ctx, run, st, row, known, unread); err != nil {
				errs <- err
			}
		}(rows[i])
	}
	wg.Wait()
	close(errs)
	if err := r.countAgentSpend(ctx, run.ID, st, rows); err != nil {
		return err
	}
	var gates []Gate
	for err := range errs {
		var g *gatePause
		if !errors.As(err, &g) {
			return err // an infrastructure error (commit failed, lease lost)
		}
		gates = append(gates, g.gate)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(gates) > 0 {
		sort.Slice(gates, func(i, j int) bool { return gates[i].ActionIdx < gates[j].ActionIdx })
		return &gatesPause{gates} // the batch runs again once approved
	}
	st.GatherMS += time.Since(start).Milliseconds()
	st.Unread = append(st.Unread, unread.hits...)
	st.Empty = append(st.Empty, unread.empty...)
	if n := len(st.Unread); n > research.MaxUnread {
		st.Unread = st.Unread[n-research.MaxUnread:]
	}
	st.Done = append(st.Done, batch...)
	st.Batch++
	return nil
}

func findAction(rows []db.Action, a research.ActionSpec) (db.Action, bool) {
	k := a.Key()
	for _, row := range rows {
		if (research.ActionSpec{Kind: row.Kind, Engine: row.Engine, Query: row.Query, URL: row.URL}).Key() == k {
			return row, true
		}
	}
	return db.Action{}, false
}

func (r *Runner) budgetPayload(st *State, stop string) research.BudgetPayload {
	b := st.Spec.Budget
	return research.BudgetPayload{Actions: len(st.Done), MaxActions: b.MaxActions, Batches: st.Batch, MaxBatches: b.MaxBatches,
		ElapsedMS: st.GatherMS, MaxTimeMS: time.Duration(b.MaxTime).Milliseconds(),
		Tokens: st.Usage.InputTokens + st.Usage.OutputTokens, USD: st.Usage.USD, MaxUSD: b.MaxUSD, StopReason: stop, Stages: st.Spend().Stages}
}

// checkSpend refuses an LLM call once the run's spend cap is reached.
func (r *Runner) checkSpend(st *State, b research.Budget) error {
	if b.MaxUSD > 0 && st.Usage.USD >= b.MaxUSD {
		return fmt.Errorf("budget_exceeded: LLM spend $%.4f reached the run's cap of $%.2f", st.Usage.USD, b.MaxUSD)
	}
	return nil
}

// batchNotes collects, from the actions of a batch running at once, the
// results their searches listed but did not read and the queries whose
// results page listed nothing, and meters the site agent's model spend
// against the run's cap (agent.Meter).
type batchNotes struct {
	mu    sync.Mutex
	hits  []research.Hit
	empty []string
	// spent is the run's spend before the batch, max its cap (0: none).
	spent, max float64
	usage      engine.Usage
}

// AddUsage implements agent.Meter.
func (l *batchNotes) AddUsage(u engine.Usage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.usage = l.usage.Add(u)
}

// Budget implements agent.Meter: the run's spend cap, counting what the
// batch's agents spent so far.
func (l *batchNotes) Budget() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if total := l.spent + l.usage.USD; l.max > 0 && total >= l.max {
		return fmt.Errorf("budget_exceeded: LLM spend $%.4f reached the run's cap of $%.2f", total, l.max)
	}
	return nil
}

func (l *batchNotes) add(h ...research.Hit) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hits = append(l.hits, h...)
}

func (l *batchNotes) addEmpty(query string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.empty = append(l.empty, query)
}
