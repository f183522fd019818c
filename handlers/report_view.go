package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/web"
)

// reportView builds the run's published report as a page shows it (its
// own page, or the share page when shared), or db.ErrNotFound when the
// run has none.
func (s *Server) reportView(ctx context.Context, run *db.Run, shared bool) (*web.ReportView, error) {
	rep, err := s.store.PublishedReport(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	parts, err := s.reportParts(ctx, run, rep)
	if err != nil {
		return nil, err
	}
	rv := &web.ReportView{
		RunID: run.ID, Title: parts.title, Question: run.Question, Depth: run.Depth, Engine: s.engineLabel(rep.Engine),
		Date: reportDate(run, rep), Version: rep.Version, BodyHTML: parts.body, Sources: parts.sources, Prior: parts.prior,
		Evidence: parts.evidence, Scores: parts.scores, Unsupported: parts.unsupported, Warning: parts.warning,
	}
	if rv.Title == "" {
		rv.Title = run.Question
	}
	if run.StopReason != "" {
		rv.Note = "The run stopped at a limit: " + strings.TrimSuffix(run.StopReason, ".") + "."
	}
	if err := s.setParent(ctx, run, rv); err != nil {
		return nil, err
	}
	s.setAccess(run, rv, shared)
	return rv, nil
}

// setAccess fills what depends on who looks: the owner's page manages the
// share link and offers a follow-up; the share page is read-only.
func (s *Server) setAccess(run *db.Run, rv *web.ReportView, shared bool) {
	rv.Share.URL = s.shareURL(run)
	if rv.Share.URL != "" && run.ShareExpiresAt.Valid {
		rv.Share.Expires = run.ShareExpiresAt.Time
	}
	if shared {
		rv.Shared = true
		token := run.ShareToken.String
		rv.Exports = web.ExportLinks{Markdown: s.url("/r/" + token + "/report.md"), JSON: s.url("/r/" + token + "/report.json"), PDF: s.url("/r/" + token + "/report.pdf")}
		return
	}
	rv.Share.Manage = true
	base := "/runs/" + run.ID + "/report"
	rv.Exports = web.ExportLinks{Markdown: s.url(base + ".md"), JSON: s.url(base + ".json"), PDF: s.url(base + ".pdf")}
	rv.FollowUp = &web.AskForm{ParentID: run.ID, Depth: run.Depth, FollowUp: true, EngineChoices: s.opt.Settings.SearchEngines}
}

// setParent names the report a follow-up continues.
func (s *Server) setParent(ctx context.Context, run *db.Run, rv *web.ReportView) error {
	if !run.ParentRunID.Valid {
		return nil
	}
	parent, err := s.store.GetRun(ctx, run.ParentRunID.String)
	if errors.Is(err, db.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	rv.ParentID, rv.ParentQuestion = parent.ID, parent.Question
	return nil
}

// reportFromEvent is the report as the completion event carried it, for a
// run whose report row is missing.
func (s *Server) reportFromEvent(run *db.Run, p research.CompletedPayload) *web.ReportView {
	ex := extractReport(p.HTML, nil, nil, nil)
	rv := &web.ReportView{RunID: run.ID, Title: ex.title, Question: run.Question, Depth: run.Depth, Engine: s.engineLabel(p.Engine),
		Date: run.UpdatedAt, BodyHTML: ex.body, Warning: p.Warning}
	if p.Verification != (research.VerificationPayload{}) {
		rv.Scores = scoresView(p.Verification)
	}
	if rv.Title == "" {
		rv.Title = run.Question
	}
	for _, src := range p.Sources {
		rv.Sources = append(rv.Sources, web.SourceView{ID: src.ID, URL: src.URL, Title: src.Title, Host: src.Host, FetchedAt: src.FetchedAt})
	}
	rv.Share.URL = p.ShareURL
	return rv
}

// engineLabel names the engine (and model) that wrote a report: the one
// the report recorded, else (a report from before engines were recorded)
// the server's configured engine.
func (s *Server) engineLabel(recorded string) string {
	if recorded != "" {
		return recorded
	}
	e := s.opt.Settings.Engine
	if e != "" && s.opt.Settings.Model != "" {
		e += " (" + s.opt.Settings.Model + ")"
	}
	return e
}

// reportParts are the parts of a report view that depend only on the
// report version: computed once, then cached.
type reportParts struct {
	title       string
	body        string
	sources     []web.SourceView
	prior       []web.PriorView
	evidence    []web.EvidenceView
	scores      web.Scores
	unsupported []web.ClaimView
	warning     string
}

// reportParts processes a stored report: its HTML (citation links to
// their evidence), the passages behind every citation with their context
// in the fetched text, the sources list and the verification summary.
// A published version never changes, so the result is cached by version.
func (s *Server) reportParts(ctx context.Context, run *db.Run, rep *db.Report) (*reportParts, error) {
	key := run.ID + "/" + strconv.Itoa(rep.Version)
	if p := s.reports.get(key); p != nil {
		return p, nil
	}
	var checks []pipeline.SentenceCheck
	if len(rep.Citations) > 0 {
		if err := json.Unmarshal(rep.Citations, &checks); err != nil {
			return nil, fmt.Errorf("report %s: read citations: %w", key, err)
		}
	}
	rows, err := s.store.Sources(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	var prior []research.PriorSection
	if run.ParentRunID.Valid {
		if prior, err = s.priorSections(ctx, run.ID); err != nil {
			return nil, err
		}
	}
	ex := extractReport(rep.HTML, checks, rows, prior)
	parts := &reportParts{title: ex.title, body: ex.body, evidence: ex.evidence, prior: ex.prior}
	for _, src := range rows {
		id := "S" + strconv.Itoa(src.SID)
		parts.sources = append(parts.sources, web.SourceView{ID: id, URL: src.URL, Title: src.Title, Host: src.Host,
			FetchedAt: src.FetchedAt, Cited: ex.cited[id], FirstEv: ex.firstEv[id]})
	}
	parts.scores, parts.warning = reportScores(rep.Verification, checks)
	for i, c := range checks {
		if !c.Factual || len(c.Citations) == 0 || (c.Supported && c.Valid) {
			continue
		}
		why := "no passage of the cited source supports it"
		if !c.Valid {
			why = "it cites a source that does not exist"
		} else if c.Score > 0 {
			why = fmt.Sprintf("the best passage scores %.2f", c.Score)
		}
		parts.unsupported = append(parts.unsupported, web.ClaimView{Text: c.Text, Evidence: ex.sentenceEv[i], Why: why})
	}
	s.reports.put(key, parts)
	return parts, nil
}

// reportScores reads the stored verification and counts the sentences
// behind its ratios.
func reportScores(raw json.RawMessage, checks []pipeline.SentenceCheck) (web.Scores, string) {
	var ver research.VerificationPayload
	var keys map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &keys) != nil || keys["validity"] == nil || json.Unmarshal(raw, &ver) != nil {
		return web.Scores{}, ""
	}
	sc := scoresView(ver)
	for _, c := range checks {
		if !c.Factual {
			continue
		}
		sc.Sentences++
		if len(c.Citations) > 0 {
			sc.Cited++
			if c.Supported {
				sc.Supported++
			}
		}
	}
	warning := ver.Warning
	if !ver.Passed && warning == "" {
		warning = "This report did not pass every citation check."
	}
	return sc, warning
}

// priorSections are the parent report's sections a follow-up could cite,
// as its pipeline state recorded them.
func (s *Server) priorSections(ctx context.Context, runID string) ([]research.PriorSection, error) {
	cp, err := s.store.LatestCheckpoint(ctx, runID)
	if errors.Is(err, db.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st struct {
		Prior []research.PriorSection `json:"prior"`
	}
	if err := json.Unmarshal(cp.State, &st); err != nil {
		return nil, fmt.Errorf("read checkpoint of run %s: %w", runID, err)
	}
	return st.Prior, nil
}

// reportCacheSize bounds the processed reports kept in memory.
const reportCacheSize = 64

// reportCache keeps recently shown reports, least recently used out first.
type reportCache struct {
	mu    sync.Mutex
	items map[string]*reportParts
	order []string // oldest first
}

func newReportCache() *reportCache { return &reportCache{items: map[string]*reportParts{}} }

func (c *reportCache) get(key string) *reportParts {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.items[key]
	if p != nil {
		c.touch(key)
	}
	return p
}

func (c *reportCache) put(key string, p *reportParts) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; !ok && len(c.order) >= reportCacheSize {
		delete(c.items, c.order[0])
		c.order = c.order[1:]
	}
	c.items[key] = p
	c.touch(key)
}

func (c *reportCache) touch(key string) {
	for i, k := range c.order {
		if k == key {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	c.order = append(c.order, key)
}

// reportDate is when the report was published.
func reportDate(run *db.Run, rep *db.Report) time.Time {
	if run.FinishedAt.Valid {
		return run.FinishedAt.Time
	}
	return rep.CreatedAt
}
