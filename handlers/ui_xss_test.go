package handlers_test

import (
	"context"
	"encoding/json"
	"github.com/go-rod/rod/lib/input"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

// payload is script and HTML in the forms a question, a page or a model
// might carry them.
const payload = `<script>alert("s")</script><img src=x onerror=alert("img")><svg onload=alert("svg")></svg>` +
	`<iframe src="javascript:alert('frame')"></iframe><a href="javascript:alert('a')">link</a>"><b onmouseover=alert("b")>bold</b>` +
	`{{7*7}} ${alert("tpl")} <style>body{display:none}</style>`

// inertCheck finds anything a payload could have injected: script
// elements without a source, event handler attributes, javascript: URLs,
// frames, images, styles and the hostile page's own script having run.
const inertCheck = `() => {
	const bad = [];
	for (const el of document.querySelectorAll("*")) {
		for (const a of el.attributes) {
			if (/^on/i.test(a.name)) bad.push(el.tagName + " " + a.name);
			if (/^(href|src|action|formaction|xlink:href|data|srcdoc|poster|background)$/i.test(a.name) && /^\s*javascript:/i.test(a.value)) bad.push(el.tagName + " " + a.name + "=" + a.value);
		}
	}
	document.querySelectorAll("script:not([src]), iframe, object, embed, img, svg, main style, body style").forEach(el => bad.push("element " + el.tagName));
	if (window.__hostilePageScript) bad.push("the hostile page's script ran");
	if (getComputedStyle(document.body).display === "none") bad.push("injected style applied");
	return bad;
}`

func assertInert(t *testing.T, page *uiPage, where string) {
	t.Helper()
	var bad []string
	if err := page.MustEval(inertCheck).Unmarshal(&bad); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("%s: injected markup is live: %q", where, bad)
	}
	if p := page.problems(false); len(p) > 0 {
		t.Errorf("%s: console errors or dialogs: %q", where, p)
	}
}

