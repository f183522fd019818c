package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

// CreateRunRequest is the body of POST /api/runs.
type CreateRunRequest struct {
	Question string `json:"question"`
	Depth    string `json:"depth"`
	// Review is when to pause for plan review: true or "always", false,
	// absent or "never" (the default), or "auto" (only when unclear).
	Review   research.ReviewMode `json:"review"`
	Engines  []string            `json:"engines"`
	ParentID string              `json:"parent_id"`
}

// CreateRunResponse is the answer of POST /api/runs.
type CreateRunResponse struct {
	ID        string `json:"id"`
	URL       string `json:"url"`
	EventsURL string `json:"events_url"`
}

// RunResponse is GET /api/runs/{id}.
type RunResponse struct {
	ID         string             `json:"id"`
	Question   string             `json:"question"`
	Depth      string             `json:"depth"`
	Status     research.RunStatus `json:"status"`
	StopReason string             `json:"stop_reason"`
	Error      string             `json:"error"`
	ParentID   string             `json:"parent_id,omitempty"`
	// Private: the run read a private library collection, so only its
	// owner and admins may read it, and its share link needs their
	// confirmation (POST /api/runs/{id}/share with confirm_private).
	Private  bool            `json:"private"`
	TaskSpec json.RawMessage `json:"task_spec"`
	// Spend is the model spend in total and per stage ({} before any).
	Spend      json.RawMessage          `json:"spend"`
	Actions    []research.ActionPayload `json:"actions"` // the same shape as the action events
	Sources    []SourceJSON             `json:"sources"`
	Report     *ReportJSON              `json:"report,omitempty"`
	ShareURL   string                   `json:"share_url,omitempty"`
	LastSeq    int64                    `json:"last_seq"`
	EventsURL  string                   `json:"events_url"`
	CreatedAt  time.Time                `json:"created_at"`
	FinishedAt *time.Time               `json:"finished_at,omitempty"`
}

// SourceJSON is one fetched source, without its text.
type SourceJSON struct {
	ID        string    `json:"id"` // S1, S2, …
	URL       string    `json:"url"`
	Title     string    `json:"title"`
	Host      string    `json:"host"`
	FetchedAt time.Time `json:"fetched_at"`
}

// ReportJSON is the published report.
type ReportJSON struct {
	Version      int             `json:"version"`
	Markdown     string          `json:"markdown"`
	Verification json.RawMessage `json:"verification"`
}

// apiCreateRun is POST /api/runs.
func (s *Server) apiCreateRun(w http.ResponseWriter, r *http.Request) {
	var body CreateRunRequest
	if err := decodeJSON(r, &body, true); err != nil {
		writeBadRequest(w, err)
		return
	}
	req := pipeline.Request{Question: body.Question, Depth: body.Depth, Review: body.Review,
		Engines: body.Engines, ParentID: strings.TrimSpace(body.ParentID)}
	if strings.TrimSpace(req.Depth) == "" {
		req.Depth = s.opt.DefaultDepth
	}
	if err := s.checkParent(r, req.ParentID); err != nil {
		s.apiFail(w, r, err)
		return
	}
	run, err := s.runs.Submit(r.Context(), req)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	w.Header().Set("Location", s.url("/api/runs/"+run.ID))
	writeJSON(w, http.StatusCreated, CreateRunResponse{
		ID:        run.ID,
		URL:       s.url("/runs/" + run.ID),
		EventsURL: s.url("/api/runs/" + run.ID + "/events"),
	})
}

// decodeJSON reads exactly one JSON object into v, refusing unknown fields,
// trailing data, bodies over the limit and text fields with control
// characters (checkText, a *TextError), with an error fit for the client. An empty body is an error when required, else leaves v as is.
func decodeJSON(r *http.Request, v any, required bool) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var tooBig *http.MaxBytesError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		if !required {
			return nil
		}
		return errors.New("the request body is empty; send a JSON object")
	case errors.As(err, &tooBig):
		return fmt.Errorf("the request body is larger than %d bytes", tooBig.Limit)
	case errors.As(err, &syntax):
		return fmt.Errorf("malformed JSON at byte %d: %v", syntax.Offset, err)
	case errors.As(err, &typ):
		return fmt.Errorf("field %q: expected %s", typ.Field, typ.Type)
	case strings.HasPrefix(err.Error(), "field "):
		return err // a field's own decoder named it (research.ReviewMode)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("malformed JSON: the body ends too early")
	default:
		return fmt.Errorf("malformed JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fmt.Errorf("the request body is larger than %d bytes", tooBig.Limit)
		}
		return errors.New("malformed JSON: unexpected data after the object")
	}
	return checkJSONText(v)
}

