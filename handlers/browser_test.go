package handlers_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db/dbtest"
)

// TestBrowserAskShowsPlanLive: in a real browser, ask a question with
// plan review on; the run page then changes from queued to
// awaiting_approval and shows the plan's criteria over SSE, without a
// reload (a marker set on the page's window survives).
func TestBrowserAskShowsPlanLive(t *testing.T) {
	t.Parallel() // its own database and server: see TestPagesFitPhonesAndPassAxe
	dbURL, drop, err := dbtest.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	rep := newReplica(t, replicaOptions{url: dbURL}) // workers start once the page is open
	page := newUIPage(t)

	page.MustNavigate(rep.srv.URL + "/").MustWaitLoad()
	page.MustElement("[data-testid=question]").MustInput("How do Postgres LISTEN and NOTIFY work, and what are their delivery guarantees?")
	page.MustElement("[data-testid=depth]").MustSelect("quick")
	page.MustElement("[data-testid=review]").MustClick()
	page.MustElement("[data-testid=ask]").MustClick()
	// Polled, not a navigation event: the ask page's own late lifecycle
	// event could end that wait before the form's navigation began.
	page.landedOnRun(t)
	status := page.MustElement("[data-testid=run-status]")
	if got := status.MustText(); got != "queued" {
		t.Fatalf("run page status %q before any worker ran, want queued", got)
	}
	page.MustEval(`() => { window.__marker = "same-document" }`)
	// Wait for the SSE connection before the run moves, so every change
	// arrives as an event.
	waitUntil(t, 10*time.Second, func() bool { return rep.h.SSEClients() == 1 })

	rep.runner.Start()
	page.wait(t, 20*time.Second, `() => { const s = document.querySelector("[data-testid=run-status]"); return !!s && s.textContent === "awaiting_approval" }`)
	page.wait(t, 5*time.Second, `() => document.querySelectorAll("[data-testid=edit-criterion]").length > 0`)
	if got := page.MustEval(`() => window.__marker`).String(); got != "same-document" {
		t.Fatalf("the page was reloaded (marker %q)", got)
	}
	criteria := page.MustElements("[data-testid=edit-criterion]")
	if len(criteria) == 0 || strings.TrimSpace(criteria[0].MustProperty("value").String()) == "" {
		t.Errorf("criteria %d", len(criteria))
	}
	if page.MustElements("[data-testid=approve-form]").Empty() {
		t.Error("no approve form on the plan awaiting review")
	}
	if p := page.problems(false); len(p) > 0 {
		t.Errorf("console errors (CSP or script): %q", p)
	}
}

func waitUntil(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
