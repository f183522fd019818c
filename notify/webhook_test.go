package notify_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/notify"
)

func newSecret(t *testing.T) string {
	b := make([]byte, 24)
	rand.Read(b)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// receiver is a webhook endpoint on loopback that checks every delivery
// with the Standard Webhooks library's verifier and can be taken down and
// brought back on the same address.
type receiver struct {
	t      *testing.T
	addr   string
	verify *standardwebhooks.Webhook

	mu       sync.Mutex
	srv      *http.Server
	got      map[string]notify.Envelope // by webhook-id
	times    map[string]int             // deliveries per webhook-id
	requests int
	bad      []string
}

func newReceiver(t *testing.T, secret string) *receiver {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	r := &receiver{t: t, verify: wh, got: map[string]notify.Envelope{}, times: map[string]int{}}
	r.start("127.0.0.1:0")
	t.Cleanup(r.stop)
	return r
}

func (r *receiver) start(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(r.serve)}
	r.mu.Lock()
	r.srv = srv
	r.mu.Unlock()
	go srv.Serve(ln)
}

func (r *receiver) stop() {
	r.mu.Lock()
	srv := r.srv
	r.srv = nil
	r.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	if err := r.verify.Verify(body, req.Header); err != nil {
		r.bad = append(r.bad, err.Error())
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	var env notify.Envelope
	if err := json.Unmarshal(body, &env); err != nil {
		r.bad = append(r.bad, "body: "+err.Error())
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	r.got[req.Header.Get(standardwebhooks.HeaderWebhookID)] = env
	r.times[req.Header.Get(standardwebhooks.HeaderWebhookID)]++
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) url() string { return "http://" + r.addr + "/hook" }

// newTask stores a task row for notifications to point at.
func newTask(t *testing.T, store *db.Store) string {
	var id string
	dbtest.Get(t, store, &id, `INSERT INTO tasks (owner, name, question, schedule_kind, interval_seconds)
		VALUES ('ana', 'Release watch', 'What is the current release?', 'interval', 3600) RETURNING id::text`)
	return id
}

// newRun stores a finished run of the task.
func newRun(t *testing.T, store *db.Store, taskID string) string {
	run, err := store.CreateRun(context.Background(), db.NewRun{Question: "What is the current release?", Owner: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Exec(t, store, `UPDATE runs SET task_id = $2, status = 'done' WHERE id = $1`, run.ID, taskID)
	return run.ID
}

func waitFor(t *testing.T, what string, timeout time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func newOutbox(t *testing.T, store *db.Store, guard *egress.Guard, opt notify.Options) *notify.Outbox {
	opt.Store, opt.Guard = store, guard
	if opt.BaseURL == "" {
		opt.BaseURL = "https://quarry.example.org/q"
	}
	if opt.BaseDelay == 0 {
		opt.BaseDelay = 50 * time.Millisecond
	}
	if opt.Poll == 0 {
		opt.Poll = 20 * time.Millisecond
	}
	return notify.New(opt)
}

func allDeliveries(t *testing.T, store *db.Store) []db.OutboxRow {
	var ids []string
	if err := db.TestingDB(store).Select(&ids, `SELECT id::text FROM notifications ORDER BY created_at`); err != nil {
		t.Fatal(err)
	}
	var out []db.OutboxRow
	for _, id := range ids {
		rows, err := store.Deliveries(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rows...)
	}
	return out
}

// A receiver that is down for a while, then back: every notice is
// delivered once it returns, each delivery carries a signature the
// library's verifier accepts, and the payload has the task, run, status,
// absolute report URL and change summary.
func TestWebhookRetriesThroughOutage(t *testing.T) {
	store := dbtest.NewStore(t)
	dbtest.Exec(t, store, `DELETE FROM notifications`)
	secret := newSecret(t)
	rcv := newReceiver(t, secret)
	addr := rcv.addr
	rcv.stop() // the outage: connections are refused
	guard := egress.NewGuard([]string{"127.0.0.1"})
	o := newOutbox(t, store, guard, notify.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	const notices = 5
	taskID := newTask(t, store)
	for range notices {
		runID := newRun(t, store, taskID)
		err := o.Notify(ctx, notify.Notice{Owner: "ana", Kind: "run_finished", Title: "Release watch finished",
			TaskID: taskID, RunID: runID, Status: "done", ReportPath: "/runs/" + runID, Changes: "Changed: version 2.4 [S1]",
			Channels: notify.Channels{WebhookURL: "http://" + addr + "/hook", WebhookSecret: secret}})
		if err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() { o.Run(ctx); close(done) }()
	// Let several attempts fail against the closed port.
	waitFor(t, "failed attempts", 5*time.Second, func() bool {
		for _, d := range allDeliveries(t, store) {
			if d.Attempts < 2 {
				return false
			}
		}
		return true
	})
	rcv.start(addr) // recovery
	waitFor(t, "every delivery", 10*time.Second, func() bool {
		for _, d := range allDeliveries(t, store) {
			if d.Status != "delivered" {
				return false
			}
		}
		return true
	})
	cancel()
	<-done

	rows := allDeliveries(t, store)
	retried, attempts := 0, 0
	for _, d := range rows {
		attempts += d.Attempts
		if d.Attempts > 1 {
			retried++
		}
		if d.Attempts < 2 {
			t.Errorf("delivery %d: %d attempts, want a failure before the recovery", d.ID, d.Attempts)
		}
	}
	t.Logf("outage then recovery: %d of %d deliveries retried, %d attempts in all", retried, len(rows), attempts)
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.bad) > 0 {
		t.Fatalf("deliveries the verifier refused: %v", rcv.bad)
	}
	if len(rcv.got) != notices {
		t.Fatalf("receiver got %d distinct messages, want %d", len(rcv.got), notices)
	}
	for id, env := range rcv.got {
		if !strings.HasPrefix(id, "msg_") || env.Type != "task.run_finished" {
			t.Errorf("message %s: type %q", id, env.Type)
		}
		d := env.Data
		if d.TaskID != taskID || d.RunID == "" || d.Status != "done" ||
			d.ReportURL != "https://quarry.example.org/q/runs/"+d.RunID || d.Changes != "Changed: version 2.4 [S1]" {
			t.Errorf("message %s: payload %+v", id, d)
		}
	}
}

// A webhook on a private address is refused by the egress guard once and
// for all; one that keeps failing is given up after MaxAttempts with the
// last error kept.
func TestWebhookRefusedAndGivenUp(t *testing.T) {
	store := dbtest.NewStore(t)
	dbtest.Exec(t, store, `DELETE FROM notifications`)
	secret := newSecret(t)
	failing := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "receiver broken", http.StatusInternalServerError)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go failing.Serve(ln)
	defer failing.Close()
	ctx := context.Background()

	// No allow list: loopback is refused.
	o := newOutbox(t, store, egress.NewGuard(nil), notify.Options{MaxAttempts: 3})
	if err := o.Notify(ctx, notify.Notice{Owner: "ana", Kind: "run_finished", Title: "refused",
		Channels: notify.Channels{WebhookURL: "http://" + ln.Addr().String() + "/", WebhookSecret: secret}}); err != nil {
		t.Fatal(err)
	}
	if _, err := o.DeliverDue(ctx); err != nil {
		t.Fatal(err)
	}
	rows := allDeliveries(t, store)
	if len(rows) != 1 || rows[0].Status != "failed" || rows[0].Attempts != 1 || !strings.Contains(rows[0].LastError, "egress refused") {
		t.Fatalf("private address: %+v", rows)
	}
	if err := notify.CheckChannels(ctx, egress.NewGuard(nil), notify.Channels{WebhookURL: "http://" + ln.Addr().String() + "/", WebhookSecret: secret}); err == nil || !strings.HasPrefix(err.Error(), "webhook_url:") {
		t.Fatalf("CheckChannels let a loopback webhook through: %v", err)
	}

	dbtest.Exec(t, store, `DELETE FROM notifications`)
	o = newOutbox(t, store, egress.NewGuard([]string{"127.0.0.1"}), notify.Options{MaxAttempts: 3, BaseDelay: time.Millisecond})
	if err := o.Notify(ctx, notify.Notice{Owner: "ana", Kind: "run_finished", Title: "broken",
		Channels: notify.Channels{WebhookURL: "http://" + ln.Addr().String() + "/", WebhookSecret: secret}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the delivery to be given up", 5*time.Second, func() bool {
		o.DeliverDue(ctx)
		rows := allDeliveries(t, store)
		return len(rows) == 1 && rows[0].Status != "pending"
	})
	rows = allDeliveries(t, store)
	if rows[0].Status != "failed" || rows[0].Attempts != 3 || !strings.Contains(rows[0].LastError, "500") {
		t.Fatalf("after 3 failures: %+v", rows[0])
	}
}

func TestCheckChannels(t *testing.T) {
	ctx := context.Background()
	secret := newSecret(t)
	for _, tc := range []struct {
		ch    notify.Channels
		field string
	}{
		{notify.Channels{WebhookURL: "ftp://example.com/x", WebhookSecret: secret}, "webhook_url:"},
		{notify.Channels{WebhookURL: "https://example.com/x", WebhookSecret: "hunter2"}, "webhook_secret:"},
		{notify.Channels{WebhookURL: "https://example.com/x"}, "webhook_secret:"},
		{notify.Channels{Email: "nobody"}, "email:"},
		{notify.Channels{WebhookURL: "https://user:pw@example.com/x", WebhookSecret: secret}, "webhook_url:"},
		{notify.Channels{WebhookURL: "http://2130706433/x", WebhookSecret: secret}, "webhook_url:"},
		{notify.Channels{WebhookURL: "http://0x7f000001/x", WebhookSecret: secret}, "webhook_url:"},
		{notify.Channels{WebhookURL: "http://0177.0.0.1/x", WebhookSecret: secret}, "webhook_url:"},
		{notify.Channels{WebhookURL: "http://127.1/x", WebhookSecret: secret}, "webhook_url:"},
		{notify.Channels{WebhookURL: "https://example.com./x", WebhookSecret: secret}, "webhook_url:"},
		{notify.Channels{WebhookURL: "https://example.com/x", WebhookSecret: "whsec_x"}, "webhook_secret:"},
		{notify.Channels{Email: "Ana <ana@example.com>"}, "email:"},
	} {
		err := notify.CheckChannels(ctx, nil, tc.ch)
		if err == nil || !strings.HasPrefix(err.Error(), tc.field) {
			t.Errorf("%+v: %v, want an error naming %s", tc.ch, err, tc.field)
		}
	}
	for _, u := range []string{"https://example.com/x", "http://203.0.113.7:8080/hook", "https://[2001:db8::1]/hook", "https://hooks.example.com/x"} {
		if err := notify.CheckChannels(ctx, nil, notify.Channels{WebhookURL: u, WebhookSecret: secret, Email: "ana@example.com"}); err != nil {
			t.Errorf("valid channels with %s refused: %v", u, err)
		}
	}
}

// Two replicas' workers on one outbox: every delivery is made once, by one
// of them (SKIP LOCKED), in one attempt.
func TestTwoWorkersDeliverEachOnce(t *testing.T) {
	storeA, storeB := dbtest.NewStore(t), dbtest.NewStore(t)
	dbtest.Exec(t, storeA, `DELETE FROM notifications`)
	secret := newSecret(t)
	rcv := newReceiver(t, secret)
	guard := egress.NewGuard([]string{"127.0.0.1"})
	a := newOutbox(t, storeA, guard, notify.Options{})
	b := newOutbox(t, storeB, guard, notify.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const notices = 40
	for i := range notices {
		o := a
		if i%2 == 1 {
			o = b
		}
		if err := o.Notify(ctx, notify.Notice{Owner: "ana", Kind: "run_finished", Title: "tick",
			Channels: notify.Channels{WebhookURL: rcv.url(), WebhookSecret: secret}}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, o := range []*notify.Outbox{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); o.Run(ctx) }()
	}
	waitFor(t, "every delivery", 20*time.Second, func() bool {
		for _, d := range allDeliveries(t, storeA) {
			if d.Status != "delivered" {
				return false
			}
		}
		return true
	})
	cancel()
	wg.Wait()
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.bad) > 0 || len(rcv.got) != notices {
		t.Fatalf("received %d distinct, refused %v", len(rcv.got), rcv.bad)
	}
	for id, n := range rcv.times {
		if n != 1 {
			t.Errorf("%s delivered %d times", id, n)
		}
	}
	for _, d := range allDeliveries(t, storeA) {
		if d.Attempts != 1 {
			t.Errorf("delivery %d took %d attempts", d.ID, d.Attempts)
		}
	}
}
