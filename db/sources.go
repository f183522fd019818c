package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Source is a fetched page of a run, numbered sid 1, 2, … (shown as S1, S2…)
// in order of retrieval. The canonical URL is unique per run.
type Source struct {
	RunID        string          `db:"run_id" json:"-"`
	SID          int             `db:"sid" json:"sid"`
	URL          string          `db:"url" json:"url"`
	CanonicalURL string          `db:"canonical_url" json:"canonical_url"`
	Title        string          `db:"title" json:"title"`
	Host         string          `db:"host" json:"host"`
	Site         string          `db:"site" json:"site,omitempty"`
	Byline       string          `db:"byline" json:"byline,omitempty"`
	Published    string          `db:"published" json:"published,omitempty"`
	Lang         string          `db:"lang" json:"lang,omitempty"`
	Text         string          `db:"text" json:"text"`
	Findings     json.RawMessage `db:"findings" json:"findings"`
	ActionIdx    sql.NullInt64   `db:"action_idx" json:"-"`
	FetchedAt    time.Time       `db:"fetched_at" json:"fetched_at"`
}

const sourceColumns = `run_id, sid, url, canonical_url, title, host, site, byline, published, lang, text, findings, action_idx, fetched_at`

// sourceLockClass is the first key of the advisory locks that order the
// source inserts of one run.
const sourceLockClass = 0x51534944 // "QSID"

// AddSource stores a page with the run's next sid. If the run already has
// the canonical URL, the existing source is returned and added is false.
func (tx *Tx) AddSource(ctx context.Context, src Source) (out Source, added bool, err error) {
	findings := src.Findings
	if len(findings) == 0 {
		findings = json.RawMessage(`[]`)
	}
	var action any
	if src.ActionIdx.Valid {
		action = src.ActionIdx.Int64
	}
	if src.FetchedAt.IsZero() {
		src.FetchedAt = time.Now()
	}
	// A source's sid is the run's highest plus one: concurrent actions of
	// a run take turns (until their transactions end) so no two take the
	// same number. Runs never wait for each other but on a hash collision.
	if _, err := tx.tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, sourceLockClass, src.RunID); err != nil {
		return Source{}, false, fmt.Errorf("add source to run %s: lock: %w", src.RunID, err)
	}
	err = tx.tx.GetContext(ctx, &out, `INSERT INTO sources (run_id, sid, url, canonical_url, title, host, site, byline, published, lang, text, findings, action_idx, fetched_at)
		VALUES ($1, (SELECT COALESCE(max(sid), 0) + 1 FROM sources WHERE run_id = $1), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
		ON CONFLICT (run_id, canonical_url) DO NOTHING
		RETURNING `+sourceColumns, src.RunID, src.URL, src.CanonicalURL, src.Title, src.Host, src.Site, src.Byline,
		src.Published, src.Lang, src.Text, []byte(findings), action, src.FetchedAt)
	if errors.Is(err, sql.ErrNoRows) {
		err = tx.tx.GetContext(ctx, &out, `SELECT `+sourceColumns+` FROM sources WHERE run_id = $1 AND canonical_url = $2`, src.RunID, src.CanonicalURL)
		if err != nil {
			return Source{}, false, fmt.Errorf("existing source %s of run %s: %w", src.CanonicalURL, src.RunID, err)
		}
		return out, false, nil
	}
	if err != nil {
		return Source{}, false, fmt.Errorf("add source %s to run %s: %w", src.CanonicalURL, src.RunID, err)
	}
	return out, true, nil
}

// Sources returns the run's sources in sid order.
func (s *Store) Sources(ctx context.Context, runID string) ([]Source, error) {
	var out []Source
	if err := s.db.SelectContext(ctx, &out, `SELECT `+sourceColumns+` FROM sources WHERE run_id = $1 ORDER BY sid`, runID); err != nil {
		return nil, fmt.Errorf("sources of run %s: %w", runID, err)
	}
	return out, nil
}
