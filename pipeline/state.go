package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/report"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
)

// Stages of the loop, in order. The checkpoint names the next stage to run.
const (
	StageIntake     = "intake"
	StageReview     = "review"
	StageGather     = "gather"
	StageSynthesize = "synthesize"
	StageVerify     = "verify"
	StagePublish    = "publish"
	StageDone       = "done"
)

// State is the checkpointed state of a run: everything a worker on any
// replica needs to resume it after a crash. Code owns it; engines only see
// the parts they are asked about.
type State struct {
	Stage         string              `json:"stage"`
	Spec          *research.TaskSpec  `json:"spec,omitempty"`
	Review        research.ReviewMode `json:"review"` // always, never or auto (old checkpoints: true/false)
	Approved      bool                `json:"approved"`
	Clarification string              `json:"clarification,omitempty"`
	// ReviewReason says why the run paused for review.
	ReviewReason string `json:"review_reason,omitempty"`
	// Keep is what a person edited of the plan (goal, criteria, sections)
	// before a re-plan: the new plan keeps it.
	Keep *research.TaskSpec `json:"keep,omitempty"`
	// Gates are the site agent's actions waiting for the user's approval
	// (the run paused in gathering), or approved and not yet run: one per
	// action of the paused batch that stopped at the gate.
	Gates    []Gate                `json:"gates,omitempty"`
	Engines  []string              `json:"engines,omitempty"`
	Batch    int                   `json:"batch"`             // batches completed
	Pending  []research.ActionSpec `json:"pending,omitempty"` // actions of the next batch(es)
	Done     []research.ActionSpec `json:"done,omitempty"`    // actions already run
	Unread   []research.Hit        `json:"unread,omitempty"`  // results listed but not read, at most research.MaxUnread
	Empty    []string              `json:"empty,omitempty"`   // queries whose results page listed nothing
	GatherMS int64                 `json:"gather_ms"`         // wall time spent gathering, summed over resumes
	Usage    engine.Usage          `json:"usage"`
	// StageUsage is Usage by stage (SpendPlan, SpendHeartbeat, …).
	StageUsage map[string]engine.Usage `json:"stage_usage,omitempty"`
	StopReason string                  `json:"stop_reason,omitempty"`
	Pass       int                     `json:"pass"` // synthesis passes done
	Drafts     []Draft                 `json:"drafts,omitempty"`
	Feedback   []string                `json:"feedback,omitempty"`
	SkipPrelim bool                    `json:"skip_prelim,omitempty"`
	Answer     string                  `json:"answer,omitempty"`
	ParentURLs []string                `json:"parent_urls,omitempty"`
	Prior      []research.PriorSection `json:"prior,omitempty"`
	// Preliminary are the preliminary search's results the planner saw
	// (empty, not nil, once tried).
	Preliminary []research.Hit `json:"preliminary"`
	// Timings sums the wall time of each stage in milliseconds, across
	// resumes (the publish stage's own time is not included).
	Timings map[string]int64 `json:"timings,omitempty"`

	// AgentCounted is, per action, the site agent's model spend already
	// counted in Usage (the action's stored spend may grow on a re-run).
	AgentCounted map[int]engine.Usage `json:"agent_counted,omitempty"`
}

// DecodeState reads the state a checkpoint saved. It is the one reader of
// checkpoints: the runner resuming a run, plan review, the report page and
// the command line all go through it.
func DecodeState(raw []byte) (*State, error) {
	var st State
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("read checkpoint: %w", err)
	}
	return &st, nil
}

// LatestState returns the state of the run's newest checkpoint, or
// db.ErrNotFound when the run has none yet.
func LatestState(ctx context.Context, store *db.Store, runID string) (*State, error) {
	cp, err := store.LatestCheckpoint(ctx, runID)
	if err != nil {
		return nil, err
	}
	st, err := DecodeState(cp.State)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", runID, err)
	}
	return st, nil
}

// Draft is one synthesized version of the report with its verification.
type Draft struct {
	Pass         int                  `json:"pass"`
	Markdown     string               `json:"markdown"`
	Verification *report.Verification `json:"verification,omitempty"`
	Score        float64              `json:"score"`
}

// Options of a run as the user asked for it (stored in runs.options).
type RunOptions struct {
	Review  research.ReviewMode `json:"review"`
	Engines []string            `json:"engines,omitempty"`
}

// elapsed returns the gather wall time spent, as a duration.
func (s *State) elapsed() time.Duration { return time.Duration(s.GatherMS) * time.Millisecond }

// seen reports whether an action with the same key already ran or is queued.
func (s *State) seen(a research.ActionSpec) bool {
	k := a.Key()
	for _, d := range s.Done {
		if d.Key() == k {
			return true
		}
	}
	for _, p := range s.Pending {
		if p.Key() == k {
			return true
		}
	}
	return false
}
