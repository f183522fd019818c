package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/handlers"
)

// freshDatabase is a database of the test's own, so counts of queued runs
// are not disturbed by other tests.
func freshDatabase(t *testing.T) string {
	t.Helper()
	u, drop, err := dbtest.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	return u
}

// postRun creates a run through the API with optional headers.
func postRun(t *testing.T, base string, headers ...string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/runs", strings.NewReader(`{"question":"How are runs limited?","depth":"quick"}`))
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Error string }
	json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), body.Error
}

// TestRunCreationRate: after the burst, run creation is refused with 429
// and a Retry-After, in JSON for the API and as a page for the form; the
// refused requests store nothing. The buckets are in Postgres, so two
// replicas share one burst.
func TestRunCreationRate(t *testing.T) {
	dbURL := freshDatabase(t)
	opt := handlers.Options{Limits: handlers.Limits{RunsPerMinute: 2, RunBurst: 2}}
	a, b := newAuthServer(t, dbURL, opt), newAuthServer(t, dbURL, opt)
	for i, srv := range []*authServer{a, b} {
		if code, _, msg := postRun(t, srv.srv.URL); code != http.StatusCreated {
			t.Fatalf("run %d: %d %s", i+1, code, msg)
		}
	}
	code, retry, msg := postRun(t, a.srv.URL)
	secs, _ := strconv.Atoi(retry)
	if code != http.StatusTooManyRequests || secs < 1 || secs > 30 || !strings.Contains(msg, "Try again in") {
		t.Errorf("third run: %d Retry-After %q %q", code, retry, msg)
	}
	resp := do(t, http.MethodPost, b.srv.URL+"/runs", "", url.Values{"question": {"And through the form?"}})
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("form: %d", resp.StatusCode)
	}
	if mustDoc(t, resp.Body).Find("[data-testid=error]").Length() != 1 {
		t.Error("the form's refusal is not an error page")
	}
	if n := countRuns(t, a.store); n != 2 {
		t.Errorf("%d runs stored, want 2", n)
	}
}

// TestRunCaps: a user's runs in progress are capped (429) and so is the
// queue (503), both counted in Postgres, so a second replica enforces the
// same numbers.
func TestRunCaps(t *testing.T) {
	dbURL := freshDatabase(t)
	opt := handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthProxy}, Limits: handlers.Limits{MaxActiveRuns: 2, MaxQueuedRuns: 3}}
	_, loopback, _ := net.ParseCIDR("127.0.0.1/32")
	opt.TrustedProxies = []*net.IPNet{loopback}
	a := newAuthServer(t, dbURL, opt)
	b := newAuthServer(t, dbURL, opt)
	for _, srv := range []*authServer{a, b} {
		if code, _, msg := postRun(t, srv.srv.URL, "X-Forwarded-User", "gina"); code != http.StatusCreated {
			t.Fatalf("gina's run: %d %s", code, msg)
		}
	}
	code, retry, msg := postRun(t, b.srv.URL, "X-Forwarded-User", "gina")
	if code != http.StatusTooManyRequests || retry == "" || !strings.Contains(msg, "2 runs in progress") {
		t.Errorf("gina's third run: %d %q %q", code, retry, msg)
	}
	if code, _, msg := postRun(t, a.srv.URL, "X-Forwarded-User", "hank"); code != http.StatusCreated {
		t.Fatalf("hank's run: %d %s", code, msg)
	}
	code, retry, msg = postRun(t, b.srv.URL, "X-Forwarded-User", "ida")
	if code != http.StatusServiceUnavailable || retry == "" || !strings.Contains(msg, "3 runs are waiting") {
		t.Errorf("a run past the queue cap: %d %q %q", code, retry, msg)
	}
	// A finished run frees its place.
	dbtest.Exec(t, a.store, `UPDATE runs SET status = 'done' WHERE owner = 'gina'`)
	if code, _, msg := postRun(t, b.srv.URL, "X-Forwarded-User", "gina"); code != http.StatusCreated {
		t.Errorf("gina's run after two finished: %d %s", code, msg)
	}
}

