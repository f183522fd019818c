package handlers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/web"
)

// PasswordCost is the bcrypt cost of stored passwords (about a quarter of
// a second on one core), which with the login rate limit makes guessing
// slow.
const PasswordCost = 12

// Password length bounds (bcrypt reads at most 72 bytes).
const (
	MinPasswordLen = 8
	MaxPasswordLen = 72
)

// HashPassword returns the bcrypt hash of a password for storage, or an
// error saying why the password is not acceptable.
func HashPassword(password string) (string, error) {
	if len(password) < MinPasswordLen {
		return "", fmt.Errorf("the password is too short (at least %d characters)", MinPasswordLen)
	}
	if len(password) > MaxPasswordLen {
		return "", fmt.Errorf("the password is too long (at most %d bytes)", MaxPasswordLen)
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), PasswordCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// dummyHash is compared against when the name is unknown, so a wrong name
// takes as long as a wrong password and names cannot be probed by timing.
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("not a password of anyone"), PasswordCost)
	return h
})

// loginPage is GET /login.
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	if s.opt.Auth.Mode != AuthPassword {
		s.notFound(w, r)
		return
	}
	next := localPath(r.URL.Query().Get("next"))
	if UserFrom(r.Context()) != "" {
		http.Redirect(w, r, s.url(next), http.StatusSeeOther)
		return
	}
	s.renderLogin(w, r, http.StatusOK, web.LoginForm{Next: next})
}

func (s *Server) renderLogin(w http.ResponseWriter, r *http.Request, status int, form web.LoginForm) {
	w.Header().Set("Cache-Control", "no-store")
	p := s.page(r, "Sign in")
	s.render(w, r, status, web.LoginPage(p, form), web.LoginBody(p, form))
}

// login is POST /login: name and password. A success starts a new session
// (a new random token: a session id planted before login is never
// promoted), ends the one the browser had, and goes to next.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if s.opt.Auth.Mode != AuthPassword {
		s.notFound(w, r)
		return
	}
	if err := parseForm(r, s.opt.MaxBodyBytes); err != nil {
		s.renderLogin(w, r, http.StatusBadRequest, web.LoginForm{Error: "The form could not be read; please try again."})
		return
	}
	form := web.LoginForm{Name: strings.TrimSpace(r.PostFormValue("name")), Next: localPath(r.PostFormValue("next"))}
	password := r.PostFormValue("password")
	ip := clientFrom(r.Context()).IP
	for _, key := range []string{"ip:" + ip, "name:" + strings.ToLower(form.Name)} {
		ok, wait, err := s.access.logins.allow(r.Context(), key)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		if !ok {
			s.access.logins.metric.WithLabelValues("limited").Inc()
			secs := retrySeconds(wait)
			w.Header().Set("Retry-After", fmt.Sprint(secs))
			form.Error = fmt.Sprintf("Too many sign-in attempts. Try again in %d seconds.", secs)
			s.renderLogin(w, r, http.StatusTooManyRequests, form)
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	ok, err := s.checkPassword(ctx, form.Name, password)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	if !ok {
		s.access.logins.metric.WithLabelValues("failed").Inc()
		s.log.Info("sign-in refused", "request_id", requestIDFrom(r.Context()), "user", form.Name, "remote", ip)
		form.Error = "Wrong name or password."
		s.renderLogin(w, r, http.StatusUnauthorized, form)
		return
	}
	if old, err := r.Cookie(SessionCookie); err == nil && plausibleToken(old.Value) {
		if err := s.store.DeleteSession(ctx, old.Value); err != nil {
			s.log.Warn("end previous session", "err", err)
		}
	}
	token := randomToken(32)
	expires := time.Now().Add(s.sessionTTL())
	if err := s.store.CreateSession(ctx, token, form.Name, expires); err != nil {
		s.serverError(w, r, err)
		return
	}
	if n, err := s.store.DeleteExpiredSessions(ctx); err == nil && n > 0 {
		s.log.Debug("expired sessions removed", "count", n)
	}
	s.access.logins.metric.WithLabelValues("ok").Inc()
	s.log.Info("signed in", "request_id", requestIDFrom(r.Context()), "user", form.Name, "remote", ip)
	http.SetCookie(w, s.sessionCookie(r, token, expires))
	http.Redirect(w, r, s.url(form.Next), http.StatusSeeOther)
}

// checkPassword reports whether password is name's.
func (s *Server) checkPassword(ctx context.Context, name, password string) (bool, error) {
	if name == "" || password == "" || len(password) > MaxPasswordLen || !db.ValidUserName(name) {
		bcrypt.CompareHashAndPassword(dummyHash(), []byte(password))
		return false, nil
	}
	u, err := s.store.GetUser(ctx, name)
	if errors.Is(err, db.ErrNotFound) {
		bcrypt.CompareHashAndPassword(dummyHash(), []byte(password))
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(password)) == nil, nil
}

// logout is POST /logout: the session ends on every replica at once.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(SessionCookie); err == nil && plausibleToken(c.Value) {
		if err := s.store.DeleteSession(r.Context(), c.Value); err != nil {
			s.serverError(w, r, err)
			return
		}
	}
	http.SetCookie(w, s.sessionCookie(r, "", time.Unix(0, 0)))
	target := "/"
	if s.opt.Auth.Mode == AuthPassword {
		target = "/login"
	}
	http.Redirect(w, r, s.url(target), http.StatusSeeOther)
}

// sessionCookie is the session cookie: HttpOnly, SameSite=Lax, scoped to
// the base path, Secure when the public URL or the client's connection is
// https. An empty token with a past expiry deletes it.
func (s *Server) sessionCookie(r *http.Request, token string, expires time.Time) *http.Cookie {
	c := &http.Cookie{
		Name:     SessionCookie,
		Value:    token,
		Path:     s.base + "/",
		Expires:  expires,
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
		Secure:   strings.HasPrefix(s.opt.BaseURL, "https://") || clientFrom(r.Context()).HTTPS,
	}
	if token == "" {
		c.MaxAge = -1
	} else {
		c.MaxAge = int(math.Ceil(time.Until(expires).Seconds()))
	}
	return c
}

func (s *Server) sessionTTL() time.Duration {
	if s.opt.Auth.SessionTTL > 0 {
		return s.opt.Auth.SessionTTL
	}
	return DefaultSessionTTL
}
