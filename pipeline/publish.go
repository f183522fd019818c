package pipeline

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

// publish picks the best-scoring draft, marks any sentence verification
// could not support, renders it, stores the report version (Markdown,
// HTML and the report as data), mints the share link and completes the
// run.
func (r *Runner) publish(ctx context.Context, run *db.Run, st *State) error {
	if len(st.Drafts) == 0 {
		return &RunError{Msg: "nothing to publish"}
	}
	best := st.Drafts[0]
	for _, d := range st.Drafts[1:] {
		if d.Score > best.Score {
			best = d
		}
	}
	sources, err := r.engineSources(ctx, run.ID)
	if err != nil {
		return err
	}
	if err := r.addFoundVia(ctx, run.ID, sources); err != nil {
		return err
	}
	// The report is parsed once; verification (with the run's thresholds)
	// fills in its verdicts, rendering numbers its links, and the value is
	// stored beside the HTML for the report page to read.
	doc := report.Parse(best.Markdown)
	warning := ""
	var ver research.VerificationPayload
	if best.Verification != nil {
		v := doc.Verify(sources, st.Prior, st.Spec.Criteria, r.opt.Verify)
		ver = verificationPayload(best.Pass, v)
		warning = v.Warning
		if !v.Passed && warning == "" {
			warning = "This report did not pass every citation check; flagged sentences are marked."
		}
	}
	// What the report may cite: sources and prior sections, with the text
	// each passage's context is cut from.
	known, texts := map[string]bool{}, map[string]string{}
	for _, s := range sources {
		known[s.ID], texts[s.ID] = true, s.Text
	}
	cited := doc.Cited()
	for _, p := range st.Prior {
		known[p.ID], texts[p.ID] = true, p.Text
		if slices.Contains(cited, p.ID) {
			doc.Prior = append(doc.Prior, report.Prior{ID: p.ID, Heading: p.Heading})
		}
	}
	doc.AddContext(texts)
	htmlOut := doc.Render(report.RenderOptions{Known: known, Evidence: true})
	md := doc.Markdown()
	if len(sources) > 0 {
		md += "\n\n" + report.SourcesMarkdown(sources)
	}
	if st.StopReason != "" {
		warning = strings.TrimSpace(warning + " Gathering stopped early: " + st.StopReason + ".")
	}
	token, err := db.NewShareToken()
	if err != nil {
		return err
	}
	shareURL := r.opt.BaseURL + "/r/" + token
	brief := make([]research.Source, len(sources))
	for i, s := range sources {
		s.Text = ""
		s.Findings = nil
		brief[i] = s
	}
	st.Stage = StageDone
	status := research.StatusDone
	var expires *time.Time
	if r.opt.ShareTTL > 0 {
		t := time.Now().Add(r.opt.ShareTTL)
		expires = &t
	}
	label := engine.EngineLabel(r.opt.Engine)
	return r.opt.Store.Transition(ctx, run.ID, r.opt.Owner, db.Step{
		Stage: st.Stage, State: st,
		Update: db.RunUpdate{Status: &status, Spend: mustJSON(st.Spend())},
		Apply: func(ctx context.Context, tx *db.Tx) error {
			if _, err := tx.AddReport(ctx, db.Report{RunID: run.ID, Markdown: md, HTML: htmlOut,
				Verification: mustJSON(ver), Citations: mustJSON(doc), Published: true, Engine: label}); err != nil {
				return err
			}
			return tx.SetShareToken(ctx, run.ID, token, expires)
		},
		Events: []db.NewEvent{{Type: research.EventRunCompleted, Payload: research.CompletedPayload{Status: status, Markdown: md, HTML: htmlOut,
			ShareURL: shareURL, Verification: ver, Sources: brief, Warning: warning, Engine: label}}},
	})
}
