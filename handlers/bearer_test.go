package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/handlers"
)

// tokenJSON is a token as the API answers it.
type tokenJSON struct {
	ID         int64   `json:"id"`
	Name       string  `json:"name"`
	Hint       string  `json:"hint"`
	ReadOnly   bool    `json:"read_only"`
	LastUsedAt *string `json:"last_used_at"`
	RevokedAt  *string `json:"revoked_at"`
	Token      string  `json:"token"`
}

// apiCall sends a JSON request with a bearer token (none when "") and
// extra headers, and returns the response and its body.
func apiCall(t *testing.T, method, target, token string, body any, headers ...string) (*http.Response, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, target, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// newToken creates a token through the API with a session.
func newToken(t *testing.T, base, session, name string, readOnly bool) tokenJSON {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"name": name, "read_only": readOnly})
	req, _ := http.NewRequest(http.MethodPost, base+"/api/tokens", bytes.NewReader(b))
	req.AddCookie(&http.Cookie{Name: handlers.SessionCookie, Value: session})
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok tokenJSON
	json.NewDecoder(resp.Body).Decode(&tok)
	if resp.StatusCode != http.StatusCreated || !strings.HasPrefix(tok.Token, "qry_") {
		t.Fatalf("create token: %d %+v", resp.StatusCode, tok)
	}
	return tok
}

func errorOf(t *testing.T, body []byte) string {
	t.Helper()
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not a JSON error: %s", body)
	}
	return e.Error
}

// TestAPITokens walks a token's life: made by a signed-in user (the secret
// answered once, only its hash stored), used as `Authorization: Bearer`
// (as its user, last use recorded, no cookie set, cross-origin rules not
// applied), unable to make tokens, read-only when so made, and refused
// with a clear 401 once revoked or when unknown.
func TestAPITokens(t *testing.T) {
	a := newAuthServer(t, dbtest.URL(t), handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthPassword}})
	addUser(t, a.store, "tk-alice", "correct horse")
	_, cookie := login(t, a.srv.URL, "tk-alice", "correct horse", "")
	if cookie == nil {
		t.Fatal("no session")
	}
	base := a.srv.URL

	tok := newToken(t, base, cookie.Value, "ci job", false)
	if tok.LastUsedAt != nil || tok.ReadOnly || tok.Hint != tok.Token[:len(tok.Hint)] {
		t.Errorf("new token: %+v", tok)
	}
	var stored int
	dbtest.Get(t, a.store, &stored, `SELECT count(*) FROM api_tokens WHERE token_hash = sha256(convert_to($1, 'UTF8'))`, tok.Token)
	if stored != 1 {
		t.Errorf("the token is not stored as the SHA-256 of its secret")
	}
	var clear int
	dbtest.Get(t, a.store, &clear, `SELECT count(*) FROM api_tokens t WHERE position($1 in t::text) > 0`, tok.Token)
	if clear != 0 {
		t.Errorf("the secret is stored in clear")
	}

	// Used as its user, from anywhere: a POST with a foreign Origin is a
	// program's, not a forged form.
	resp, body := apiCall(t, http.MethodPost, base+"/api/runs", tok.Token, map[string]any{"question": "What does the bearer token do?", "depth": "quick"},
		"Origin", "https://elsewhere.example", "Sec-Fetch-Site", "cross-site")
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create run with token: %d %s", resp.StatusCode, body)
	}
	if len(resp.Cookies()) != 0 {
		t.Errorf("a bearer request got cookies: %v", resp.Cookies())
	}
	var created handlers.CreateRunResponse
	json.Unmarshal(body, &created)
	if run := getRun(t, a.store, created.ID); run.Owner != "tk-alice" {
		t.Errorf("run owner %q, want alice", run.Owner)
	}
	resp, body = apiCall(t, http.MethodGet, base+"/api/tokens", tok.Token, nil)
	var list struct{ Tokens []tokenJSON }
	json.Unmarshal(body, &list)
	if resp.StatusCode != 200 || len(list.Tokens) != 1 || list.Tokens[0].LastUsedAt == nil || list.Tokens[0].Token != "" {
		t.Errorf("list after use: %d %s", resp.StatusCode, body)
	}

	// A token cannot mint tokens.
	resp, body = apiCall(t, http.MethodPost, base+"/api/tokens", tok.Token, map[string]any{"name": "child"})
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(errorOf(t, body), "cannot create tokens") {
		t.Errorf("token creating a token: %d %s", resp.StatusCode, body)
	}
	// Bad input names the field.
	req, _ := http.NewRequest(http.MethodPost, base+"/api/tokens", strings.NewReader(`{"name":"  "}`))
	req.AddCookie(cookie)
	r2, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var bad struct{ Error, Field string }
	json.NewDecoder(r2.Body).Decode(&bad)
	r2.Body.Close()
	if r2.StatusCode != http.StatusBadRequest || bad.Field != "name" {
		t.Errorf("empty name: %d %+v", r2.StatusCode, bad)
	}

	// Read-only: reads work, changes are refused with a clear 403.
	ro := newToken(t, base, cookie.Value, "dashboard", true)
	if resp, body := apiCall(t, http.MethodGet, base+"/api/runs/"+created.ID, ro.Token, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("read-only GET: %d %s", resp.StatusCode, body)
	}
	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/api/runs"}, {http.MethodPost, "/api/runs/" + created.ID + "/cancel"},
		{http.MethodPost, "/api/runs/" + created.ID + "/approve"}, {http.MethodPost, "/api/documents"},
	} {
		resp, body := apiCall(t, c.method, base+c.path, ro.Token, map[string]any{"question": "x"})
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(errorOf(t, body), "read-only") {
			t.Errorf("read-only %s %s: %d %s", c.method, c.path, resp.StatusCode, body)
		}
	}
	if run := getRun(t, a.store, created.ID); run.Status.Terminal() {
		t.Errorf("a read-only token cancelled the run")
	}

	// Another user's token is not theirs to revoke.
	addUser(t, a.store, "tk-bob", "battery staple")
	_, bobCookie := login(t, base, "tk-bob", "battery staple", "")
	bobTok := newToken(t, base, bobCookie.Value, "bob's", false)
	if resp, body := apiCall(t, http.MethodDelete, base+"/api/tokens/"+itoa(tok.ID), bobTok.Token, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob revoking alice's token: %d %s", resp.StatusCode, body)
	}

	// Revoked and unknown tokens: 401 with a message saying so.
	if resp, body := apiCall(t, http.MethodDelete, base+"/api/tokens/"+itoa(tok.ID), tok.Token, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %d %s", resp.StatusCode, body)
	}
	resp, body = apiCall(t, http.MethodGet, base+"/api/runs", tok.Token, nil)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(errorOf(t, body), "revoked") {
		t.Errorf("revoked token: %d %s", resp.StatusCode, body)
	}
	resp, body = apiCall(t, http.MethodGet, base+"/api/runs", "qry_"+strings.Repeat("A", 43), nil)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(errorOf(t, body), "not valid") {
		t.Errorf("unknown token: %d %s", resp.StatusCode, body)
	}
	resp, body = apiCall(t, http.MethodGet, base+"/api/runs", "", nil)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(errorOf(t, body), "Bearer") {
		t.Errorf("no token: %d %s", resp.StatusCode, body)
	}
	// A token is for programs on /api/ and /mcp: pages ignore it.
	if resp := do(t, http.MethodGet, base+"/runs", "", nil, "Authorization", "Bearer "+ro.Token); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("page with a token: %d, want the login redirect", resp.StatusCode)
	}
}

