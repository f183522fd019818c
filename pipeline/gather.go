package pipeline

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/search"
)

// gather runs the pending actions batch by batch, in parallel within a
// batch, with a heartbeat after each batch. Budgets are checked before
// every batch. A failed action never fails the run; a run where every
// action failed and nothing was fetched does.
func (r *Runner) gather(ctx context.Context, run *db.Run, st *State) error {
	if err := r.commitStatus(ctx, run, research.StatusGathering, StageGather); err != nil {
		return err
	}
	budget := st.Spec.Budget
	for {
		if stop := r.gatherStop(st, budget); stop != "" || len(st.Pending) == 0 {
			return r.endGather(ctx, run, st, stop)
		}
		batch, rest := nextBatch(st.Pending, budget.MaxActions-len(st.Done))
		if err := r.runBatch(ctx, run, st, batch); err != nil {
			return err
		}
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
	upd := db.RunUpdate{Spend: mustJSON(st.Usage)}
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
	err = r.opt.Store.InTx(ctx, func(tx *db.Tx) error {
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
	})
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
	errs := make(chan error, len(rows))
	for i := range rows {
		if rows[i].Status.Finished() {
			continue // finished before a crash: keep its result
		}
		wg.Add(1)
		go func(row db.Action) {
			defer wg.Done()
			if err := r.runAction(bctx, ctx, run, st, row, known); err != nil {
				errs <- err
			}
		}(rows[i])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return err // an infrastructure error (commit failed, lease lost)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	st.GatherMS += time.Since(start).Milliseconds()
	st.Done = append(st.Done, batch...)
	st.Batch++
	return nil
}

func findAction(rows []db.Action, a research.ActionSpec) (db.Action, bool) {
	for _, row := range rows {
		if row.Kind == a.Kind && row.Query == a.Query && row.URL == a.URL && row.Engine == a.Engine {
			return row, true
		}
	}
	return db.Action{}, false
}

// urlSet is the canonical URLs a run already has (or must skip), shared by
// the actions of a batch.
type urlSet struct {
	mu   sync.Mutex
	urls map[string]bool
}

func (s *urlSet) claim(u string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.urls[u] {
		return false
	}
	s.urls[u] = true
	return true
}

func (s *urlSet) has(u string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.urls[u]
}

func (r *Runner) knownURLs(ctx context.Context, runID string, st *State) (*urlSet, error) {
	sources, err := r.opt.Store.Sources(ctx, runID)
	if err != nil {
		return nil, err
	}
	set := &urlSet{urls: map[string]bool{}}
	for _, s := range sources {
		set.urls[s.CanonicalURL] = true
	}
	for _, u := range st.ParentURLs {
		set.urls[u] = true
	}
	return set, nil
}

// runAction executes one action within actx (bounded by the time budget)
// and records its outcome with ctx (so a timed-out action is still
// recorded). Only infrastructure errors are returned.
func (r *Runner) runAction(actx, ctx context.Context, run *db.Run, st *State, row db.Action, known *urlSet) error {
	began := time.Now()
	if err := r.opt.Store.StartAction(ctx, run.ID, row.Idx); err != nil {
		return err
	}
	if err := r.emit(ctx, run, event{research.EventAction, actionPayload(row, research.ActionRunning, "", "", nil)}); err != nil {
		return err
	}
	var pages []extract.Page
	var failure string
	var pageErrs []string
	switch {
	case r.opt.Gatherer == nil:
		failure = "no browser is configured"
	case row.Kind == research.ActionNavigate:
		if !known.claim(extract.CanonicalURL(row.URL)) {
			failure = "already fetched"
			break
		}
		page, err := r.opt.Gatherer.Navigate(actx, row.URL)
		if err != nil {
			failure = describeErr(err, actx)
		} else {
			pages = append(pages, page)
		}
	default:
		engines := append([]string{row.Engine}, without(st.Engines, row.Engine)...)
		out, err := r.opt.Gatherer.Search(actx, search.Action{
			Engines: engines,
			Query:   row.Query,
			Pages:   st.Spec.Budget.PagesPerSearch,
			// Claim on check: a URL is visited by one action of the run only.
			Skip: func(u string) bool { return !known.claim(u) },
		})
		pages = out.Pages
		for _, pe := range out.Errors {
			pageErrs = append(pageErrs, pe.URL+": "+pe.Err)
		}
		if err != nil {
			failure = describeErr(err, actx)
		} else if len(pages) == 0 {
			switch {
			case len(out.Results) == 0:
				failure = "the results page had no usable links"
			case len(pageErrs) > 0:
				failure = "no page could be read (" + strings.Join(firstN(pageErrs, 3), "; ") + ")"
			}
			// Otherwise every result was already fetched: success, nothing new.
		}
	}
	var outcome string
	err := r.opt.Store.InTx(ctx, func(tx *db.Tx) error {
		ok, err := tx.HoldsLease(ctx, run.ID, r.opt.Owner)
		if err != nil {
			return err
		}
		if !ok {
			return errLeaseLost
		}
		var ids, titles []string
		for _, p := range pages {
			canon := p.CanonicalURL
			if canon == "" {
				canon = extract.CanonicalURL(p.URL)
			}
			findings, _ := json.Marshal(p.Findings)
			src, added, err := tx.AddSource(ctx, db.Source{RunID: run.ID, URL: firstNonEmpty(p.FinalURL, p.URL), CanonicalURL: canon,
				Title: p.Title, Host: p.Host, Site: p.Site, Byline: p.Byline, Published: p.Published, Lang: p.Lang,
				Text: p.Text, Findings: findings, ActionIdx: sql.NullInt64{Int64: int64(row.Idx), Valid: true}, FetchedAt: p.FetchedAt})
			if err != nil {
				return err
			}
			if added {
				ids = append(ids, fmt.Sprintf("S%d", src.SID))
				titles = append(titles, firstNonEmpty(src.Title, src.Host))
			}
		}
		status, preview := research.ActionSuccess, ""
		if failure != "" && len(ids) == 0 {
			status = research.ActionError
		} else {
			failure = ""
			preview = fmt.Sprintf("%d page(s): %s", len(ids), strings.Join(titles, " · "))
			if len(ids) == 0 {
				preview = "nothing new (pages already fetched)"
			}
		}
		result := map[string]any{"sources": ids, "page_errors": pageErrs}
		if err := tx.FinishAction(ctx, run.ID, row.Idx, status, failure, clip(preview, 300), result); err != nil {
			return err
		}
		outcome = string(status)
		_, err = tx.AppendEvent(ctx, run.ID, research.EventAction, actionPayload(row, status, clip(preview, 300), failure, ids))
		return err
	})
	if err == nil {
		r.actionDone(row.Kind, outcome, time.Since(began))
	}
	return err
}

func describeErr(err error, ctx context.Context) string {
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		return "stopped: the run's time budget ran out"
	}
	return clip(err.Error(), 300)
}

func actionPayload(row db.Action, status research.ActionStatus, preview, errText string, ids []string) research.ActionPayload {
	return research.ActionPayload{Idx: row.Idx, Batch: row.Batch, Kind: row.Kind, Engine: row.Engine, Query: row.Query, URL: row.URL,
		Status: status, Preview: preview, Error: errText, Sources: ids}
}

func actionLabel(a db.Action) string {
	if a.Kind == research.ActionNavigate {
		return "read " + a.URL
	}
	return fmt.Sprintf("search %s for %q", a.Engine, a.Query)
}

// heartbeat asks the engine whether the evidence suffices and queues at
// most three new, never-repeated actions when it does not.
func (r *Runner) heartbeat(ctx context.Context, run *db.Run, st *State, batch []research.ActionSpec) error {
	budget := st.Spec.Budget
	sources, err := r.engineSources(ctx, run.ID)
	if err != nil {
		return err
	}
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
			Batch: st.Batch, Budget: budget, MaxNew: max(room, 0), Engines: st.Engines})
		st.Usage = st.Usage.Add(usage)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			dec = engine.HeartbeatDecision{Done: len(st.Pending) == 0, Reason: "the engine could not decide (" + clip(err.Error(), 120) + "); continuing with the plan"}
		}
		var added []research.ActionSpec
		for _, a := range dec.Actions {
			if len(added) >= room {
				break
			}
			clean, err := SanitizeSpec(research.TaskSpec{Goal: "x", Actions: []research.ActionSpec{a}}, nil, st.Engines)
			if err != nil || len(clean.Actions) == 0 || st.seen(clean.Actions[0]) ||
				(clean.Actions[0].Kind == research.ActionSearch && containsFold(queriesOf(st.Done), clean.Actions[0].Query)) {
				continue
			}
			na := clean.Actions[0]
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
		{research.EventHeartbeatDecision, research.DecisionPayload{Batch: st.Batch, Done: dec.Done || len(st.Pending) == 0, Reason: dec.Reason, Actions: dec.Actions}},
		{research.EventBudget, r.budgetPayload(st, "")},
		{research.EventCheckpoint, map[string]any{"stage": StageGather, "batch": st.Batch, "sources": len(sources)}},
	}
	return r.commit(ctx, run, st, db.RunUpdate{Spend: mustJSON(st.Usage)}, events...)
}

