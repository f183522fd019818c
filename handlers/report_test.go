package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/web"
)

// storedReport is a finished run written the way the pipeline publishes
// one: sources, the report parsed and rendered by package report with
// the verifier's verdicts stored as data beside it, a share token.
type storedReport struct {
	run      *db.Run
	token    string
	markdown string
	passages map[string]string // evidence id → passage expected in it
}

const (
	s1Text = "Background first. Postgres delivers NOTIFY messages when the transaction commits, never before. Listeners receive them in order. Tail text follows here."
	s2Text = "Other page. A LISTEN session receives every notification sent on its channel after it started listening. More."
)

// reportRow is a report version as publishing stores it: md parsed once,
// the given verdicts attached (checks, nil for an unverified report) with
// their passages' context in texts (source id → fetched text), the body
// rendered with evidence links, the data stored beside the HTML.
func reportRow(t *testing.T, runID, md string, texts map[string]string, prior []research.PriorSection, checks []report.SentenceCheck, ver research.VerificationPayload) db.Report {
	t.Helper()
	doc := report.Parse(md)
	if checks != nil {
		if len(checks) != len(doc.Sentences) {
			t.Fatalf("%d checks for %d sentences", len(checks), len(doc.Sentences))
		}
		doc.Sentences, doc.Verified = checks, true
	}
	ids := map[string]bool{}
	all := map[string]string{}
	for id, text := range texts {
		ids[id], all[id] = true, text
	}
	for _, p := range prior {
		ids[p.ID], all[p.ID] = true, p.Text
		if slices.Contains(doc.Cited(), p.ID) {
			doc.Prior = append(doc.Prior, report.Prior{ID: p.ID, Heading: p.Heading})
		}
	}
	doc.AddContext(all)
	html := doc.Render(report.RenderOptions{Known: ids, Evidence: true})
	return db.Report{RunID: runID, Markdown: doc.Markdown(), HTML: html, Verification: mustJSON(t, ver), Citations: mustJSON(t, doc), Published: true}
}

// evidenceAt is the verdict for a cited source whose passage sits in text.
func evidenceAt(cite, text, passage string, score float64, supported bool) report.Evidence {
	i := strings.Index(text, passage)
	return report.Evidence{Cite: cite, Found: true, Supported: supported, Score: score, Passage: passage, PassageStart: i, PassageEnd: i + len(passage)}
}

// testCriteria are the published test report's criteria: one answered
// by two sources, one the sources leave undetermined.
var testCriteria = []report.CriterionResult{
	{Criterion: "When NOTIFY messages are delivered", Status: report.CriterionAnswered, Section: "Delivery", Citations: []string{"S1", "S2"}},
	{Criterion: "Whether notifications survive a crash", Status: report.CriterionUndetermined},
}

