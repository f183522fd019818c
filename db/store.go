package db

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// Store is the database as the rest of Quarry sees it. State changes that
// emit events run inside InTx so an event is never visible before the change
// it describes, and subscribers are told only after commit.
type Store struct {
	DB     *sqlx.DB
	broker *Broker
}

// NewStore wraps an open database. broker may be nil (no live fan-out, e.g.
// in the command-line research command).
func NewStore(conn *sqlx.DB, broker *Broker) *Store {
	s := &Store{DB: conn, broker: broker}
	if broker != nil {
		broker.attach(s)
	}
	return s
}

// Broker returns the store's event broker (nil when it has none).
func (s *Store) Broker() *Broker { return s.broker }

// Tx is a transaction that collects the events it appends so the store can
// announce them once the transaction commits.
type Tx struct {
	*sqlx.Tx
	events []Event
}

// InTx runs fn in a transaction; on success it commits and then notifies
// in-process subscribers of every event fn appended (other replicas hear of
// them through NOTIFY, which Postgres delivers on commit).
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) error {
	sqltx, err := s.DB.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	tx := &Tx{Tx: sqltx}
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
