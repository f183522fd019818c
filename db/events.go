package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// NotifyChannel is the Postgres channel that tells other replicas a run has
// new events. The payload is {"run_id","seq"} only; listeners read the
// events themselves from run_events.
const NotifyChannel = "quarry_events"

// Event is one append-only entry of a run's history; seq is gapless per run.
type Event struct {
	RunID   string          `db:"run_id" json:"run_id"`
	Seq     int64           `db:"seq" json:"seq"`
	Type    string          `db:"type" json:"type"`
	Payload json.RawMessage `db:"payload" json:"payload"`
	// Actor is the person whose request wrote the event (a cancel, an
	// approval), "" for the pipeline's own events or without accounts.
	Actor     string    `db:"actor" json:"actor,omitempty"`
	CreatedAt time.Time `db:"created_at" json:"created_at"`
}

type actorKey struct{}

// WithActor returns ctx carrying the person acting on a run; every event
// appended with that context records them as its actor, whichever part of
// Quarry appends it.
func WithActor(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, actorKey{}, name)
}

// ActorFrom returns the actor WithActor put in ctx, "" when none.
func ActorFrom(ctx context.Context) string {
	a, _ := ctx.Value(actorKey{}).(string)
	return a
}

// AppendEvent adds an event to the run inside the transaction, taking the
// next seq from the run row (which the update also locks, so seqs never
// collide or skip). NOTIFY is queued in the same transaction and delivered by
// Postgres at commit.
func (tx *Tx) AppendEvent(ctx context.Context, runID, typ string, payload any) (Event, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return Event{}, fmt.Errorf("encode %s event: %w", typ, err)
	}
	var ev Event
	err = tx.tx.GetContext(ctx, &ev, `WITH next AS (
			UPDATE runs SET last_seq = last_seq + 1, updated_at = now() WHERE id = $1 RETURNING last_seq
		)
		INSERT INTO run_events (run_id, seq, type, payload, actor)
		SELECT $1, last_seq, $2, $3, NULLIF($4, '') FROM next
		RETURNING run_id, seq, type, payload, COALESCE(actor, '') AS actor, created_at`, runID, typ, body, ActorFrom(ctx))
	if err != nil {
		return Event{}, fmt.Errorf("append %s event to run %s: %w", typ, runID, err)
	}
	note, _ := json.Marshal(map[string]any{"run_id": runID, "seq": ev.Seq})
	if _, err := tx.tx.ExecContext(ctx, `SELECT pg_notify($1, $2)`, NotifyChannel, string(note)); err != nil {
		return Event{}, fmt.Errorf("notify event %d of run %s: %w", ev.Seq, runID, err)
	}
	tx.events = append(tx.events, ev)
	return ev, nil
}

// AppendEvent appends one event in its own transaction.
func (s *Store) AppendEvent(ctx context.Context, runID, typ string, payload any) (Event, error) {
	var ev Event
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		ev, err = tx.AppendEvent(ctx, runID, typ, payload)
		return err
	})
	return ev, err
}

// EventsAfter returns up to limit events of a run with seq > after, in order.
func (s *Store) EventsAfter(ctx context.Context, runID string, after int64, limit int) ([]Event, error) {
	return eventLog{s.db}.EventsAfter(ctx, runID, after, limit)
}

// NewEventReader reads events from conn for a Broker: the database the
// store writes to (other replicas' writes arrive there too).
func NewEventReader(conn *sqlx.DB) EventReader { return eventLog{conn} }

// eventLog reads run_events.
type eventLog struct{ db *sqlx.DB }

// LastSeq returns the seq of the run's newest event.
func (l eventLog) LastSeq(ctx context.Context, runID string) (int64, error) {
	var last int64
	if err := l.db.GetContext(ctx, &last, `SELECT last_seq FROM runs WHERE id = $1`, runID); err != nil {
		return 0, fmt.Errorf("last event of run %s: %w", runID, err)
	}
	return last, nil
}

// EventsAfter returns up to limit events of a run with seq > after, in order.
func (l eventLog) EventsAfter(ctx context.Context, runID string, after int64, limit int) ([]Event, error) {
	if limit <= 0 {
		limit = 500
	}
	var evs []Event
	err := l.db.SelectContext(ctx, &evs, `SELECT run_id, seq, type, payload, COALESCE(actor, '') AS actor, created_at FROM run_events
		WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, runID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("events of run %s after %d: %w", runID, after, err)
	}
	return evs, nil
}
