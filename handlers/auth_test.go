package handlers_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/pipeline"
)

// authServer is a replica built with the given access options (auth,
// trusted proxies, limits) on database url ("" = the package's); its runner
// does not start, so runs it creates stay queued.
type authServer struct {
	store *db.Store
	h     *handlers.Server
	srv   *httptest.Server
}

func newAuthServer(t testing.TB, url string, opt handlers.Options) *authServer {
	t.Helper()
	return newAuthServerWith(t, url, opt, nil)
}

// newAuthServerWith is newAuthServer with a last say over the options once
// the runner exists (scheduled tasks need it).
func newAuthServerWith(t testing.TB, url string, opt handlers.Options, setup func(*pipeline.Runner, *handlers.Options)) *authServer {
	t.Helper()
	if url == "" {
		url = dbtest.URL(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	log := testLogger(t)
	broker := db.NewBroker(db.NewEventReader(conn), log)
	store := db.NewStore(conn, broker)
	lctx, lcancel := context.WithCancel(context.Background())
	if err := broker.Listen(lctx, url); err != nil {
		t.Fatal(err)
	}
	runner := pipeline.NewRunner(pipeline.Options{Store: store, Engine: extractive.New(), Engines: []string{"duckduckgo"}, Workers: 1, Logger: log})
	opt.Store, opt.Runs, opt.Logger = store, runner, log
	if setup != nil {
		setup(runner, &opt)
	}
	h := handlers.New(opt)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.CloseStreams(ctx)
		srv.Close()
		lcancel()
		conn.Close()
	})
	return &authServer{store: store, h: h, srv: srv}
}

