//go:build faults

package faults

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSecurityEndToEnd runs one replica with password auth and a secret
// API key against a site whose results lead to a page that redirects to an
// internal address and to a page full of markup payloads:
//   - the internal address is never reached (SSRF through redirects);
//   - payloads from the page render inert on the run page and the share page;
//   - no password, session token or API key appears in the logs or /settings.
func TestSecurityEndToEnd(t *testing.T) {
	var internalHits atomic.Int64
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		internalHits.Add(1)
		io.WriteString(w, "<html><body><p>internal secret metadata</p></body></html>")
	}))
	defer internal.Close()
	const payload = `<img src=x onerror=alert(1)><script>alert(2)</script>`
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><body><main id="results">
<div class="result"><h2><a href="/go-internal">Postgres locks internals</a></h2></div>
<div class="result"><h2><a href="/payload">Postgres advisory locks explained</a></h2></div>
<div class="result"><h2><a href="/articles/0">Postgres advisory locks, the article</a></h2></div>
</main></body></html>`)
	})
	mux.HandleFunc("/go-internal", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, internal.URL+"/latest/meta-data", http.StatusFound)
	})
	mux.HandleFunc("/payload", func(w http.ResponseWriter, r *http.Request) {
		page := strings.Replace(article(0), "<title>Postgres advisory locks explained</title>", "<title>Locks "+payload+"</title>", 1)
		page = strings.Replace(page, "<p>Postgres advisory locks matter", "<p>"+payload+" Postgres advisory locks matter", 1)
		io.WriteString(w, page)
	})
	mux.HandleFunc("/articles/0", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, article(0)) })
	web := httptest.NewServer(mux)
	defer web.Close()

	dbURL, conn := database(t)
	const apiKey, password = "sk-test-SECRETSECRETSECRET", "correct horse battery staple"
	site := &site{Server: web}
	env := append(baseEnv(dbURL, site),
		"QUARRY_ALLOW_HOSTS="+strings.TrimPrefix(web.URL, "http://"), // the site only, not the internal server's port
		"QUARRY_AUTH=password", "OPENAI_API_KEY="+apiKey, "QUARRY_LLM=extractive")
	// The account, through the command.
	add := runQuarry(t, env, password+"\n", "user", "add", "--name", "olga", "--password-stdin")
	if !strings.Contains(add, "olga added") {
		t.Fatalf("user add: %s", add)
	}
	rp := startReplica(t, "replica", env...)

	jar := &cookieJar{}
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(rp.url()+"/login", url.Values{"name": {"olga"}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || jar.token == "" {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	body, _ := json.Marshal(map[string]any{"question": "How do Postgres advisory locks work?", "depth": "quick"})
	req, _ := http.NewRequest(http.MethodPost, rp.url()+"/api/runs", bytes.NewReader(body))
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	r := waitFor(t, conn, created.ID, 90*time.Second, "finished", terminal)
	checkEnded(t, conn, created.ID, r)

	if n := internalHits.Load(); n != 0 {
		t.Errorf("the internal server was reached %d times through a redirect", n)
	}
	var refused int
	conn.Get(&refused, `SELECT count(*) FROM actions WHERE run_id = $1 AND (error ILIKE '%refused%' OR result::text ILIKE '%refused%')`, created.ID)
	t.Logf("actions recording an egress refusal: %d", refused)

	var share string
	conn.Get(&share, `SELECT share_token FROM runs WHERE id = $1`, created.ID)
	for _, u := range []string{rp.url() + "/runs/" + created.ID, rp.url() + "/r/" + share, rp.url() + "/settings"} {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", u, resp.StatusCode)
		}
		for _, bad := range []string{"onerror=alert", "<script>alert", apiKey, password, jar.token} {
			if bytes.Contains(page, []byte(bad)) {
				t.Errorf("%s contains %q", u, bad)
			}
		}
	}
	// Share tokens: 128 random bits; guesses and expired links are 404.
	if raw, err := base64.RawURLEncoding.DecodeString(share); err != nil || len(raw) != 16 {
		t.Errorf("share token %q is not 128 bits of base64url (%v)", share, err)
	}
	for i := 0; i < 50; i++ {
		guess := make([]byte, 16)
		rand.Read(guess)
		if code := status(t, rp.url()+"/r/"+base64.RawURLEncoding.EncodeToString(guess)); code != http.StatusNotFound {
			t.Fatalf("a guessed share token: %d", code)
		}
	}
	if _, err := conn.Exec(`UPDATE runs SET share_expires_at = now() - interval '1 second' WHERE id = $1`, created.ID); err != nil {
		t.Fatal(err)
	}
	if code := status(t, rp.url()+"/r/"+share); code != http.StatusNotFound {
		t.Errorf("an expired share link: %d", code)
	}

	// The run shows on /metrics. Its pages and results page came over HTTP
	// (the loopback site serves plain HTML), so the browser's counter is
	// exported but need not have moved.
	m := metricsText(t, rp)
	if !strings.Contains(m, "\nquarry_browser_pages_total") {
		t.Errorf("metric quarry_browser_pages_total is not exported")
	}
	for _, c := range []struct {
		name   string
		labels []string
	}{
		{"quarry_stage_duration_seconds_count", []string{`stage="gather"`, `outcome="ok"`}},
		{"quarry_stage_duration_seconds_count", []string{`stage="synthesize"`}},
		{"quarry_actions_total", []string{`kind="search"`}},
		{"quarry_page_load_seconds_count", []string{`outcome="ok"`}},
		{"quarry_llm_calls_total", []string{`engine="extractive"`, `call="synthesize"`}},
		{"quarry_runs", []string{`status="done"`}},
		{"quarry_logins_total", []string{`outcome="ok"`}},
	} {
		if metricSum(m, c.name, c.labels...) < 1 {
			t.Errorf("metric %s%v is missing or zero", c.name, c.labels)
			for _, line := range strings.Split(m, "\n") {
				if strings.HasPrefix(line, c.name) {
					t.Log(line)
				}
			}
		}
	}
	for _, gauge := range []string{"quarry_sse_clients", "quarry_browser_tabs_in_use", "quarry_browser_tabs_waiting"} {
		if !strings.Contains(m, "\n"+gauge+" ") {
			t.Errorf("metric %s is missing", gauge)
		}
	}

	// Sign out, then look through everything the server logged.
	token := jar.token
	resp, _ = client.Post(rp.url()+"/logout", "application/x-www-form-urlencoded", nil)
	resp.Body.Close()
	rp.kill()
	logs := rp.logText()
	for _, secret := range []string{apiKey, password, token} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log contains a secret %q", secret[:6]+"…")
		}
	}
}

// runQuarry runs the quarry binary with env and stdin and returns its output.
func runQuarry(t *testing.T, env []string, stdin string, args ...string) string {
	t.Helper()
	cmd := execCommand(quarryBin, args...)
	cmd.Env = append([]string{"PATH=" + pathEnv()}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("quarry %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// cookieJar keeps the session cookie (the test needs its value).
type cookieJar struct{ token string }

func (j *cookieJar) SetCookies(_ *url.URL, cookies []*http.Cookie) {
	for _, c := range cookies {
		if c.Name == "quarry_session" {
			j.token = c.Value
			if c.MaxAge < 0 {
				j.token = ""
			}
		}
	}
}

func (j *cookieJar) Cookies(*url.URL) []*http.Cookie {
	if j.token == "" {
		return nil
	}
	return []*http.Cookie{{Name: "quarry_session", Value: j.token}}
}
