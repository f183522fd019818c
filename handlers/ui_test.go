package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"

	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

// watchStatus records every status the page's run-status shows, and sets
// a marker on the window that a reload would lose.
const watchStatus = `() => {
	window.__marker = "same-document";
	window.__shift = 0;
	new PerformanceObserver(list => list.getEntries().forEach(e => { if (!e.hadRecentInput) window.__shift += e.value })).observe({type: "layout-shift", buffered: true});
	window.__statuses = [];
	const rec = () => {
		const s = document.querySelector("[data-testid=run-status]");
		const v = s && s.getAttribute("data-status");
		if (v && window.__statuses[window.__statuses.length - 1] !== v) window.__statuses.push(v);
	};
	rec();
	new MutationObserver(rec).observe(document.body, {subtree: true, childList: true, attributes: true});
}`

// TestUIAskLiveReportCitation is a researcher's whole visit: ask on the
// home page, watch the run progress live (the status changes without a
// reload), read the report, open a citation and see its passage
// highlighted, then open the share link in a fresh browser context and
// export the PDF. It writes the screenshots of every page it passes.
func TestUIAskLiveReportCitation(t *testing.T) {
	env := sharedUIEnv(t)
	page := newUIPage(t)

	page.MustNavigate(env.srv.URL + "/").MustWaitLoad()
	page.screenshot(t, "ask-desktop")
	page.phone()
	page.screenshot(t, "ask-phone")
	page.desktop()

	id := page.ask(t, env, "Why is the New York attorney general investigating WeWork?", "quick", "slow", false)
	page.MustEval(watchStatus)

	// Live: the first action appears and the status moves on, over SSE.
	page.wait(t, 30*time.Second, `() => document.querySelectorAll("#actions [data-testid=action]").length > 0`)
	page.wait(t, 30*time.Second, `() => document.querySelector("#actions [data-status=success]") !== null`)
	page.screenshot(t, "live-run-desktop")
	page.phone()
	page.screenshot(t, "live-run-phone")
	page.desktop()

	env.waitRun(t, id, 60*time.Second, research.StatusDone)
	page.wait(t, 10*time.Second, `() => document.querySelector("[data-testid=report]") !== null`)
	if got := page.MustEval(`() => window.__marker`).String(); got != "same-document" {
		t.Fatalf("the page was reloaded (marker %q)", got)
	}
	var statuses []string
	if err := page.MustEval(`() => window.__statuses`).Unmarshal(&statuses); err != nil {
		t.Fatal(err)
	}
	if len(statuses) < 3 || statuses[len(statuses)-1] != "done" {
		t.Errorf("statuses seen live %v: want several, ending in done", statuses)
	}
	t.Logf("statuses seen live: %v", statuses)
	// Events must not make the page jump: the cumulative layout shift of
	// the whole live run, report swap included, stays below 0.1 ("good").
	if shift := page.MustEval(`() => window.__shift`).Num(); shift >= 0.1 {
		t.Errorf("cumulative layout shift %.3f while the run progressed, want < 0.1", shift)
	} else {
		t.Logf("cumulative layout shift while the run progressed: %.3f", shift)
	}

	// The report: sections, citations, sources, verification.
	if n := len(page.MustElements("[data-testid=report] h2")); n == 0 {
		t.Error("the report has no sections")
	}
	cites := page.MustElements("[data-testid=report] [data-testid=citation]")
	if len(cites) == 0 {
		t.Fatal("the report has no citation links")
	}
	if n := len(page.MustElements("[data-testid=source]")); n < 2 {
		t.Errorf("%d sources listed, want both articles", n)
	}
	if got := page.evalString(t, `() => document.querySelector("[data-score=validity] .score-value").textContent`); got != "100%" {
		t.Errorf("citation validity shown %q", got)
	}

	// Open the first citation: the panel shows the source and the passage
	// verification matched, highlighted in its context.
	cite := cites[0]
	evID := *cite.MustAttribute("data-ev")
	cite.MustClick()
	page.wait(t, 5*time.Second, `() => { const p = document.querySelector("[data-testid=citation-detail]"); return !!p && !p.hidden && p.offsetHeight > 0 }`)
	passage := page.evalString(t, `() => document.querySelector("[data-testid=citation-detail] mark").textContent`)
	want, sourceText := expectedPassage(t, env, id, evID)
	if passage == "" || (want != "" && passage != want) || !strings.Contains(sourceText, passage) {
		t.Errorf("panel passage %q, want %q from the cited source's text", passage, want)
	}
	panelText := page.evalString(t, `() => document.querySelector("[data-testid=citation-detail]").innerText`)
	if !strings.Contains(panelText, "127.0.0.1") || !strings.Contains(panelText, "fetched") {
		t.Errorf("panel lacks the source host or fetch time: %q", panelText)
	}
	page.screenshot(t, "report-citation-desktop")
	page.phone()
	page.screenshot(t, "report-citation-phone")
	page.desktop()
	page.Keyboard.MustType(input.Escape)
	page.wait(t, 5*time.Second, `() => document.querySelector("[data-testid=citation-detail]").hidden`)

	page.fullScreenshot(t, "report-full-desktop")

	// Pointing at a citation previews it; moving away closes the preview.
	cites[len(cites)-1].MustScrollIntoView().MustHover()
	page.wait(t, 5*time.Second, `() => !document.querySelector("[data-testid=citation-detail]").hidden`)
	page.Mouse.MustMoveTo(5, 5)
	page.wait(t, 5*time.Second, `() => document.querySelector("[data-testid=citation-detail]").hidden`)

	// Copy link puts the share link's full URL on the clipboard.
	origin := env.srv.URL
	if err := (proto.BrowserGrantPermissions{Origin: origin, BrowserContextID: page.contextID, Permissions: []proto.BrowserPermissionType{
		proto.BrowserPermissionTypeClipboardReadWrite, proto.BrowserPermissionTypeClipboardSanitizedWrite}}).Call(page); err != nil {
		t.Fatal(err)
	}
	page.MustElement("[data-testid=copy-link]").MustClick()
	page.wait(t, 5*time.Second, `() => document.querySelector(".copy-status").textContent === "Copied"`)
	if got := page.evalString(t, `async () => await navigator.clipboard.readText()`); got != origin+*page.MustElement("[data-testid=share-link]").MustAttribute("href") {
		t.Errorf("clipboard holds %q", got)
	}

	// The same report in dark mode with a panel open, and as printed.
	dark := proto.EmulationSetEmulatedMedia{Features: []*proto.EmulationMediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}
	if err := dark.Call(page); err != nil {
		t.Fatal(err)
	}
	cites[1].MustClick()
	page.wait(t, 5*time.Second, `() => !document.querySelector("[data-testid=citation-detail]").hidden`)
	page.screenshot(t, "report-dark-desktop")
	page.Keyboard.MustType(input.Escape)
	if err := (proto.EmulationSetEmulatedMedia{Media: "print"}).Call(page); err != nil {
		t.Fatal(err)
	}
	page.MustEval(`() => window.scrollTo(0, 0)`)
	page.screenshot(t, "report-print")
	if err := (proto.EmulationSetEmulatedMedia{}).Call(page); err != nil {
		t.Fatal(err)
	}

	// Share: the link opens the report in a fresh context, without cookies.
	share := *page.MustElement("[data-testid=share-link]").MustAttribute("href")
	if !strings.HasPrefix(share, "/r/") {
		t.Fatalf("share link %q", share)
	}
	shared := newUIPage(t)
	shared.MustNavigate(env.srv.URL + share).MustWaitLoad()
	if shared.MustElements("[data-testid=report] [data-testid=citation]").Empty() {
		t.Fatal("the shared report has no citations")
	}
	if !shared.MustElements("[data-testid=stop], [data-testid=revoke-share], [data-testid=followup-question]").Empty() {
		t.Error("the shared report offers owner controls")
	}
	shared.MustElement("[data-testid=report] [data-testid=citation]").MustClick()
	shared.wait(t, 5*time.Second, `() => !document.querySelector("[data-testid=citation-detail]").hidden`)
	shared.screenshot(t, "shared-report-desktop")
	shared.MustEval(`() => document.dispatchEvent(new KeyboardEvent("keydown", {key: "Escape"}))`)
	shared.phone()
	shared.MustEval(`() => window.scrollTo(0, 0)`)
	shared.screenshot(t, "shared-report-phone")

	// PDF export: printed by the browser pool, with the report's text.
	title := page.evalString(t, `() => document.querySelector("#report-title").textContent`)
	for _, u := range []string{"/runs/" + id + "/report.pdf", share + "/report.pdf"} {
		pdf := get(t, env.srv.URL+u, "application/pdf")
		if !strings.HasPrefix(string(pdf), "%PDF-") {
			t.Fatalf("%s: not a PDF: %q", u, pdf[:min(len(pdf), 20)])
		}
		if !pdfContains(pdf, title) || !pdfContains(pdf, "Sources") {
			t.Errorf("%s: the PDF does not carry the report's text (%q)", u, title)
		}
	}
	// History finds the run by a word of its report; settings show health.
	page.MustNavigate(env.srv.URL + "/runs?q=Bloomberg").MustWaitLoad()
	if page.MustElements("[data-testid=run-item] a[href='/runs/" + id + "']").Empty() {
		t.Error("history search over report text does not find the run")
	}
	page.screenshot(t, "history-desktop")
	page.MustNavigate(env.srv.URL + "/settings").MustWaitLoad()
	page.screenshot(t, "settings-desktop")

	for _, p := range []*uiPage{page, shared} {
		if problems := p.problems(false); len(problems) > 0 {
			t.Errorf("console errors or dialogs: %q", problems)
		}
	}
}