// TestTokenRateLimitsArePerToken: each token has its own bucket of runs,
// so one busy program does not starve another of the same user.
func TestTokenRateLimitsArePerToken(t *testing.T) {
	a := newAuthServer(t, dbtest.URL(t), handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthPassword},
		Limits: handlers.Limits{RunsPerMinute: 1, RunBurst: 1}})
	addUser(t, a.store, "tk-carol", "pw pw pw")
	_, cookie := login(t, a.srv.URL, "tk-carol", "pw pw pw", "")
	one := newToken(t, a.srv.URL, cookie.Value, "one", false)
	two := newToken(t, a.srv.URL, cookie.Value, "two", false)
	run := map[string]any{"question": "How do token buckets work?", "depth": "quick"}
	if resp, body := apiCall(t, http.MethodPost, a.srv.URL+"/api/runs", one.Token, run); resp.StatusCode != http.StatusCreated {
		t.Fatalf("first run: %d %s", resp.StatusCode, body)
	}
	if resp, body := apiCall(t, http.MethodPost, a.srv.URL+"/api/runs", one.Token, run); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("second run on the same token: %d %s, want 429", resp.StatusCode, body)
	}
	if resp, body := apiCall(t, http.MethodPost, a.srv.URL+"/api/runs", two.Token, run); resp.StatusCode != http.StatusCreated {
		t.Errorf("first run on another token: %d %s", resp.StatusCode, body)
	}
}