// TestStreamCap: one client may hold at most MaxStreams event streams; a
// closed one frees its place.
func TestStreamCap(t *testing.T) {
	a := newAuthServer(t, "", handlers.Options{Limits: handlers.Limits{MaxStreams: 2}})
	run := createRun(t, a.store, "How many streams may one client open?")
	url := a.srv.URL + "/api/runs/" + run.ID + "/events"
	s1 := openSSE(t, url, "")
	openSSE(t, a.srv.URL+"/runs/"+run.ID+"/events", "")
	resp := do(t, http.MethodGet, url, "", nil)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("third stream: %d", resp.StatusCode)
	}
	s1.resp.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp := do(t, http.MethodGet, url, "", nil)
		if resp.StatusCode == http.StatusOK {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed stream did not free its place: %d", resp.StatusCode)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestForwardedHeaders: X-Forwarded-For counts from a trusted proxy only,
// so an untrusted client cannot dodge the per-address limit by inventing
// addresses, while clients behind a trusted proxy each get their own.
// X-Forwarded-Proto https from the proxy makes the session cookie Secure.
func TestForwardedHeaders(t *testing.T) {
	_, loopback, _ := net.ParseCIDR("127.0.0.1/32")
	_, elsewhere, _ := net.ParseCIDR("192.0.2.0/24")
	lim := handlers.Limits{RunsPerMinutePerIP: 1, RunBurst: 1}
	behind := newAuthServer(t, freshDatabase(t), handlers.Options{TrustedProxies: []*net.IPNet{loopback}, Limits: lim})
	direct := newAuthServer(t, freshDatabase(t), handlers.Options{TrustedProxies: []*net.IPNet{elsewhere}, Limits: lim})

	// Behind the proxy: the rightmost untrusted address is the client; a
	// spoofed entry to its left changes nothing.
	for _, xff := range []string{"198.51.100.7", "203.0.113.9", "10.9.9.9, 198.51.100.8"} {
		if code, _, msg := postRun(t, behind.srv.URL, "X-Forwarded-For", xff); code != http.StatusCreated {
			t.Errorf("client %s behind the proxy: %d %s", xff, code, msg)
		}
	}
	if code, _, _ := postRun(t, behind.srv.URL, "X-Forwarded-For", "1.2.3.4, 198.51.100.7"); code != http.StatusTooManyRequests {
		t.Errorf("a client hiding behind a spoofed X-Forwarded-For entry: %d, want 429", code)
	}
	// Not a trusted proxy: the header is ignored, so both requests count
	// against the peer's own address.
	if code, _, _ := postRun(t, direct.srv.URL, "X-Forwarded-For", "198.51.100.1"); code != http.StatusCreated {
		t.Errorf("first direct run: %d", code)
	}
	if code, _, _ := postRun(t, direct.srv.URL, "X-Forwarded-For", "198.51.100.2"); code != http.StatusTooManyRequests {
		t.Errorf("an untrusted client's invented address was believed: %d", code)
	}

	pw := handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthPassword}, TrustedProxies: []*net.IPNet{loopback}}
	s := newAuthServer(t, "", pw)
	addUser(t, s.store, "judy", "judy's password")
	for _, tt := range []struct {
		proto  string
		secure bool
	}{{"https", true}, {"http", false}} {
		resp := do(t, http.MethodPost, s.srv.URL+"/login", "", url.Values{"name": {"judy"}, "password": {"judy's password"}}, "X-Forwarded-Proto", tt.proto)
		var c *http.Cookie
		for _, k := range resp.Cookies() {
			c = k
		}
		if c == nil || c.Secure != tt.secure {
			t.Errorf("X-Forwarded-Proto %s: cookie %+v, want Secure=%v", tt.proto, c, tt.secure)
		}
	}
}

// TestLoginLimitCannotLockOutFromElsewhere: guesses from one address stop
// that address trying that name, but the user signs in from their own
// address; the name alone is limited only at a much higher rate.
func TestLoginLimitCannotLockOutFromElsewhere(t *testing.T) {
	_, loopback, _ := net.ParseCIDR("127.0.0.1/32")
	opt := handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthPassword}, Limits: handlers.Limits{LoginsPerMinute: 2},
		TrustedProxies: []*net.IPNet{loopback}}
	s := newAuthServer(t, freshDatabase(t), opt)
	addUser(t, s.store, "erin", "erin's own password")
	attempt := func(from, password string) int {
		resp := do(t, http.MethodPost, s.srv.URL+"/login", "", url.Values{"name": {"erin"}, "password": {password}}, "X-Forwarded-For", from)
		return resp.StatusCode
	}
	for i, want := range []int{http.StatusUnauthorized, http.StatusUnauthorized, http.StatusTooManyRequests} {
		if got := attempt("198.51.100.66", "guess"); got != want {
			t.Fatalf("guess %d from the attacker's address: %d, want %d", i+1, got, want)
		}
	}
	if got := attempt("203.0.113.5", "erin's own password"); got != http.StatusSeeOther {
		t.Fatalf("erin from her own address while the attacker is limited: %d, want 303", got)
	}
	// Guessing from many addresses: the name's own bucket (ten times the
	// rate) stops it in the end.
	limited := false
	for i := 1; i <= 12 && !limited; i++ {
		for range 2 {
			if attempt(fmt.Sprintf("192.0.2.%d", i), "guess") == http.StatusTooManyRequests {
				limited = true
			}
		}
	}
	if !limited {
		t.Error("24 guesses at one name from 12 addresses were never limited")
	}
}

// TestStreamCapCountsPerBrowser: without accounts, the cap on event
// streams counts each browser (its client cookie) rather than the address
// it shares with others.
func TestStreamCapCountsPerBrowser(t *testing.T) {
	a := newAuthServer(t, "", handlers.Options{Limits: handlers.Limits{MaxStreams: 2}})
	run := createRun(t, a.store, "How many streams may one browser open?")
	clientCookie := func() string {
		resp := do(t, http.MethodGet, a.srv.URL+"/", "", nil)
		for _, c := range resp.Cookies() {
			if c.Name == handlers.ClientCookie {
				return c.Value
			}
		}
		t.Fatal("the ask page set no client cookie")
		return ""
	}
	stream := func(cookie string) int {
		req, _ := http.NewRequest(http.MethodGet, a.srv.URL+"/api/runs/"+run.ID+"/events", nil)
		req.AddCookie(&http.Cookie{Name: handlers.ClientCookie, Value: cookie})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp.StatusCode
	}
	first, second := clientCookie(), clientCookie()
	if first == second {
		t.Fatal("two browsers got the same client cookie")
	}
	for i := range 2 {
		if code := stream(first); code != http.StatusOK {
			t.Fatalf("stream %d of the first browser: %d", i+1, code)
		}
	}
	if code := stream(first); code != http.StatusTooManyRequests {
		t.Errorf("third stream of the first browser: %d, want 429", code)
	}
	if code := stream(second); code != http.StatusOK {
		t.Errorf("the second browser at the same address: %d, want 200", code)
	}
}