// writeBadRequest answers a body decodeJSON refused: 400, naming the
// field when a text field's characters were refused.
func writeBadRequest(w http.ResponseWriter, err error) {
	var te *TextError
	if errors.As(err, &te) {
		writeJSON(w, http.StatusBadRequest, apiError{Error: te.Error(), Field: te.Field})
		return
	}
	writeError(w, http.StatusBadRequest, err.Error())
}

// apiGetRun is GET /api/runs/{id}.
func (s *Server) apiGetRun(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	run, err := s.readableRun(r)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	out := RunResponse{
		ID: run.ID, Question: run.Question, Depth: run.Depth, Status: run.Status,
		StopReason: run.StopReason, Error: run.Error, ParentID: run.ParentRunID.String, Private: run.ReadsPrivate,
		TaskSpec: run.TaskSpec, ShareURL: s.shareURL(run), LastSeq: run.LastSeq,
		EventsURL: s.url("/api/runs/" + run.ID + "/events"), CreatedAt: run.CreatedAt,
		Actions: []research.ActionPayload{}, Sources: []SourceJSON{},
	}
	if len(out.TaskSpec) == 0 {
		out.TaskSpec = json.RawMessage("null")
	}
	out.Spend = json.RawMessage("{}")
	if spend := decodeSpend(run.Spend); spend != nil {
		if b, err := json.Marshal(spend); err == nil {
			out.Spend = b
		}
	}
	if run.FinishedAt.Valid {
		t := run.FinishedAt.Time
		out.FinishedAt = &t
	}
	actions, err := s.store.Actions(ctx, run.ID)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	for _, a := range actions {
		out.Actions = append(out.Actions, research.ActionPayload{Idx: a.Idx, Batch: a.Batch, Kind: a.Kind, Engine: a.Engine,
			Query: a.Query, URL: a.URL, Status: a.Status, Preview: a.Preview, Error: a.Error})
	}
	sources, err := s.store.Sources(ctx, run.ID)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	for _, src := range sources {
		out.Sources = append(out.Sources, SourceJSON{ID: research.SourceID(src.SID), URL: src.URL, Title: src.Title, Host: src.Host, FetchedAt: src.FetchedAt})
	}
	rep, err := s.store.PublishedReport(ctx, run.ID)
	switch {
	case err == nil:
		out.Report = &ReportJSON{Version: rep.Version, Markdown: rep.Markdown, Verification: rep.Verification}
	case !errors.Is(err, db.ErrNotFound):
		s.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// apiReportMarkdown is GET /api/runs/{id}/report.md: the published report.
func (s *Server) apiReportMarkdown(w http.ResponseWriter, r *http.Request) {
	run, err := s.readableRun(r)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	rep, err := s.store.PublishedReport(r.Context(), run.ID)
	if errors.Is(err, db.ErrNotFound) {
		writeError(w, http.StatusNotFound, "the run has no published report yet (status "+string(run.Status)+")")
		return
	}
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Content-Disposition", `inline; filename="quarry-`+run.ID[:8]+`.md"`)
	io.WriteString(w, report.SafeMarkdown(rep.Markdown))
}

// apiApproveRun is POST /api/runs/{id}/approve with a pipeline.Approval
// (an empty body approves the plan as it is). A reply that would cancel
// the run or replace it by a new question, without "confirm": true, and
// a reply that reads more than one way, change nothing: the answer is 409
// with needs_confirmation and the choices, so a client that looks only at
// the status code never takes an unperformed reply for a performed one.
func (s *Server) apiApproveRun(w http.ResponseWriter, r *http.Request) {
	var a pipeline.Approval
	if err := decodeJSON(r, &a, false); err != nil {
		writeBadRequest(w, err)
		return
	}
	dec, err := s.runs.Approve(r.Context(), chi.URLParam(r, "id"), a)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	if dec.NeedsConfirmation {
		writeJSON(w, http.StatusConflict, dec)
		return
	}
	writeJSON(w, http.StatusOK, dec)
}

// apiCancelRun is POST /api/runs/{id}/cancel.
func (s *Server) apiCancelRun(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	if err := s.runs.Cancel(r.Context(), id); err != nil {
		s.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "status": research.StatusCancelled})
}