// TestEveryAPIRouteWithTokens goes over every /api route the router
// serves: a valid token is let in (whatever the handler then says), a
// read-only one is refused only what changes something, a revoked one
// and none get 401.
func TestEveryAPIRouteWithTokens(t *testing.T) {
	a := newAuthServer(t, dbtest.URL(t), handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthPassword}})
	addUser(t, a.store, "tk-dave", "pw pw pw")
	_, cookie := login(t, a.srv.URL, "tk-dave", "pw pw pw", "")
	rw := newToken(t, a.srv.URL, cookie.Value, "rw", false)
	ro := newToken(t, a.srv.URL, cookie.Value, "ro", true)
	revoked := newToken(t, a.srv.URL, cookie.Value, "old", false)
	if resp, _ := apiCall(t, http.MethodDelete, a.srv.URL+"/api/tokens/"+itoa(revoked.ID), rw.Token, nil); resp.StatusCode != 200 {
		t.Fatal("revoke")
	}
	run := awaitingRun(t, a.store, "tk-dave", "Which routes take tokens?")
	var routes []handlers.Route
	for _, r := range a.h.Routes() {
		if strings.HasPrefix(r.Pattern, "/api/") {
			routes = append(routes, r)
		}
	}
	if len(routes) < 20 {
		t.Fatalf("only %d /api routes found: %v", len(routes), routes)
	}
	for _, r := range routes {
		path := strings.NewReplacer("{id}", run.ID).Replace(r.Pattern)
		if strings.Contains(path, "{") {
			t.Fatalf("route %s has a parameter the test does not fill", r.Pattern)
		}
		if strings.Contains(r.Pattern, "/tokens/") {
			path = "/api/tokens/999999" // not the tokens this test uses
		}
		target := a.srv.URL + path
		name := r.Method + " " + r.Pattern
		if r.Pattern == "/api/openapi.json" {
			// Public: answered to anyone, whatever token comes with it.
			if resp, _ := apiCallQuick(t, r.Method, target, revoked.Token); resp.StatusCode != http.StatusOK {
				t.Errorf("%s with a revoked token: %d", name, resp.StatusCode)
			}
			continue
		}
		for _, c := range []struct {
			who   string
			token string
		}{{"none", ""}, {"revoked", revoked.Token}} {
			resp, body := apiCallQuick(t, r.Method, target, c.token)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s with %s token: %d %.200s, want 401", name, c.who, resp.StatusCode, body)
			}
		}
		resp, body := apiCallQuick(t, r.Method, target, rw.Token)
		if resp.StatusCode == http.StatusUnauthorized || (resp.StatusCode == http.StatusForbidden && !(r.Method == http.MethodPost && r.Pattern == "/api/tokens")) {
			t.Errorf("%s with a valid token: %d %.200s", name, resp.StatusCode, body)
		}
		resp, body = apiCallQuick(t, r.Method, target, ro.Token)
		unsafe := r.Method != http.MethodGet && r.Method != http.MethodHead
		switch {
		case unsafe && (resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "read-only")):
			t.Errorf("%s with a read-only token: %d %.200s, want 403", name, resp.StatusCode, body)
		case !unsafe && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden):
			t.Errorf("%s with a read-only token: %d %.200s", name, resp.StatusCode, body)
		}
	}
}

// apiCallQuick is apiCall that does not wait on an event stream: the
// response head is enough.
func apiCallQuick(t *testing.T, method, target, token string) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, target, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b []byte
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ = io.ReadAll(resp.Body)
	}
	return resp, b
}

