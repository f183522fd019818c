package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/web"
)

// TestSettingsShowConfigurationWithoutSecrets: the settings page lists the
// engine, search engines, budgets and health, and never prints a
// credential, even one a URL carries.
func TestSettingsShowConfigurationWithoutSecrets(t *testing.T) {
	rep := newReplica(t, replicaOptions{settings: web.SettingsView{Engine: "openai", Model: "gpt-test", SearchEngines: []string{"duckduckgo", "url:https://search.example/?q={query}"},
		PoolSize: 3, Workers: 2, Browser: "remote browser.internal:9222", DefaultDepth: "standard", Auth: "password",
		BaseURL: "https://admin:hunter2@quarry.example/q?token=s3cr3t"}})
	resp, err := http.Get(rep.srv.URL + "/settings")
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, resp.Body)
	resp.Body.Close()
	html, _ := doc.Html()
	for _, secret := range []string{"hunter2", "admin:", "s3cr3t"} {
		if strings.Contains(html, secret) {
			t.Errorf("the settings page shows %q", secret)
		}
	}
	text := doc.Find("[data-testid=settings]").Text()
	for _, want := range []string{"openai", "gpt-test", "duckduckgo", "search.example/", "https://quarry.example/q", "3 tabs"} {
		if !strings.Contains(text, want) {
			t.Errorf("settings lack %q: %q", want, text)
		}
	}
	if doc.Find("[data-testid=presets] tbody tr").Length() != 3 {
		t.Error("the depth budgets are not listed")
	}
	health := map[string]bool{}
	doc.Find("[data-testid=health] strong").Each(func(_ int, s *goquery.Selection) { health[s.Text()] = true })
	for _, part := range []string{"database", "live events", "run queue"} {
		if !health[part] {
			t.Errorf("no health line for %s", part)
		}
	}
}

// TestHistoryPagination: 25 runs a page, newest first, with links both
// ways and the page count.
func TestHistoryPagination(t *testing.T) {
	dbURL, drop, err := dbtest.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	rep := newReplica(t, replicaOptions{url: dbURL})
	for i := range 27 {
		createRun(t, rep.store, fmt.Sprintf("paged question %02d", i))
	}
	first := getDoc(t, rep.srv.URL+"/runs", http.StatusOK)
	if n := first.Find("[data-testid=run-item]").Length(); n != 25 {
		t.Errorf("first page lists %d runs", n)
	}
	if got := first.Find("[data-testid=run-item] a").First().Text(); got != "paged question 26" {
		t.Errorf("first run listed %q, want the newest", got)
	}
	if !strings.Contains(first.Find("[data-testid=history-count]").Text(), "27 runs") || !strings.Contains(first.Find("[data-testid=history-count]").Text(), "page 1 of 2") {
		t.Errorf("count line %q", first.Find("[data-testid=history-count]").Text())
	}
	next := first.Find("a[rel=next]").AttrOr("href", "")
	if next != "/runs?page=2" || first.Find("a[rel=prev]").Length() != 0 {
		t.Fatalf("pager on page 1: next %q", next)
	}
	second := getDoc(t, rep.srv.URL+next, http.StatusOK)
	if n := second.Find("[data-testid=run-item]").Length(); n != 2 || second.Find("a[rel=prev]").AttrOr("href", "") != "/runs?page=1" || second.Find("a[rel=next]").Length() != 0 {
		t.Errorf("page 2: %d runs, pager %q", n, second.Find("nav.pager").Text())
	}
}
