package handlers

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/library"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// RunSummaryJSON is one run in GET /api/runs.
type RunSummaryJSON struct {
	ID         string             `json:"id"`
	Question   string             `json:"question"`
	Depth      string             `json:"depth"`
	Status     research.RunStatus `json:"status"`
	URL        string             `json:"url"`
	ShareURL   string             `json:"share_url,omitempty"`
	CreatedAt  time.Time          `json:"created_at"`
	FinishedAt *time.Time         `json:"finished_at,omitempty"`
}

// maxListLimit bounds ?limit= of the list routes.
const maxListLimit = 100

// listLimit reads ?limit= (1 to maxListLimit, default def), or says what
// is wrong with it.
func listLimit(r *http.Request, def int) (int, string) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return def, ""
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxListLimit {
		return 0, "limit: a number from 1 to " + strconv.Itoa(maxListLimit)
	}
	return n, ""
}

// apiListRuns is GET /api/runs: the signed-in user's runs (every run when
// there are no accounts), newest first; ?status= and ?q= narrow it.
func (s *Server) apiListRuns(w http.ResponseWriter, r *http.Request) {
	limit, bad := listLimit(r, 20)
	if bad != "" {
		writeJSON(w, http.StatusBadRequest, apiError{Error: bad, Field: "limit"})
		return
	}
	q := r.URL.Query()
	status := research.RunStatus(q.Get("status"))
	if status != "" && !slices.Contains(research.RunStatuses, status) {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "status: not a run status", Field: "status"})
		return
	}
	runs, err := s.store.ListRuns(r.Context(), db.RunFilter{Owner: UserFrom(r.Context()), Reader: UserFrom(r.Context()), Status: status,
		Query: text.Clip(strings.TrimSpace(q.Get("q")), 200), Limit: limit})
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	out := make([]RunSummaryJSON, 0, len(runs))
	for i := range runs {
		run := &runs[i]
		item := RunSummaryJSON{ID: run.ID, Question: run.Question, Depth: run.Depth, Status: run.Status,
			URL: s.url("/runs/" + run.ID), ShareURL: s.shareURL(run), CreatedAt: run.CreatedAt}
		if run.FinishedAt.Valid {
			t := run.FinishedAt.Time
			item.FinishedAt = &t
		}
		out = append(out, item)
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": out})
}

// PassageJSON is one passage of GET /api/library/search.
type PassageJSON struct {
	DocumentID string  `json:"document_id"`
	Document   string  `json:"document"` // its title, else its file name
	Collection string  `json:"collection"`
	Page       int     `json:"page"` // 0 when the format has no pages
	Heading    string  `json:"heading,omitempty"`
	Text       string  `json:"text"`
	Score      float64 `json:"score"`
}

// apiSearchLibrary is GET /api/library/search?q=…[&collection=…][&limit=…]:
// passages of the documents the user may read, best first.
func (s *Server) apiSearchLibrary(w http.ResponseWriter, r *http.Request) {
	if s.libraryOff(w, r) {
		return
	}
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if q == "" {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "q: say what to search for", Field: "q"})
		return
	}
	limit, bad := listLimit(r, 10)
	if bad != "" {
		writeJSON(w, http.StatusBadRequest, apiError{Error: bad, Field: "limit"})
		return
	}
	hits, err := s.opt.Library.Search(r.Context(), library.Query{Reader: reader(r), Collection: strings.TrimSpace(r.URL.Query().Get("collection")),
		Text: text.Clip(q, 500), Limit: limit})
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	out := make([]PassageJSON, 0, len(hits))
	for _, h := range hits {
		doc := h.Title
		if doc == "" {
			doc = h.Filename
		}
		out = append(out, PassageJSON{DocumentID: h.DocumentID, Document: doc, Collection: h.Collection, Page: h.Page,
			Heading: h.Heading, Text: h.Text, Score: h.Rank})
	}
	writeJSON(w, http.StatusOK, map[string]any{"passages": out})
}
