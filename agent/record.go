package agent

import (
	"context"
	"fmt"
	"strings"

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

// Describe is the step in words for a reader of the report: "typed
// "rainfall" into searchbox Search", "pressed Enter".
func (s StepRecord) Describe() string {
	a := s.Action
	on := s.ElementName
	if on == "" && a.Element > 0 {
		on = fmt.Sprintf("element %d", a.Element)
	}
	switch a.Kind {
	case Navigate:
		return "opened " + a.URL
	case Back:
		return "went back"
	case Type:
		return fmt.Sprintf("typed %q into %s", a.Text, on)
	case Select:
		return fmt.Sprintf("chose %q in %s", a.Text, on)
	case Press:
		return "pressed " + a.Key
	case Click, Check, Uncheck, Hover:
		return fmt.Sprintf("%sed %s", strings.TrimSuffix(string(a.Kind), "e"), on)
	}
	return a.String()
}

// FoundVia describes the successful steps of a run, in order and without
// a step repeated right after itself, for the report's sources list.
func FoundVia(steps []StepRecord) string {
	var parts []string
	for _, s := range steps {
		if s.Status != StepSuccess || s.Action.Kind == Finish || s.Action.Kind == Extract {
			continue
		}
		// A resumed run repeats what the page lost (the typed query).
		if d := s.Describe(); len(parts) == 0 || parts[len(parts)-1] != d {
			parts = append(parts, d)
		}
	}
	return strings.Join(parts, ", ")
}
