package agent

import "context"

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
