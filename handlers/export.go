package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/static"
	"github.com/quarryhq/quarry/web"
)

// PDFPrinter prints a complete, self-contained HTML document to PDF;
// *browser.Pool implements it.
type PDFPrinter interface {
	PrintPDF(ctx context.Context, html string) ([]byte, error)
}

// pdfTimeout bounds one PDF export, waiting for a tab included.
const pdfTimeout = 45 * time.Second

// maxPDFPrints bounds the PDF exports printed at once, so exports (which
// anyone holding a share link can ask for) never take every browser tab
// from the runs.
const maxPDFPrints = 1

// Export formats of a report.
const (
	formatMarkdown = "md"
	formatJSON     = "json"
	formatPDF      = "pdf"
)

// ReportExport is the JSON export of a report.
type ReportExport struct {
	RunID        string          `json:"run_id"`
	Question     string          `json:"question"`
	Title        string          `json:"title"`
	Depth        string          `json:"depth"`
	Engine       string          `json:"engine,omitempty"`
	ParentID     string          `json:"parent_id,omitempty"`
	Version      int             `json:"version"`
	PublishedAt  time.Time       `json:"published_at"`
	Markdown     string          `json:"markdown"`
	Verification json.RawMessage `json:"verification"`
	// Citations are the verification's verdict per sentence: its
	// citations, support score and best supporting passage (with byte
	// offsets into that source's text), and each cited source's own.
	Citations json.RawMessage `json:"citations"`
	// Links are the citation links of the report body in order, each with
	// the sentence (an index into Citations) it belongs to.
	Links   []report.Citation `json:"links,omitempty"`
	Sources []SourceJSON      `json:"sources"`
	// Criteria are the success criteria, each answered (with the
	// citations of its answering sentences), undetermined or missing.
	Criteria []report.CriterionResult `json:"criteria"`
	// Prior are the earlier report's sections this one cites as [P#].
	Prior []report.Prior `json:"prior,omitempty"`
}

// exportTarget says how an export request names its run and answers
// errors.
type exportTarget int

const (
	exportPage  exportTarget = iota // /runs/{id}/report.*: error pages
	exportAPI                       // /api/runs/{id}/report.*: JSON errors
	exportShare                     // /r/{token}/report.*: error pages, share headers
)

// exportHandler serves one format of a report for one kind of route.
func (s *Server) exportHandler(target exportTarget, format string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		var run *db.Run
		var err error
		if target == exportShare {
			run, err = s.store.RunByShareToken(ctx, chi.URLParam(r, "token"))
		} else {
			run, err = s.readableRun(r)
		}
		if err != nil {
			s.exportFail(w, r, target, err)
			return
		}
		rv, err := s.reportView(ctx, run, true)
		if err != nil {
			s.exportFail(w, r, target, err)
			return
		}
		rep, err := s.store.PublishedReport(ctx, run.ID)
		if err != nil {
			s.exportFail(w, r, target, err)
			return
		}
		if target == exportShare {
			sharedHeaders(w)
		} else {
			w.Header().Set("Cache-Control", "no-store")
		}
		name := exportName(rv.Title, run.ID)
		switch format {
		case formatMarkdown:
			w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
			w.Header().Set("Content-Disposition", `attachment; filename="`+name+`.md"`)
			io.WriteString(w, report.SafeMarkdown(exportMarkdown(rep, rv)))
		case formatJSON:
			w.Header().Set("Content-Disposition", `attachment; filename="`+name+`.json"`)
			writeJSON(w, http.StatusOK, s.reportExport(run, rep, rv))
		case formatPDF:
			s.exportPDF(w, r, target, rv, name)
		}
	}
}

// exportFail answers a failed export in the style of its route.
func (s *Server) exportFail(w http.ResponseWriter, r *http.Request, target exportTarget, err error) {
	switch {
	case target == exportAPI && errors.Is(err, db.ErrNotFound):
		writeError(w, http.StatusNotFound, "no such run, or it has no published report yet")
	case target == exportAPI:
		s.apiFail(w, r, err)
	default:
		s.pageFail(w, r, err)
	}
}

