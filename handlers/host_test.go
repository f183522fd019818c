package handlers_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/handlers"
)

// getWithHost requests path from srv with the given Host header, as a
// DNS-rebinding page (whose name now resolves to Quarry's address) would.
func getWithHost(t *testing.T, base, path, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if strings.HasSuffix(path, "/events") && resp.StatusCode == http.StatusOK {
		return resp.StatusCode, "" // a live stream: do not read to its end
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestHostCheckRefusesRebindingWithoutAuth(t *testing.T) {
	s := newAuthServer(t, "", handlers.Options{BaseURL: "https://research.example.org/quarry"})
	run := createRun(t, s.store, "What is DNS rebinding?")
	port := s.srv.URL[strings.LastIndex(s.srv.URL, ":"):]
	for _, path := range []string{"/api/runs/" + run.ID, "/api/runs/" + run.ID + "/events", "/runs/" + run.ID, "/runs/" + run.ID + "/events", "/"} {
		for _, host := range []string{"evil.example" + port, "rebind.test", "localhost.evil.example", "127.0.0.1.nip.io" + port} {
			code, body := getWithHost(t, s.srv.URL, path, host)
			if code != http.StatusMisdirectedRequest {
				t.Errorf("GET %s with Host %s: %d, want 421", path, host, code)
				continue
			}
			if !strings.Contains(body, "QUARRY_ALLOWED_HOSTS") {
				t.Errorf("GET %s with Host %s: the refusal %q does not name QUARRY_ALLOWED_HOSTS", path, host, body)
			}
		}
	}
	for _, host := range []string{"localhost" + port, "LOCALHOST", "app.localhost" + port, "127.0.0.1" + port, "[::1]" + port, "10.1.2.3:8080", "research.example.org"} {
		code, body := getWithHost(t, s.srv.URL, "/api/runs/"+run.ID, host)
		if code != http.StatusOK {
			t.Errorf("GET with Host %s: %d %s, want 200", host, code, body)
			continue
		}
		var got struct{ ID string }
		if err := json.Unmarshal([]byte(body), &got); err != nil || got.ID != run.ID {
			t.Errorf("GET with Host %s: body %q", host, body)
		}
	}
	if code, _ := getWithHost(t, s.srv.URL, "/api/runs/"+run.ID+"/events", "localhost"+port); code != http.StatusOK {
		t.Errorf("event stream with Host localhost: %d, want 200", code)
	}
	// A POST from the rebinding page is refused too, before anything runs.
	before := countRuns(t, s.store)
	req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/api/runs", strings.NewReader(`{"question":"planted?"}`))
	req.Host = "evil.example" + port
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if after := countRuns(t, s.store); resp.StatusCode != http.StatusMisdirectedRequest || after != before {
		t.Errorf("POST /api/runs with a foreign Host: %d and %d new runs, want 421 and none", resp.StatusCode, after-before)
	}
}

func TestHostCheckAllowedHosts(t *testing.T) {
	s := newAuthServer(t, "", handlers.Options{AllowedHosts: []string{"quarry.lan:8080", "*.corp.example"}})
	run := createRun(t, s.store, "Which hosts are allowed?")
	for host, want := range map[string]int{
		"quarry.lan":         http.StatusOK,
		"quarry.lan:9999":    http.StatusOK, // the port is not part of the name
		"a.corp.example":     http.StatusOK,
		"corp.example":       http.StatusMisdirectedRequest,
		"evil.example":       http.StatusMisdirectedRequest,
		"quarry.lan.evil.io": http.StatusMisdirectedRequest,
	} {
		if code, body := getWithHost(t, s.srv.URL, "/api/runs/"+run.ID, host); code != want {
			t.Errorf("Host %s: %d %s, want %d", host, code, body, want)
		}
	}
}

func TestHostCheckWithPasswordAuth(t *testing.T) {
	// Signed-in modes are protected by the cookie a rebinding page cannot
	// send; the host check applies there only when a list is configured.
	s := newAuthServer(t, "", handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthPassword}})
	run := createRun(t, s.store, "Who may read this?")
	if code, _ := getWithHost(t, s.srv.URL, "/api/runs/"+run.ID, "evil.example"); code != http.StatusUnauthorized {
		t.Errorf("password mode, foreign Host, no session: %d, want 401", code)
	}
	s2 := newAuthServer(t, "", handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthPassword}, AllowedHosts: []string{"quarry.lan"}})
	if code, _ := getWithHost(t, s2.srv.URL, "/api/runs/"+run.ID, "evil.example"); code != http.StatusMisdirectedRequest {
		t.Errorf("password mode with QUARRY_ALLOWED_HOSTS, foreign Host: %d, want 421", code)
	}
}
