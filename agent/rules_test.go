package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/search"
)

func runTask(t *testing.T, opt Options, task Task) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	opt.Pool = testPool
	res, err := Start(ctx, opt, task)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Steps {
		t.Logf("step %d %s %s on %q: %s %s", s.N, s.Status, s.Action, s.ElementName, s.URL, s.Error)
	}
	return res
}

func harvested(t *testing.T, res *Result) []search.Result {
	t.Helper()
	if res.Final == nil {
		t.Fatal("no final page")
	}
	out, err := search.Harvest("site:test", res.Final.FinalURL, res.Final.HTML)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRulesSiteSearchPOST: the extractive engine uses a search form that
// only POSTs, found by its label, and ends on its results page.
func TestRulesSiteSearchPOST(t *testing.T) {
	res := runTask(t, Options{}, Task{StartURL: testSite.url("/archive"), Query: "rainfall"})
	if res.Status != StatusDone {
		t.Fatalf("status %s: %s", res.Status, res.Reason)
	}
	if !testSite.sawPost("/archive/results") {
		t.Error("the search form was never posted")
	}
	got := harvested(t, res)
	if len(got) != len(matching("rainfall")) || !strings.Contains(got[0].URL, "/doc/") {
		t.Fatalf("results = %+v", got)
	}
	t.Logf("steps: %d", len(res.Steps))
}

// TestRulesLoadMore: a client-rendered search box; the results come in
// threes behind "Load more", clicked a bounded number of times.
func TestRulesLoadMore(t *testing.T) {
	t.Parallel()
	res := runTask(t, Options{}, Task{StartURL: testSite.url("/app"), Query: "rainfall"})
	if res.Status != StatusDone {
		t.Fatalf("status %s: %s", res.Status, res.Reason)
	}
	got := harvested(t, res)
	if want := len(matching("rainfall")); len(got) != want {
		t.Fatalf("harvested %d results after load more, want %d: %+v", len(got), want, got)
	}
	clicks := 0
	for _, s := range res.Steps {
		if s.Action.Kind == Click && strings.Contains(s.ElementName, "Load more") && s.Status == StepSuccess {
			clicks++
		}
	}
	if clicks != maxMoreClicks {
		t.Errorf("clicked load more %d times", clicks)
	}
	t.Logf("steps: %d", len(res.Steps))
}

// TestRulesConsent: the consent dialog covering the article is dismissed
// with "Reject all" (never accept when reject exists, never subscribe),
// then the article becomes a source.
func TestRulesConsent(t *testing.T) {
	t.Parallel()
	res := runTask(t, Options{}, Task{StartURL: testSite.url("/consent"), Goal: "read the report"})
	if res.Status != StatusDone || len(res.Sources) != 1 {
		t.Fatalf("status %s (%s), %d sources", res.Status, res.Reason, len(res.Sources))
	}
	if first := res.Steps[0]; first.Action.Kind != Click || !strings.Contains(first.ElementName, "Reject all") {
		t.Errorf("first step = %s on %q, want a click on Reject all", first.Action, first.ElementName)
	}
	for _, s := range res.Steps {
		if strings.Contains(s.ElementName, "Subscribe") || strings.Contains(s.ElementName, "Accept") {
			t.Errorf("clicked %q", s.ElementName)
		}
	}
	if !strings.Contains(res.Sources[0].Text, "measured rainfall") {
		t.Errorf("source text = %q", res.Sources[0].Text)
	}
	for _, s := range res.Steps {
		if s.Status != StepRunning && len(s.Screenshot) == 0 {
			t.Errorf("step %d has no screenshot", s.N)
		}
		if len(s.Screenshot) > maxScreenshotBytes {
			t.Errorf("step %d screenshot is %d bytes", s.N, len(s.Screenshot))
		}
	}
	t.Logf("steps: %d", len(res.Steps))
}

// TestRulesOverlay: an overlay without a dialog role that covers the page
// is closed (never by subscribing) before the article is extracted.
func TestRulesOverlay(t *testing.T) {
	t.Parallel()
	res := runTask(t, Options{}, Task{StartURL: testSite.url("/overlay"), Goal: "read the report"})
	if res.Status != StatusDone || len(res.Sources) != 1 || len(res.Steps) != 2 {
		t.Fatalf("status %s (%s), %d sources, %d steps", res.Status, res.Reason, len(res.Sources), len(res.Steps))
	}
	if first := res.Steps[0]; first.Action.Kind != Click || first.ElementName != "button Close" {
		t.Errorf("first step = %s on %q, want a click on Close", first.Action, first.ElementName)
	}
}

// TestRulesInjectionIgnored: the page tells the agent to navigate away;
// the rule planner reads the page and never leaves the site.
func TestRulesInjectionIgnored(t *testing.T) {
	t.Parallel()
	res := runTask(t, Options{}, Task{StartURL: testSite.url("/inject"), Goal: "read the notes"})
	if res.Status != StatusDone || len(res.Sources) != 1 {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	for _, s := range res.Steps {
		if s.Action.Kind == Navigate || s.Action.Kind == Click || strings.Contains(s.URL, "evil") {
			t.Errorf("step %s on %s", s.Action, s.URL)
		}
	}
}

// TestRulesSiteSearchMkDocs: a built documentation site's own search box
// (a GET form to a page whose script searches a lunr index) finds the
// page about the command.
func TestRulesSiteSearchMkDocs(t *testing.T) {
	t.Parallel()
	res := runTask(t, Options{}, Task{StartURL: testSite.url("/mkdocs/cli.html"), Query: "kestrelctl"})
	if res.Status != StatusDone {
		t.Fatalf("status %s: %s", res.Status, res.Reason)
	}
	got := harvested(t, res)
	if len(got) == 0 || got[0].URL != testSite.url("/mkdocs/cli.html") {
		t.Fatalf("results = %+v", got)
	}
	t.Logf("steps: %d", len(res.Steps))
}
