package pipeline

import (
	"context"
	"log/slog"
	"time"
)

// Metrics is told what the runner does, for /metrics. Every method must be
// cheap and safe for concurrent use; Options.Metrics may be nil.
type Metrics interface {
	// StageDone reports one execution of a stage and how long it took;
	// err is nil when it completed.
	StageDone(stage string, d time.Duration, err error)
	// ActionDone reports an action's outcome: kind (search, navigate) and
	// status (success, error).
	ActionDone(kind, status string, d time.Duration)
}

func (r *Runner) stageDone(stage string, d time.Duration, err error) {
	if r.opt.Metrics != nil {
		r.opt.Metrics.StageDone(stage, d, err)
	}
}

func (r *Runner) actionDone(kind, status string, d time.Duration) {
	if r.opt.Metrics != nil {
		r.opt.Metrics.ActionDone(kind, status, d)
	}
}

type runIDKey struct{}

// WithRunID returns ctx carrying a run's id, which LogHandler adds to
// every line logged with that context, whichever package logs it.
func WithRunID(ctx context.Context, runID string) context.Context {
	return context.WithValue(ctx, runIDKey{}, runID)
}

// RunIDFrom returns the run id WithRunID put in ctx, or "".
func RunIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(runIDKey{}).(string)
	return id
}

// LogHandler wraps a slog.Handler so that a record logged with a context
// from WithRunID carries run_id (unless it has one already): the engine's
// and the browser's lines about a run are then found with the run's own.
type LogHandler struct {
	slog.Handler
	hasRunID bool // a run_id attribute was added with WithAttrs
}

// NewLogHandler returns h adding run ids from the context.
func NewLogHandler(h slog.Handler) *LogHandler { return &LogHandler{Handler: h} }

// Handle implements slog.Handler.
func (h *LogHandler) Handle(ctx context.Context, rec slog.Record) error {
	if id := RunIDFrom(ctx); id != "" && !h.hasRunID {
		has := false
		rec.Attrs(func(a slog.Attr) bool {
			has = a.Key == "run_id"
			return !has
		})
		if !has {
			rec = rec.Clone()
			rec.AddAttrs(slog.String("run_id", id))
		}
	}
	return h.Handler.Handle(ctx, rec)
}

// WithAttrs implements slog.Handler.
func (h *LogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	has := h.hasRunID
	for _, a := range attrs {
		has = has || a.Key == "run_id"
	}
	return &LogHandler{Handler: h.Handler.WithAttrs(attrs), hasRunID: has}
}

// WithGroup implements slog.Handler.
func (h *LogHandler) WithGroup(name string) slog.Handler {
	return &LogHandler{Handler: h.Handler.WithGroup(name), hasRunID: h.hasRunID}
}