// addUser stores a user with a cheap hash (the login compares against any
// bcrypt cost).
func addUser(t *testing.T, store *db.Store, name, password string) {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateUser(context.Background(), name, string(h)); err != nil {
		t.Fatal(err)
	}
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// do sends a request with an optional session cookie and extra headers.
func do(t *testing.T, method, target, session string, body url.Values, headers ...string) *http.Response {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = strings.NewReader(body.Encode())
	}
	req, err := http.NewRequest(method, target, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if session != "" {
		req.AddCookie(&http.Cookie{Name: handlers.SessionCookie, Value: session})
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// login signs in and returns the session cookie set (nil if none).
func login(t *testing.T, base, name, password, planted string) (*http.Response, *http.Cookie) {
	t.Helper()
	resp := do(t, http.MethodPost, base+"/login", planted, url.Values{"name": {name}, "password": {password}, "next": {"/runs"}})
	for _, c := range resp.Cookies() {
		if c.Name == handlers.SessionCookie {
			return resp, c
		}
	}
	return resp, nil
}

func sessionCount(t *testing.T, store *db.Store, user string) int {
	t.Helper()
	var n int
	dbtest.Get(t, store, &n, `SELECT count(*) FROM sessions WHERE user_name = $1`, user)
	return n
}

// TestPasswordAuth walks the password mode: anonymous requests are turned
// away (401 for the API and streams, the login page for pages) except the
// public paths; a wrong password is refused; a login sets a hardened
// cookie whose token is stored only hashed, works on another replica, and
// records the owner of the runs created with it; logout ends it on both.
func TestPasswordAuth(t *testing.T) {
	opt := handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthPassword}}
	a := newAuthServer(t, "", opt)
	b := newAuthServer(t, "", opt)
	addUser(t, a.store, "alice", "correct horse battery")
	run := createRun(t, a.store, "A run to look at?")

	// Anonymous.
	resp := do(t, http.MethodGet, a.srv.URL+"/runs?q=x", "", nil)
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/login?next="+url.QueryEscape("/runs?q=x") {
		t.Errorf("anonymous page: %d Location %q", resp.StatusCode, loc)
	}
	for _, p := range []string{"/api/runs/" + run.ID, "/runs/" + run.ID + "/events", "/api/runs/" + run.ID + "/events"} {
		resp := do(t, http.MethodGet, a.srv.URL+p, "", nil)
		var body struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != http.StatusUnauthorized || body.Error == "" {
			t.Errorf("anonymous %s: %d %+v", p, resp.StatusCode, body)
		}
	}
	resp = do(t, http.MethodPost, a.srv.URL+"/api/runs", "", nil)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("anonymous POST /api/runs: %d", resp.StatusCode)
	}
	resp = do(t, http.MethodGet, a.srv.URL+"/", "", nil, "HX-Request", "true")
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("HX-Redirect"), "/login") {
		t.Errorf("anonymous htmx request: %d HX-Redirect %q", resp.StatusCode, resp.Header.Get("HX-Redirect"))
	}
	for _, p := range []string{"/healthz", "/metrics", "/static/quarry.css", "/login", "/r/AAAAAAAAAAAAAAAAAAAAAA"} {
		resp := do(t, http.MethodGet, a.srv.URL+p, "", nil)
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusSeeOther {
			t.Errorf("public %s: %d", p, resp.StatusCode)
		}
	}

	// The login page and a wrong password.
	resp = do(t, http.MethodGet, a.srv.URL+"/login?next=/runs", "", nil)
	doc := mustDoc(t, resp.Body)
	if doc.Find("[data-testid=login-form] input[name=name]").Length() != 1 || doc.Find("input[name=next]").AttrOr("value", "") != "/runs" {
		t.Errorf("login page form missing")
	}
	for _, pw := range []string{"wrong password", ""} {
		resp, c := login(t, a.srv.URL, "alice", pw, "")
		if resp.StatusCode != http.StatusUnauthorized || c != nil {
			t.Errorf("wrong password %q: %d, cookie %v", pw, resp.StatusCode, c)
		}
		if mustDoc(t, resp.Body).Find("[data-testid=login-error]").Length() != 1 {
			t.Error("no error shown for a wrong password")
		}
	}
	if resp, c := login(t, a.srv.URL, "mallory", "correct horse battery", ""); resp.StatusCode != http.StatusUnauthorized || c != nil {
		t.Errorf("unknown user: %d", resp.StatusCode)
	}

	// Login.
	resp, cookie := login(t, a.srv.URL, "alice", "correct horse battery", "")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/runs" || cookie == nil {
		t.Fatalf("login: %d Location %q cookie %v", resp.StatusCode, resp.Header.Get("Location"), cookie)
	}
	if !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || cookie.Secure || cookie.Path != "/" || cookie.MaxAge <= 0 {
		t.Errorf("cookie attributes: %+v", cookie)
	}
	if len(cookie.Value) < 40 {
		t.Errorf("session token %q is short", cookie.Value)
	}
	var stored []byte
	dbtest.Get(t, a.store, &stored, `SELECT token_hash FROM sessions WHERE user_name = 'alice'`)
	if len(stored) != 32 || strings.Contains(string(stored), cookie.Value) {
		t.Errorf("the session table holds %q for token %q: not a SHA-256", stored, cookie.Value)
	}

	// Signed in, on both replicas; runs record their owner.
	for _, srv := range []*authServer{a, b} {
		resp := do(t, http.MethodGet, srv.srv.URL+"/", cookie.Value, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("signed-in page: %d", resp.StatusCode)
		}
		if got := mustDoc(t, resp.Body).Find("[data-testid=user]").Text(); got != "alice" {
			t.Errorf("user shown as %q", got)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/api/runs", strings.NewReader(`{"question":"Who owns this run?","depth":"quick"}`))
	req.AddCookie(&http.Cookie{Name: handlers.SessionCookie, Value: cookie.Value})
	cresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ID string }
	json.NewDecoder(cresp.Body).Decode(&created)
	cresp.Body.Close()
	if cresp.StatusCode != http.StatusCreated {
		t.Fatalf("create run signed in: %d", cresp.StatusCode)
	}
	owned, err := a.store.GetRun(context.Background(), created.ID)
	if err != nil || owned.Owner != "alice" {
		t.Errorf("run owner %q (%v), want alice", owned.Owner, err)
	}
	resp = do(t, http.MethodGet, a.srv.URL+"/runs?q="+url.QueryEscape("owns"), cookie.Value, nil)
	if item := mustDoc(t, resp.Body).Find("[data-testid=run-item]").First().Text(); !strings.Contains(item, "alice") {
		t.Errorf("history does not show the owner: %q", item)
	}

	// Logout ends the session everywhere.
	resp = do(t, http.MethodPost, b.srv.URL+"/logout", cookie.Value, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Errorf("logout: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	cleared := false
	for _, c := range resp.Cookies() {
		cleared = cleared || (c.Name == handlers.SessionCookie && c.MaxAge < 0)
	}
	if !cleared {
		t.Error("logout did not clear the cookie")
	}
	for _, srv := range []*authServer{a, b} {
		if resp := do(t, http.MethodGet, srv.srv.URL+"/api/runs/"+run.ID, cookie.Value, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("after logout: %d", resp.StatusCode)
		}
	}
	if n := sessionCount(t, a.store, "alice"); n != 0 {
		t.Errorf("%d sessions left after logout", n)
	}
}

// TestSessionFixation: a session id planted in the browser before login is
// never the one that gets signed in; logging in again replaces (and ends)
// the previous session.
func TestSessionFixation(t *testing.T) {
	a := newAuthServer(t, "", handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthPassword}})
	addUser(t, a.store, "bob", "another good password")
	planted := "attackerchosenattackerchosenattackerchosen"
	_, c1 := login(t, a.srv.URL, "bob", "another good password", planted)
	if c1 == nil || c1.Value == planted {
		t.Fatalf("login kept the planted session id: %+v", c1)
	}
	if resp := do(t, http.MethodGet, a.srv.URL+"/", planted, nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the planted id signs in: %d", resp.StatusCode)
	}
	_, c2 := login(t, a.srv.URL, "bob", "another good password", c1.Value)
	if c2 == nil || c2.Value == c1.Value {
		t.Fatalf("a second login reused the session id")
	}
	if resp := do(t, http.MethodGet, a.srv.URL+"/", c1.Value, nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the previous session still works after a new login: %d", resp.StatusCode)
	}
	if n := sessionCount(t, a.store, "bob"); n != 1 {
		t.Errorf("%d sessions for bob, want 1", n)
	}
	// Removing the user ends their sessions.
	if err := a.store.DeleteUser(context.Background(), "bob"); err != nil {
		t.Fatal(err)
	}
	if resp := do(t, http.MethodGet, a.srv.URL+"/", c2.Value, nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a removed user's session still works: %d", resp.StatusCode)
	}
}

