package pipeline

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// synthesize writes a draft of the report (or, for a chat message, the
// answer), streaming it to viewers as it is written.
func (r *Runner) synthesize(ctx context.Context, run *db.Run, st *State) error {
	if err := r.commitStatus(ctx, run, research.StatusSynthesizing, StageSynthesize); err != nil {
		return err
	}
	budget := st.Spec.Budget
	if err := r.checkSpend(st, budget); err != nil {
		if len(st.Drafts) > 0 {
			st.StopReason = err.Error()
			st.Stage = StagePublish
			return r.commit(ctx, run, st, db.RunUpdate{StopReason: &st.StopReason})
		}
		return &RunError{Msg: err.Error()}
	}
	sources, err := r.engineSources(ctx, run.ID)
	if err != nil {
		return err
	}
	pass := st.Pass + 1
	stream := newDeltaStream(ctx, r, run, pass)
	var written string
	var usage engine.Usage
	if st.Spec.Route == research.RouteChat {
		written, usage, err = r.opt.Engine.Chat(ctx, engine.ChatRequest{Message: run.Question, Sources: sources, Prior: st.Prior}, stream.write)
	} else {
		var prev string
		if len(st.Drafts) > 0 {
			prev = st.Drafts[len(st.Drafts)-1].Markdown
		}
		written, usage, err = r.opt.Engine.Synthesize(ctx, engine.SynthesisRequest{Question: run.Question, Spec: *st.Spec, Sources: sources,
			Prior: st.Prior, Clarification: st.Clarification, Feedback: st.Feedback, Previous: prev, Budget: budget}, stream.write)
	}
	stream.close()
	spent := SpendSynthesize
	switch {
	case st.Spec.Route == research.RouteChat:
		spent = SpendChat
	case pass > 1:
		spent = SpendRepair
	}
	st.addUsage(spent, usage)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if len(st.Drafts) > 0 { // a repair failed: publish the best so far
			st.Stage = StagePublish
			st.StopReason = "repair failed: " + text.Clip(err.Error(), 200)
			return r.commit(ctx, run, st, db.RunUpdate{Spend: mustJSON(st.Spend()), StopReason: &st.StopReason})
		}
		return &RunError{Msg: "writing the report failed: " + text.Clip(err.Error(), 300)}
	}
	if strings.TrimSpace(written) == "" {
		return &RunError{Msg: "the engine wrote an empty report"}
	}
	if written, err = r.withChanges(ctx, run, sources, written); err != nil {
		return err
	}
	st.Pass = pass
	st.Drafts = append(st.Drafts, Draft{Pass: pass, Markdown: strings.TrimSpace(written)})
	st.Feedback = nil
	st.Stage = StageVerify
	if st.Spec.Route == research.RouteChat {
		st.Stage = StagePublish
	}
	return r.commit(ctx, run, st, db.RunUpdate{Spend: mustJSON(st.Spend())},
		event{research.EventStageCompleted, research.StagePayload{Stage: StageSynthesize, Status: research.StatusSynthesizing}})
}

// deltaStream batches streamed text into synthesis_delta events, at most a
// few per second, so viewers see the report grow without one row per token.
type deltaStream struct {
	ctx  context.Context
	r    *Runner
	run  *db.Run
	pass int

	mu   sync.Mutex
	buf  strings.Builder
	last time.Time
}

func newDeltaStream(ctx context.Context, r *Runner, run *db.Run, pass int) *deltaStream {
	return &deltaStream{ctx: ctx, r: r, run: run, pass: pass, last: time.Now()}
}

func (d *deltaStream) write(text string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.buf.WriteString(text)
	if time.Since(d.last) >= 150*time.Millisecond || d.buf.Len() > 2000 {
		d.flushLocked()
	}
}

func (d *deltaStream) flushLocked() {
	if d.buf.Len() == 0 {
		return
	}
	text := d.buf.String()
	d.buf.Reset()
	d.last = time.Now()
	// Streaming is progress, not state: a failed append is logged, not fatal.
	if err := d.r.emit(d.ctx, d.run, event{research.EventSynthesisDelta, research.DeltaPayload{Pass: d.pass, Text: text}}); err != nil && d.ctx.Err() == nil {
		d.r.log.Warn("stream report text", "run_id", d.run.ID, "err", err)
	}
}

func (d *deltaStream) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.flushLocked()
}
