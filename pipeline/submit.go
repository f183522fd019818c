package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/research"
)

// MaxQuestionRunes bounds a question's length.
const MaxQuestionRunes = 4000

// ValidationError is bad input from a person: shown to them, nothing stored.
type ValidationError struct {
	Field string
	Msg   string
}

func (e *ValidationError) Error() string { return e.Field + ": " + e.Msg }

// Request is a question to research.
type Request struct {
	Question string   `json:"question"`
	Depth    string   `json:"depth"`
	Review   bool     `json:"review"`
	Engines  []string `json:"engines,omitempty"`
	ParentID string   `json:"parent_id,omitempty"`
	Owner    string   `json:"-"`
}

// Normalize trims the request and checks it, returning a ValidationError
// that names the field.
func (r *Runner) Normalize(req *Request) error {
	req.Question = strings.TrimSpace(strings.ReplaceAll(req.Question, "\x00", ""))
	if req.Question == "" {
		return &ValidationError{"question", "please enter a question"}
	}
	if !utf8.ValidString(req.Question) {
		return &ValidationError{"question", "the question is not valid UTF-8 text"}
	}
	if n := utf8.RuneCountInString(req.Question); n > MaxQuestionRunes {
		return &ValidationError{"question", fmt.Sprintf("the question is %d characters; the limit is %d", n, MaxQuestionRunes)}
	}
	req.Depth = strings.TrimSpace(strings.ToLower(req.Depth))
	if req.Depth == "" {
		req.Depth = research.DepthStandard
	}
	if _, ok := r.opt.Presets[req.Depth]; !ok {
		return &ValidationError{"depth", fmt.Sprintf("unknown depth %q (accepted: quick, standard, deep)", req.Depth)}
	}
	for _, e := range req.Engines {
		if !engineConfigured(r.opt.Engines, e) {
			return &ValidationError{"engines", fmt.Sprintf("search engine %q is not configured (configured: %s)", e, strings.Join(r.opt.Engines, ", "))}
		}
	}
	return nil
}

// Submit validates and stores a queued run, then wakes a worker.
func (r *Runner) Submit(ctx context.Context, req Request) (*db.Run, error) {
	if err := r.Normalize(&req); err != nil {
		return nil, err
	}
	if req.ParentID != "" {
		parent, err := r.opt.Store.GetRun(ctx, req.ParentID)
		if errors.Is(err, db.ErrNotFound) {
			return nil, &ValidationError{"parent_id", "no such run"}
		}
		if err != nil {
			return nil, err
		}
		req.ParentID = parent.ID
	}
	budget := r.opt.Presets[req.Depth]
	if r.opt.RunBudgetUSD > 0 {
		budget.MaxUSD = r.opt.RunBudgetUSD
	}
	run, err := r.opt.Store.CreateRun(ctx, db.NewRun{
		Question:    req.Question,
		Depth:       req.Depth,
		Options:     mustJSON(RunOptions{Review: req.Review, Engines: req.Engines}),
		Budget:      mustJSON(budget),
		ParentRunID: req.ParentID,
		Owner:       req.Owner,
	})
	if err != nil {
		return nil, err
	}
	r.Wake()
	return run, nil
}

// Approval is a person's answer to a plan awaiting review.
type Approval struct {
	Spec          *research.TaskSpec `json:"spec,omitempty"`          // edited plan, optional
	Clarification string             `json:"clarification,omitempty"` // answers to clarifying questions
	Reply         string             `json:"reply,omitempty"`         // free text, parsed for intent
}

// ErrNotAwaiting is returned when approving a run that is not paused.
var ErrNotAwaiting = errors.New("the run is not awaiting approval")

// Decision is what an approval did.
type Decision struct {
	Intent   string `json:"intent"` // approve, skip, cancel, new_question
	NewRunID string `json:"new_run_id,omitempty"`
}

