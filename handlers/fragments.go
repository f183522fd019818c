package handlers

import (
	"bytes"
	"context"

	"github.com/a-h/templ"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/handlers/runview"
	"github.com/quarryhq/quarry/web"
)

// fragmenter turns a run's events into the HTML fragments the run page
// swaps in (hx-swap-oob), for one SSE connection. Its view starts as the
// page's (the stored events before the first one it renders, folded) and
// follows every event through runview.Apply, the fold the page load uses;
// each event sends the blocks it changed, rendered from that view.
type fragmenter struct {
	s        *Server
	page     web.Page
	run      *db.Run
	view     web.RunView
	seeded   bool
	restrict func(*web.RunView) // hides what the viewer may not do
}

func newFragmenter(s *Server, p web.Page, run *db.Run, restrict func(*web.RunView)) *fragmenter {
	return &fragmenter{s: s, page: p, run: run, restrict: restrict}
}

// render returns the fragments for ev; nil when the page shows nothing of it.
func (f *fragmenter) render(ctx context.Context, ev db.Event) ([]byte, error) {
	if !f.seeded {
		// The page shows the events before this one (streams resume
		// after the last event sent, and seqs have no gaps).
		f.view = f.s.baseView(f.run)
		if _, err := f.s.foldEvents(ctx, &f.view, f.run.ID, ev.Seq-1); err != nil {
			return nil, err
		}
		f.restrict(&f.view)
		f.seeded = true
	}
	c := runview.Apply(&f.view, ev)
	if c.Has(runview.Run) {
		return f.final(ctx, c)
	}
	return renderParts(ctx, f.blocks(c))
}

// blocks are the components of the blocks c changed, swapped in out of
// band: a block shown whole replaces the page's, an entry added to a list
// is appended to it.
func (f *fragmenter) blocks(c runview.Change) []templ.Component {
	v := f.view
	var parts []templ.Component
	if c.Has(runview.Status) {
		parts = append(parts, web.StatusBlock(v, true), web.RunControls(f.page, v, true))
	}
	if c.Has(runview.Plan) {
		parts = append(parts, web.PlanBlock(f.page, v, true))
	}
	if c.Has(runview.Budget) {
		parts = append(parts, web.BudgetBlock(v.Budget, true))
	}
	if c.Has(runview.Action) {
		if a := v.Actions[c.Action]; c.NewAction {
			parts = append(parts, web.ActionAppend(a))
		} else {
			parts = append(parts, web.ActionItem(a, "replace"))
		}
	}
	if c.Has(runview.Preliminary) {
		parts = append(parts, web.PreliminaryBlock(v.Preliminary, true))
	}
	if c.Has(runview.Decision) {
		parts = append(parts, web.DecisionItem(v.Decisions[len(v.Decisions)-1], true))
	}
	if c.Has(runview.Draft) {
		parts = append(parts, web.ReportBlock(v, true))
	}
	if c.Has(runview.DraftText) {
		parts = append(parts, web.DraftDelta(c.Delta))
	}
	if c.Has(runview.Pass) {
		parts = append(parts, web.PassAppend(v.Passes[len(v.Passes)-1]))
	}
	return parts
}

// final renders a run's last event: the whole run as a reload would show
// it (the report in place when done), and an empty stream holder, which
// closes the page's stream. The status is the event's, so the page follows
// the events even if the row were to say otherwise.
func (f *fragmenter) final(ctx context.Context, c runview.Change) ([]byte, error) {
	run, err := f.s.store.GetRun(ctx, f.run.ID)
	if err != nil {
		return nil, err
	}
	v, err := f.s.runView(ctx, run)
	if err != nil {
		return nil, err
	}
	if c.Has(runview.Status) && f.view.Status != v.Status {
		v.Status, v.Error, v.StopReason = f.view.Status, f.view.Error, ""
	}
	if c.Completed != nil && v.Report == nil {
		v.Report = f.s.reportFromEvent(run, *c.Completed)
	}
	f.restrict(&v)
	return renderParts(ctx, []templ.Component{web.LiveConnection(v, true), web.RunArticle(f.page, v, true)})
}

func renderParts(ctx context.Context, parts []templ.Component) ([]byte, error) {
	if len(parts) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	for _, c := range parts {
		if err := c.Render(ctx, &buf); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}
