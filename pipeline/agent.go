package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/quarryhq/quarry/agent"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// Gate is a site-agent step inside an action that waits for the user's
// approval: the sensitive-action gate stopped it, and the run paused.
type Gate struct {
	ActionIdx int    `json:"action_idx"`
	Step      int    `json:"step"`
	Why       string `json:"why"`
	Approved  bool   `json:"approved,omitempty"`
	// Shot says the step has a screenshot of the page (not a step cut off
	// by a crash).
	Shot bool `json:"shot,omitempty"`
}

// gatePause is runAction's report that its site search stopped at the
// gate: the action stays open and the run pauses.
type gatePause struct{ gate Gate }

func (g *gatePause) Error() string { return "awaiting approval: " + g.gate.Why }

// agentRecorder stores the site agent's steps of one action of a run, each
// with its agent_step event, so the run page shows them as they happen.
type agentRecorder struct {
	store     *db.Store
	runID     string
	actionIdx int
}

// withAgentSteps makes a site-agent run started under ctx (a site:
// search) record its steps on the action, and resume from the steps an
// earlier attempt at the action recorded (a crash, or a pause at the
// gate: approved says the user let its paused step through).
func withAgentSteps(ctx context.Context, store *db.Store, runID string, actionIdx int, approved bool) (context.Context, error) {
	if store == nil {
		return ctx, nil
	}
	ctx = agent.WithRecorder(ctx, agentRecorder{store: store, runID: runID, actionIdx: actionIdx})
	stored, err := store.AgentSteps(ctx, runID, actionIdx)
	if err != nil {
		return ctx, err
	}
	prior, err := stepRecords(stored)
	if err != nil {
		return ctx, err
	}
	return agent.WithResume(ctx, prior, approved), nil
}

// stepRecords are stored steps as the agent records them.
func stepRecords(stored []db.AgentStep) ([]agent.StepRecord, error) {
	out := make([]agent.StepRecord, 0, len(stored))
	for _, s := range stored {
		rec := agent.StepRecord{N: s.N, ElementName: s.Element, Status: s.Status, Error: s.Error, URL: s.URL}
		if err := json.Unmarshal(s.Action, &rec.Action); err != nil {
			return nil, fmt.Errorf("agent step %d of action %d: %w", s.N, s.ActionIdx, err)
		}
		out = append(out, rec)
	}
	return out, nil
}

// addFoundVia sets, on each source an action's site: search found, the
// agent steps that reached its results list.
func (r *Runner) addFoundVia(ctx context.Context, runID string, sources []research.Source) error {
	rows, err := r.opt.Store.Sources(ctx, runID)
	if err != nil {
		return err
	}
	action := map[string]int{}
	for _, s := range rows {
		if s.ActionIdx.Valid {
			action[research.SourceID(s.SID)] = int(s.ActionIdx.Int64)
		}
	}
	via := map[int]string{}
	for i := range sources {
		idx, ok := action[sources[i].ID]
		if !ok {
			continue
		}
		v, seen := via[idx]
		if !seen {
			stored, err := r.opt.Store.AgentSteps(ctx, runID, idx)
			if err != nil {
				return err
			}
			steps, err := stepRecords(stored)
			if err != nil {
				return err
			}
			v = text.Clip(agent.FoundVia(steps), 300)
			via[idx] = v
		}
		sources[i].Via = v
	}
	return nil
}

// approvalNeeded returns the gate a site search stopped at, if it did.
func approvalNeeded(err error, actionIdx int) *gatePause {
	var ae *agent.ApprovalError
	if !errors.As(err, &ae) {
		return nil
	}
	return &gatePause{Gate{ActionIdx: actionIdx, Step: ae.Step, Why: ae.Why, Shot: len(ae.Screenshot) > 0}}
}

// gatesPause is runBatch's report that actions of the batch stopped at
// the gate.
type gatesPause struct{ gates []Gate }

func (g *gatesPause) Error() string {
	return fmt.Sprintf("%d action(s) awaiting approval", len(g.gates))
}

// approvedGate reports whether the user approved the step the action
// actionIdx paused on.
func (st *State) approvedGate(actionIdx int) bool {
	for _, g := range st.Gates {
		if g.ActionIdx == actionIdx && g.Approved {
			return true
		}
	}
	return false
}

// pauseAtGate pauses the run in awaiting_approval with the gates'
// descriptions; the batch's pending actions stay pending, so approving
// runs the batch again (its finished actions are kept) and the site
// agent performs the approved steps.
func (r *Runner) pauseAtGate(ctx context.Context, run *db.Run, st *State, gates []Gate) error {
	status := research.StatusAwaitingApproval
	st.Stage, st.Gates = StageReview, gates
	var whys []string
	for _, g := range gates {
		whys = append(whys, fmt.Sprintf("%s (action %d)", g.Why, g.ActionIdx))
	}
	st.ReviewReason = "The site agent stopped before an action that needs your approval: " + strings.Join(whys, "; ") +
		". Approve to let it perform it and continue, or cancel the run."
	paused := research.PlanPayload{Status: status, Spec: *st.Spec, Reason: st.ReviewReason}
	for _, g := range gates {
		if g.Shot {
			paused.GateAction, paused.GateStep = g.ActionIdx, g.Step
			break
		}
	}
	return r.commit(ctx, run, st, db.RunUpdate{Status: &status, Spend: mustJSON(st.Spend())},
		event{research.EventAwaitingApproval, paused})
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

// actionSkipped is the status of an action the run will not perform: it
// waited at the gate and the person chose to skip it.
const actionSkipped research.ActionStatus = "skipped"

// finishGated ends the action rows of the gates a person skipped, each
// with its event, so the run page stops showing them running: otherwise
// no stage would ever finish them.
func finishGated(ctx context.Context, tx *db.Tx, runID string, rows []db.Action, gates []Gate) error {
	for _, g := range gates {
		for _, row := range rows {
			if row.Idx != g.ActionIdx || row.Status.Finished() {
				continue
			}
			why := text.Clip("skipped at your request; the step awaiting approval was not performed: "+g.Why, 300)
			if err := tx.FinishAction(ctx, runID, row.Idx, actionSkipped, why, "", map[string]any{"sources": []string{}}); err != nil {
				return err
			}
			if _, err := tx.AppendEvent(ctx, runID, research.EventAction, actionPayload(row, actionSkipped, "", why, nil)); err != nil {
				return err
			}
		}
	}
	return nil
}
