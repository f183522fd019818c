package notify_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/notify"
)

// Notify writes the inbox row and one outbox row per channel together, and
// the owner's live streams (on any replica: the wake comes through LISTEN)
// hear of it; another user's do not.
func TestNotifyInboxOutboxAndWake(t *testing.T) {
	store := dbtest.NewStore(t)
	dbtest.Exec(t, store, `DELETE FROM notifications`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inbox := db.NewInbox(nil)
	if err := inbox.Listen(ctx, dbtest.URL(t)); err != nil {
		t.Fatal(err)
	}
	ana, bob := inbox.Subscribe("ana"), inbox.Subscribe("bob")
	defer ana.Close()
	defer bob.Close()
	time.Sleep(100 * time.Millisecond) // LISTEN is in place once Listen returns; let the goroutine start

	o := newOutbox(t, store, egress.NewGuard(nil), notify.Options{})
	secret := newSecret(t)
	if err := o.Notify(ctx, notify.Notice{Owner: "ana", Kind: "task_paused", Title: "Release watch paused",
		Body: "3 failures in a row", Channels: notify.Channels{WebhookURL: "https://hooks.example.com/q", WebhookSecret: secret, Email: "ana@example.com"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ana.C:
	case <-time.After(5 * time.Second):
		t.Fatal("ana's stream was not woken")
	}
	select {
	case <-bob.C:
		t.Fatal("bob's stream was woken by ana's notification")
	case <-time.After(200 * time.Millisecond):
	}
	list, err := store.Notifications(ctx, "ana", 10)
	if err != nil || len(list) != 1 || list[0].Title != "Release watch paused" {
		t.Fatalf("inbox: %+v %v", list, err)
	}
	rows, err := store.Deliveries(ctx, list[0].ID)
	if err != nil || len(rows) != 2 || rows[0].Channel != "webhook" || rows[1].Channel != "email" || rows[1].Target != "ana@example.com" {
		t.Fatalf("outbox: %+v %v", rows, err)
	}
	if n, _ := store.UnreadNotifications(ctx, "ana"); n != 1 {
		t.Fatalf("unread = %d", n)
	}
	if n, _ := store.UnreadNotifications(ctx, "bob"); n != 0 {
		t.Fatalf("bob's unread = %d", n)
	}

	// A channel that is not valid is not queued; the inbox says why.
	if err := o.Notify(ctx, notify.Notice{Owner: "ana", Kind: "run_finished", Title: "bad hook",
		Channels: notify.Channels{WebhookURL: "gopher://x", WebhookSecret: secret}}); err != nil {
		t.Fatal(err)
	}
	list, _ = store.Notifications(ctx, "ana", 10)
	rows, _ = store.Deliveries(ctx, list[0].ID)
	if list[0].Title != "bad hook" || len(rows) != 0 || !strings.Contains(list[0].Body, "Not sent to the webhook: webhook_url:") {
		t.Fatalf("bad channel: %+v, %d deliveries", list[0], len(rows))
	}
}
