package handlers

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/quarryhq/quarry/auth"
	"github.com/quarryhq/quarry/web"
)

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
		s.renderLogin(w, r, http.StatusBadRequest, web.LoginForm{Error: formError(err)})
		return
	}
	form := web.LoginForm{Name: strings.TrimSpace(r.PostFormValue("name")), Next: localPath(r.PostFormValue("next"))}
	password := r.PostFormValue("password")
	ip := clientFrom(r.Context()).IP
	allowed, wait, err := s.access.logins.allow(r.Context(), ip, form.Name)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	if !allowed {
		s.access.logins.metric.WithLabelValues("limited").Inc()
		secs := retrySeconds(wait)
		w.Header().Set("Retry-After", fmt.Sprint(secs))
		form.Error = fmt.Sprintf("Too many sign-in attempts. Try again in %d seconds.", secs)
		s.renderLogin(w, r, http.StatusTooManyRequests, form)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	ok, err := auth.CheckPassword(ctx, s.store, form.Name, password)
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
	if old, err := r.Cookie(SessionCookie); err == nil {
		if err := s.sessions.End(ctx, old.Value); err != nil {
			s.log.Warn("end previous session", "err", err)
		}
	}
	token, expires, err := s.sessions.Start(ctx, form.Name)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	if n, err := s.sessions.DeleteExpired(ctx); err == nil && n > 0 {
		s.log.Debug("expired sessions removed", "count", n)
	}
	s.access.logins.metric.WithLabelValues("ok").Inc()
	s.log.Info("signed in", "request_id", requestIDFrom(r.Context()), "user", form.Name, "remote", ip)
	http.SetCookie(w, s.sessionCookie(r, token, expires))
	http.Redirect(w, r, s.url(form.Next), http.StatusSeeOther)
}

// logout is POST /logout: the session ends on every replica at once.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(SessionCookie); err == nil {
		if err := s.sessions.End(r.Context(), c.Value); err != nil {
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
