package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/quarryhq/quarry/research"
)

// AgentStep is one stored site-agent step.
type AgentStep struct {
	RunID      string `db:"run_id"`
	ActionIdx  int    `db:"action_idx"`
	N          int    `db:"n"`
	Kind       string `db:"kind"`
	Element    string `db:"element"`
	Status     string `db:"status"`
	Error      string `db:"error"`
	URL        string `db:"url"`
	Action     []byte `db:"action"` // the action as JSON
	Screenshot []byte `db:"screenshot"`
}

// SaveAgentStep stores a step (a step recorded as running is replaced by
// its outcome) and appends its agent_step event in the same transaction.
func (s *Store) SaveAgentStep(ctx context.Context, st AgentStep, summary string) error {
	if len(st.Action) == 0 {
		st.Action = []byte("{}")
	}
	return s.InTx(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO agent_steps (run_id, action_idx, n, kind, element, status, error, url, action, screenshot)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
			ON CONFLICT (run_id, action_idx, n) DO UPDATE SET kind = EXCLUDED.kind, element = EXCLUDED.element,
				status = EXCLUDED.status, error = EXCLUDED.error, url = EXCLUDED.url, action = EXCLUDED.action,
				screenshot = COALESCE(EXCLUDED.screenshot, agent_steps.screenshot), updated_at = now()`,
			st.RunID, st.ActionIdx, st.N, st.Kind, st.Element, st.Status, st.Error, st.URL, st.Action, st.Screenshot)
		if err != nil {
			return fmt.Errorf("save agent step %d of action %d of run %s: %w", st.N, st.ActionIdx, st.RunID, err)
		}
		_, err = tx.AppendEvent(ctx, st.RunID, research.EventAgentStep, research.AgentStepPayload{
			ActionIdx: st.ActionIdx, N: st.N, Kind: st.Kind, Action: summary, Element: st.Element,
			Status: st.Status, Error: st.Error, URL: st.URL, Shot: len(st.Screenshot) > 0,
		})
		return err
	})
}

// AgentSteps returns the steps of one action of a run in order, without
// their screenshots.
func (s *Store) AgentSteps(ctx context.Context, runID string, actionIdx int) ([]AgentStep, error) {
	var out []AgentStep
	err := s.db.SelectContext(ctx, &out, `SELECT run_id, action_idx, n, kind, element, status, error, url, action, NULL AS screenshot
		FROM agent_steps WHERE run_id = $1 AND action_idx = $2 ORDER BY n`, runID, actionIdx)
	if err != nil {
		return nil, fmt.Errorf("agent steps of action %d of run %s: %w", actionIdx, runID, err)
	}
	return out, nil
}

// AgentScreenshot returns a step's JPEG; ErrNotFound when there is none.
func (s *Store) AgentScreenshot(ctx context.Context, runID string, actionIdx, n int) ([]byte, error) {
	var shot []byte
	err := s.db.GetContext(ctx, &shot, `SELECT screenshot FROM agent_steps WHERE run_id = $1 AND action_idx = $2 AND n = $3 AND screenshot IS NOT NULL`, runID, actionIdx, n)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("agent screenshot %d/%d of run %s: %w", actionIdx, n, runID, err)
	}
	return shot, nil
}
