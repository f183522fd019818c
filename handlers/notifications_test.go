package handlers_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/notify"
)

// inboxReplica is a server with proxy authentication (the user named by a
// header from loopback) and a live inbox listening on Postgres.
func inboxReplica(t *testing.T) *authServer {
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	inbox := db.NewInbox(testLogger(t))
	if err := inbox.Listen(ctx, dbtest.URL(t)); err != nil {
		t.Fatal(err)
	}
	return newAuthServer(t, "", handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthProxy},
		TrustedProxies: []*net.IPNet{loopback}, Inbox: inbox, SSEHeartbeat: time.Hour})
}

// openInbox opens user's live inbox stream on srv.
func openInbox(t *testing.T, srv, user string) *sseStream {
	req, err := http.NewRequest(http.MethodGet, srv+"/notifications/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Forwarded-User", user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("inbox stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &sseStream{resp: resp, r: bufio.NewReaderSize(resp.Body, 1<<20), ch: make(chan sseEvent, 64), err: make(chan error, 1)}
	go s.read()
	t.Cleanup(func() { resp.Body.Close() })
	return s
}

func fragment(t *testing.T, html string) *goquery.Document {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func pageAs(t *testing.T, url, user string) *goquery.Document {
	resp := do(t, http.MethodGet, url, "", nil, "X-Forwarded-User", user)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s as %s: %d", url, user, resp.StatusCode)
	}
	b, _ := io.ReadAll(resp.Body)
	return fragment(t, string(b))
}

// A notification written on one replica reaches its owner's live stream
// on another as a toast and a new badge count; the inbox lists it for its
// owner only, and only its owner can mark it read.
func TestInboxLiveAcrossReplicasAndOwnerOnly(t *testing.T) {
	a, b := inboxReplica(t), inboxReplica(t)
	dbtest.Exec(t, a.store, `DELETE FROM notifications`)
	anaStream := openInbox(t, b.srv.URL, "ana")
	bobStream := openInbox(t, a.srv.URL, "bob")
	for _, s := range []*sseStream{anaStream, bobStream} {
		ev := s.next(t, 5*time.Second)
		if ev.Event != "notice" || ev.ID != "0" {
			t.Fatalf("first event: %+v", ev)
		}
		if n := fragment(t, ev.Data).Find("[data-testid=inbox-badge]").AttrOr("data-unread", ""); n != "0" {
			t.Fatalf("initial badge %q", n)
		}
	}

	run := createRun(t, a.store, "What is the current release?")
	o := notify.New(notify.Options{Store: a.store, BaseURL: "https://q.example.org"})
	if err := o.Notify(context.Background(), notify.Notice{Owner: "ana", Kind: "run_finished", Title: "Release watch: version 2.4",
		RunID: run.ID, Status: "done", ReportPath: "/runs/" + run.ID, Changes: "1 changed."}); err != nil {
		t.Fatal(err)
	}
	ev := anaStream.next(t, 5*time.Second)
	doc := fragment(t, ev.Data)
	if badge := doc.Find("#inbox-badge"); badge.AttrOr("data-unread", "") != "1" || badge.AttrOr("hx-swap-oob", "") != "true" {
		t.Errorf("badge update: %s", ev.Data)
	}
	if toast := doc.Find("[hx-swap-oob='beforeend:#toasts'] [data-testid=toast]"); toast.Length() != 1 || !strings.Contains(toast.Text(), "Release watch: version 2.4") {
		t.Errorf("toast: %s", ev.Data)
	}
	select {
	case ev := <-bobStream.ch:
		if ev.Data != "" {
			t.Errorf("bob's stream got ana's notification: %+v", ev)
		}
	case <-time.After(300 * time.Millisecond):
	}

	// The inbox page and the header badge.
	page := pageAs(t, a.srv.URL+"/notifications", "ana")
	items := page.Find("[data-testid=notification]")
	if items.Length() != 1 || items.AttrOr("data-unread", "") != "true" {
		t.Fatalf("ana's inbox: %d items", items.Length())
	}
	if href := items.Find("[data-testid=notification-link]").AttrOr("href", ""); href != "/runs/"+run.ID {
		t.Errorf("link %q", href)
	}
	if page.Find("header [data-testid=nav-notifications]").Length() != 1 || page.Find("[sse-connect='/notifications/events']").Length() != 1 {
		t.Errorf("header link or live stream missing")
	}
	if badge := pageAs(t, a.srv.URL+"/notifications/badge", "ana").Find("[data-testid=inbox-badge]"); badge.AttrOr("data-unread", "") != "1" || strings.TrimSpace(badge.Text()) != "1 unread" {
		t.Errorf("badge: %q", badge.Text())
	}
	if n := pageAs(t, a.srv.URL+"/notifications", "bob").Find("[data-testid=notification]").Length(); n != 0 {
		t.Errorf("bob sees %d of ana's notifications", n)
	}
	id := items.AttrOr("data-id", "")
	if resp := do(t, http.MethodPost, b.srv.URL+"/notifications/"+id+"/read", "", nil, "X-Forwarded-User", "bob"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob marking ana's notification read: %d", resp.StatusCode)
	}
	if resp := do(t, http.MethodPost, b.srv.URL+"/notifications/"+id+"/read", "", nil, "X-Forwarded-User", "ana"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("ana marking it read: %d", resp.StatusCode)
	}
	if n, _ := a.store.UnreadNotifications(context.Background(), "ana"); n != 0 {
		t.Errorf("unread after marking read: %d", n)
	}
	if got := pageAs(t, a.srv.URL+"/notifications", "ana").Find("[data-testid=notification]").AttrOr("data-unread", ""); got != "false" {
		t.Errorf("still unread on the page: %q", got)
	}
}