func (r *Runner) budgetPayload(st *State, stop string) research.BudgetPayload {
	b := st.Spec.Budget
	return research.BudgetPayload{Actions: len(st.Done), MaxActions: b.MaxActions, Batches: st.Batch, MaxBatches: b.MaxBatches,
		ElapsedMS: st.GatherMS, MaxTimeMS: time.Duration(b.MaxTime).Milliseconds(),
		Tokens: st.Usage.InputTokens + st.Usage.OutputTokens, USD: st.Usage.USD, MaxUSD: b.MaxUSD, StopReason: stop}
}

// checkSpend refuses an LLM call once the run's spend cap is reached.
func (r *Runner) checkSpend(st *State, b research.Budget) error {
	if b.MaxUSD > 0 && st.Usage.USD >= b.MaxUSD {
		return fmt.Errorf("budget_exceeded: LLM spend $%.4f reached the run's cap of $%.2f", st.Usage.USD, b.MaxUSD)
	}
	return nil
}

// engineSources loads the run's sources labelled S1, S2, ….
func (r *Runner) engineSources(ctx context.Context, runID string) ([]research.Source, error) {
	rows, err := r.opt.Store.Sources(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := make([]research.Source, 0, len(rows))
	for _, s := range rows {
		var findings []string
		json.Unmarshal(s.Findings, &findings)
		out = append(out, research.Source{ID: fmt.Sprintf("S%d", s.SID), URL: s.URL, Title: s.Title, Host: s.Host,
			Published: s.Published, Text: s.Text, Findings: findings, FetchedAt: s.FetchedAt})
	}
	return out, nil
}

func queriesOf(actions []research.ActionSpec) []string {
	var out []string
	for _, a := range actions {
		if a.Query != "" {
			out = append(out, a.Query)
		}
	}
	return out
}

func without(list []string, v string) []string {
	var out []string
	for _, x := range list {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

func firstN(list []string, n int) []string {
	if len(list) > n {
		return list[:n]
	}
	return list
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
