package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/report"
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
		Criteria: parts.criteria,
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
	rv.Share.NeedsConfirm = run.ReadsPrivate && !run.ShareConfirmed
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
// run whose report row is missing: the body HTML publishing rendered, the
// title read from the Markdown, without evidence (the event carries no
// verdicts).
func (s *Server) reportFromEvent(run *db.Run, p research.CompletedPayload) *web.ReportView {
	rv := &web.ReportView{RunID: run.ID, Title: report.Parse(report.Body(p.Markdown)).Title, Question: run.Question, Depth: run.Depth,
		Engine: s.engineLabel(p.Engine), Date: run.UpdatedAt, BodyHTML: p.HTML, Warning: p.Warning}
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
// report version.
type reportParts struct {
	title       string
	body        string
	sources     []web.SourceView
	prior       []web.PriorView
	evidence    []web.EvidenceView
	scores      web.Scores
	unsupported []web.ClaimView
	warning     string
	criteria    []report.CriterionResult
}

// reportParts reads a stored report: the body HTML rendered at publish,
// the report as data stored beside it (title, the verdicts behind every
// citation link with their passages in context, the prior sections it
// cites), the sources list and the verification summary; no fetched text
// is loaded. A version published before reports were stored as data is
// rendered from its Markdown, without evidence entries.
func (s *Server) reportParts(ctx context.Context, run *db.Run, rep *db.Report) (*reportParts, error) {
	rows, err := s.store.SourceCards(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	parts := &reportParts{}
	doc, stored := storedReport(rep.Citations)
	if stored {
		parts.body = rep.HTML
	} else {
		var prior []research.PriorSection
		if run.ParentRunID.Valid {
			if prior, err = s.priorSections(ctx, run.ID); err != nil {
				return nil, err
			}
		}
		doc = legacyReport(rep, prior)
		parts.body = doc.Render(report.RenderOptions{Known: knownIDs(rows, prior)})
	}
	for _, p := range doc.Prior {
		parts.prior = append(parts.prior, web.PriorView{ID: p.ID, Heading: p.Heading})
	}
	parts.title = doc.Title
	parts.criteria = doc.Criteria
	ev := reportEvidence(doc, rows)
	parts.evidence = ev.list
	for _, src := range rows {
		id := research.SourceID(src.SID)
		parts.sources = append(parts.sources, web.SourceView{ID: id, URL: src.URL, Title: src.Title, Host: src.Host,
			FetchedAt: src.FetchedAt, Cited: ev.cited[id], FirstEv: ev.firstEv[id]})
	}
	parts.scores, parts.warning = reportScores(rep.Verification, doc.Sentences)
	for i, c := range doc.Sentences {
		if !c.Factual || len(c.Citations) == 0 || (c.Supported && c.Valid) {
			continue
		}
		why := "no passage of the cited source supports it"
		if !c.Valid {
			why = "it cites a source that does not exist"
		} else if c.Score > 0 {
			why = fmt.Sprintf("the best passage scores %.2f", c.Score)
		}
		parts.unsupported = append(parts.unsupported, web.ClaimView{Text: c.Text, Evidence: ev.sentenceEv[i], Why: why})
	}
	return parts, nil
}

// storedReport reads the report data stored with a published version, or
// reports false for a version published before reports were stored as
// data (its citations column holds a bare list of sentence checks).
func storedReport(raw json.RawMessage) (*report.Report, bool) {
	var doc report.Report
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &doc) != nil || doc.Format != report.Format {
		return nil, false
	}
	return &doc, true
}

// legacyReport is a report published before reports were stored as data:
// parsed from its Markdown (the Sources list publishing appended cut off),
// with the sentence verdicts stored then for its summary. Its citations
// link to the Sources list; there are no evidence entries.
func legacyReport(rep *db.Report, prior []research.PriorSection) *report.Report {
	doc := report.Parse(report.Body(rep.Markdown))
	doc.Sentences = nil
	if err := json.Unmarshal(rep.Citations, &doc.Sentences); err != nil {
		doc.Sentences = nil // unreadable verdicts: the report shows without them
	}
	cited := doc.Cited()
	for _, p := range prior {
		if slices.Contains(cited, p.ID) {
			doc.Prior = append(doc.Prior, report.Prior{ID: p.ID, Heading: p.Heading})
		}
	}
	return doc
}

// knownIDs are the ids a report of these sources and prior sections may cite.
func knownIDs(rows []db.Source, prior []research.PriorSection) map[string]bool {
	known := map[string]bool{}
	for _, src := range rows {
		known[research.SourceID(src.SID)] = true
	}
	for _, p := range prior {
		known[p.ID] = true
	}
	return known
}

// reportScores reads the stored verification and counts the sentences
// behind its ratios.
func reportScores(raw json.RawMessage, checks []report.SentenceCheck) (web.Scores, string) {
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
	st, err := pipeline.LatestState(ctx, s.store, runID)
	if errors.Is(err, db.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return st.Prior, nil
}

// reportDate is when the report was published.
func reportDate(run *db.Run, rep *db.Report) time.Time {
	if run.FinishedAt.Valid {
		return run.FinishedAt.Time
	}
	return rep.CreatedAt
}
