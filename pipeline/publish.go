package pipeline

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
)

// publish picks the best-scoring draft, marks any sentence verification
// could not support, renders it, stores the report version, mints the
// share link and completes the run.
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
	body := best.Markdown
	warning := ""
	var ver research.VerificationPayload
	var checks any = []SentenceCheck{}
	if best.Verification != nil {
		v := best.Verification
		body = markUnsupported(body, v)
		ver = verificationPayload(best.Pass, *v)
		warning = v.Warning
		if !v.Passed && warning == "" {
			warning = "This report did not pass every citation check; flagged sentences are marked."
		}
		checks = v.Sentences
	}
	used := map[string]bool{}
	for _, m := range citationRe.FindAllStringSubmatch(body, -1) {
		used[m[1]] = true
	}
	var cited []research.Source
	for _, s := range sources {
		if used[s.ID] {
			cited = append(cited, s)
		}
	}
	if len(cited) == 0 {
		cited = sources
	}
	md := body
	if len(sources) > 0 {
		md += "\n\n" + SourcesMarkdown(sources)
	}
	known := map[string]bool{}
	for _, s := range sources {
		known[s.ID] = true
	}
	for _, p := range st.Prior {
		known[p.ID] = true
	}
	htmlOut := RenderMarkdown(body, known) + PriorHTML(st.Prior, used)
	if len(sources) > 0 {
		htmlOut += SourcesHTML(sources)
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
	return r.opt.Store.InTx(ctx, func(tx *db.Tx) error {
		cur, err := tx.GetRunForUpdate(ctx, run.ID)
		if err != nil {
			return err
		}
		if !cur.LeaseOwner.Valid || cur.LeaseOwner.String != r.opt.Owner || cur.Status.Terminal() {
			return errLeaseLost
		}
		if _, err := tx.AddReport(ctx, db.Report{RunID: run.ID, Markdown: md, HTML: htmlOut,
			Verification: mustJSON(ver), Citations: mustJSON(checks), Published: true, Engine: engine.EngineLabel(r.opt.Engine)}); err != nil {
			return err
		}
		var expires *time.Time
		if r.opt.ShareTTL > 0 {
			t := time.Now().Add(r.opt.ShareTTL)
			expires = &t
		}
		if err := tx.SetShareToken(ctx, run.ID, token, expires); err != nil {
			return err
		}
		if err := tx.SaveCheckpoint(ctx, run.ID, st.Stage, st); err != nil {
			return err
		}
		if err := tx.UpdateRun(ctx, run.ID, db.RunUpdate{Status: &status, Spend: mustJSON(st.Usage)}); err != nil {
			return err
		}
		_, err = tx.AppendEvent(ctx, run.ID, research.EventRunCompleted, research.CompletedPayload{Status: status, Markdown: md, HTML: htmlOut,
			ShareURL: shareURL, Verification: ver, Sources: brief, Warning: warning, Engine: engine.EngineLabel(r.opt.Engine)})
		return err
	})
}

// markUnsupported flags, in place, each cited sentence whose citation
// verification could not support, so it is never silently kept as fact.
// The mark goes after the sentence as written, citations included.
func markUnsupported(md string, v *Verification) string {
	for _, s := range v.Sentences {
		if len(s.Citations) == 0 || (s.Supported && s.Valid) || s.Text == "" {
			continue
		}
		why := "not supported by the cited source"
		if !s.Valid {
			why = "cites a source that does not exist"
		}
		for _, loc := range writtenSentence(s.Text).FindAllStringIndex(md, -1) {
			if slices.Equal(research.Citations(md[loc[0]:loc[1]]), s.Citations) {
				md = md[:loc[1]] + fmt.Sprintf(" *(unverified: %s)*", why) + md[loc[1]:]
				break
			}
		}
	}
	return md
}

// writtenSentence matches a sentence as the Markdown spells it, given its
// plain text (citation markers removed, spaces collapsed): markers may
// follow any word, before or after its punctuation ("in 2019 [S1]."), and
// spaces may differ.
func writtenSentence(plain string) *regexp.Regexp {
	const cite = `(?:\s*\[[SP]\d[^\]]*\])*`
	var b strings.Builder
	for i, w := range strings.Fields(plain) {
		if i > 0 {
			b.WriteString(`\s+`)
		}
		core := strings.TrimRight(w, ".,;:!?")
		b.WriteString(regexp.QuoteMeta(core) + cite + regexp.QuoteMeta(w[len(core):]))
	}
	b.WriteString(cite)
	return regexp.MustCompile(b.String())
}
