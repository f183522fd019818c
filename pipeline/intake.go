package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/research"
)

// intake routes the message and produces the plan. For research it either
// pauses for review or moves straight to gathering.
func (r *Runner) intake(ctx context.Context, run *db.Run, st *State) error {
	if err := r.commitStatus(ctx, run, research.StatusPlanning, StageIntake); err != nil {
		return err
	}
	var budget research.Budget
	if err := json.Unmarshal(run.Budget, &budget); err != nil || budget.MaxActions == 0 {
		budget = r.opt.Presets[run.Depth]
	}
	req := engine.PlanRequest{Question: run.Question, Depth: run.Depth, Budget: budget, Engines: st.Engines, Now: time.Now(), Clarification: st.Clarification}
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
	spec, usage, err := r.plan(ctx, run, st, req)
	st.addUsage(SpendPlan, usage)
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
		if len(clean.Actions) == 0 && clean.Route == research.RouteResearch {
			clean.Actions = FallbackSpec(run.Question, st.Engines).Actions
		}
	}
	if k := st.Keep; k != nil {
		clean = keepEdits(clean, *k)
		st.Keep = nil
	}
	st.Spec = &clean
	status := research.StatusGathering
	st.Stage = StageGather
	st.Pending = clean.Actions
	events := []event{{research.EventPlan, research.PlanPayload{Status: status, Spec: clean}}}
	switch {
	case clean.Route == research.RouteChat:
		status, st.Stage = research.StatusSynthesizing, StageSynthesize
		st.Pending = nil
		events[0].payload = research.PlanPayload{Status: status, Spec: clean}
	case !st.Approved && st.Review.Pauses(clean.Clarity, r.opt.ClarifyBelow, len(clean.Questions) > 0):
		status, st.Stage = research.StatusAwaitingApproval, StageReview
		st.ReviewReason = r.reviewReason(st.Review, clean)
		paused := research.PlanPayload{Status: status, Spec: clean, Reason: st.ReviewReason}
		events = []event{{research.EventPlan, paused}, {research.EventAwaitingApproval, paused}}
	}
	events = append(events, event{research.EventStageCompleted, research.StagePayload{Stage: StageIntake, Status: status}})
	return r.commit(ctx, run, st, db.RunUpdate{Status: &status, Route: &clean.Route, TaskSpec: mustJSON(clean), Spend: mustJSON(st.Spend())}, events...)
}

// reviewReason says why a run pauses for review.
func (r *Runner) reviewReason(mode research.ReviewMode, spec research.TaskSpec) string {
	if mode == research.ReviewAuto {
		return fmt.Sprintf("The question is unclear (clarity %.2f, below %.2f): please answer the clarifying questions or approve the plan as it is.", spec.Clarity, r.opt.ClarifyBelow)
	}
	return "You asked to review the plan before the search."
}

// keepEdits gives a re-planned spec the goal, criteria and sections a
// person edited before the re-plan.
func keepEdits(spec, keep research.TaskSpec) research.TaskSpec {
	if keep.Goal != "" {
		spec.Goal = keep.Goal
	}
	if len(keep.Criteria) > 0 {
		spec.Criteria = keep.Criteria
	}
	if len(keep.Sections) > 0 {
		spec.Sections = keep.Sections
	}
	return spec
}

// plan routes the message with the zero-latency rules first, for every
// engine: a message they recognise as chat or as pages to read is planned
// by those rules (no model call); only what they cannot decide goes to
// the engine, with the preliminary search's results.
func (r *Runner) plan(ctx context.Context, run *db.Run, st *State, req engine.PlanRequest) (research.TaskSpec, engine.Usage, error) {
	if route, _ := extractive.Decide(req.Question); route != extractive.Undecided {
		return extractive.New().Plan(ctx, req)
	}
	if req.Parent != nil && extractive.RefersBack(req.Question) {
		// "Simplify that": an answer from the earlier reports, not research.
		return research.TaskSpec{Route: research.RouteChat, Goal: req.Question, Clarity: 1, Budget: req.Budget}, engine.Usage{}, nil
	}
	req.Preliminary = r.preliminary(ctx, run, st, req.Budget)
	return r.opt.Engine.Plan(ctx, req)
}

