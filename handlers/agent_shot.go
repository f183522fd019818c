package handlers

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/quarryhq/quarry/db"
)

// agentShot is GET /runs/{id}/agent/{action}/{step}.jpg: the screenshot
// the site agent took after one step, seen by whoever may see the run.
func (s *Server) agentShot(w http.ResponseWriter, r *http.Request) {
	run, err := s.readableRun(r)
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	action, err1 := strconv.Atoi(chi.URLParam(r, "action"))
	step, err2 := strconv.Atoi(strings.TrimSuffix(chi.URLParam(r, "step"), ".jpg"))
	if err1 != nil || err2 != nil || !strings.HasSuffix(chi.URLParam(r, "step"), ".jpg") {
		s.pageFail(w, r, db.ErrNotFound)
		return
	}
	shot, err := s.store.AgentScreenshot(r.Context(), run.ID, action, step)
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("Cache-Control", "private, max-age=3600")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(shot)
}