// expectedPassage is the passage the verification stored for the
// sentence of the evidence entry evID, read through the report's JSON
// export ("" when its best passage came from another of its sources),
// and the text of the source the link cites.
func expectedPassage(t *testing.T, env *uiEnv, runID, evID string) (string, string) {
	t.Helper()
	var ex struct {
		Citations []report.SentenceCheck `json:"citations"`
	}
	if err := json.Unmarshal(get(t, env.srv.URL+"/runs/"+runID+"/report.json", "application/json"), &ex); err != nil {
		t.Fatal(err)
	}
	// ev-1 is the first citation link, which belongs to the first cited
	// sentence; its first citation is the link.
	if evID != "ev-1" {
		t.Fatalf("first citation opens %s", evID)
	}
	for _, c := range ex.Citations {
		if len(c.Citations) == 0 {
			continue
		}
		sources, err := env.store.Sources(context.Background(), runID)
		if err != nil {
			t.Fatal(err)
		}
		text := ""
		for _, s := range sources {
			if "S"+itoa(int64(s.SID)) == c.Citations[0] {
				text = s.Text
			}
		}
		if c.SourceID != c.Citations[0] {
			return "", text
		}
		return c.Passage, text
	}
	t.Fatal("no cited sentence in the verification")
	return "", ""
}

// get fetches url, checks the status and content type, and returns the body.
func get(t *testing.T, url, contentType string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), contentType) {
		t.Fatalf("GET %s: %d %s: %.300s", url, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	return body
}
