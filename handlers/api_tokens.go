package handlers

import (
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/quarryhq/quarry/auth"
	"github.com/quarryhq/quarry/db"
)

// CreateTokenRequest is the body of POST /api/tokens.
type CreateTokenRequest struct {
	Name     string `json:"name"`
	ReadOnly bool   `json:"read_only"`
}

// tokenOwner returns the user whose tokens a request manages, or answers
// 403 itself: tokens belong to a signed-in user.
func (s *Server) tokenOwner(w http.ResponseWriter, r *http.Request) (string, bool) {
	user := UserFrom(r.Context())
	if user == "" {
		writeError(w, http.StatusForbidden, "API tokens belong to a user: sign in first (QUARRY_AUTH=password or proxy).")
		return "", false
	}
	return user, true
}

// apiListTokens is GET /api/tokens: the user's tokens, revoked ones too.
func (s *Server) apiListTokens(w http.ResponseWriter, r *http.Request) {
	user, ok := s.tokenOwner(w, r)
	if !ok {
		return
	}
	tokens, err := s.store.APITokens(r.Context(), user)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	out := make([]tokenJSON, 0, len(tokens))
	for _, t := range tokens {
		out = append(out, toTokenJSON(t))
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": out})
}

// apiCreateToken is POST /api/tokens: a new token, its secret in the
// answer and nowhere else. Only a signed-in person may create tokens: a
// token that could mint tokens would outlive its own revocation.
func (s *Server) apiCreateToken(w http.ResponseWriter, r *http.Request) {
	if _, bearer := TokenFrom(r.Context()); bearer {
		writeError(w, http.StatusForbidden, "An API token cannot create tokens; sign in and create one on the settings page.")
		return
	}
	user, ok := s.tokenOwner(w, r)
	if !ok {
		return
	}
	var body CreateTokenRequest
	if err := decodeJSON(r, &body, true); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	secret, t, err := auth.CreateToken(r.Context(), s.store, user, body.Name, body.ReadOnly)
	var bad *auth.InputError
	if errors.As(err, &bad) {
		writeJSON(w, http.StatusBadRequest, apiError{Error: bad.Error(), Field: bad.Field})
		return
	}
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	out := toTokenJSON(*t)
	out.Secret = secret
	writeJSON(w, http.StatusCreated, out)
}

// apiRevokeToken is DELETE /api/tokens/{id}: the user's own token (a token
// may revoke itself or a sibling; someone else's is "no such token").
func (s *Server) apiRevokeToken(w http.ResponseWriter, r *http.Request) {
	user, ok := s.tokenOwner(w, r)
	if !ok {
		return
	}
	id, ok := tokenID(chi.URLParam(r, "id"))
	if !ok {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "id: a token id is a positive number", Field: "id"})
		return
	}
	t, err := s.store.RevokeAPIToken(r.Context(), id, user)
	if errors.Is(err, db.ErrNotFound) {
		writeError(w, http.StatusNotFound, "no such token")
		return
	}
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toTokenJSON(*t))
}
