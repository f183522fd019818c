package pipeline

import (
	"context"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

// verifyStage checks the newest draft's citations against the fetched
// text; below threshold it asks for a repair pass while the depth allows
// one and the budget lasts, else moves on to publish the best draft.
func (r *Runner) verifyStage(ctx context.Context, run *db.Run, st *State) error {
	if err := r.commitStatus(ctx, run, research.StatusVerifying, StageVerify); err != nil {
		return err
	}
	sources, err := r.engineSources(ctx, run.ID)
	if err != nil {
		return err
	}
	d := &st.Drafts[len(st.Drafts)-1]
	v := report.Verify(d.Markdown, sources, st.Prior, st.Spec.Criteria, r.opt.Verify)
	d.Verification = &v
	d.Score = report.Score(v)
	events := []event{{research.EventVerification, verificationPayload(d.Pass, v)}}
	st.Stage = StagePublish
	budget := st.Spec.Budget
	if !v.Passed && st.Pass <= budget.RepairPasses && r.checkSpend(st, budget) == nil {
		st.Stage = StageSynthesize
		st.Feedback = v.Failures
		events = append(events, event{research.EventRepairStarted, research.RepairPayload{Pass: st.Pass + 1, Failures: firstN(v.Failures, 20)}})
	}
	return r.commit(ctx, run, st, db.RunUpdate{}, events...)
}

func verificationPayload(pass int, v report.Verification) research.VerificationPayload {
	return research.VerificationPayload{Pass: pass, Scores: v.Scores, Warning: v.Warning}
}
