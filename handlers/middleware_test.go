package handlers_test

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

func TestSecurityHeadersAndNonce(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	nonces := map[string]bool{}
	for i := 0; i < 2; i++ {
		resp, err := http.Get(rep.srv.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		doc := mustDoc(t, resp.Body)
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		m := regexp.MustCompile(`script-src 'self' 'nonce-([A-Za-z0-9_-]+)'`).FindStringSubmatch(csp)
		if m == nil || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
			t.Fatalf("CSP %q", csp)
		}
		scripts := doc.Find("script")
		if scripts.Length() == 0 {
			t.Fatal("page has no scripts")
		}
		scripts.Each(func(_ int, s *goquery.Selection) {
			if s.AttrOr("nonce", "") != m[1] {
				t.Errorf("script %q nonce %q, CSP nonce %q", s.AttrOr("src", ""), s.AttrOr("nonce", ""), m[1])
			}
		})
		nonces[m[1]] = true
		for h, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "strict-origin-when-cross-origin"} {
			if got := resp.Header.Get(h); got != want {
				t.Errorf("%s = %q, want %q", h, got, want)
			}
		}
		if resp.Header.Get("X-Request-Id") == "" {
			t.Error("no X-Request-Id")
		}
		// No inline handlers anywhere.
		doc.Find("*").Each(func(_ int, s *goquery.Selection) {
			for _, a := range s.Nodes[0].Attr {
				if strings.HasPrefix(strings.ToLower(a.Key), "on") {
					t.Errorf("inline handler %s on <%s>", a.Key, s.Nodes[0].Data)
				}
			}
		})
	}
	if len(nonces) != 2 {
		t.Error("the nonce is not fresh per request")
	}
}

func TestCrossOriginPostRefused(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	before := countRuns(t, rep.store)
	req, _ := http.NewRequest(http.MethodPost, rep.srv.URL+"/runs", strings.NewReader(url.Values{"question": {"forged?"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site POST: %d, want 403", resp.StatusCode)
	}
	if countRuns(t, rep.store) != before {
		t.Error("a cross-site POST stored a run")
	}
}

func TestHealthReadyMetrics(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	createRun(t, rep.store, "metrics question")
	for path, want := range map[string]string{"/healthz": "ok", "/readyz": "ready"} {
		resp, err := http.Get(rep.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(b)) != want {
			t.Errorf("%s: %d %q", path, resp.StatusCode, b)
		}
	}
	resp, err := http.Get(rep.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	body := string(b)
	for _, want := range []string{`quarry_runs{status="queued"} `, `quarry_sse_clients 0`, `quarry_http_requests_total{code="200",method="GET",route="/healthz"} 1`, "go_goroutines"} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestReadyzReportsBrowserFailure(t *testing.T) {
	rep := newReplica(t, replicaOptions{browser: failingPinger{}})
	resp, err := http.Get(rep.srv.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "browser: chromium is not answering") {
		t.Errorf("readyz: %d %q", resp.StatusCode, b)
	}
}

func TestBasePath(t *testing.T) {
	rep := newReplica(t, replicaOptions{baseURL: "https://research.example.com/quarry"})
	for _, path := range []string{"/quarry/", "/"} {
		resp, err := http.Get(rep.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		doc := mustDoc(t, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
		if got := doc.Find("form.ask").AttrOr("action", ""); got != "/quarry/runs" {
			t.Errorf("%s: form action %q", path, got)
		}
		if src := doc.Find("script").First().AttrOr("src", ""); !strings.HasPrefix(src, "/quarry/static/") {
			t.Errorf("%s: script src %q", path, src)
		}
	}
	resp, err := http.Get(rep.srv.URL + "/quarry/static/quarry.css")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("static under base path: %d", resp.StatusCode)
	}
}

func TestSettingsPage(t *testing.T) {
	rep := newReplica(t, replicaOptions{browser: failingPinger{}})
	resp, err := http.Get(rep.srv.URL + "/settings")
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	health := map[string]string{}
	doc.Find("[data-testid=health]").Each(func(_ int, s *goquery.Selection) {
		health[s.Find("strong").Text()] = s.AttrOr("data-ok", "")
	})
	if health["database"] != "true" || health["browser"] != "false" {
		t.Errorf("health %v", health)
	}
}
