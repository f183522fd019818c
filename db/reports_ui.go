package db

import (
	"context"
	"fmt"

	"github.com/lib/pq"
)

// Snippet delimiters ReportSnippets puts around each matched word.
const (
	SnippetStart = "\u27e6" // ⟦
	SnippetStop  = "\u27e7" // ⟧
)

// CountRuns counts the runs ListRuns would return for f without its limit
// and offset (the history page's total).
func (s *Store) CountRuns(ctx context.Context, f RunFilter) (int, error) {
	where, args := f.where()
	var n int
	if err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM runs `+where, args...); err != nil {
		return 0, fmt.Errorf("count runs: %w", err)
	}
	return n, nil
}

// ReportSnippets returns, for each of the runs whose published report
// matches the full-text query, a short excerpt of that report around the
// match, matched words between SnippetStart and SnippetStop.
func (s *Store) ReportSnippets(ctx context.Context, runIDs []string, query string) (map[string]string, error) {
	out := map[string]string{}
	if query == "" || len(runIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		RunID   string `db:"run_id"`
		Snippet string `db:"snippet"`
	}
	err := s.db.SelectContext(ctx, &rows, `SELECT DISTINCT ON (run_id) run_id::text AS run_id,
			ts_headline('english', markdown, websearch_to_tsquery('english', $2),
				'MaxWords=28, MinWords=12, MaxFragments=2, FragmentDelimiter=" … ", StartSel=`+SnippetStart+`, StopSel=`+SnippetStop+`') AS snippet
		FROM reports
		WHERE run_id = ANY($1::uuid[]) AND published AND search @@ websearch_to_tsquery('english', $2)
		ORDER BY run_id, version DESC`, pq.Array(runIDs), query)
	if err != nil {
		return nil, fmt.Errorf("report snippets: %w", err)
	}
	for _, r := range rows {
		out[r.RunID] = r.Snippet
	}
	return out, nil
}

// SourceCards returns the run's sources in sid order without their text
// and findings: what a report page lists.
func (s *Store) SourceCards(ctx context.Context, runID string) ([]Source, error) {
	var out []Source
	if err := s.db.SelectContext(ctx, &out, `SELECT run_id, sid, url, canonical_url, title, host, site, byline, published, lang,
		'' AS text, '[]'::jsonb AS findings, action_idx, fetched_at FROM sources WHERE run_id = $1 ORDER BY sid`, runID); err != nil {
		return nil, fmt.Errorf("source cards of run %s: %w", runID, err)
	}
	return out, nil
}
