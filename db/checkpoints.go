package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Checkpoint is the pipeline's saved state after a stage; a resumed run
// starts from its latest checkpoint.
type Checkpoint struct {
	ID        int64           `db:"id"`
	RunID     string          `db:"run_id"`
	Stage     string          `db:"stage"`
	State     json.RawMessage `db:"state"`
	CreatedAt time.Time       `db:"created_at"`
}

// SaveCheckpoint appends a checkpoint inside the transaction.
func (tx *Tx) SaveCheckpoint(ctx context.Context, runID, stage string, state any) error {
	body, err := json.Marshal(state)
	if err != nil {
		return fmt.Errorf("encode %s checkpoint: %w", stage, err)
	}
	if _, err := tx.tx.ExecContext(ctx, `INSERT INTO checkpoints (run_id, stage, state) VALUES ($1, $2, $3)`, runID, stage, body); err != nil {
		return fmt.Errorf("save %s checkpoint of run %s: %w", stage, runID, err)
	}
	return nil
}

// LatestCheckpoint returns the run's newest checkpoint, or ErrNotFound.
func (s *Store) LatestCheckpoint(ctx context.Context, runID string) (*Checkpoint, error) {
	var cp Checkpoint
	err := s.db.GetContext(ctx, &cp, `SELECT id, run_id, stage, state, created_at FROM checkpoints
		WHERE run_id = $1 ORDER BY id DESC LIMIT 1`, runID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("latest checkpoint of run %s: %w", runID, err)
	}
	return &cp, nil
}
