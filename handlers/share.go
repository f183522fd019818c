package handlers

import (
	"errors"
	"net/http"
	"strings"
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
// report; the old one stops working. A run that read private documents
// is shared only with confirm_private ticked.
func (s *Server) regenerateShare(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(r, s.opt.MaxBodyBytes); err != nil {
		s.errorPage(w, r, http.StatusBadRequest, formError(err))
		return
	}
	if _, err := s.newShareLink(r, checked(r.PostFormValue("confirm_private"))); err != nil {
		s.shareFail(w, r, err)
		return
	}
	s.redirect(w, r, "/runs/"+chi.URLParam(r, "id")+"#share")
}

// ShareRequest is the body of POST /api/runs/{id}/share.
type ShareRequest struct {
	// ConfirmPrivate must be true to share a run that read private
	// documents: whoever holds the link reads their passages.
	ConfirmPrivate bool `json:"confirm_private"`
}

// apiShareRun is POST /api/runs/{id}/share → {"share_url"}: a new share
// link (the old one stops working).
func (s *Server) apiShareRun(w http.ResponseWriter, r *http.Request) {
	var body ShareRequest
	if err := decodeJSON(r, &body, false); err != nil {
		writeBadRequest(w, err)
		return
	}
	link, err := s.newShareLink(r, body.ConfirmPrivate)
	if err != nil {
		s.shareFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"share_url": link})
}

// errNoReport and errUnconfirmed are why a share link was not made.
var (
	errNoReport    = errors.New("this run has no report to share yet")
	errUnconfirmed = errors.New("confirm_private: this run read documents from a private library collection; " +
		"confirm that whoever holds the link may read their passages")
)

// newShareLink mints the run's share link, recording the owner's
// confirmation (needed when the run read private documents).
func (s *Server) newShareLink(r *http.Request, confirm bool) (string, error) {
	ctx := r.Context()
	run, err := s.store.GetRun(ctx, chi.URLParam(r, "id"))
	if err != nil {
		return "", err
	}
	if _, err := s.store.PublishedReport(ctx, run.ID); errors.Is(err, db.ErrNotFound) {
		return "", errNoReport
	} else if err != nil {
		return "", err
	}
	if run.ReadsPrivate && !confirm {
		return "", errUnconfirmed
	}
	token, err := db.NewShareToken()
	if err != nil {
		return "", err
	}
	var expires *time.Time
	if s.opt.ShareTTL > 0 {
		t := time.Now().Add(s.opt.ShareTTL)
		expires = &t
	}
	err = s.store.InTx(ctx, func(tx *db.Tx) error {
		if err := tx.SetShareToken(ctx, run.ID, token, expires); err != nil {
			return err
		}
		return tx.ConfirmShare(ctx, run.ID, run.ReadsPrivate && confirm)
	})
	if err != nil {
		return "", err
	}
	s.log.Info("share link created", "run_id", run.ID, "private", run.ReadsPrivate, "request_id", requestIDFrom(ctx))
	return s.shareLink(token), nil
}

// shareFail answers a share request that made no link.
func (s *Server) shareFail(w http.ResponseWriter, r *http.Request, err error) {
	api := strings.HasPrefix(r.URL.Path, "/api/")
	switch {
	case errors.Is(err, errNoReport) && api:
		writeError(w, http.StatusConflict, "This run has no report to share yet.")
	case errors.Is(err, errNoReport):
		s.errorPage(w, r, http.StatusConflict, "This run has no report to share yet.")
	case errors.Is(err, errUnconfirmed) && api:
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error(), Field: "confirm_private"})
	case errors.Is(err, errUnconfirmed):
		s.errorPage(w, r, http.StatusBadRequest, "This run read documents from a private library collection. "+
			"Tick the box to confirm that whoever holds the link may read their passages, then create the link again.")
	case api:
		s.apiFail(w, r, err)
	default:
		s.pageFail(w, r, err)
	}
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
