package pipeline

import (
	"context"
	"encoding/json"

	"github.com/quarryhq/quarry/agent"
	"github.com/quarryhq/quarry/db"
)

// agentRecorder stores the site agent's steps of one action of a run, each
// with its agent_step event, so the run page shows them as they happen.
type agentRecorder struct {
	store     *db.Store
	runID     string
	actionIdx int
}

// withAgentSteps makes a site-agent run started under ctx (a site:
// search) record its steps on the action.
func withAgentSteps(ctx context.Context, store *db.Store, runID string, actionIdx int) context.Context {
	if store == nil {
		return ctx
	}
	return agent.WithRecorder(ctx, agentRecorder{store: store, runID: runID, actionIdx: actionIdx})
}

// RecordStep implements agent.Recorder.
func (r agentRecorder) RecordStep(ctx context.Context, s agent.StepRecord) error {
	body, err := json.Marshal(s.Action)
	if err != nil {
		return err
	}
	return r.store.SaveAgentStep(ctx, db.AgentStep{
		RunID: r.runID, ActionIdx: r.actionIdx, N: s.N, Kind: string(s.Action.Kind), Element: s.ElementName,
		Status: s.Status, Error: s.Error, URL: s.URL, Action: body, Screenshot: s.Screenshot,
	}, s.Action.String())
}