// TestSettingsTokens: the settings page creates a token and shows its
// secret once, lists it, and revokes it.
func TestSettingsTokens(t *testing.T) {
	a := newAuthServer(t, dbtest.URL(t), handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthPassword}})
	addUser(t, a.store, "tk-erin", "pw pw pw")
	_, cookie := login(t, a.srv.URL, "tk-erin", "pw pw pw", "")
	resp := do(t, http.MethodPost, a.srv.URL+"/settings/tokens", cookie.Value, url.Values{"name": {"editor"}, "read_only": {"1"}})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	doc := mustDoc(t, resp.Body)
	secret := strings.TrimSpace(doc.Find("[data-testid=new-token-secret]").Text())
	if !strings.HasPrefix(secret, "qry_") {
		t.Fatalf("secret not shown: %q", secret)
	}
	row := doc.Find("[data-testid=token]")
	if row.Length() != 1 || !strings.Contains(row.Text(), "editor") || !strings.Contains(row.Text(), "read-only") || strings.Contains(row.Text(), secret) {
		t.Errorf("token row: %q", row.Text())
	}
	if got := strings.TrimSpace(row.Find("[data-testid=token-last-used]").Text()); got != "never" {
		t.Errorf("last used %q, want never", got)
	}
	if r, body := apiCall(t, http.MethodGet, a.srv.URL+"/api/runs", secret, nil); r.StatusCode != http.StatusOK {
		t.Fatalf("use: %d %s", r.StatusCode, body)
	}
	// The page shows it used, and never the secret again.
	page := mustDoc(t, do(t, http.MethodGet, a.srv.URL+"/settings", cookie.Value, nil).Body)
	if got := strings.TrimSpace(page.Find("[data-testid=token-last-used]").Text()); got == "never" {
		t.Errorf("last used not recorded")
	}
	if page.Find("[data-testid=new-token]").Length() != 0 || strings.Contains(page.Text(), secret) {
		t.Errorf("the secret is shown again")
	}
	id, _ := page.Find("[data-testid=token]").Attr("data-id")
	resp = do(t, http.MethodPost, a.srv.URL+"/settings/tokens/"+id+"/revoke", cookie.Value, url.Values{})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	page = mustDoc(t, do(t, http.MethodGet, a.srv.URL+"/settings", cookie.Value, nil).Body)
	if v, _ := page.Find("[data-testid=token]").Attr("data-revoked"); v != "true" {
		t.Errorf("revoked token shown as %q", v)
	}
	if r, _ := apiCall(t, http.MethodGet, a.srv.URL+"/api/runs", secret, nil); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("revoked token still works: %d", r.StatusCode)
	}
	// An empty name is refused on the page, saying why.
	resp = do(t, http.MethodPost, a.srv.URL+"/settings/tokens", cookie.Value, url.Values{"name": {""}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(mustDoc(t, resp.Body).Find("[data-testid=token-error]").Text(), "name") {
		t.Errorf("empty name: %d", resp.StatusCode)
	}
}

// TestTokenStore: revoking needs the owner (or no owner named, the CLI's
// way), and deleting a user deletes their tokens.
func TestTokenStore(t *testing.T) {
	a := newAuthServer(t, dbtest.URL(t), handlers.Options{})
	ctx := context.Background()
	addUser(t, a.store, "tk-frank", "pw pw pw")
	tk, err := a.store.CreateAPIToken(ctx, "tk-frank", "x", "qry_secret-of-frank", "qry_secr", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.RevokeAPIToken(ctx, tk.ID, "tk-mallory"); err != db.ErrNotFound {
		t.Errorf("revoke by another user: %v", err)
	}
	if err := a.store.DeleteUser(ctx, "tk-frank"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.GetAPIToken(ctx, tk.ID); err != db.ErrNotFound {
		t.Errorf("token outlived its user: %v", err)
	}
}

// TestTokensWithoutAccounts (QUARRY_AUTH=none): a token presented is still
// checked (an unknown one is a 401, not silently anonymous), a bearer
// request gets no client cookie where a browser's page would, and /mcp
// answers only to the host names every route answers to.
func TestTokensWithoutAccounts(t *testing.T) {
	mcpHit := false
	a := newAuthServer(t, dbtest.URL(t), handlers.Options{MCP: func(*handlers.Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { mcpHit = true; w.WriteHeader(http.StatusNoContent) })
	}})
	secret := "qry_" + strings.Repeat("B", 43)
	if resp, body := apiCall(t, http.MethodGet, a.srv.URL+"/api/runs", secret, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("unknown token without accounts: %d %s", resp.StatusCode, body)
	}
	tk, err := a.store.CreateAPIToken(context.Background(), "tk-hal", "x", "qry_"+strings.Repeat("C", 43), "qry_CCCC", false)
	if err != nil {
		t.Fatal(err)
	}
	resp, body := apiCall(t, http.MethodGet, a.srv.URL+"/api/tokens", "qry_"+strings.Repeat("C", 43), nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"id":`+itoa(tk.ID)) || len(resp.Cookies()) != 0 {
		t.Errorf("token without accounts: %d %s cookies %v", resp.StatusCode, body, resp.Cookies())
	}
	if resp := do(t, http.MethodGet, a.srv.URL+"/mcp", "", nil); resp.StatusCode != http.StatusNoContent || len(resp.Cookies()) != 0 || !mcpHit {
		t.Errorf("/mcp: %d cookies %v", resp.StatusCode, resp.Cookies())
	}
	if resp := do(t, http.MethodGet, a.srv.URL+"/", "", nil); len(resp.Cookies()) == 0 {
		t.Errorf("a page got no client cookie (the check above means nothing)")
	}
	mcpHit = false
	req, _ := http.NewRequest(http.MethodPost, a.srv.URL+"/mcp", strings.NewReader("{}"))
	req.Host = "rebound.example"
	resp, err = noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest || mcpHit {
		t.Errorf("/mcp with a foreign Host: %d", resp.StatusCode)
	}
}