// TestLoginHardening: attempts are rate limited per name across replicas
// (429 with Retry-After, even for the right password); next cannot leave the site;
// a cross-site login or logout post is refused; cookies are Secure under
// an https public URL and scoped to its path.
func TestLoginHardening(t *testing.T) {
	// Two replicas: the attempts are counted in Postgres, so spreading them
	// over replicas gains nothing.
	opt := handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthPassword}, Limits: handlers.Limits{LoginsPerMinute: 3}}
	dbURL := freshDatabase(t)
	a, b := newAuthServer(t, dbURL, opt), newAuthServer(t, dbURL, opt)
	addUser(t, a.store, "carol", "yet another password")
	for i, srv := range []*authServer{a, b, a} {
		if resp, _ := login(t, srv.srv.URL, "carol", "guess", ""); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i+1, resp.StatusCode)
		}
	}
	resp, c := login(t, b.srv.URL, "carol", "yet another password", "")
	if resp.StatusCode != http.StatusTooManyRequests || c != nil || resp.Header.Get("Retry-After") == "" {
		t.Errorf("fourth attempt: %d Retry-After %q cookie %v", resp.StatusCode, resp.Header.Get("Retry-After"), c)
	}
	// A name far longer than any index key is still counted, not a 500.
	// (Checked after the fourth attempt: an unknown name costs a full
	// bcrypt comparison, which on a loaded machine took the 20 s a token
	// takes to come back.)
	long := make([]byte, 2500)
	rand.Read(long)
	if resp, _ := login(t, a.srv.URL, hex.EncodeToString(long), "guess", ""); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a 5,000-character name: %d", resp.StatusCode)
	}

	s := newAuthServer(t, dbURL, handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthPassword},
		BaseURL: "https://research.example.com/quarry"})
	addUser(t, s.store, "dave", "the fourth password")
	for _, next := range []string{"//evil.example/x", "https://evil.example/", "/\\evil.example"} {
		resp := do(t, http.MethodPost, s.srv.URL+"/quarry/login", "", url.Values{"name": {"dave"}, "password": {"the fourth password"}, "next": {next}})
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/quarry/" {
			t.Errorf("next %q: %d Location %q", next, resp.StatusCode, loc)
		}
		var cookie *http.Cookie
		for _, c := range resp.Cookies() {
			cookie = c
		}
		if cookie == nil || !cookie.Secure || cookie.Path != "/quarry/" {
			t.Errorf("cookie under an https base URL: %+v", cookie)
		}
	}
	for _, p := range []string{"/quarry/login", "/quarry/logout"} {
		resp := do(t, http.MethodPost, s.srv.URL+p, "", url.Values{"name": {"dave"}, "password": {"the fourth password"}},
			"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example")
		if resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
			t.Errorf("cross-site POST %s: %d", p, resp.StatusCode)
		}
	}
	// In other modes there is no login page.
	n := newAuthServer(t, "", handlers.Options{})
	if resp := do(t, http.MethodGet, n.srv.URL+"/login", "", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /login without password auth: %d", resp.StatusCode)
	}
}