func publishTestReport(t *testing.T, store *db.Store, question string) storedReport {
	t.Helper()
	ctx := context.Background()
	run := createRun(t, store, question)
	p1 := "Postgres delivers NOTIFY messages when the transaction commits, never before."
	p2 := "A LISTEN session receives every notification sent on its channel after it started listening."
	p1b := "Listeners receive them in order."
	md := "# How NOTIFY delivers\n\n## Delivery\n\nPostgres delivers notifications at commit [S1]. " +
		"Listening sessions receive each notification once [S1][S2].\n\n" +
		"- Notifications survive a server crash [S2].\n"
	sources := []research.Source{
		{ID: "S1", URL: "https://docs.example.org/notify", Title: "NOTIFY", Host: "docs.example.org"},
		{ID: "S2", URL: "https://blog.example.net/listen", Title: "LISTEN explained", Host: "blog.example.net"},
	}
	checks := []report.SentenceCheck{
		{Index: 0, Section: "Delivery", Text: "Postgres delivers notifications at commit.", Citations: []string{"S1"}, Factual: true, Valid: true,
			Supported: true, Score: 0.8, SourceID: "S1", Passage: p1, PassageStart: strings.Index(s1Text, p1), PassageEnd: strings.Index(s1Text, p1) + len(p1),
			Evidence: []report.Evidence{evidenceAt("S1", s1Text, p1, 0.8, true)}},
		{Index: 1, Section: "Delivery", Text: "Listening sessions receive each notification once.", Citations: []string{"S1", "S2"}, Factual: true, Valid: true,
			Supported: true, Score: 0.7, SourceID: "S2", Passage: p2, PassageStart: strings.Index(s2Text, p2), PassageEnd: strings.Index(s2Text, p2) + len(p2),
			Evidence: []report.Evidence{evidenceAt("S1", s1Text, p1b, 0.4, false), evidenceAt("S2", s2Text, p2, 0.7, true)}},
		{Index: 2, Section: "Delivery", Text: "Notifications survive a server crash.", Citations: []string{"S2"}, Factual: true, Valid: true,
			Supported: false, Score: 0.1, SourceID: "S2", Passage: "More.", PassageStart: strings.Index(s2Text, "More."), PassageEnd: len(s2Text),
			Evidence: []report.Evidence{evidenceAt("S2", s2Text, "More.", 0.1, false)}},
	}
	ver := research.VerificationPayload{Pass: 1, Warning: "One sentence is not supported by its source.", Scores: research.Scores{Validity: 1, Coverage: 1, Support: 2.0 / 3, Grounding: 1, CriteriaCoverage: 1, Passed: false}}
	row := reportRow(t, run.ID, md, map[string]string{"S1": s1Text, "S2": s2Text}, nil, checks, ver)
	row.Markdown += "\n\n" + report.SourcesMarkdown(sources)
	// The criteria as verification leaves them on the stored report.
	var stored report.Report
	if err := json.Unmarshal(row.Citations, &stored); err != nil {
		t.Fatal(err)
	}
	stored.Criteria = testCriteria
	row.Citations = mustJSON(t, stored)
	row.Engine = "anthropic (claude-test)"
	token := "tok-" + run.ID[:8]
	err := store.InTx(ctx, func(tx *db.Tx) error {
		for _, s := range []struct {
			src  research.Source
			text string
		}{{sources[0], s1Text}, {sources[1], s2Text}} {
			if _, _, err := tx.AddSource(ctx, db.Source{RunID: run.ID, URL: s.src.URL, CanonicalURL: s.src.URL, Title: s.src.Title, Host: s.src.Host, Text: s.text}); err != nil {
				return err
			}
		}
		if _, err := tx.AddReport(ctx, row); err != nil {
			return err
		}
		if err := tx.SetShareToken(ctx, run.ID, token, nil); err != nil {
			return err
		}
		status := research.StatusDone
		if err := tx.UpdateRun(ctx, run.ID, db.RunUpdate{Status: &status}); err != nil {
			return err
		}
		_, err := tx.AppendEvent(ctx, run.ID, research.EventRunCompleted, research.CompletedPayload{Status: status, Markdown: row.Markdown, HTML: row.HTML, Verification: ver})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	run, err = store.GetRun(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	return storedReport{run: run, token: token, markdown: row.Markdown, passages: map[string]string{"ev-1": p1, "ev-3": p2, "ev-4": "More."}}
}

func getDoc(t *testing.T, url string, wantStatus int) *goquery.Document {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != wantStatus {
		t.Fatalf("GET %s: %d, want %d", url, resp.StatusCode, wantStatus)
	}
	return mustDoc(t, resp.Body)
}

// TestReportEvidenceWithoutJS: every citation link of a finished report
// is an anchor to its evidence entry, which names the source (title,
// host, fetch time) and shows the verified passage highlighted within its
// context, so a browser without JavaScript reaches the passage too. An
// unsupported sentence is flagged in the text, on its link, in its
// evidence and in the summary.
func TestReportEvidenceWithoutJS(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	sr := publishTestReport(t, rep.store, "How does Postgres deliver NOTIFY?")
	doc := getDoc(t, rep.srv.URL+"/runs/"+sr.run.ID, http.StatusOK)

	if got := doc.Find("#report-title").Text(); got != "How NOTIFY delivers" {
		t.Errorf("title %q, want the report's own h1", got)
	}
	if doc.Find("[data-testid=report] h1").Length() != 0 {
		t.Error("the report's h1 is repeated in the body")
	}
	links := doc.Find("[data-testid=report] a[data-testid=citation]")
	if links.Length() != 4 {
		t.Fatalf("%d citation links, want 4", links.Length())
	}
	links.Each(func(i int, a *goquery.Selection) {
		href := a.AttrOr("href", "")
		ev := doc.Find(href)
		if !strings.HasPrefix(href, "#ev-") || ev.Length() != 1 || ev.AttrOr("data-cite", "") != a.AttrOr("data-cite", "") {
			t.Errorf("link %d → %q: no matching evidence entry", i, href)
			return
		}
		if ev.Find(".ev-meta time").Length() != 1 || ev.Find("[data-testid=evidence-host]").Text() == "" || ev.Find(".ev-title").Text() == "" {
			t.Errorf("%s lacks the source's title, host or fetch time: %q", href, ev.Text())
		}
		if back := ev.Find("a.ev-back").AttrOr("href", ""); back != "#"+a.AttrOr("id", "") {
			t.Errorf("%s links back to %q, want the citation %q", href, back, a.AttrOr("id", ""))
		}
		if want, ok := sr.passages[strings.TrimPrefix(href, "#")]; ok {
			if got := ev.Find("mark[data-testid=passage]").Text(); got != want {
				t.Errorf("%s passage %q, want %q", href, got, want)
			}
		}
	})
	ev1 := doc.Find("#ev-1")
	if before, after := ev1.Find(".ctx").First().Text(), ev1.Find(".ctx").Last().Text(); !strings.Contains(before, "Background first.") || !strings.Contains(after, "Listeners receive them in order.") {
		t.Errorf("ev-1 context %q … %q, want the text around the passage", before, after)
	}
	// The second sentence cites S1 and S2; verification found S2 best. The
	// S1 link still shows S1's own best passage, and says where the best is.
	if ev2 := doc.Find("#ev-2"); ev2.Find("mark").Text() == "" || !strings.Contains(ev2.Text(), "[S2]") {
		t.Errorf("ev-2 (S1 of a sentence best supported by S2): %q", ev2.Text())
	}
	if !doc.Find("#ev-4").HasClass("ev-unsupported") || !doc.Find("#cite-4").HasClass("citation-unsupported") || doc.Find("#ev-4 [data-testid=unsupported]").Length() != 1 {
		t.Errorf("the unsupported sentence is not flagged on its link and evidence")
	}
	if doc.Find("[data-testid=report] em.unverified").Length() != 1 {
		t.Error("the in-text unverified mark is not styled as a warning")
	}
	warning := doc.Find("[data-testid=report-warning]")
	if !strings.Contains(warning.Text(), "One sentence is not supported") || warning.Find("a[href='#ev-4']").Text() != "Notifications survive a server crash." {
		t.Errorf("warning %q", warning.Text())
	}
	if got := doc.Find("[data-score=support] .score-value").Text(); got != "67%" {
		t.Errorf("support shown %q", got)
	}
	src := doc.Find("#src-S1[data-testid=source]")
	if !strings.Contains(src.Text(), "cited 2 times") || src.Find("a").First().AttrOr("href", "") != "https://docs.example.org/notify" || src.Find("time").Length() != 1 {
		t.Errorf("source S1: %q", src.Text())
	}
	if doc.Find("#citation-detail[data-testid=citation-detail][hidden]").Length() != 1 {
		t.Error("no (hidden) citation panel for the script to fill")
	}
}

// TestShareRevokeRegenerate: the share link shows the report without the
// owner's controls; revoked, it and its exports are 404 at once; a new
// link works and the old one stays dead.
func TestShareRevokeRegenerate(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	sr := publishTestReport(t, rep.store, "share me")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	doc := getDoc(t, rep.srv.URL+"/r/"+sr.token, http.StatusOK)
	if doc.Find("[data-testid=report] [data-testid=citation]").Length() != 4 || doc.Find("[data-testid=share-link]").AttrOr("href", "") != "/r/"+sr.token {
		t.Fatalf("shared report: %q", doc.Find("main").Text())
	}
	if doc.Find("[data-testid=revoke-share], [data-testid=followup-question], header.top nav").Length() != 0 {
		t.Error("the shared report shows the owner's controls or the app's navigation")
	}
	for _, u := range []string{"/r/" + sr.token + "/report.md", "/r/" + sr.token + "/report.json"} {
		resp, err := http.Get(rep.srv.URL + u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: %d, Referrer-Policy %q", u, resp.StatusCode, resp.Header.Get("Referrer-Policy"))
		}
	}

	resp, err := client.PostForm(rep.srv.URL+"/runs/"+sr.run.ID+"/share/revoke", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	getDoc(t, rep.srv.URL+"/r/"+sr.token, http.StatusNotFound)
	getDoc(t, rep.srv.URL+"/r/"+sr.token+"/report.md", http.StatusNotFound)
	page := getDoc(t, rep.srv.URL+"/runs/"+sr.run.ID, http.StatusOK)
	if page.Find("[data-testid=share-link]").Length() != 0 || page.Find("[data-testid=share-off]").Length() != 1 {
		t.Error("the run page still offers the revoked link")
	}

	resp, err = client.PostForm(rep.srv.URL+"/runs/"+sr.run.ID+"/share", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	page = getDoc(t, rep.srv.URL+"/runs/"+sr.run.ID, http.StatusOK)
	fresh := page.Find("[data-testid=share-link]").AttrOr("href", "")
	if !strings.HasPrefix(fresh, "/r/") || fresh == "/r/"+sr.token {
		t.Fatalf("regenerated link %q", fresh)
	}
	getDoc(t, rep.srv.URL+fresh, http.StatusOK)
	getDoc(t, rep.srv.URL+"/r/"+sr.token, http.StatusNotFound)

	// A run without a report has nothing to share.
	other := createRun(t, rep.store, "no report yet")
	resp, err = client.PostForm(rep.srv.URL+"/runs/"+other.ID+"/share", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("sharing a run without a report: %d, want 409", resp.StatusCode)
	}
}

// TestReportExports: Markdown and JSON downloads from the run page, the
// API and the share link; without a browser pool PDF export says so.
func TestReportExports(t *testing.T) {
	// The server now runs another engine; the report keeps the one that wrote it.
	rep := newReplica(t, replicaOptions{settings: web.SettingsView{Engine: "openai", Model: "gpt-later"}})
	sr := publishTestReport(t, rep.store, "export me")
	for _, u := range []string{"/runs/" + sr.run.ID, "/r/" + sr.token} {
		page := string(get(t, rep.srv.URL+u, "text/html"))
		if !strings.Contains(page, "anthropic (claude-test)") || strings.Contains(page, "gpt-later") {
			t.Errorf("%s does not name the engine that wrote the report", u)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		crits := doc.Find("[data-testid=criterion]")
		var cites []string
		crits.Eq(0).Find("[data-testid=criterion-cite]").Each(func(_ int, a *goquery.Selection) { cites = append(cites, a.AttrOr("href", "")) })
		if crits.Length() != 2 || crits.Eq(0).AttrOr("data-status", "") != "answered" || !strings.Contains(crits.Eq(0).Text(), "When NOTIFY messages are delivered") ||
			strings.Join(cites, " ") != "#src-S1 #src-S2" || crits.Eq(1).AttrOr("data-status", "") != "undetermined" || !strings.Contains(crits.Eq(1).Text(), "undetermined") {
			t.Errorf("%s criteria: %d items, %q, citations %q", u, crits.Length(), crits.Text(), cites)
		}
	}
	// The API's report.md is the report as published; the downloads add
	// what the page shows beside it.
	if body := string(get(t, rep.srv.URL+"/api/runs/"+sr.run.ID+"/report.md", "text/markdown")); body != sr.markdown {
		t.Errorf("API report.md: %q", body)
	}
	for _, u := range []string{"/runs/" + sr.run.ID + "/report.md", "/r/" + sr.token + "/report.md"} {
		body := string(get(t, rep.srv.URL+u, "text/markdown"))
		appendix := strings.TrimPrefix(body, strings.TrimRight(sr.markdown, "\n")+"\n\n")
		if appendix == body {
			t.Errorf("%s does not start with the report: %q", u, body)
		}
		for _, want := range []string{"## Criteria\n\n- answered: When NOTIFY messages are delivered — [S1][S2]\n- undetermined: Whether notifications survive a crash",
			"## Verification\n\nCitation checks fell short: validity 100%, support 67%, coverage 100%, grounding 100%, criteria 100%.",
			"Warning: One sentence is not supported by its source."} {
			if !strings.Contains(appendix, want) {
				t.Errorf("%s export lacks %q:\n%s", u, want, appendix)
			}
		}
	}
	for _, u := range []string{"/runs/" + sr.run.ID + "/report.json", "/api/runs/" + sr.run.ID + "/report.json", "/r/" + sr.token + "/report.json"} {
		var ex struct {
			RunID     string                 `json:"run_id"`
			Engine    string                 `json:"engine"`
			Title     string                 `json:"title"`
			Markdown  string                 `json:"markdown"`
			Citations []report.SentenceCheck `json:"citations"`
			Sources   []struct{ ID, URL string }
			Verify    struct{ Support float64 } `json:"verification"`
			Criteria  []report.CriterionResult  `json:"criteria"`
		}
		if err := json.Unmarshal(get(t, rep.srv.URL+u, "application/json"), &ex); err != nil {
			t.Fatal(err)
		}
		if ex.RunID != sr.run.ID || ex.Engine != "anthropic (claude-test)" || ex.Title != "How NOTIFY delivers" || ex.Markdown != sr.markdown || len(ex.Citations) != 3 ||
			len(ex.Sources) != 2 || ex.Sources[1].URL != "https://blog.example.net/listen" || ex.Verify.Support < 0.6 ||
			!reflect.DeepEqual(ex.Criteria, testCriteria) {
			t.Errorf("%s: %+v", u, ex)
		}
	}
	resp, err := http.Get(rep.srv.URL + "/runs/" + sr.run.ID + "/report.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="quarry-how-notify-delivers-`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	resp, err = http.Get(rep.srv.URL + "/api/runs/" + sr.run.ID + "/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "browser pool") {
		t.Errorf("PDF without a printer: %d %s", resp.StatusCode, body)
	}
	missing := createRun(t, rep.store, "nothing published")
	resp, err = http.Get(rep.srv.URL + "/api/runs/" + missing.ID + "/report.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("export of a run without a report: %d", resp.StatusCode)
	}
}

// TestFollowUpAndPriorResearch: the report page's follow-up box posts a
// child run of the report; the child's report lists the prior sections
// it cites as [P#], and their evidence comes from the earlier report.
func TestFollowUpAndPriorResearch(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	parent := publishTestReport(t, rep.store, "the parent question")
	doc := getDoc(t, rep.srv.URL+"/runs/"+parent.run.ID, http.StatusOK)
	form := doc.Find("section.followup form")
	if form.Find("input[name=parent_id]").AttrOr("value", "") != parent.run.ID || form.Find("[data-testid=followup-question]").Length() != 1 {
		t.Fatalf("follow-up form: %q", form.Text())
	}
	if doc.Find("[data-testid=question]").Length() != 0 {
		t.Error("the follow-up box reuses the ask page's test ids")
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(rep.srv.URL+"/runs", url.Values{"question": {"And what about replicas?"}, "depth": {"quick"}, "parent_id": {parent.run.ID}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	childID := strings.TrimPrefix(resp.Header.Get("Location"), "/runs/")
	child, err := rep.store.GetRun(context.Background(), childID)
	if err != nil {
		t.Fatal(err)
	}
	if child.ParentRunID.String != parent.run.ID {
		t.Fatalf("child's parent %q", child.ParentRunID.String)
	}
	live := getDoc(t, rep.srv.URL+"/runs/"+childID, http.StatusOK)
	if live.Find(".run-head a[href='/runs/"+parent.run.ID+"']").Text() != "the parent question" {
		t.Error("the follow-up's page does not name the report it follows")
	}

	// Publish the child's report citing a prior section.
	ctx := context.Background()
	prior := []research.PriorSection{{ID: "P1", Heading: "Delivery", Text: "Postgres delivers notifications at commit. Earlier finding."}}
	md := "## Replicas\n\nNotifications are delivered at commit [P1].\n"
	passage := "Postgres delivers notifications at commit."
	checks := []report.SentenceCheck{{Section: "Replicas", Text: "Notifications are delivered at commit.", Citations: []string{"P1"}, Factual: true, Valid: true, Supported: true,
		Score: 0.9, SourceID: "P1", Passage: passage, PassageStart: 0, PassageEnd: len(passage),
		Evidence: []report.Evidence{{Cite: "P1", Found: true, Supported: true, Score: 0.9, Passage: passage, PassageEnd: len(passage)}}}}
	row := reportRow(t, childID, md, nil, prior, checks, research.VerificationPayload{})
	row.Verification = nil
	err = rep.store.InTx(ctx, func(tx *db.Tx) error {
		if err := tx.SaveCheckpoint(ctx, childID, "done", map[string]any{"prior": prior}); err != nil {
			return err
		}
		if _, err := tx.AddReport(ctx, row); err != nil {
			return err
		}
		status := research.StatusDone
		return tx.UpdateRun(ctx, childID, db.RunUpdate{Status: &status})
	})
	if err != nil {
		t.Fatal(err)
	}
	doc = getDoc(t, rep.srv.URL+"/runs/"+childID, http.StatusOK)
	if got := doc.Find("#src-P1[data-testid=prior]").Text(); !strings.Contains(got, "Delivery") {
		t.Errorf("prior research list: %q", got)
	}
	ev := doc.Find(doc.Find("[data-testid=citation][data-cite=P1]").AttrOr("href", "#none"))
	if ev.Find("mark").Text() != passage || !strings.Contains(ev.Text(), "from the earlier report") || !strings.Contains(ev.Find(".ctx").Text(), "Earlier finding.") {
		t.Errorf("evidence of [P1]: %q", ev.Text())
	}
	if doc.Find(".report-head a[href='/runs/"+parent.run.ID+"']").Length() != 1 {
		t.Error("the follow-up report does not link the report it follows")
	}
}

// TestHistorySearchReportText: history finds a run by a word of its
// report (not of its question), says how many match, and shows the
// report text around the match.
func TestHistorySearchReportText(t *testing.T) {
	dbURL, drop, err := dbtest.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	rep := newReplica(t, replicaOptions{url: dbURL})
	sr := publishTestReport(t, rep.store, "a question about queues")
	doc := getDoc(t, rep.srv.URL+"/runs?q=crash", http.StatusOK)
	item := doc.Find("[data-testid=run-item]")
	if item.Length() != 1 || item.Find("a").AttrOr("href", "") != "/runs/"+sr.run.ID {
		t.Fatalf("search over report text: %d items %q", item.Length(), item.Text())
	}
	if got := item.Find("[data-testid=snippet] mark").Text(); !strings.EqualFold(got, "crash") {
		t.Errorf("snippet highlight %q in %q", got, item.Find("[data-testid=snippet]").Text())
	}
	if snippet := item.Find("[data-testid=snippet]").Text(); strings.Contains(snippet, "[S2]") || strings.Contains(snippet, "##") {
		t.Errorf("snippet keeps Markdown noise: %q", snippet)
	}
	if got := doc.Find("[data-testid=history-count]").Text(); !strings.Contains(got, "1 run") || !strings.Contains(got, "crash") {
		t.Errorf("count line %q", got)
	}
}

// TestLegacyReportDisplays: a report published before reports were
// stored as data (its HTML with the Sources list appended, a bare list of
// sentence checks) still shows: its title, its body rendered from the
// Markdown with citations linking to the Sources list, one Sources list,
// its scores and flagged sentences, and its exports.
func TestLegacyReportDisplays(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	ctx := context.Background()
	run := createRun(t, rep.store, "an old report")
	md := "# Old title\n\n## Delivery\n\nPostgres delivers notifications at commit [S1]. " +
		"Notifications survive a server crash [S1]. *(unverified: not supported by the cited source)*\n\n" +
		"## Sources\n\n- [S1] [NOTIFY](<https://docs.example.org/notify>) — docs.example.org\n"
	html := `<h1>Old title</h1><h2>Delivery</h2><p>Postgres delivers notifications at commit <a class="citation" data-testid="citation" data-cite="S1" href="#src-S1">[S1]</a>. ` +
		`Notifications survive a server crash <a class="citation" data-testid="citation" data-cite="S1" href="#src-S1">[S1]</a>. <em>(unverified: not supported by the cited source)</em></p>` +
		`<section class="sources" aria-labelledby="sources-h"><h2 id="sources-h">Sources</h2><ol class="source-list"><li id="src-S1" data-testid="source" data-source="S1">NOTIFY</li></ol></section>`
	checks := []report.SentenceCheck{
		{Index: 0, Section: "Delivery", Text: "Postgres delivers notifications at commit.", Citations: []string{"S1"}, Factual: true, Valid: true, Supported: true, Score: 0.8, SourceID: "S1"},
		{Index: 1, Section: "Delivery", Text: "Notifications survive a server crash.", Citations: []string{"S1"}, Factual: true, Valid: true, Score: 0.1, SourceID: "S1"},
	}
	ver := research.VerificationPayload{Pass: 1, Scores: research.Scores{Validity: 1, Coverage: 1, Support: 0.5, Grounding: 1, CriteriaCoverage: 1}}
	err := rep.store.InTx(ctx, func(tx *db.Tx) error {
		if _, _, err := tx.AddSource(ctx, db.Source{RunID: run.ID, URL: "https://docs.example.org/notify", CanonicalURL: "https://docs.example.org/notify", Title: "NOTIFY", Host: "docs.example.org", Text: s1Text}); err != nil {
			return err
		}
		if _, err := tx.AddReport(ctx, db.Report{RunID: run.ID, Markdown: md, HTML: html, Verification: mustJSON(t, ver), Citations: mustJSON(t, checks), Published: true}); err != nil {
			return err
		}
		status := research.StatusDone
		return tx.UpdateRun(ctx, run.ID, db.RunUpdate{Status: &status})
	})
	if err != nil {
		t.Fatal(err)
	}
	doc := getDoc(t, rep.srv.URL+"/runs/"+run.ID, http.StatusOK)
	if got := doc.Find("#report-title").Text(); got != "Old title" {
		t.Errorf("title %q", got)
	}
	body := doc.Find("[data-testid=report]")
	if links := body.Find("a[data-testid=citation][href='#src-S1']"); links.Length() != 2 {
		t.Errorf("%d citation links to the source, want 2", links.Length())
	}
	if body.Find("h1, section.sources").Length() != 0 || doc.Find("[data-testid=source]").Length() != 1 || !strings.Contains(body.Text(), "(unverified: not supported") {
		t.Errorf("body: %q", body.Text())
	}
	if doc.Find("[data-testid=evidence]").Length() != 0 {
		t.Error("an old report has no stored evidence to list")
	}
	if got := doc.Find("[data-score=support] .score-value").Text(); got != "50%" || !strings.Contains(doc.Find("[data-testid=report-warning]").Text(), "Notifications survive a server crash.") {
		t.Errorf("support %q, warning %q", got, doc.Find("[data-testid=report-warning]").Text())
	}
	if got := string(get(t, rep.srv.URL+"/runs/"+run.ID+"/report.md", "text/markdown")); !strings.HasPrefix(got, strings.TrimRight(md, "\n")+"\n\n## Verification\n") {
		t.Errorf("Markdown export %q", got)
	}
	var ex struct {
		Title     string                 `json:"title"`
		Citations []report.SentenceCheck `json:"citations"`
	}
	if err := json.Unmarshal(get(t, rep.srv.URL+"/runs/"+run.ID+"/report.json", "application/json"), &ex); err != nil || ex.Title != "Old title" || len(ex.Citations) != 2 {
		t.Errorf("JSON export: %+v %v", ex, err)
	}
}