// Approve resumes a run paused for plan review. The run row is locked, so
// concurrent approvals apply once; the second gets ErrNotAwaiting.
func (r *Runner) Approve(ctx context.Context, runID string, a Approval) (Decision, error) {
	intent := IntentApprove
	if strings.TrimSpace(a.Reply) != "" {
		intent = ParseReply(a.Reply)
	}
	if intent == IntentCancel {
		return Decision{Intent: intent}, r.Cancel(ctx, runID)
	}
	run, err := r.opt.Store.GetRun(ctx, runID)
	if err != nil {
		return Decision{}, err
	}
	// Checked again under the run's lock when the answer is written, so of
	// concurrent approvals only the first applies.
	awaiting := func(cur *db.Run) error {
		if cur.Status != research.StatusAwaitingApproval {
			return ErrNotAwaiting
		}
		return nil
	}
	if err := awaiting(run); err != nil {
		return Decision{}, err
	}
	if intent == IntentNewQuestion {
		status := research.StatusCancelled
		msg := "replaced by a new question"
		err := r.opt.Store.Transition(ctx, runID, "", db.Step{
			Check:  awaiting,
			Update: db.RunUpdate{Status: &status, Error: &msg},
			Events: []db.NewEvent{{Type: research.EventRunCancelled, Payload: research.FailedPayload{Status: status, Error: msg}}},
		})
		if err != nil {
			return Decision{}, err
		}
		dec := Decision{Intent: intent}
		newQuestion, err := r.Submit(ctx, Request{Question: a.Reply, Depth: run.Depth, Owner: run.Owner})
		if err != nil {
			return dec, err
		}
		dec.NewRunID = newQuestion.ID
		return dec, nil
	}
	st, err := LatestState(ctx, r.opt.Store, runID)
	if err != nil {
		return Decision{}, err
	}
	if a.Spec != nil {
		spec, err := SanitizeSpec(*a.Spec, st.Spec, st.Engines)
		if err != nil {
			return Decision{}, err
		}
		st.Spec = &spec
	}
	if c := strings.TrimSpace(a.Clarification); c != "" {
		if len(c) > MaxQuestionRunes {
			return Decision{}, &ValidationError{"clarification", "too long"}
		}
		st.Clarification = c
	}
	st.Approved = true
	st.SkipPrelim = intent == IntentSkip
	st.Stage = StageGather
	st.Pending = st.Spec.Actions
	status := research.StatusGathering
	if st.SkipPrelim {
		st.Stage = StageSynthesize
		st.Pending = nil
		status = research.StatusSynthesizing
	}
	err = r.opt.Store.Transition(ctx, runID, "", db.Step{
		Check:  awaiting,
		Stage:  st.Stage,
		State:  st,
		Update: db.RunUpdate{Status: &status, TaskSpec: mustJSON(st.Spec)},
		Events: []db.NewEvent{{Type: research.EventPlan, Payload: research.PlanPayload{Status: status, Spec: *st.Spec}}},
	})
	if err != nil {
		return Decision{}, err
	}
	r.Wake()
	return Decision{Intent: intent}, nil
}

// ErrFinished is returned when cancelling a run that already ended.
var ErrFinished = errors.New("the run has already finished")

// Cancel stops a run: it is marked cancelled at once (which also drops its
// lease), and the worker executing it, on any replica, notices within about
// a second and stops, releasing its browser tabs.
func (r *Runner) Cancel(ctx context.Context, runID string) error {
	status := research.StatusCancelled
	msg := "cancelled by user"
	err := r.opt.Store.Transition(ctx, runID, "", db.Step{
		Check: func(cur *db.Run) error {
			if cur.Status.Terminal() {
				return ErrFinished
			}
			return nil
		},
		Update: db.RunUpdate{Status: &status, StopReason: &msg},
		Apply: func(ctx context.Context, tx *db.Tx) error {
			return tx.StopOpenActions(ctx, runID, "stopped: the run was cancelled")
		},
		Events: []db.NewEvent{{Type: research.EventRunCancelled, Payload: research.FailedPayload{Status: status, Error: msg}}},
	})
	if err != nil {
		return err
	}
	r.mu.Lock()
	if cancel := r.active[runID]; cancel != nil {
		cancel()
	}
	r.mu.Unlock()
	return nil
}

// Reply intents for a free-text answer to a plan awaiting review.
const (
	IntentApprove     = "approve"
	IntentSkip        = "skip"
	IntentCancel      = "cancel"
	IntentNewQuestion = "new_question"
)

// ParseReply reads the intent of a free-text reply to a plan: approve
// ("yes", "go ahead"), skip the preliminary search ("skip", "just write"),
// cancel ("stop", "never mind"), or anything else that reads as a question:
// a different question, which becomes a new run.
func ParseReply(reply string) string {
	s := strings.ToLower(strings.TrimSpace(reply))
	s = strings.Trim(s, " .!")
	has := func(words ...string) bool {
		for _, w := range words {
			if s == w || strings.HasPrefix(s, w+" ") || strings.HasPrefix(s, w+",") || strings.Contains(s, " "+w+" ") || strings.HasSuffix(s, " "+w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("cancel", "stop", "abort", "never mind", "nevermind", "forget it", "don't", "no"):
		return IntentCancel
	case has("skip", "skip search", "just write", "no search", "without searching"):
		return IntentSkip
	case has("yes", "ok", "okay", "approve", "approved", "go", "go ahead", "looks good", "lgtm", "sure", "proceed", "continue", "start", "y", "do it", "sounds good"):
		return IntentApprove
	}
	if strings.HasSuffix(strings.TrimSpace(reply), "?") || len(strings.Fields(s)) >= 4 {
		return IntentNewQuestion
	}
	return IntentApprove
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
