// Package engine defines what the pipeline asks of an engine — plan,
// heartbeat, synthesis, chat — and the requests and answers of each call.
// Implementations live in engine/extractive and engine/llm.
package engine

import (
	"context"
	"time"

	"github.com/quarryhq/quarry/research"
)

// Engine answers the LLM-shaped questions of the pipeline. Implementations:
// the built-in extractive engine (no network) and the OpenAI-compatible and
// Anthropic engines. An engine never writes run state; it returns answers and
// the pipeline decides what to keep.
type Engine interface {
	// Name is the engine's configured name: extractive, openai or anthropic.
	Name() string
	// Plan turns a message into a research.TaskSpec (route, criteria, sections, actions).
	Plan(ctx context.Context, req PlanRequest) (research.TaskSpec, Usage, error)
	// Heartbeat decides after a gather batch whether the evidence suffices.
	Heartbeat(ctx context.Context, req HeartbeatRequest) (HeartbeatDecision, Usage, error)
	// Synthesize writes the report Markdown (without the Sources list),
	// calling stream with text as it is produced.
	Synthesize(ctx context.Context, req SynthesisRequest, stream func(delta string)) (string, Usage, error)
	// Chat answers a message directly, without research.
	Chat(ctx context.Context, req ChatRequest, stream func(delta string)) (string, Usage, error)
}

// EngineLabel names an engine for a report's metadata: its name, and its
// model when it has one ("openai (gpt-4o-mini)").
func EngineLabel(e Engine) string {
	if e == nil {
		return ""
	}
	label := e.Name()
	if m, ok := e.(interface{ Model() string }); ok && m.Model() != "" {
		label += " (" + m.Model() + ")"
	}
	return label
}

// Usage is what one engine call cost.
type Usage struct {
	Calls        int     `json:"calls"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	USD          float64 `json:"usd"`
}

// Add returns the sum of two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{Calls: u.Calls + v.Calls, InputTokens: u.InputTokens + v.InputTokens,
		OutputTokens: u.OutputTokens + v.OutputTokens, USD: u.USD + v.USD}
}

// PlanRequest is the input of intake.
type PlanRequest struct {
	Question string
	Depth    string
	Budget   research.Budget
	Engines  []string // search engines available, in preference order
	Now      time.Time
	// Parent is the prior run of a follow-up, if any.
	Parent *ParentContext
	// Clarification is the user's answer to clarifying questions, if any.
	Clarification string
	// Preliminary are the top results (titles and snippets) of a quick
	// search of the question, so the plan names the right entities and
	// terms; they are not evidence.
	Preliminary []research.Hit
}

// ParentContext is what a follow-up run knows of its parent.
type ParentContext struct {
	RunID    string
	Goal     string
	Queries  []string
	URLs     []string
	Sections []research.PriorSection // cited as [P1]…[Pn]
}

// HeartbeatRequest is the state after a gather batch.
type HeartbeatRequest struct {
	Spec    research.TaskSpec
	Sources []research.Source
	Done    []research.ActionSpec // actions already run (never repeat them)
	Batch   int                   // batches run so far
	Budget  research.Budget
	MaxNew  int // at most this many new actions (≤ 3)
	Engines []string
	// Coverage is, per criterion of Spec, the sources with evidence for
	// it and their key sentences (extractive.Coverage, computed once by
	// the pipeline); an empty Coverage lets the engine work it out.
	Coverage []research.CriterionCoverage
	// Elapsed is the wall time the run has spent gathering.
	Elapsed time.Duration
	// Unread are results the run's searches listed but did not read,
	// newest last: a page further down a results page may be the one
	// that answers what is missing.
	Unread []research.Hit
	// Empty are the queries already run whose results page listed
	// nothing: the engine in use wants shorter queries.
	Empty []string

	// Clarification is what the user said the question means, if anything:
	// new actions should follow it.
	Clarification string
}

// HeartbeatDecision is the answer of a heartbeat.
type HeartbeatDecision struct {
	Done    bool                  `json:"done"`
	Reason  string                `json:"reason"`
	Actions []research.ActionSpec `json:"actions,omitempty"`
}

// SynthesisRequest asks for the report.
type SynthesisRequest struct {
	Question      string
	Spec          research.TaskSpec
	Sources       []research.Source
	Prior         []research.PriorSection
	Clarification string
	// Feedback lists what verification found wrong in the previous draft,
	// on a repair pass; empty on the first pass.
	Feedback []string
	Previous string
	Budget   research.Budget
}

// ChatRequest is a message to answer directly.
type ChatRequest struct {
	Message string
	Sources []research.Source // pages the message named (browse route), may be empty
	// Prior are the sections of the earlier reports of a follow-up's
	// chain, oldest first, labelled P1…Pn across the chain.
	Prior []research.PriorSection
}
