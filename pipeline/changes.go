package pipeline

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/tasks/changes"
)

// withChanges opens a task run's draft with what changed since the task's
// previous finished run (changes.Diff, written by code from both runs'
// fetched text, so verification checks it like the rest of the draft),
// and stores the summary for the notify policy and the task page. A run
// that is no task's, and a task's first run, get no section.
func (r *Runner) withChanges(ctx context.Context, run *db.Run, sources []research.Source, draft string) (string, error) {
	isTask, prior, err := r.opt.Store.PreviousTaskRun(ctx, run.ID)
	if err != nil || !isTask {
		return draft, err
	}
	rec := db.RunChanges{RunID: run.ID, Since: run.CreatedAt, Changed: true, Summary: "First run of the task."}
	if prior == nil {
		return draft, r.opt.Store.SaveRunChanges(ctx, rec)
	}
	before, err := r.engineSources(ctx, prior.ID)
	if err != nil {
		return draft, err
	}
	diff := changes.Compare(before, sources)
	detail, _ := json.Marshal(diff)
	rec = db.RunChanges{RunID: run.ID, PreviousRunID: sql.NullString{String: prior.ID, Valid: true}, Since: prior.StartedAt,
		Changed: !diff.Empty(), Summary: diff.Summary(), Detail: detail}
	if err := r.opt.Store.SaveRunChanges(ctx, rec); err != nil {
		return draft, err
	}
	return changes.Prepend(draft, diff.Markdown(prior.StartedAt.In(time.UTC))), nil
}
