package db

import (
	"context"
	"fmt"

	"github.com/lib/pq"

	"github.com/quarryhq/quarry/research"
)

// statusList is statuses as a query parameter (`status = ANY($1)`), so the
// lists are defined once, in research, and never re-typed in SQL.
func statusList(statuses ...research.RunStatus) pq.StringArray {
	out := make(pq.StringArray, len(statuses))
	for i, s := range statuses {
		out[i] = string(s)
	}
	return out
}

// terminalStatuses are the statuses a run ends in.
var terminalStatuses = func() pq.StringArray {
	var out []research.RunStatus
	for _, s := range research.RunStatuses {
		if s.Terminal() {
			out = append(out, s)
		}
	}
	return statusList(out...)
}()

// unleasedStatuses are the statuses in which no worker holds a run: a run
// entering one gives up its lease.
var unleasedStatuses = func() pq.StringArray {
	var out []research.RunStatus
	for _, s := range research.RunStatuses {
		if !s.Active() {
			out = append(out, s)
		}
	}
	return statusList(out...)
}()

// QueuedRuns counts runs waiting for a worker, on every replica.
func (s *Store) QueuedRuns(ctx context.Context) (int, error) {
	var n int
	if err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM runs WHERE status = $1`, research.StatusQueued); err != nil {
		return 0, fmt.Errorf("count queued runs: %w", err)
	}
	return n, nil
}

// CountRunsByStatus counts the runs in each status, on every replica (a
// status without runs is absent from the map).
func (s *Store) CountRunsByStatus(ctx context.Context) (map[research.RunStatus]int64, error) {
	var rows []struct {
		Status research.RunStatus `db:"status"`
		N      int64              `db:"n"`
	}
	if err := s.db.SelectContext(ctx, &rows, `SELECT status, count(*) AS n FROM runs GROUP BY status`); err != nil {
		return nil, fmt.Errorf("count runs by status: %w", err)
	}
	counts := make(map[research.RunStatus]int64, len(rows))
	for _, r := range rows {
		counts[r.Status] = r.N
	}
	return counts, nil
}
