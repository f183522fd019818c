package handlers

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/quarryhq/quarry/auth"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/web"
)

// createTokenForm is POST /settings/tokens: a new API token for the
// signed-in user. The answer is the settings page itself with the secret
// (not a redirect, which would have to carry it in a URL), shown once.
func (s *Server) createTokenForm(w http.ResponseWriter, r *http.Request) {
	user := UserFrom(r.Context())
	if user == "" {
		s.errorPage(w, r, http.StatusForbidden, "API tokens belong to a user: sign in first.")
		return
	}
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	secret, t, err := auth.CreateToken(r.Context(), s.store, user, r.PostForm.Get("name"), r.PostForm.Get("read_only") != "")
	var bad *auth.InputError
	if errors.As(err, &bad) {
		s.renderSettings(w, r, http.StatusBadRequest, func(v *web.SettingsView) { v.TokenError = "Token " + bad.Error() })
		return
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.log.Info("api token created", "request_id", requestIDFrom(r.Context()), "user", user, "token_id", t.ID, "read_only", t.ReadOnly)
	s.renderSettings(w, r, http.StatusCreated, func(v *web.SettingsView) {
		v.NewToken, v.NewTokenName = secret, t.Name
	})
}

// revokeTokenForm is POST /settings/tokens/{id}/revoke.
func (s *Server) revokeTokenForm(w http.ResponseWriter, r *http.Request) {
	user := UserFrom(r.Context())
	if user == "" {
		s.errorPage(w, r, http.StatusForbidden, "API tokens belong to a user: sign in first.")
		return
	}
	id, ok := tokenID(chi.URLParam(r, "id"))
	if !ok {
		s.errorPage(w, r, http.StatusBadRequest, "id: a token id is a positive number.")
		return
	}
	if _, err := s.store.RevokeAPIToken(r.Context(), id, user); errors.Is(err, db.ErrNotFound) {
		s.errorPage(w, r, http.StatusNotFound, "No such token.")
		return
	} else if err != nil {
		s.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, s.url("/settings#tokens"), http.StatusSeeOther)
}

// tokenViews shows tokens on the settings page.
func tokenViews(tokens []db.APIToken) []web.TokenView {
	out := make([]web.TokenView, 0, len(tokens))
	for _, t := range tokens {
		v := web.TokenView{ID: strconv.FormatInt(t.ID, 10), Name: t.Name, Hint: t.Hint, ReadOnly: t.ReadOnly,
			CreatedAt: t.CreatedAt, Revoked: t.RevokedAt.Valid}
		if t.LastUsedAt.Valid {
			v.LastUsed = t.LastUsedAt.Time
		}
		out = append(out, v)
	}
	return out
}
