package handlers

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/quarryhq/quarry/static"
)

// routes builds the router. The middleware chain is here and only here.
// There is deliberately no compression and no timeout middleware: both
// would break the SSE streams (buffering, and a cut connection).
func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(requestID, s.forwarded, s.recoverer, s.logRequests, securityHeaders, s.checkHost, s.limitBody, s.crossOrigin, s.authenticate, s.clientCookie)
	r.NotFound(s.notFound)
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	})

	r.Get("/", s.askPage)
	r.With(s.limitRunCreation).Post("/runs", s.createRun)
	r.Get("/runs", s.historyPage)
	r.Get("/runs/{id}", s.runPage)
	r.With(s.limitStreams).Get("/runs/{id}/events", s.runPageEvents)
	r.With(s.runControl("cancel")).Post("/runs/{id}/cancel", s.cancelRun)
	r.With(s.runControl("approve")).Post("/runs/{id}/approve", s.approveRun)
	r.With(s.runControl("share")).Post("/runs/{id}/share", s.regenerateShare)
	r.With(s.runControl("unshare")).Post("/runs/{id}/share/revoke", s.revokeShare)
	r.Get("/runs/{id}/report.md", s.exportHandler(exportPage, formatMarkdown))
	r.Get("/runs/{id}/report.json", s.exportHandler(exportPage, formatJSON))
	r.Get("/runs/{id}/report.pdf", s.exportHandler(exportPage, formatPDF))
	r.Get("/runs/{id}/agent/{action}/{step}", s.agentShot)
	r.Get("/r/{token}", s.sharedReport)
	r.Get("/r/{token}/report.md", s.exportHandler(exportShare, formatMarkdown))
	r.Get("/r/{token}/report.json", s.exportHandler(exportShare, formatJSON))
	r.Get("/r/{token}/report.pdf", s.exportHandler(exportShare, formatPDF))
	r.Get("/settings", s.settingsPage)
	r.Group(func(r chi.Router) {
		r.Use(s.requireTasks)
		r.Get("/tasks", s.tasksPage)
		r.Get("/tasks/new", s.newTaskPage)
		r.Post("/tasks", s.createTask)
		r.Get("/tasks/{id}", s.taskPage)
		r.Get("/tasks/{id}/edit", s.editTaskPage)
		r.Post("/tasks/{id}/edit", s.editTask)
		for _, action := range []string{"pause", "resume", "run", "delete"} {
			r.Post("/tasks/{id}/"+action, s.taskAction(action))
		}
		r.Get("/approvals", s.approvalsPage)
		r.With(s.runControl("approve")).Post("/approvals/{id}/approve", s.approvalAction(true))
		r.With(s.runControl("skip")).Post("/approvals/{id}/skip", s.approvalAction(false))
	})
	r.Get("/library", s.libraryPage)
	r.Post("/library/upload", s.uploadForm)
	r.Get("/library/documents/{id}", s.documentPage)
	r.Get("/library/documents/{id}/file", s.documentFile)
	r.Post("/library/documents/{id}/delete", s.deleteDocument)

	r.Route("/api", func(r chi.Router) {
		r.NotFound(func(w http.ResponseWriter, r *http.Request) {
			writeError(w, http.StatusNotFound, "no such endpoint")
		})
		r.Get("/openapi.json", s.apiOpenAPI)
		r.Get("/notifications", s.apiNotifications)
		r.Post("/notifications/{id}/read", s.apiMarkNotificationRead)
		r.With(s.limitRunCreation).Post("/runs", s.apiCreateRun)
		r.Get("/runs/{id}", s.apiGetRun)
		r.With(s.limitStreams).Get("/runs/{id}/events", s.apiRunEvents)
		r.Get("/runs/{id}/report.md", s.apiReportMarkdown)
		r.Get("/runs/{id}/report.json", s.exportHandler(exportAPI, formatJSON))
		r.Get("/runs/{id}/report.pdf", s.exportHandler(exportAPI, formatPDF))
		r.With(s.runControl("approve")).Post("/runs/{id}/approve", s.apiApproveRun)
		r.With(s.runControl("cancel")).Post("/runs/{id}/cancel", s.apiCancelRun)
		r.Group(func(r chi.Router) {
			r.Use(s.requireTasks)
			r.Post("/tasks", s.apiCreateTask)
			r.Get("/tasks", s.apiListTasks)
			r.Get("/tasks/preview", s.apiPreviewSchedule)
			r.Get("/tasks/{id}", s.apiGetTask)
			r.Patch("/tasks/{id}", s.apiPatchTask)
			r.Delete("/tasks/{id}", s.apiTaskAction("delete"))
			for _, action := range []string{"pause", "resume", "run"} {
				r.Post("/tasks/{id}/"+action, s.apiTaskAction(action))
			}
		})
		r.Post("/documents", s.apiAddDocument)
		r.Get("/documents/{id}", s.apiGetDocument)
	})

	r.Get("/login", s.loginPage)
	r.Post("/login", s.login)
	r.Post("/logout", s.logout)

	r.Get("/notifications", s.notificationsPage)
	r.Get("/notifications/badge", s.inboxBadge)
	r.With(s.limitStreams).Get("/notifications/events", s.inboxEvents)
	r.Post("/notifications/read", s.markAllNotificationsRead)
	r.Post("/notifications/{id}/read", s.markNotificationRead)

	r.Get("/healthz", s.healthz)
	r.Get("/readyz", s.readyz)
	r.Handle("/metrics", promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{}))
	r.Handle("/static/*", http.StripPrefix("/static/", staticFiles()))
	r.Get("/favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		w.WriteHeader(http.StatusNoContent) // no icon yet; spares a 404 on every first visit
	})
	return s.stripBase(r)
}

// crossOrigin rejects cross-origin unsafe requests (a form posted from
// another site), using the browser's Sec-Fetch-Site and Origin headers.
func (s *Server) crossOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	if u, err := url.Parse(s.opt.BaseURL); err == nil && u.Scheme != "" && u.Host != "" {
		if err := cop.AddTrustedOrigin(u.Scheme + "://" + u.Host); err != nil {
			s.log.Warn("trusted origin", "base_url", s.opt.BaseURL, "err", err)
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
	}))
	return cop.Handler(next)
}

// staticFiles serves the embedded front-end files. Their URLs carry a
// content hash (static.Versioned), so they may be cached for a year.
func staticFiles() http.Handler {
	files := http.FileServerFS(static.FS)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		if r.URL.Query().Get("v") != "" {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		files.ServeHTTP(w, r)
	})
}
