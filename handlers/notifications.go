package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/web"
)

// A user's notifications are theirs alone: every query is by the signed-in
// user (without accounts, everyone is the same nobody, owner ""), and a
// notification of someone else is not found.

// inboxPageSize is how many notifications the inbox lists.
const inboxPageSize = 50

// maxToasts is how many toasts one live update shows at most.
const maxToasts = 3

// inboxEvent is the name of the live inbox stream's SSE events.
const inboxEvent = "notice"

// notificationsPage is GET /notifications: the inbox, newest first.
func (s *Server) notificationsPage(w http.ResponseWriter, r *http.Request) {
	v, err := s.inbox(r.Context(), UserFrom(r.Context()))
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	p := s.page(r, "Notifications")
	s.render(w, r, http.StatusOK, web.NotificationsPage(p, v), web.NotificationsBody(p, v))
}

func (s *Server) inbox(ctx context.Context, owner string) (web.InboxView, error) {
	list, err := s.store.Notifications(ctx, owner, inboxPageSize)
	if err != nil {
		return web.InboxView{}, err
	}
	unread, err := s.store.UnreadNotifications(ctx, owner)
	if err != nil {
		return web.InboxView{}, err
	}
	v := web.InboxView{Unread: unread}
	for _, n := range list {
		v.Notifications = append(v.Notifications, notificationView(n))
	}
	return v, nil
}

func notificationView(n db.Notification) web.NotificationView {
	var payload struct {
		Changes string `json:"changes"`
	}
	json.Unmarshal(n.Payload, &payload)
	link := n.URL
	if !strings.HasPrefix(link, "/") || strings.HasPrefix(link, "//") {
		link = "" // only site-relative links are rendered
	}
	return web.NotificationView{ID: n.ID, Kind: n.Kind, Title: n.Title, Body: n.Body, Changes: payload.Changes,
		URL: link, Unread: !n.ReadAt.Valid, CreatedAt: n.CreatedAt}
}

// markNotificationRead is POST /notifications/{id}/read.
func (s *Server) markNotificationRead(w http.ResponseWriter, r *http.Request) {
	err := s.store.MarkNotificationRead(r.Context(), UserFrom(r.Context()), chi.URLParam(r, "id"))
	if errors.Is(err, db.ErrNotFound) {
		s.errorPage(w, r, http.StatusNotFound, "There is no such notification in your inbox.")
		return
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.redirect(w, r, "/notifications")
}

// markAllNotificationsRead is POST /notifications/read.
func (s *Server) markAllNotificationsRead(w http.ResponseWriter, r *http.Request) {
	if err := s.store.MarkAllNotificationsRead(r.Context(), UserFrom(r.Context())); err != nil {
		s.serverError(w, r, err)
		return
	}
	s.redirect(w, r, "/notifications")
}

// inboxBadge is GET /notifications/badge: the header's unread count.
func (s *Server) inboxBadge(w http.ResponseWriter, r *http.Request) {
	unread, err := s.store.UnreadNotifications(r.Context(), UserFrom(r.Context()))
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, http.StatusOK, web.InboxBadge(unread, false), nil)
}

// apiNotifications is GET /api/notifications.
func (s *Server) apiNotifications(w http.ResponseWriter, r *http.Request) {
	owner := UserFrom(r.Context())
	list, err := s.store.Notifications(r.Context(), owner, inboxPageSize)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	unread, err := s.store.UnreadNotifications(r.Context(), owner)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	type item struct {
		db.Notification
		Read bool `json:"read"`
	}
	items := make([]item, len(list))
	for i, n := range list {
		items[i] = item{Notification: n, Read: n.ReadAt.Valid}
	}
	writeJSON(w, http.StatusOK, map[string]any{"unread": unread, "notifications": items})
}

// apiMarkNotificationRead is POST /api/notifications/{id}/read.
func (s *Server) apiMarkNotificationRead(w http.ResponseWriter, r *http.Request) {
	err := s.store.MarkNotificationRead(r.Context(), UserFrom(r.Context()), chi.URLParam(r, "id"))
	if errors.Is(err, db.ErrNotFound) {
		writeError(w, http.StatusNotFound, "no such notification")
		return
	}
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// inboxEvents is GET /notifications/events: the signed-in user's live
// stream. It sends the unread count when it opens, then, whenever any
// replica commits a notification for the user (NOTIFY, db.Inbox), the new
// count and a toast per new notification. Events carry id 0: there is
// nothing to replay (the inbox page is the history), and the run page's
// resume bookkeeping ignores them.
func (s *Server) inboxEvents(w http.ResponseWriter, r *http.Request) {
	if s.opt.Inbox == nil {
		http.Error(w, "live notifications are not available", http.StatusServiceUnavailable)
		return
	}
	ctx, done, ok := s.openStream(w, r)
	if !ok {
		return
	}
	defer done()

	owner := UserFrom(ctx)
	sub := s.opt.Inbox.Subscribe(owner)
	defer sub.Close()
	since, err := s.store.DBNow(ctx)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.clients.Add(1)
	defer s.clients.Add(-1)
	out, err := openEventStream(w)
	if err != nil {
		return
	}
	defer out.close()
	stopAbort := context.AfterFunc(s.streamsCtx, out.abort)
	defer stopAbort()

	p := s.page(r, "")
	send := func(fresh []web.NotificationView) error {
		unread, err := s.store.UnreadNotifications(ctx, owner)
		if err != nil {
			return err
		}
		html, err := templ.ToGoHTML(ctx, web.InboxUpdate(p, unread, fresh))
		if err != nil {
			return err
		}
		return out.Send(0, inboxEvent, []byte(html))
	}
	err = send(nil)
	heartbeat := time.NewTicker(s.opt.SSEHeartbeat)
	defer heartbeat.Stop()
	for err == nil {
		select {
		case <-ctx.Done():
			return
		case <-heartbeat.C:
			err = out.Comment("keep-alive")
		case <-sub.C:
			var list []db.Notification
			if list, err = s.store.NotificationsSince(ctx, owner, since, inboxPageSize); err != nil {
				break
			}
			if len(list) > 0 {
				since = list[len(list)-1].CreatedAt
			}
			// A burst toasts its newest few; the badge counts them all.
			fresh := make([]web.NotificationView, 0, maxToasts)
			for _, n := range list[max(0, len(list)-maxToasts):] {
				fresh = append(fresh, notificationView(n))
			}
			err = send(fresh)
		}
	}
	if ctx.Err() == nil && !errors.Is(err, errViewerGone) {
		s.log.Warn("inbox stream ended", "request_id", requestIDFrom(r.Context()), "err", err)
	}
}