// exportPDF prints the report with the browser pool: the report rendered
// as a standalone document with the site's stylesheet (its print rules
// decide the layout), printed by Chromium.
func (s *Server) exportPDF(w http.ResponseWriter, r *http.Request, target exportTarget, rv *web.ReportView, name string) {
	if s.opt.Printer == nil {
		msg := "PDF export needs the browser pool, which this server does not have."
		if target == exportAPI {
			writeError(w, http.StatusServiceUnavailable, msg)
		} else {
			s.errorPage(w, r, http.StatusServiceUnavailable, msg)
		}
		return
	}
	doc := *rv
	doc.Exports, doc.Share, doc.FollowUp = web.ExportLinks{}, web.ShareView{}, nil
	var html bytes.Buffer
	if err := web.ReportPrint(doc, printCSS()).Render(r.Context(), &html); err != nil {
		s.serverError(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), pdfTimeout)
	defer cancel()
	select {
	case s.pdfSlots <- struct{}{}:
		defer func() { <-s.pdfSlots }()
	case <-ctx.Done():
		msg := "Too many PDF exports are being printed; please try again in a minute."
		if target == exportAPI {
			writeError(w, http.StatusServiceUnavailable, msg)
		} else {
			s.errorPage(w, r, http.StatusServiceUnavailable, msg)
		}
		return
	}
	pdf, err := s.opt.Printer.PrintPDF(ctx, html.String())
	if err == nil && !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		err = errors.New("the printer returned something that is not a PDF")
	}
	if err != nil {
		s.log.Error("print report", "run_id", rv.RunID, "request_id", requestIDFrom(r.Context()), "err", err)
		msg := "The PDF could not be printed right now; please try again."
		if target == exportAPI {
			writeError(w, http.StatusBadGateway, msg)
		} else {
			s.errorPage(w, r, http.StatusBadGateway, msg)
		}
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `inline; filename="`+name+`.pdf"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(pdf)))
	w.Write(pdf)
}

// printCSS is the stylesheet the printed report carries inline.
func printCSS() string {
	b, err := static.FS.ReadFile(static.Style)
	if err != nil {
		return ""
	}
	return strings.ReplaceAll(string(b), "</", `<\/`)
}

func (s *Server) reportExport(run *db.Run, rep *db.Report, rv *web.ReportView) ReportExport {
	out := ReportExport{RunID: run.ID, Question: run.Question, Title: rv.Title, Depth: run.Depth, Engine: rv.Engine,
		ParentID: run.ParentRunID.String, Version: rep.Version, PublishedAt: rv.Date, Markdown: rep.Markdown,
		Verification: rep.Verification, Citations: rep.Citations, Sources: []SourceJSON{}}
	if doc, ok := storedReport(rep.Citations); ok {
		if b, err := json.Marshal(doc.Sentences); err == nil {
			out.Citations, out.Links = b, doc.Citations
		}
		out.Criteria, out.Prior = doc.Criteria, doc.Prior
	}
	if out.Criteria == nil {
		out.Criteria = []report.CriterionResult{}
	}
	if len(out.Verification) == 0 {
		out.Verification = json.RawMessage("{}")
	}
	if len(out.Citations) == 0 {
		out.Citations = json.RawMessage("[]")
	}
	for _, src := range rv.Sources {
		out.Sources = append(out.Sources, SourceJSON{ID: src.ID, URL: src.URL, Title: src.Title, Host: src.Host, FetchedAt: src.FetchedAt})
	}
	return out
}

// exportMarkdown is the report's Markdown followed by what the page shows
// beside it: each criterion's outcome, the prior sections it cites and
// the verification summary.
func exportMarkdown(rep *db.Report, rv *web.ReportView) string {
	doc, _ := storedReport(rep.Citations)
	var scores *research.Scores
	if rv.Scores.Known {
		scores = &research.Scores{Validity: rv.Scores.Validity, Coverage: rv.Scores.Coverage, Support: rv.Scores.Support,
			Grounding: rv.Scores.Grounding, CriteriaCoverage: rv.Scores.CriteriaCoverage, Passed: rv.Scores.Passed}
	}
	return strings.TrimRight(rep.Markdown, "\n") + "\n\n" + report.ExportAppendix(doc, scores, rv.Warning)
}

var unsafeName = regexp.MustCompile(`[^a-z0-9]+`)

// exportName is a file name for a report: a slug of its title and the
// start of the run id.
func exportName(title, runID string) string {
	slug := strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(slug) > 60 {
		slug = strings.TrimRight(slug[:60], "-")
	}
	id := runID
	if len(id) > 8 {
		id = id[:8]
	}
	if slug == "" {
		return fmt.Sprintf("quarry-%s", id)
	}
	return fmt.Sprintf("quarry-%s-%s", slug, id)
}