// TestProxyAuth: the identity header is believed from a trusted proxy
// only; the header name is configurable; runs record the proxy's user.
func TestProxyAuth(t *testing.T) {
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	_, elsewhere, _ := net.ParseCIDR("10.0.0.0/8")
	trusted := newAuthServer(t, "", handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthProxy, Header: "X-Auth-Request-User"},
		TrustedProxies: []*net.IPNet{loopback}})
	untrusted := newAuthServer(t, "", handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthProxy},
		TrustedProxies: []*net.IPNet{elsewhere}})

	if resp := do(t, http.MethodGet, untrusted.srv.URL+"/", "", nil, "X-Forwarded-User", "eve"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("identity header from an untrusted peer: %d", resp.StatusCode)
	}
	if resp := do(t, http.MethodGet, trusted.srv.URL+"/", "", nil, "X-Forwarded-User", "eve"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the default header when another is configured: %d", resp.StatusCode)
	}
	if resp := do(t, http.MethodGet, trusted.srv.URL+"/", "", nil, "X-Auth-Request-User", strings.Repeat("x", 200)); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("an overlong user: %d", resp.StatusCode)
	}
	resp := do(t, http.MethodGet, trusted.srv.URL+"/", "", nil, "X-Auth-Request-User", "frank@example.com")
	if resp.StatusCode != http.StatusOK || mustDoc(t, resp.Body).Find("[data-testid=user]").Text() != "frank@example.com" {
		t.Errorf("trusted proxy user: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodPost, trusted.srv.URL+"/api/runs", strings.NewReader(`{"question":"Whose run is this?","depth":"quick"}`))
	req.Header.Set("X-Auth-Request-User", "frank@example.com")
	cresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ID string }
	json.NewDecoder(cresp.Body).Decode(&created)
	cresp.Body.Close()
	if run, err := trusted.store.GetRun(context.Background(), created.ID); err != nil || run.Owner != "frank@example.com" {
		t.Errorf("owner of a run created through the proxy: %v %v", run, err)
	}
}
