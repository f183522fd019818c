package handlers

import (
	"net/http"

	"github.com/quarryhq/quarry/text"
	"github.com/quarryhq/quarry/web"
)

// runPage is GET /runs/{id}: the run as it stands, which its SSE stream
// then keeps current. Without JavaScript it is a complete page.
func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	run, err := s.readableRun(r)
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	v, err := s.runView(r.Context(), run)
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	s.restrictView(r, run, &v)
	p := s.page(r, clipTitle(v.Question))
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, http.StatusOK, web.RunPage(p, v), web.RunBody(p, v))
}

// clipTitle shortens a question for the <title>.
func clipTitle(q string) string { return text.Shorten(q, 80) }
