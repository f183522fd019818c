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
	Question string              `json:"question"`
	Depth    string              `json:"depth"`
	Review   research.ReviewMode `json:"review"` // always, never (default) or auto
	Engines  []string            `json:"engines,omitempty"`
	ParentID string              `json:"parent_id,omitempty"`
	Owner    string              `json:"-"`
	// Admission, when set, refuses the run past its owner's caps
	// (*db.AdmissionError), checked as it is stored.
	Admission *db.Admission `json:"-"`
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
	if req.Review == "" {
		req.Review = research.ReviewNever
	}
	if _, err := research.ParseReviewMode(string(req.Review)); err != nil {
		return &ValidationError{"review", err.Error()}
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
	nr, err := r.NewRun(req)
	if err != nil {
		return nil, err
	}
	run, err := r.opt.Store.CreateRun(ctx, nr)
	if err != nil {
		return nil, err
	}
	r.Wake()
	return run, nil
}

// NewRun validates req and returns the run to store for it, with the
// depth's budget and the run options, without storing it (a task's
// scheduler stores it with its slot).
func (r *Runner) NewRun(req Request) (db.NewRun, error) {
	if err := r.Normalize(&req); err != nil {
		return db.NewRun{}, err
	}
	budget := r.opt.Presets[req.Depth]
	if r.opt.RunBudgetUSD > 0 && budget.MaxUSD == 0 {
		budget.MaxUSD = r.opt.RunBudgetUSD
	}
	return db.NewRun{
		Question:    req.Question,
		Depth:       req.Depth,
		Options:     mustJSON(RunOptions{Review: req.Review, Engines: req.Engines}),
		Budget:      mustJSON(budget),
		ParentRunID: req.ParentID,
		Owner:       req.Owner,
		Admission:   req.Admission,
	}, nil
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

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
