package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/quarryhq/quarry/agent"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine"
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

// agentUsageKey is the key of an action's result holding its site
// agent's model spend over all its attempts.
const agentUsageKey = "agent_usage"

// actionMeter is the agent.Meter of one action: each model call of its
// site agent is added to the batch's notes (the run's spend cap) and
// stored at once on the action's row, so that spend survives a crash in
// the middle of the batch; it starts from what earlier attempts stored.
type actionMeter struct {
	*batchNotes
	r   *Runner
	ctx context.Context
	run *db.Run
	idx int

	mu    sync.Mutex
	usage engine.Usage
}

func (r *Runner) newActionMeter(ctx context.Context, run *db.Run, row db.Action, notes *batchNotes) *actionMeter {
	return &actionMeter{batchNotes: notes, r: r, ctx: ctx, run: run, idx: row.Idx, usage: storedAgentUsage(row)}
}

// AddUsage implements agent.Meter.
func (m *actionMeter) AddUsage(u engine.Usage) {
	m.batchNotes.AddUsage(u)
	m.mu.Lock()
	defer m.mu.Unlock() // the stores happen in call order
	m.usage = m.usage.Add(u)
	total := m.usage
	err := m.r.opt.Store.Transition(m.ctx, m.run.ID, m.r.opt.Owner, db.Step{Apply: func(ctx context.Context, tx *db.Tx) error {
		return tx.FinishAction(ctx, m.run.ID, m.idx, research.ActionRunning, "", "", map[string]any{agentUsageKey: total})
	}})
	if err != nil {
		m.r.log.WarnContext(m.ctx, "store the site agent's spend", "run", m.run.ID, "action", m.idx, "err", err)
	}
}

func (m *actionMeter) total() engine.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.usage
}

// storedAgentUsage is the agent spend an action's row holds.
func storedAgentUsage(row db.Action) engine.Usage {
	var res struct {
		Usage engine.Usage `json:"agent_usage"`
	}
	if len(row.Result) > 0 {
		_ = json.Unmarshal(row.Result, &res) // a row without it spent nothing
	}
	return res.Usage
}

// countAgentSpend adds to the run's spend, under the stage agent, what
// the batch's actions stored that is not counted yet: the spend of a
// crashed attempt as well as this one's, and never twice.
func (r *Runner) countAgentSpend(ctx context.Context, runID string, st *State, batch []db.Action) error {
	rows, err := r.opt.Store.Actions(ctx, runID)
	if err != nil {
		return err
	}
	in := map[int]bool{}
	for _, b := range batch {
		in[b.Idx] = true
	}
	for _, row := range rows {
		if !in[row.Idx] {
			continue
		}
		stored, counted := storedAgentUsage(row), st.AgentCounted[row.Idx]
		if stored == counted {
			continue
		}
		st.addUsage(SpendAgent, engine.Usage{Calls: stored.Calls - counted.Calls, InputTokens: stored.InputTokens - counted.InputTokens,
			OutputTokens: stored.OutputTokens - counted.OutputTokens, USD: stored.USD - counted.USD})
		if st.AgentCounted == nil {
			st.AgentCounted = map[int]engine.Usage{}
		}
		st.AgentCounted[row.Idx] = stored
	}
	return nil
}
