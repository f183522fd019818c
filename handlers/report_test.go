package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/web"
)

// storedReport is a finished run written the way the pipeline publishes
// one: sources, a report rendered by pipeline.RenderMarkdown, the
// verification and per-sentence citations, a share token.
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

func publishTestReport(t *testing.T, store *db.Store, question string) storedReport {
	t.Helper()
	ctx := context.Background()
	run := createRun(t, store, question)
	p1 := "Postgres delivers NOTIFY messages when the transaction commits, never before."
	p2 := "A LISTEN session receives every notification sent on its channel after it started listening."
	md := "# How NOTIFY delivers\n\n## Delivery\n\nPostgres delivers notifications at commit [S1]. " +
		"Listening sessions receive each notification once [S1][S2].\n\n" +
		"- Notifications survive a server crash [S2]. *(unverified: not supported by the cited source)*\n"
	sources := []research.Source{
		{ID: "S1", URL: "https://docs.example.org/notify", Title: "NOTIFY", Host: "docs.example.org"},
		{ID: "S2", URL: "https://blog.example.net/listen", Title: "LISTEN explained", Host: "blog.example.net"},
	}
	html := pipeline.RenderMarkdown(md, map[string]bool{"S1": true, "S2": true}) + pipeline.SourcesHTML(sources)
	checks := []pipeline.SentenceCheck{
		{Index: 0, Section: "Delivery", Text: "Postgres delivers notifications at commit.", Citations: []string{"S1"}, Factual: true, Valid: true,
			Supported: true, Score: 0.8, SourceID: "S1", Passage: p1, PassageStart: strings.Index(s1Text, p1), PassageEnd: strings.Index(s1Text, p1) + len(p1)},
		{Index: 1, Section: "Delivery", Text: "Listening sessions receive each notification once.", Citations: []string{"S1", "S2"}, Factual: true, Valid: true,
			Supported: true, Score: 0.7, SourceID: "S2", Passage: p2, PassageStart: strings.Index(s2Text, p2), PassageEnd: strings.Index(s2Text, p2) + len(p2)},
		{Index: 2, Section: "Delivery", Text: "Notifications survive a server crash.", Citations: []string{"S2"}, Factual: true, Valid: true,
			Supported: false, Score: 0.1, SourceID: "S2", Passage: "More.", PassageStart: strings.Index(s2Text, "More."), PassageEnd: len(s2Text)},
	}
	ver := research.VerificationPayload{Pass: 1, Validity: 1, Coverage: 1, Support: 2.0 / 3, Grounding: 1, CriteriaCoverage: 1,
		Passed: false, Warning: "One sentence is not supported by its source."}
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
		if _, err := tx.AddReport(ctx, db.Report{RunID: run.ID, Markdown: md, HTML: html, Verification: mustJSON(t, ver), Citations: mustJSON(t, checks), Published: true, Engine: "anthropic (claude-test)"}); err != nil {
			return err
		}
		if err := tx.SetShareToken(ctx, run.ID, token, nil); err != nil {
			return err
		}
		status := research.StatusDone
		if err := tx.UpdateRun(ctx, run.ID, db.RunUpdate{Status: &status}); err != nil {
			return err
		}
		_, err := tx.AppendEvent(ctx, run.ID, research.EventRunCompleted, research.CompletedPayload{Status: status, HTML: html, Verification: ver})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	run, err = store.GetRun(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	return storedReport{run: run, token: token, markdown: md, passages: map[string]string{"ev-1": p1, "ev-3": p2, "ev-4": "More."}}
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
	}
	for _, u := range []string{"/runs/" + sr.run.ID + "/report.md", "/r/" + sr.token + "/report.md", "/api/runs/" + sr.run.ID + "/report.md"} {
		body := get(t, rep.srv.URL+u, "text/markdown")
		if string(body) != sr.markdown {
			t.Errorf("%s: %q", u, body)
		}
	}
	for _, u := range []string{"/runs/" + sr.run.ID + "/report.json", "/api/runs/" + sr.run.ID + "/report.json", "/r/" + sr.token + "/report.json"} {
		var ex struct {
			RunID     string                   `json:"run_id"`
			Engine    string                   `json:"engine"`
			Title     string                   `json:"title"`
			Markdown  string                   `json:"markdown"`
			Citations []pipeline.SentenceCheck `json:"citations"`
			Sources   []struct{ ID, URL string }
			Verify    struct{ Support float64 } `json:"verification"`
		}
		if err := json.Unmarshal(get(t, rep.srv.URL+u, "application/json"), &ex); err != nil {
			t.Fatal(err)
		}
		if ex.RunID != sr.run.ID || ex.Engine != "anthropic (claude-test)" || ex.Title != "How NOTIFY delivers" || ex.Markdown != sr.markdown || len(ex.Citations) != 3 ||
			len(ex.Sources) != 2 || ex.Sources[1].URL != "https://blog.example.net/listen" || ex.Verify.Support < 0.6 {
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
	html := pipeline.RenderMarkdown(md, map[string]bool{"P1": true}) + pipeline.PriorHTML(prior, map[string]bool{"P1": true})
	passage := "Postgres delivers notifications at commit."
	checks := []pipeline.SentenceCheck{{Text: "Notifications are delivered at commit.", Citations: []string{"P1"}, Factual: true, Valid: true, Supported: true,
		Score: 0.9, SourceID: "P1", Passage: passage, PassageStart: 0, PassageEnd: len(passage)}}
	err = rep.store.InTx(ctx, func(tx *db.Tx) error {
		if err := tx.SaveCheckpoint(ctx, childID, "done", map[string]any{"prior": prior}); err != nil {
			return err
		}
		if _, err := tx.AddReport(ctx, db.Report{RunID: childID, Markdown: md, HTML: html, Citations: mustJSON(t, checks), Published: true}); err != nil {
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
