package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/quarryhq/quarry/db"
)

// intake routes the message and produces the plan. For research it either
// pauses for review or moves straight to gathering.
func (r *Runner) intake(ctx context.Context, run *db.Run, st *State) error {
	if err := r.commitStatus(ctx, run, db.StatusPlanning, StageIntake); err != nil {
		return err
	}
	var budget Budget
	if err := json.Unmarshal(run.Budget, &budget); err != nil || budget.MaxActions == 0 {
		budget = r.opt.Presets[run.Depth]
	}
	req := PlanRequest{Question: run.Question, Depth: run.Depth, Budget: budget, Engines: st.Engines, Now: time.Now(), Clarification: st.Clarification}
	if run.ParentRunID.Valid {
		parent, err := r.parentContext(ctx, run.ParentRunID.String)
		if err != nil {
			return err
		}
		req.Parent = parent
		st.ParentURLs = parent.URLs
		st.Prior = parent.Sections
	}
	if err := r.checkSpend(st, budget); err != nil {
		return err
	}
	spec, usage, err := r.opt.Engine.Plan(ctx, req)
	st.Usage = st.Usage.Add(usage)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.log.Warn("plan failed; falling back to one search", "run_id", run.ID, "err", err)
		spec = FallbackSpec(run.Question, st.Engines)
	}
	spec.Budget = budget
	clean, err := SanitizeSpec(spec, nil, st.Engines)
	if err != nil {
		clean = FallbackSpec(run.Question, st.Engines)
		clean.Budget = budget
	}
	if req.Parent != nil {
		clean.Actions = dropRepeats(clean.Actions, req.Parent.Queries, req.Parent.URLs)
		if len(clean.Actions) == 0 && clean.Route == RouteResearch {
			clean.Actions = FallbackSpec(run.Question, st.Engines).Actions
		}
	}
	st.Spec = &clean
	status := db.StatusGathering
	st.Stage = StageGather
	st.Pending = clean.Actions
	events := []event{{EventPlan, PlanPayload{Status: status, Spec: clean}}}
	switch {
	case clean.Route == RouteChat:
		status, st.Stage = db.StatusSynthesizing, StageSynthesize
		st.Pending = nil
		events[0].payload = PlanPayload{Status: status, Spec: clean}
	case st.Review && !st.Approved:
		status, st.Stage = db.StatusAwaitingApproval, StageReview
		events = []event{{EventPlan, PlanPayload{Status: status, Spec: clean}}, {EventAwaitingApproval, PlanPayload{Status: status, Spec: clean}}}
	}
	events = append(events, event{EventStageCompleted, StagePayload{Stage: StageIntake, Status: status}})
	return r.commit(ctx, run, st, db.RunUpdate{Status: &status, Route: &clean.Route, TaskSpec: mustJSON(clean), Spend: mustJSON(st.Usage)}, events...)
}

// commitStatus records a status change and a stage_started event, unless
// the run already has that status (a resumed stage).
func (r *Runner) commitStatus(ctx context.Context, run *db.Run, status, stage string) error {
	if run.Status == status {
		return nil
	}
	err := r.opt.Store.InTx(ctx, func(tx *db.Tx) error {
		cur, err := tx.GetRunForUpdate(ctx, run.ID)
		if err != nil {
			return err
		}
		if !cur.LeaseOwner.Valid || cur.LeaseOwner.String != r.opt.Owner || db.Terminal(cur.Status) {
			return errLeaseLost
		}
		if err := tx.UpdateRun(ctx, run.ID, db.RunUpdate{Status: &status}); err != nil {
			return err
		}
		_, err = tx.AppendEvent(ctx, run.ID, EventStageStarted, StagePayload{Stage: stage, Status: status})
		return err
	})
	if err == nil {
		run.Status = status
	}
	return err
}

// parentContext gathers what a follow-up needs from its parent run.
func (r *Runner) parentContext(ctx context.Context, parentID string) (*ParentContext, error) {
	parent, err := r.opt.Store.GetRun(ctx, parentID)
	if err != nil {
		return nil, fmt.Errorf("parent run: %w", err)
	}
	pc := &ParentContext{RunID: parent.ID, Goal: parent.Question}
	var spec TaskSpec
	if json.Unmarshal(parent.TaskSpec, &spec) == nil && spec.Goal != "" {
		pc.Goal = spec.Goal
	}
	actions, err := r.opt.Store.Actions(ctx, parentID)
	if err != nil {
		return nil, err
	}
	for _, a := range actions {
		if a.Query != "" {
			pc.Queries = append(pc.Queries, a.Query)
		}
	}
	sources, err := r.opt.Store.Sources(ctx, parentID)
	if err != nil {
		return nil, err
	}
	for _, s := range sources {
		pc.URLs = append(pc.URLs, s.CanonicalURL)
	}
	if rep, err := r.opt.Store.PublishedReport(ctx, parentID); err == nil {
		pc.Sections = PriorSections(rep.Markdown)
	}
	return pc, nil
}

// PriorSections splits a report's Markdown into its ## sections, labelled
// P1…Pn, leaving out the Sources list.
func PriorSections(markdown string) []PriorSection {
	var out []PriorSection
	var cur *PriorSection
	for _, line := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(line, "## ") {
			heading := strings.TrimSpace(strings.TrimPrefix(line, "## "))
			if strings.EqualFold(heading, "Sources") || strings.EqualFold(heading, "Prior research used") {
				cur = nil
				continue
			}
			out = append(out, PriorSection{ID: fmt.Sprintf("P%d", len(out)+1), Heading: heading})
			cur = &out[len(out)-1]
			continue
		}
		if cur != nil {
			cur.Text = strings.TrimSpace(cur.Text + "\n" + line)
		}
	}
	return out
}

func dropRepeats(actions []ActionSpec, queries, urls []string) []ActionSpec {
	var out []ActionSpec
	for _, a := range actions {
		if a.Kind == ActionSearch && containsFold(queries, a.Query) {
			continue
		}
		if a.Kind == ActionNavigate && contains(urls, a.URL) {
			continue
		}
		out = append(out, a)
	}
	return out
}

func containsFold(list []string, v string) bool {
	for _, x := range list {
		if strings.EqualFold(strings.TrimSpace(x), strings.TrimSpace(v)) {
			return true
		}
	}
	return false
}
