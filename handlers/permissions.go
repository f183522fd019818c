package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/web"
)

// Who may do what with a run: every signed-in user may read every run (a
// team's runs are shared) except a run that read a private library
// collection, which is its owner's and admins' only (mayRead); cancelling, approving or editing its plan,
// and making or revoking its share link are for the run's owner and for
// admins (`quarry user add --admin`). Without accounts (QUARRY_AUTH=none)
// there is no one to tell apart and anyone may act.

// mayControl reports whether the request's user may act on run, and says
// why not.
func (s *Server) mayControl(r *http.Request, run *db.Run) (bool, error) {
	if s.opt.Auth.Mode == "" || s.opt.Auth.Mode == AuthNone {
		return true, nil
	}
	user := UserFrom(r.Context())
	if user == "" {
		return false, nil
	}
	if run.Owner != "" && run.Owner == user {
		return true, nil
	}
	return s.store.IsAdmin(r.Context(), user)
}

// mayRead reports whether the request's user may read run: any run but
// one that read private documents (db.Run.ReadsPrivate), which only its
// owner and admins may (mayControl).
func (s *Server) mayRead(r *http.Request, run *db.Run) (bool, error) {
	if !run.ReadsPrivate {
		return true, nil
	}
	return s.mayControl(r, run)
}

// readableRun returns the run named in the URL if the request's user may
// read it. Someone else's private run is db.ErrNotFound, as if it were
// not there: its existence is not disclosed. Every route that shows a run
// by its id loads it here.
func (s *Server) readableRun(r *http.Request) (*db.Run, error) {
	run, err := s.store.GetRun(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		return nil, err
	}
	ok, err := s.mayRead(r, run)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, db.ErrNotFound
	}
	return run, nil
}

// checkParent refuses a follow-up of a run the request's user may not
// read (its synthesis would see the parent's report), as if there were no
// such run.
func (s *Server) checkParent(r *http.Request, parentID string) error {
	if parentID == "" {
		return nil
	}
	run, err := s.store.GetRun(r.Context(), parentID)
	if errors.Is(err, db.ErrNotFound) {
		return nil // the pipeline answers for a run that is not there
	}
	if err != nil {
		return err
	}
	if ok, err := s.mayRead(r, run); err != nil || !ok {
		if err != nil {
			return err
		}
		return &pipeline.ValidationError{Field: "parent_id", Msg: "no such run"}
	}
	return nil
}

// listFilter restricts a run list to the runs the request's user may
// read: others' private runs are left out (admins, and everyone without
// accounts, see all).
func (s *Server) listFilter(r *http.Request, f db.RunFilter) db.RunFilter {
	f.Reader = UserFrom(r.Context())
	if s.opt.Auth.Mode == "" || s.opt.Auth.Mode == AuthNone {
		f.AllPrivate = true
	} else if f.Reader != "" {
		f.AllPrivate, _ = s.store.IsAdmin(r.Context(), f.Reader)
	}
	return f
}

// restrictView hides from v what the request's user may not do with run:
// the page of someone else's run shows no Stop button, no review form and
// no share-link management (the routes refuse them anyway).
func (s *Server) restrictView(r *http.Request, run *db.Run, v *web.RunView) {
	ok, err := s.mayControl(r, run)
	if err != nil {
		s.log.Warn("run access", "run_id", run.ID, "err", err)
	}
	v.ReadOnly = !ok
	if v.ReadOnly && v.Report != nil {
		v.Report.Share.Manage = false
	}
}

// runControl guards the routes that change a run: a user who is neither
// its owner nor an admin gets 403 with a message saying who may; anyone
// allowed acts with their name in the context, so every event the action
// writes records them as its actor. An unknown run passes through to the
// handler, which answers 404 in its own format.
func (s *Server) runControl(what string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			run, err := s.store.GetRun(r.Context(), chi.URLParam(r, "id"))
			if errors.Is(err, db.ErrNotFound) {
				next.ServeHTTP(w, r)
				return
			}
			if err != nil {
				s.refuseError(w, r, err)
				return
			}
			ok, err := s.mayControl(r, run)
			if err != nil {
				s.refuseError(w, r, err)
				return
			}
			if !ok && run.ReadsPrivate {
				// Someone else's private run is not there for them.
				if strings.HasPrefix(r.URL.Path, "/api/") {
					writeError(w, http.StatusNotFound, "no such run")
				} else {
					s.notFound(w, r)
				}
				return
			}
			if !ok {
				owner := run.Owner
				if owner == "" {
					owner = "no one"
				}
				msg := fmt.Sprintf("Only the run's owner (%s) or an admin may %s this run.", owner, what)
				s.log.Info("run control refused", "request_id", requestIDFrom(r.Context()), "run_id", run.ID,
					"user", UserFrom(r.Context()), "owner", run.Owner, "action", what)
				if strings.HasPrefix(r.URL.Path, "/api/") {
					writeError(w, http.StatusForbidden, msg)
				} else {
					s.errorPage(w, r, http.StatusForbidden, msg)
				}
				return
			}
			ctx := r.Context()
			if u := UserFrom(ctx); u != "" {
				ctx = db.WithActor(ctx, u)
			}
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}
