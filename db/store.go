package db

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/jmoiron/sqlx"
)

// Store is the database as the rest of Quarry sees it: every query is a
// method named for what it returns or changes. State changes that emit
// events run inside one transaction (Transition, InTx) so an event is never
// visible before the change it describes, and subscribers are told only
// after commit.
type Store struct {
	db     *sqlx.DB
	broker *Broker
	// taskConcurrency caps the scheduled task runs leased at once across
	// all replicas (0 = no cap).
	taskConcurrency atomic.Int64
}

// NewStore wraps an open database. broker may be nil (no live fan-out, e.g.
// in the command-line research command); it reads what the store writes
// through its own EventReader, so the two are built one after the other.
func NewStore(conn *sqlx.DB, broker *Broker) *Store {
	s := &Store{db: conn, broker: broker}
	s.taskConcurrency.Store(DefaultTaskConcurrency)
	return s
}

// DefaultTaskConcurrency is how many scheduled task runs execute at once
// across the cluster unless SetTaskConcurrency says otherwise.
const DefaultTaskConcurrency = 2

// SetTaskConcurrency caps the scheduled task runs leased at once across all
// replicas (QUARRY_TASK_CONCURRENCY; 0 = no cap).
func (s *Store) SetTaskConcurrency(n int) { s.taskConcurrency.Store(int64(n)) }

// TaskConcurrency is the cap SetTaskConcurrency set.
func (s *Store) TaskConcurrency() int { return int(s.taskConcurrency.Load()) }

// Broker returns the store's event broker (nil when it has none).
func (s *Store) Broker() *Broker { return s.broker }

// Ping checks that the database answers (for readiness checks).
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// TestingDB exposes the store's connection to db/dbtest, whose helpers let
// tests set up or inspect rows no method covers. Nothing else may use it:
// outside package db, SQL lives in tests only.
func TestingDB(s *Store) *sqlx.DB { return s.db }

// Tx is a transaction that collects the events it appends so the store can
// announce them once the transaction commits. Its methods are the writes a
// stage may make; the SQL stays in this package.
type Tx struct {
	tx     *sqlx.Tx
	events []Event
}

// InTx runs fn in a transaction; on success it commits and then notifies
// in-process subscribers of every event fn appended (other replicas hear of
// them through NOTIFY, which Postgres delivers on commit).
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) error {
	sqltx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	tx := &Tx{tx: sqltx}
	if err := fn(tx); err != nil {
		sqltx.Rollback()
		return err
	}
	if err := sqltx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if s.broker != nil {
		for _, e := range tx.events {
			s.broker.Notify(e.RunID, e.Seq)
		}
	}
	return nil
}
