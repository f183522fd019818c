package db

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Report is one version of a run's report; the published one is shown.
type Report struct {
	RunID        string          `db:"run_id" json:"-"`
	Version      int             `db:"version" json:"version"`
	Markdown     string          `db:"markdown" json:"markdown"`
	HTML         string          `db:"html" json:"-"`
	Verification json.RawMessage `db:"verification" json:"verification"`
	Citations    json.RawMessage `db:"citations" json:"citations"`
	Published    bool            `db:"published" json:"published"`
	Engine       string          `db:"engine" json:"engine"` // the engine (and model) that wrote it
	CreatedAt    time.Time       `db:"created_at" json:"created_at"`
}

const reportColumns = `run_id, version, markdown, html, verification, citations, published, engine, created_at`

// AddReport stores a report version (the next one of the run).
func (tx *Tx) AddReport(ctx context.Context, r Report) (Report, error) {
	verification, citations := r.Verification, r.Citations
	if len(verification) == 0 {
		verification = json.RawMessage(`{}`)
	}
	if len(citations) == 0 {
		citations = json.RawMessage(`[]`)
	}
	var out Report
	err := tx.tx.GetContext(ctx, &out, `INSERT INTO reports (run_id, version, markdown, html, verification, citations, published, engine)
		VALUES ($1, (SELECT COALESCE(max(version), 0) + 1 FROM reports WHERE run_id = $1), $2, $3, $4, $5, $6, $7)
		RETURNING `+reportColumns, r.RunID, r.Markdown, r.HTML, []byte(verification), []byte(citations), r.Published, r.Engine)
	if err != nil {
		return Report{}, fmt.Errorf("add report to run %s: %w", r.RunID, err)
	}
	return out, nil
}

// PublishedReport returns the run's published report, or ErrNotFound.
func (s *Store) PublishedReport(ctx context.Context, runID string) (*Report, error) {
	var r Report
	err := s.db.GetContext(ctx, &r, `SELECT `+reportColumns+` FROM reports WHERE run_id = $1 AND published
		ORDER BY version DESC LIMIT 1`, runID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("report of run %s: %w", runID, err)
	}
	return &r, nil
}

// NewShareToken returns a fresh 128-bit random token, URL-safe.
func NewShareToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("share token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// SetShareToken mints (or replaces) the run's share token inside tx.
func (tx *Tx) SetShareToken(ctx context.Context, runID, token string, expires *time.Time) error {
	var exp any
	if expires != nil {
		exp = *expires
	}
	_, err := tx.tx.ExecContext(ctx, `UPDATE runs SET share_token = $2, share_revoked_at = NULL, share_expires_at = $3 WHERE id = $1`, runID, token, exp)
	if err != nil {
		return fmt.Errorf("set share token of run %s: %w", runID, err)
	}
	return nil
}

// RunReadsPrivate reports whether the run has read private documents
// (Run.ReadsPrivate), as of now.
func (s *Store) RunReadsPrivate(ctx context.Context, runID string) (bool, error) {
	var private bool
	if err := s.db.GetContext(ctx, &private, `SELECT reads_private FROM runs WHERE id = $1`, runID); err != nil {
		return false, fmt.Errorf("run %s: %w", runID, err)
	}
	return private, nil
}

// ConfirmShare records whether the run's owner agreed that its share link
// work although the run read private documents.
func (tx *Tx) ConfirmShare(ctx context.Context, runID string, confirmed bool) error {
	if _, err := tx.tx.ExecContext(ctx, `UPDATE runs SET share_confirmed = $2 WHERE id = $1`, runID, confirmed); err != nil {
		return fmt.Errorf("confirm share of run %s: %w", runID, err)
	}
	return nil
}

// RevokeShare makes the run's share link stop working at once.
func (s *Store) RevokeShare(ctx context.Context, runID string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE runs SET share_revoked_at = now() WHERE id = $1`, runID)
	if err != nil {
		return fmt.Errorf("revoke share of run %s: %w", runID, err)
	}
	return nil
}

// RunByShareToken returns the run a live (not revoked, not expired) token
// points at, or ErrNotFound. The link of a run that read private documents
// is live only once its owner confirmed the share (ConfirmShare).
func (s *Store) RunByShareToken(ctx context.Context, token string) (*Run, error) {
	if token == "" || len(token) > 64 {
		return nil, ErrNotFound
	}
	var run Run
	err := s.db.GetContext(ctx, &run, `SELECT `+runColumns+` FROM runs WHERE share_token = $1
		AND share_revoked_at IS NULL AND (share_expires_at IS NULL OR share_expires_at > now())
		AND (NOT reads_private OR share_confirmed)`, token)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("run by share token: %w", err)
	}
	return &run, nil
}
