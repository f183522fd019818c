package agent

import (
	"context"

	"github.com/quarryhq/quarry/engine"
)

type recorderKey struct{}

// WithRecorder returns ctx carrying rec, for runs started below it that
// have no Options.Recorder of their own (a site: search inside a research
// action records its steps on that action).
func WithRecorder(ctx context.Context, rec Recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, rec)
}

func recorderFrom(ctx context.Context) Recorder {
	rec, _ := ctx.Value(recorderKey{}).(Recorder)
	return rec
}

type resumeKey struct{}

type resumeState struct {
	prior    []StepRecord
	approved bool
}

// WithResume returns ctx carrying the steps an interrupted run recorded,
// for a site search started below it: it resumes from them (never
// repeating a side-effecting step it may have taken), and approved lets
// the step it paused on through the gate once.
func WithResume(ctx context.Context, prior []StepRecord, approved bool) context.Context {
	if len(prior) == 0 {
		return ctx
	}
	return context.WithValue(ctx, resumeKey{}, resumeState{prior: prior, approved: approved})
}

func resumeFrom(ctx context.Context) (resumeState, bool) {
	rs, ok := ctx.Value(resumeKey{}).(resumeState)
	return rs, ok
}

// Meter counts what a run's model calls cost, for the spend of the
// research run a site search belongs to, and says when its budget is
// spent.
type Meter interface {
	// AddUsage counts one model call.
	AddUsage(u engine.Usage)
	// Budget returns an error once no more may be spent.
	Budget() error
}

type meterKey struct{}

// WithMeter returns ctx carrying m: model planners of runs started below
// it count their calls on m, and a run whose Options.Budget is nil stops
// when m.Budget does.
func WithMeter(ctx context.Context, m Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

func meterFrom(ctx context.Context) Meter {
	m, _ := ctx.Value(meterKey{}).(Meter)
	return m
}
