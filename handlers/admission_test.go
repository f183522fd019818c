package handlers_test

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/pipeline"
)

// TestRunNowObeysAdmission: a burst of "Run now", through the API and the
// form at once, creates no more runs than the owner's cap; the rest are
// refused with 429 and the rule's message, and another user still starts
// a run. The queue's cap refuses "Run now" with 503 like a new question.
func TestRunNowObeysAdmission(t *testing.T) {
	dbURL := freshDatabase(t)
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	opts := testTaskOptions(pipeline.NewRunner(pipeline.Options{Engines: []string{"duckduckgo"}}))
	srv := newAuthServer(t, dbURL, handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthProxy, Header: "X-User"},
		TrustedProxies: []*net.IPNet{loopback}, Tasks: opts, Limits: handlers.Limits{MaxActiveRuns: 3, MaxQueuedRuns: 6}})
	send := func(user, method, path, body string) (int, string, string) {
		req, _ := http.NewRequest(method, srv.srv.URL+path, strings.NewReader(body))
		req.Header.Set("X-User", user)
		if strings.HasPrefix(path, "/api/") {
			req.Header.Set("Content-Type", "application/json")
		} else {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Error(err)
			return 0, "", ""
		}
		defer resp.Body.Close()
		if strings.HasPrefix(path, "/api/") {
			var out struct{ Error string }
			json.NewDecoder(resp.Body).Decode(&out)
			return resp.StatusCode, resp.Header.Get("Retry-After"), out.Error
		}
		return resp.StatusCode, resp.Header.Get("Retry-After"), mustDoc(t, resp.Body).Find("[data-testid=error]").Text()
	}
	code, _, msg := send("ann", "POST", "/api/tasks", `{"question":"What changed in the release notes?","schedule":"every hour"}`)
	if code != http.StatusCreated {
		t.Fatalf("create task: %d %s", code, msg)
	}
	var id string
	dbtest.Get(t, srv.store, &id, `SELECT id::text FROM tasks WHERE owner = 'ann'`)

	type answer struct {
		code         int
		retry, msg   string
		path, method string
	}
	var mu sync.Mutex
	var answers []answer
	var wg sync.WaitGroup
	for i := 0; i < 15; i++ {
		path := "/api/tasks/" + id + "/run"
		if i%2 == 1 {
			path = "/tasks/" + id + "/run"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, retry, msg := send("ann", "POST", path, "")
			mu.Lock()
			answers = append(answers, answer{code, retry, msg, path, "POST"})
			mu.Unlock()
		}()
	}
	wg.Wait()
	created, refused := 0, 0
	for _, a := range answers {
		switch {
		case a.code == http.StatusCreated || a.code == http.StatusSeeOther:
			created++
		case a.code == http.StatusTooManyRequests && a.retry != "" && strings.Contains(a.msg, "runs in progress"):
			refused++
		default:
			t.Errorf("%s %s: %d %q", a.method, a.path, a.code, a.msg)
		}
	}
	var stored int
	dbtest.Get(t, srv.store, &stored, `SELECT count(*) FROM runs WHERE owner = 'ann'`)
	if created != 3 || refused != 12 || stored != 3 {
		t.Fatalf("a burst of 15 run-now: %d created, %d refused, %d stored; want 3, 12, 3", created, refused, stored)
	}
	// Another user is not held back by ann's cap.
	if code, _, msg := postRun(t, srv.srv.URL, "X-User", "bob"); code != http.StatusCreated {
		t.Fatalf("bob's run: %d %s", code, msg)
	}
	// The queue's cap (6) holds for "Run now" too: 503, nothing stored.
	dbtest.Exec(t, srv.store, `UPDATE runs SET status = 'done' WHERE owner = 'ann'`)
	for _, u := range []string{"cid", "dan"} {
		for i := 0; i < 3; i++ {
			if code, _, msg := postRun(t, srv.srv.URL, "X-User", u); code != http.StatusCreated && !(u == "dan" && i == 2) {
				t.Fatalf("%s's run %d: %d %s", u, i, code, msg)
			}
		}
	}
	code, retry, msg := send("ann", "POST", "/api/tasks/"+id+"/run", "")
	if code != http.StatusServiceUnavailable || retry == "" || !strings.Contains(msg, "waiting in the queue") {
		t.Fatalf("run now with a full queue: %d %q %q", code, retry, msg)
	}
	dbtest.Get(t, srv.store, &stored, `SELECT count(*) FROM runs WHERE owner = 'ann' AND status = 'queued'`)
	if stored != 0 {
		t.Fatalf("%d runs queued past a full queue", stored)
	}
}
