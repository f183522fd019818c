package handlers

import (
	"errors"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/web"
)

// sharedReport is GET /r/{token}: the report, read-only, for anyone
// holding a live link. A revoked, expired or unknown token is a 404, and
// the page is never cached, so revoking takes effect at once.
func (s *Server) sharedReport(w http.ResponseWriter, r *http.Request) {
	run, err := s.store.RunByShareToken(r.Context(), chi.URLParam(r, "token"))
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	rv, err := s.reportView(r.Context(), run, true)
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	sharedHeaders(w)
	p := s.page(r, clipTitle(rv.Title))
	p.Public = true
	s.render(w, r, http.StatusOK, web.SharedReportPage(p, *rv), nil)
}

// sharedHeaders keep a shared report out of caches and search engines, and
// its token out of Referer headers.
func sharedHeaders(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Robots-Tag", "noindex, nofollow")
}

// regenerateShare is POST /runs/{id}/share: a new share link for the
// report; the old one stops working.
func (s *Server) regenerateShare(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	ctx := r.Context()
	if _, err := s.store.GetRun(ctx, id); err != nil {
		s.pageFail(w, r, err)
		return
	}
	if _, err := s.store.PublishedReport(ctx, id); errors.Is(err, db.ErrNotFound) {
		s.errorPage(w, r, http.StatusConflict, "This run has no report to share yet.")
		return
	} else if err != nil {
		s.serverError(w, r, err)
		return
	}
	token, err := db.NewShareToken()
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	var expires *time.Time
	if s.opt.ShareTTL > 0 {
		t := time.Now().Add(s.opt.ShareTTL)
		expires = &t
	}
	if err := s.store.InTx(ctx, func(tx *db.Tx) error { return tx.SetShareToken(ctx, id, token, expires) }); err != nil {
		s.serverError(w, r, err)
		return
	}
	s.log.Info("share link created", "run_id", id, "request_id", requestIDFrom(ctx))
	s.redirect(w, r, "/runs/"+id+"#share")
}

// revokeShare is POST /runs/{id}/share/revoke: the share link stops
// working at once.
func (s *Server) revokeShare(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	if _, err := s.store.GetRun(r.Context(), id); err != nil {
		s.pageFail(w, r, err)
		return
	}
	if err := s.store.RevokeShare(r.Context(), id); err != nil {
		s.serverError(w, r, err)
		return
	}
	s.log.Info("share link revoked", "run_id", id, "request_id", requestIDFrom(r.Context()))
	s.redirect(w, r, "/runs/"+id+"#share")
}
