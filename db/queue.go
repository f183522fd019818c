package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/quarryhq/quarry/research"
)

// ErrLeaseLost is returned when a worker renews a lease another worker now
// holds (it was too slow and the run was claimed again).
var ErrLeaseLost = errors.New("lease lost")

// ClaimRun takes the oldest run that is queued, or active with an expired
// lease (its holder died), and leases it to owner for ttl. It returns nil,
// nil when there is nothing to claim. SKIP LOCKED lets many workers on many
// replicas claim at once without waiting on each other.
//
// A person's runs come first. A task's scheduled run is taken only when
// none is waiting, and only while fewer than the store's task concurrency
// of them are leased across all replicas (that count is serialised by an
// advisory lock, so two replicas cannot both take the last place).
func (s *Store) ClaimRun(ctx context.Context, owner string, ttl time.Duration) (*Run, error) {
	run, err := s.claimRun(ctx, s.db, owner, ttl, false)
	if run != nil || err != nil {
		return run, err
	}
	// Most polls find no scheduled run either: say so without a transaction.
	var waiting bool
	err = s.db.GetContext(ctx, &waiting, `SELECT EXISTS (SELECT 1 FROM runs WHERE trigger = 'schedule'
		AND status = ANY($1) AND (lease_expires_at IS NULL OR lease_expires_at < now()))`, statusList(research.ActiveStatuses...))
	if err != nil || !waiting {
		return nil, err
	}
	var got *Run
	err = s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('quarry_task_concurrency'))`); err != nil {
			return fmt.Errorf("lock scheduled runs: %w", err)
		}
		if limit := s.TaskConcurrency(); limit > 0 {
			var leased int
			err := tx.tx.GetContext(ctx, &leased, `SELECT count(*) FROM runs WHERE trigger = 'schedule'
				AND status = ANY($1) AND lease_expires_at >= now()`, statusList(research.ActiveStatuses...))
			if err != nil {
				return fmt.Errorf("count scheduled runs: %w", err)
			}
			if leased >= limit {
				return nil
			}
		}
		got, err = s.claimRun(ctx, tx.tx, owner, ttl, true)
		return err
	})
	return got, err
}

// claimRun leases the oldest claimable run of one kind: scheduled task
// runs, or everything else.
func (s *Store) claimRun(ctx context.Context, q getter, owner string, ttl time.Duration, scheduled bool) (*Run, error) {
	var run Run
	err := q.GetContext(ctx, &run, `UPDATE runs SET lease_owner = $1,
			lease_expires_at = now() + make_interval(secs => $2),
			attempts = attempts + 1,
			started_at = COALESCE(started_at, now()),
			updated_at = now()
		WHERE id = (
			SELECT id FROM runs
			WHERE status = ANY($3)
			  AND (lease_expires_at IS NULL OR lease_expires_at < now())
			  AND (trigger = 'schedule') = $4
			ORDER BY created_at, id
			LIMIT 1
			FOR UPDATE SKIP LOCKED)
		RETURNING `+runColumns, owner, ttl.Seconds(), statusList(research.ActiveStatuses...), scheduled)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claim run: %w", err)
	}
	return &run, nil
}

// RenewLease extends owner's lease on the run; ErrLeaseLost if it no longer
// holds it (or the run left the active states).
func (s *Store) RenewLease(ctx context.Context, runID, owner string, ttl time.Duration) error {
	res, err := s.db.ExecContext(ctx, `UPDATE runs SET lease_expires_at = now() + make_interval(secs => $3)
		WHERE id = $1 AND lease_owner = $2`, runID, owner, ttl.Seconds())
	if err != nil {
		return fmt.Errorf("renew lease on run %s: %w", runID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// ReleaseLease gives the run up so any replica can claim it at once.
func (s *Store) ReleaseLease(ctx context.Context, runID, owner string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL
		WHERE id = $1 AND lease_owner = $2`, runID, owner)
	if err != nil {
		return fmt.Errorf("release lease on run %s: %w", runID, err)
	}
	return nil
}

// ClaimRunByID leases one particular run to owner, if no live lease holds
// it (the research command runs its own run in-process this way).
func (s *Store) ClaimRunByID(ctx context.Context, id, owner string, ttl time.Duration) (*Run, error) {
	var run Run
	err := s.db.GetContext(ctx, &run, `UPDATE runs SET lease_owner = $2,
			lease_expires_at = now() + make_interval(secs => $3),
			attempts = attempts + 1, started_at = COALESCE(started_at, now()), updated_at = now()
		WHERE id = $1 AND (lease_expires_at IS NULL OR lease_expires_at < now())
		RETURNING `+runColumns, id, owner, ttl.Seconds())
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("claim run %s: it is held by another worker", id)
	}
	if err != nil {
		return nil, fmt.Errorf("claim run %s: %w", id, err)
	}
	return &run, nil
}