// commitStatus records a status change and a stage_started event, unless
// the run already has that status (a resumed stage).
func (r *Runner) commitStatus(ctx context.Context, run *db.Run, status research.RunStatus, stage string) error {
	if run.Status == status {
		return nil
	}
	err := r.opt.Store.Transition(ctx, run.ID, r.opt.Owner, db.Step{
		Update: db.RunUpdate{Status: &status},
		Events: []db.NewEvent{{Type: research.EventStageStarted, Payload: research.StagePayload{Stage: stage, Status: status}}},
	})
	if err == nil {
		run.Status = status
	}
	return err
}

// maxChain bounds how many earlier reports of a follow-up chain (the
// parent, its parent, …) a follow-up sees.
const maxChain = 6

// parentContext gathers what a follow-up needs from its parent run, and
// the sections of every report up its chain.
func (r *Runner) parentContext(ctx context.Context, parentID string) (*engine.ParentContext, error) {
	parent, err := r.opt.Store.GetRun(ctx, parentID)
	if err != nil {
		return nil, fmt.Errorf("parent run: %w", err)
	}
	pc := &engine.ParentContext{RunID: parent.ID, Goal: parent.Question}
	var spec research.TaskSpec
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
	if pc.Sections, err = r.chainSections(ctx, parent); err != nil {
		return nil, err
	}
	return pc, nil
}

// chainSections are the sections of the published reports up a
// follow-up's chain, oldest first, numbered P1…Pn across the chain: a
// report keeps its numbers in every later follow-up, so the [P#] an
// earlier follow-up cited still name the same sections.
func (r *Runner) chainSections(ctx context.Context, parent *db.Run) ([]research.PriorSection, error) {
	var chain [][]research.PriorSection
	seen := map[string]bool{}
	for run := parent; run != nil && len(chain) < maxChain && !seen[run.ID]; {
		seen[run.ID] = true
		rep, err := r.opt.Store.PublishedReport(ctx, run.ID)
		switch {
		case err == nil:
			chain = append(chain, PriorSections(rep.Markdown))
		case !errors.Is(err, db.ErrNotFound):
			return nil, fmt.Errorf("report of run %s: %w", run.ID, err)
		}
		if !run.ParentRunID.Valid {
			break
		}
		up, err := r.opt.Store.GetRun(ctx, run.ParentRunID.String)
		if errors.Is(err, db.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", run.ParentRunID.String, err)
		}
		run = up
	}
	var out []research.PriorSection
	for i := len(chain) - 1; i >= 0; i-- {
		for _, s := range chain[i] {
			s.ID = research.PriorID(len(out) + 1)
			out = append(out, s)
		}
	}
	return out, nil
}

// PriorSections splits a report's Markdown into its ## sections, labelled
// P1…Pn, leaving out the Sources list. Text before the first section (a
// chat answer has no headings) is a section of its own, "Answer".
func PriorSections(markdown string) []research.PriorSection {
	var out []research.PriorSection
	lead := &research.PriorSection{Heading: "Answer"}
	cur := lead
	for _, line := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(line, "## ") {
			if cur == lead && lead.Text != "" {
				out = append(out, research.PriorSection{ID: research.PriorID(len(out) + 1), Heading: lead.Heading, Text: lead.Text})
			}
			heading := strings.TrimSpace(strings.TrimPrefix(line, "## "))
			if strings.EqualFold(heading, "Sources") || strings.EqualFold(heading, "Prior research used") {
				cur = nil
				continue
			}
			out = append(out, research.PriorSection{ID: research.PriorID(len(out) + 1), Heading: heading})
			cur = &out[len(out)-1]
			continue
		}
		if cur == lead && strings.HasPrefix(line, "# ") {
			continue // the report's title
		}
		if cur != nil {
			cur.Text = strings.TrimSpace(cur.Text + "\n" + line)
		}
	}
	if cur == lead && lead.Text != "" {
		out = append(out, research.PriorSection{ID: research.PriorID(1), Heading: lead.Heading, Text: lead.Text})
	}
	return out
}

// dropRepeats leaves out the actions that repeat a parent run's queries
// or pages.
func dropRepeats(actions []research.ActionSpec, queries, urls []string) []research.ActionSpec {
	done := map[string]bool{}
	for _, q := range queries {
		done[research.ActionSpec{Kind: research.ActionSearch, Query: q}.Key()] = true
	}
	for _, u := range urls {
		done[research.ActionSpec{Kind: research.ActionNavigate, URL: u}.Key()] = true
	}
	var out []research.ActionSpec
	for _, a := range actions {
		if !done[a.Key()] {
			out = append(out, a)
		}
	}
	return out
}
