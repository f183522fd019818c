package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/fetch"
)

func newFetcher(hosts fetch.HostStore) *fetch.Fetcher {
	return fetch.New(fetch.Options{Guard: testGuard, Pool: testPool, Hosts: hosts, Recheck: -1})
}

func url(path string) string { return testSite.URL + path }

func hasAll(t *testing.T, name, text string, sentences []string) {
	t.Helper()
	for _, s := range sentences {
		if !strings.Contains(text, s) {
			t.Errorf("%s: text lacks %q\ntext: %q", name, s, text)
		}
	}
}

func TestStaticPageOverHTTP(t *testing.T) {
	f := newFetcher(nil)
	res, err := f.Fetch(context.Background(), url("/article/1"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Rendered || res.Reason != "" || res.Kind != "html" {
		t.Errorf("rendered %v (%q), kind %q: a page whose HTML holds its text needs no browser", res.Rendered, res.Reason, res.Kind)
	}
	p := res.Page
	if p.Title != "Article 1" || p.Host != "127.0.0.1" || p.URL != url("/article/1") || p.FinalURL != url("/article/1") || p.FetchedAt.IsZero() || p.LoadTime <= 0 {
		t.Errorf("metadata: title %q host %q url %q final %q fetched %v load %v", p.Title, p.Host, p.URL, p.FinalURL, p.FetchedAt, p.LoadTime)
	}
	hasAll(t, "static", p.Text, articleSentences)
	if strings.Contains(p.Text, "About us") || strings.Contains(p.Text, "dataLayer") {
		t.Errorf("navigation or script in the text: %q", p.Text)
	}
	if res.Phases.FirstByte <= 0 || res.Phases.Extract <= 0 || res.Phases.Render != 0 {
		t.Errorf("phases %+v", res.Phases)
	}
}

// TestServerRenderedStateNotRendered: a page whose scripts carry state
// that the served HTML already shows is accepted over HTTP.
func TestServerRenderedStateNotRendered(t *testing.T) {
	res, err := newFetcher(nil).Fetch(context.Background(), url("/ssr/hydrated"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Rendered {
		t.Errorf("rendered (%s)", res.Reason)
	}
	hasAll(t, "server-rendered", res.Page.Text, articleSentences)
}

func TestDecodingAndRedirects(t *testing.T) {
	f := newFetcher(nil)
	ctx := context.Background()
	res, err := f.Fetch(ctx, url("/gzip/article"))
	if err != nil || res.Page.Title != "Compressed article" || res.Rendered {
		t.Fatalf("gzip: %q rendered %v, %v", res.Page.Title, res.Rendered, err)
	}
	hasAll(t, "gzip", res.Page.Text, articleSentences)

	res, err = f.Fetch(ctx, url("/latin1/article"))
	if err != nil || res.Page.Title != "Café report" {
		t.Fatalf("latin-1: title %q, %v", res.Page.Title, err)
	}

	res, err = f.Fetch(ctx, url("/redirect"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Page.URL != url("/redirect") || res.Page.FinalURL != url("/article/redirected?utm_source=test") || res.Page.CanonicalURL != url("/article/redirected") {
		t.Errorf("redirect: url %q final %q canonical %q", res.Page.URL, res.Page.FinalURL, res.Page.CanonicalURL)
	}

	// A redirect hop to an address the guard refuses fails as a refusal,
	// and is not retried in the browser.
	_, err = f.Fetch(ctx, url("/redirect-out"))
	if !errors.Is(err, egress.ErrRefused) {
		t.Errorf("redirect to a refused address: %v", err)
	}
}

func TestRefusalsAndErrors(t *testing.T) {
	f := newFetcher(nil)
	ctx := context.Background()
	_, err := f.Fetch(ctx, url("/missing"))
	var status *fetch.StatusError
	if !errors.As(err, &status) || status.Status != 404 {
		t.Errorf("404: %v", err)
	}
	_, err = f.Fetch(ctx, url("/huge"))
	var tooLarge *browser.PageTooLargeError
	if !errors.As(err, &tooLarge) {
		t.Errorf("huge page: %v", err)
	}
	_, err = f.Fetch(ctx, url("/image.png"))
	if !errors.Is(err, browser.ErrDownloadRefused) {
		t.Errorf("image: %v", err)
	}
	_, err = f.Fetch(ctx, "http://127.0.0.1:1/")
	if !errors.Is(err, egress.ErrRefused) {
		t.Errorf("unallowed loopback port: %v", err)
	}
	_, err = f.Fetch(ctx, "file:///etc/passwd")
	if !errors.Is(err, egress.ErrRefused) {
		t.Errorf("file URL: %v", err)
	}
}

// TestRefusedStatusFallsBackToBrowser: a page that refuses the plain
// client (403, 429, 5xx) is tried in the browser, whose answer is kept.
// (A 404 is an answer, not a refusal: TestRefusalsAndErrors.)
func TestRefusedStatusFallsBackToBrowser(t *testing.T) {
	f := newFetcher(nil)
	ctx := context.Background()
	for _, code := range []int{403, 429, 500, 503} {
		res, err := f.Fetch(ctx, url(fmt.Sprintf("/refuses-first/%d/1", code)))
		if err != nil {
			t.Errorf("HTTP %d to the plain client: %v", code, err)
			continue
		}
		if !res.Rendered || res.Reason != fetch.ReasonStatus {
			t.Errorf("HTTP %d: rendered %v (%q), want rendered for %q", code, res.Rendered, res.Reason, fetch.ReasonStatus)
		}
		hasAll(t, fmt.Sprintf("after HTTP %d", code), res.Page.Text, articleSentences)
	}
}

// TestJavaScriptOnlyPagesAreRendered: every page whose served HTML lacks
// the text is rendered, and comes out whole.
func TestJavaScriptOnlyPagesAreRendered(t *testing.T) {
	var paths []string
	for p := range jsPages {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, path := range paths {
		t.Run(strings.TrimPrefix(path, "/js/"), func(t *testing.T) {
			f := newFetcher(nil) // nothing remembered: the page alone decides
			res, err := f.Fetch(context.Background(), url(path))
			if err != nil {
				t.Fatal(err)
			}
			if !res.Rendered || res.Reason == "" || res.Phases.Render <= 0 {
				t.Errorf("rendered %v reason %q render time %v", res.Rendered, res.Reason, res.Phases.Render)
			}
			t.Logf("%s: %s", path, res.Reason)
			hasAll(t, path, res.Page.Text, articleSentences)
		})
	}
}

// TestHostDecisionSharedByReplicas: one fetcher learns from three pages in
// a row that the host needs a browser and records it in Postgres; another, as on another replica,
// then renders the host's pages without trying HTTP first.
func TestHostDecisionSharedByReplicas(t *testing.T) {
	store := dbtest.NewStore(t)
	ctx := context.Background()
	a := newFetcher(store)
	for i := range 3 {
		if m, _ := store.FetchMode(ctx, "127.0.0.1"); m == fetch.ModeRender {
			t.Fatalf("the host needs a browser after %d client-rendered pages, want 3", i)
		}
		if _, err := a.Fetch(ctx, url("/js/client-rendered?page="+fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	if m, err := store.FetchMode(ctx, "127.0.0.1"); err != nil || m != fetch.ModeRender {
		t.Fatalf("after three client-rendered pages the host is %q (%v), want render", m, err)
	}
	b := newFetcher(store)
	res, err := b.Fetch(ctx, url("/article/2"))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Rendered || res.Reason != fetch.ReasonHost || res.Phases.FirstByte != 0 {
		t.Errorf("second replica: rendered %v reason %q first byte %v, want a direct render", res.Rendered, res.Reason, res.Phases.FirstByte)
	}
	hasAll(t, "rendered static page", res.Page.Text, articleSentences)

	// A re-check (every page, here) finds the static page needs no browser
	// and the host goes back to HTTP.
	c := fetch.New(fetch.Options{Guard: testGuard, Pool: testPool, Hosts: store, Recheck: 1})
	res, err = c.Fetch(ctx, url("/article/3"))
	if err != nil || res.Rendered {
		t.Fatalf("re-check: rendered %v, %v", res.Rendered, err)
	}
	if m, _ := store.FetchMode(ctx, "127.0.0.1"); m != fetch.ModeHTTP {
		t.Errorf("after the re-check the host is %q, want http", m)
	}
}

// TestRenderConfirmsNeed: a page the test sends to the browser but that
// renders to no more text does not mark its host.
func TestRenderConfirmsNeed(t *testing.T) {
	hosts := fetch.NewMemoryHosts(10)
	f := newFetcher(hosts)
	if _, err := f.Fetch(context.Background(), url("/article/4")); err != nil {
		t.Fatal(err)
	}
	if m, _ := hosts.FetchMode(context.Background(), "127.0.0.1"); m != fetch.ModeHTTP {
		t.Errorf("host %q after a static page, want http", m)
	}
}

func TestDocuments(t *testing.T) {
	f := newFetcher(nil)
	ctx := context.Background()

	res, err := f.Fetch(ctx, url("/report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != "pdf" || res.Rendered || res.Page.Title != "Rainfall report" {
		t.Errorf("pdf: kind %q rendered %v title %q", res.Kind, res.Rendered, res.Page.Title)
	}
	hasAll(t, "pdf", res.Page.Text, articleSentences[:2])
	if len(res.Page.Findings) == 0 {
		t.Error("pdf: no findings")
	}

	res, err = f.Fetch(ctx, url("/notes.md"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != "text" || res.Page.Title != "Rainfall notes" {
		t.Errorf("markdown: kind %q title %q", res.Kind, res.Page.Title)
	}
	hasAll(t, "markdown", res.Page.Text, []string{articleSentences[0], "Gauges in the northern valleys measured twice the rain of the coastal plain.", "Soil moisture lagged"})
	for _, junk := range []string{"**", "front matter", "```", "https://example.org", "# "} {
		if strings.Contains(res.Page.Text, junk) {
			t.Errorf("markdown text holds %q: %q", junk, res.Page.Text)
		}
	}

	if !strings.Contains(res.Page.Text, "\n\ncode is kept") {
		t.Errorf("markdown code block lost: %q", res.Page.Text)
	}

	res, err = f.Fetch(ctx, url("/notes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Page.Title != "Rainfall notes" {
		t.Errorf("text title %q", res.Page.Title)
	}
	hasAll(t, "plain text", res.Page.Text, articleSentences[:2])
}

// TestPerHostLimit: at most PerHost requests reach one host at a time,
// however many pages are asked for at once.
func TestPerHostLimit(t *testing.T) {
	slowPeak.Store(0)
	f := fetch.New(fetch.Options{Guard: testGuard, Concurrency: 8, PerHost: 2, Recheck: -1})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.Fetch(context.Background(), url(fmt.Sprintf("/slow/%d", i))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if p := slowPeak.Load(); p != 2 {
		t.Errorf("peak requests to one host = %d, want 2", p)
	}
}
