package handlers

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/web"
)

// notFound is the page for an unknown path or run.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.errorPage(w, r, http.StatusNotFound, "There is nothing at this address. The run may have been deleted, or the link mistyped.")
}

// errorPage renders a page with a status and a message for people.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.render(w, r, status, web.ErrorPage(s.page(r, http.StatusText(status)), status, msg), web.ErrorBody(status, msg))
}

// serverError logs err and shows a generic message; the details stay in
// the log (with the request id) rather than on the page.
func (s *Server) serverError(w http.ResponseWriter, r *http.Request, err error) {
	s.log.Error("request failed", "request_id", requestIDFrom(r.Context()), "method", r.Method, "path", r.URL.Path, "err", err)
	s.errorPage(w, r, http.StatusInternalServerError, "Something went wrong on our side (request "+requestIDFrom(r.Context())+").")
}

// pageFail answers a page request that failed: the not-found page for an
// unknown run or report, the server-error page otherwise (apiFail is its
// JSON counterpart).
func (s *Server) pageFail(w http.ResponseWriter, r *http.Request, err error) {
	if s.refuseAdmission(w, r, err) {
		return
	}
	if errors.Is(err, db.ErrNotFound) {
		s.notFound(w, r)
		return
	}
	s.serverError(w, r, err)
}

// apiError is the body of every JSON error.
type apiError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	enc.Encode(v)
}

// writeError writes {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, apiError{Error: msg})
}

// apiFail maps an error of the pipeline or the store to a JSON response:
// the one place where API errors become messages.
func (s *Server) apiFail(w http.ResponseWriter, r *http.Request, err error) {
	var verr *pipeline.ValidationError
	switch {
	case s.refuseAdmission(w, r, err):
	case errors.As(err, &verr):
		writeJSON(w, http.StatusBadRequest, apiError{Error: verr.Error(), Field: verr.Field})
	case errors.Is(err, db.ErrNotFound):
		writeError(w, http.StatusNotFound, "no such run")
	case errors.Is(err, pipeline.ErrNotAwaiting), errors.Is(err, pipeline.ErrFinished):
		writeError(w, http.StatusConflict, err.Error())
	default:
		s.log.Error("api request failed", "request_id", requestIDFrom(r.Context()), "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, "internal error (request "+requestIDFrom(r.Context())+")")
	}
}