// TestUIXSSQuestionAndPageInert runs the whole pipeline on a question
// carrying payloads, through a search engine whose results include a page
// whose title and text carry more; the ask page, the live run, the
// report, the evidence panel, history and the shared report all show
// them as text.
func TestUIXSSQuestionAndPageInert(t *testing.T) {
	env := sharedUIEnv(t)
	page := newUIPage(t)
	question := "Why is the New York attorney general investigating WeWork? " + payload
	id := page.ask(t, env, question, "quick", "hostile", false)
	assertInert(t, page, "live run page")
	if got := page.evalString(t, `() => document.querySelector("h1.question").textContent`); got != question {
		t.Errorf("question shown as %q, want the text as typed", got)
	}
	env.waitRun(t, id, 60*time.Second, research.StatusDone)
	page.wait(t, 10*time.Second, `() => document.querySelector("[data-testid=report]") !== null`)

	// The hostile page was fetched; its title is shown as text.
	sources, err := env.store.Sources(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	hostile := ""
	for _, s := range sources {
		if strings.Contains(s.URL, "wework-probe") {
			hostile = "S" + itoa(int64(s.SID))
			if !strings.Contains(s.Title, "<img src=x onerror=alert(") || !strings.Contains(s.Text, "<script>alert('text')</script>") {
				t.Errorf("the hostile page lost its payloads on the way in: %q / %.200q", s.Title, s.Text)
			}
		}
	}
	if hostile == "" {
		t.Fatal("the hostile page was not fetched")
	}
	if text := page.evalString(t, `() => document.querySelector("[data-source=`+hostile+`]").textContent`); !strings.Contains(text, "<img src=x onerror=alert(") {
		t.Errorf("hostile source title not shown as text: %q", text)
	}
	assertInert(t, page, "finished run page")
	// Open every citation of the hostile page: its passages show as text.
	opened := 0
	for _, link := range page.MustElements("[data-testid=citation][data-cite=" + hostile + "]") {
		link.MustClick()
		page.wait(t, 5*time.Second, `() => !document.querySelector("[data-testid=citation-detail]").hidden`)
		opened++
		assertInert(t, page, "citation panel")
		// Close the panel, as a reader would, before the next citation:
		// the pinned panel may cover it.
		page.Keyboard.MustType(input.Escape)
		page.wait(t, 5*time.Second, `() => document.querySelector("[data-testid=citation-detail]").hidden`)
	}
	if opened == 0 {
		t.Error("the report cites nothing from the hostile page, so its passages were never shown")
	}
	assertInert(t, page, "citation panel")

	page.MustNavigate(env.srv.URL + "/runs?q=WeWork").MustWaitLoad()
	assertInert(t, page, "history")
	page.MustNavigate(env.srv.URL + "/").MustWaitLoad()
	assertInert(t, page, "ask page with recent runs")
	run, err := env.store.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	page.MustNavigate(env.srv.URL + "/r/" + run.ShareToken.String).MustWaitLoad()
	assertInert(t, page, "shared report")
}

// TestUIXSSModelOutputInert feeds a live run page everything an engine
// writes — plan, action previews and errors, checkpoint reasons, the
// streamed draft, verification warnings, repair feedback — as payloads,
// then publishes a report rendered by the pipeline from Markdown full of
// them, with a source whose title, URL and text carry more. Nothing
// becomes markup, live or after a reload, on the run page and the shared
// page.
func TestUIXSSModelOutputInert(t *testing.T) {
	rep := newReplica(t, replicaOptions{}) // no workers: the test writes the run
	run := createRun(t, rep.store, "model output "+payload)
	page := newUIPage(t)
	page.MustNavigate(rep.srv.URL + "/runs/" + run.ID).MustWaitLoad()
	waitUntil(t, 10*time.Second, func() bool { return rep.h.SSEClients() == 1 })

	spec := research.TaskSpec{Goal: "goal " + payload, Criteria: []string{"criterion " + payload}, Sections: []string{"section " + payload},
		Actions:   []research.ActionSpec{{Kind: "search", Engine: "duckduckgo", Query: "query " + payload}, {Kind: "navigate", URL: "javascript:alert('nav')"}},
		Questions: []string{"question " + payload}, Assumptions: []string{"assumption " + payload}}
	appendEvent(t, rep.store, run.ID, research.EventAwaitingApproval, research.PlanPayload{Status: "awaiting_approval", Spec: spec})
	page.wait(t, 10*time.Second, `() => !!document.querySelector("[data-testid=approve-form]")`)
	assertInert(t, page, "plan review")
	appendEvent(t, rep.store, run.ID, research.EventPlan, research.PlanPayload{Status: "gathering", Spec: spec})
	appendEvent(t, rep.store, run.ID, research.EventAction, research.ActionPayload{Idx: 1, Kind: "search", Engine: "e " + payload, Query: "q " + payload, Status: "pending"})
	appendEvent(t, rep.store, run.ID, research.EventAction, research.ActionPayload{Idx: 2, Kind: "navigate", URL: "javascript:alert('u')", Status: "pending"})
	appendEvent(t, rep.store, run.ID, research.EventAction, research.ActionPayload{Idx: 1, Status: "success", Preview: "preview " + payload})
	appendEvent(t, rep.store, run.ID, research.EventAction, research.ActionPayload{Idx: 2, Status: "error", Error: "error " + payload})
	appendEvent(t, rep.store, run.ID, research.EventHeartbeatDecision, research.DecisionPayload{Batch: 1, Reason: "reason " + payload,
		Actions: []research.ActionSpec{{Kind: "search", Query: "next " + payload}}})
	appendEvent(t, rep.store, run.ID, research.EventBudget, research.BudgetPayload{Actions: 2, MaxActions: 4, StopReason: "stop " + payload})
	appendEvent(t, rep.store, run.ID, research.EventStageStarted, research.StagePayload{Stage: "synthesize", Status: "synthesizing"})
	appendEvent(t, rep.store, run.ID, research.EventSynthesisDelta, research.DeltaPayload{Pass: 1, Text: "## Draft " + payload + "\n"})
	appendEvent(t, rep.store, run.ID, research.EventVerification, research.VerificationPayload{Pass: 1, Warning: "warning " + payload})
	appendEvent(t, rep.store, run.ID, research.EventRepairStarted, research.RepairPayload{Pass: 2, Failures: []string{"failure " + payload}})
	last := appendEvent(t, rep.store, run.ID, research.EventSynthesisDelta, research.DeltaPayload{Pass: 2, Text: "again " + payload})
	page.wait(t, 10*time.Second, `() => document.querySelector("#draft").textContent.startsWith("again <script>")`)
	page.wait(t, 5*time.Second, `() => document.querySelector("#decisions").textContent.includes("reason <script>")`)
	if !strings.Contains(page.evalString(t, `() => document.querySelector("#actions").textContent`), "error <script>alert(\"s\")</script>") {
		t.Error("the action error is not shown as text")
	}
	assertInert(t, page, "live fragments")
	_ = last

	publishHostileReport(t, rep.store, run.ID)
	page.wait(t, 10*time.Second, `() => document.querySelector("[data-testid=run-status]").dataset.status === "done"`)
	page.wait(t, 5*time.Second, `() => document.querySelectorAll("[data-testid=citation]").length > 0`)
	for _, link := range page.MustElements("[data-testid=citation]") {
		link.MustClick()
		page.wait(t, 5*time.Second, `() => !document.querySelector("[data-testid=citation-detail]").hidden`)
	}
	if got := page.evalString(t, `() => document.querySelector("[data-testid=citation-detail] mark").textContent`); !strings.Contains(got, "<script>") {
		t.Errorf("the passage lost its text: %q", got)
	}
	assertInert(t, page, "published report (live)")
	page.MustReload().MustWaitLoad()
	assertInert(t, page, "published report (reloaded)")
	shared, err := rep.store.GetRun(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	token := shared.ShareToken.String
	page.MustNavigate(rep.srv.URL + "/r/" + token).MustWaitLoad()
	assertInert(t, page, "shared report")
}

// publishHostileReport stores a source and a report as the pipeline would:
// the report rendered by package report from Markdown full of payloads, a
// source whose title carries them, and citations whose passages carry
// them too; then the run completes.
func publishHostileReport(t *testing.T, store *db.Store, runID string) {
	t.Helper()
	ctx := context.Background()
	text := "Intro text. The claim " + payload + " is in the source. More text after it."
	passage := "The claim " + payload + " is in the source."
	start := strings.Index(text, passage)
	md := "# Title " + payload + "\n\n## Findings " + payload + "\n\nThe claim " + payload + " is in the source [S1].\n\n" +
		"A [link](javascript:alert('md')) and ![img](x \"t\") and <div onclick=alert(1)>raw</div> [S1].\n"
	src := research.Source{ID: "S1", URL: "https://example.org/a?x=\"><script>alert(1)</script>", Title: "title " + payload, Host: "example.org"}
	checks := []report.SentenceCheck{
		{Index: 0, Text: "The claim " + payload + " is in the source.", Citations: []string{"S1"}, Factual: true, Valid: true, Supported: true,
			Score: 0.9, SourceID: "S1", Passage: passage, PassageStart: start, PassageEnd: start + len(passage),
			Evidence: []report.Evidence{{Cite: "S1", Found: true, Supported: true, Score: 0.9, Passage: passage, PassageStart: start, PassageEnd: start + len(passage)}}},
		{Index: 1, Text: "A link and and raw.", Citations: []string{"S1"}, Factual: true, Valid: true, Score: 0.1, SourceID: "S1", Passage: "Intro " + payload,
			Evidence: []report.Evidence{{Cite: "S1", Found: true, Score: 0.1, Passage: "Intro " + payload}}},
	}
	ver := research.VerificationPayload{Pass: 2, Warning: "warning " + payload, Scores: research.Scores{Validity: 1, Coverage: 1, Support: 0.5, Passed: false}}
	row := reportRow(t, runID, md, map[string]string{"S1": text}, nil, checks, ver)
	err := store.InTx(ctx, func(tx *db.Tx) error {
		if _, _, err := tx.AddSource(ctx, db.Source{RunID: runID, URL: src.URL, CanonicalURL: src.URL, Title: src.Title, Host: src.Host, Text: text}); err != nil {
			return err
		}
		if _, err := tx.AddReport(ctx, row); err != nil {
			return err
		}
		if err := tx.SetShareToken(ctx, runID, "hostile-"+runID[:8], nil); err != nil {
			return err
		}
		status := research.StatusDone
		if err := tx.UpdateRun(ctx, runID, db.RunUpdate{Status: &status}); err != nil {
			return err
		}
		_, err := tx.AppendEvent(ctx, runID, research.EventRunCompleted, research.CompletedPayload{Status: status, Markdown: row.Markdown, HTML: row.HTML, Verification: ver})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
