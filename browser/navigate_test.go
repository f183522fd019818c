package browser

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/extract"
)

// mainText is the main text of a rendered page, as its users extract it.
func mainText(t *testing.T, r *Rendered) string {
	t.Helper()
	page, err := extract.Extract([]byte(r.HTML), r.FinalURL)
	if err != nil {
		t.Fatalf("extract %s: %v", r.FinalURL, err)
	}
	return page.Text
}

func TestRenderArticle(t *testing.T) {
	before := testSite.imageHits.Load()
	r, err := testPool.Render(context.Background(), testSite.url("/article/1"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Title != "Article 1" {
		t.Errorf("title = %q", r.Title)
	}
	if text := mainText(t, r); !strings.Contains(text, "article number 1 about measured rainfall") {
		t.Errorf("text does not hold the article: %q", text)
	}
	if r.URL != testSite.url("/article/1") || r.FinalURL != testSite.url("/article/1") || r.Status != 200 || r.Partial || r.LoadTime <= 0 {
		t.Errorf("rendered: url %q final %q status %d partial %v load %v", r.URL, r.FinalURL, r.Status, r.Partial, r.LoadTime)
	}
	if got := testSite.imageHits.Load() - before; got != 0 {
		t.Errorf("%d image requests reached the server; images must be blocked", got)
	}
}

func TestRenderFollowsRedirect(t *testing.T) {
	r, err := testPool.Render(context.Background(), testSite.url("/to-article"))
	if err != nil {
		t.Fatal(err)
	}
	if r.FinalURL != testSite.url("/article/redirected?utm_source=test") || r.Status != 200 {
		t.Errorf("final URL = %q, status %d", r.FinalURL, r.Status)
	}
}

func TestRenderWaitsForLateContent(t *testing.T) {
	r, err := testPool.Render(context.Background(), testSite.url("/late"))
	if err != nil {
		t.Fatal(err)
	}
	if text := mainText(t, r); !strings.Contains(text, "Loaded after the load event") {
		t.Errorf("content fetched after load is missing: %q", text)
	}
}

func TestRenderAdversarial(t *testing.T) {
	tests := []struct {
		name    string
		path    string
		wantErr string // substring of the error; "" means success
		is      error  // errors.Is target, if any
		text    string // substring of the text on success
		status  int    // the document's HTTP status on success, when it matters
		maxTime time.Duration
	}{
		{name: "javascript infinite loop", path: "/loop", wantErr: "did not respond", is: ErrTabUnresponsive, maxTime: testNavTimeout + 5*time.Second},
		{name: "load never finishes", path: "/stall", text: "arrived before the stalled script", maxTime: testNavTimeout + 3*time.Second},
		{name: "body never ends", path: "/trickle", wantErr: "", maxTime: testNavTimeout + 5*time.Second},
		{name: "20 MB page", path: "/huge", wantErr: "page too large", maxTime: 10 * time.Second},
		{name: "redirect to cloud metadata", path: "/to-metadata", wantErr: "egress refused: 169.254.169.254 is a cloud metadata address", is: egress.ErrRefused, maxTime: 5 * time.Second},
		{name: "redirect to another loopback port", path: "/to-loopback", wantErr: "egress refused: 127.0.0.1 is a loopback address", is: egress.ErrRefused, maxTime: 5 * time.Second},
		{name: "alert confirm prompt", path: "/dialogs", text: "confirm=false prompt=null", maxTime: 5 * time.Second},
		{name: "download link", path: "/download-page", text: "tries to download a file", maxTime: 5 * time.Second},
		{name: "direct download", path: "/file.zip", wantErr: "download refused", is: ErrDownloadRefused, maxTime: 5 * time.Second},
		{name: "window.open", path: "/popup", text: "popup=blocked", maxTime: 5 * time.Second},
		{name: "HTTP 404", path: "/missing", status: 404, maxTime: 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			r, err := testPool.Render(context.Background(), testSite.url(tt.path))
			took := time.Since(start)
			if took > tt.maxTime {
				t.Errorf("took %v, want at most %v", took, tt.maxTime)
			}
			if tt.wantErr == "" && tt.text == "" && tt.status == 0 {
				return // only the time bound matters
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.status != 0 && r.Status != tt.status {
				t.Errorf("status = %d, want %d", r.Status, tt.status)
			}
			if text := mainText(t, r); !strings.Contains(text, tt.text) {
				t.Errorf("text %q does not contain %q", text, tt.text)
			}
		})
	}
	t.Cleanup(func() {
		if n := otherSite.Config; n == nil {
			return
		}
		if hits := otherHits.Load(); hits != 0 {
			t.Errorf("the unallowed loopback server was reached %d times", hits)
		}
		if hits := testSite.popupHits.Load(); hits != 0 {
			t.Errorf("the popup was loaded %d times", hits)
		}
	})
}

// A page that asks to stay when it is left (beforeunload) must not hang
// the next navigation of its tab. Before reset waited for the blank
// document, about one visit in four after such a page stalled until the
// navigation deadline without sending a request.
func TestRenderAfterPageThatAsksToStay(t *testing.T) {
	for i := 0; i < 12; i++ {
		if _, err := testPool.Render(context.Background(), testSite.url("/stay")); err != nil {
			t.Fatalf("visit %d of the page that asks to stay: %v", i, err)
		}
		start := time.Now()
		_, err := testPool.Render(context.Background(), testSite.url("/to-metadata"))
		if !errors.Is(err, egress.ErrRefused) {
			t.Fatalf("visit %d after it: err = %v, want the egress refusal", i, err)
		}
		if took := time.Since(start); took > testNavTimeout/2 {
			t.Fatalf("visit %d after it took %v", i, took)
		}
	}
}

// After the adversarial pages (TestRenderAdversarial, whose parallel
// subtests finish before the next test starts, and the page that asks to
// stay) the pool still works and holds no extra tabs, and no renderer is
// left spinning on the infinite loop.
func TestPoolHealthyAfterAdversarial(t *testing.T) {
	r, err := testPool.Render(context.Background(), testSite.url("/article/after"))
	if err != nil {
		t.Fatalf("pool unusable after adversarial pages: %v", err)
	}
	if r.Title != "Article after" {
		t.Errorf("title = %q", r.Title)
	}
	waitIdle(t, testPool)
	inst, err := testPool.instance(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	targets, err := proto.TargetGetTargets{}.Call(inst.browser.Context(ctx))
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	for _, ti := range targets.TargetInfos {
		if ti.Type == proto.TargetTargetInfoTypePage {
			pages++
		}
	}
	if pages > testPool.opt.Size {
		t.Errorf("%d page targets open, want at most %d (popups or replaced tabs leaked)", pages, testPool.opt.Size)
	}
}

func TestRenderRefusedBeforeNavigation(t *testing.T) {
	for _, raw := range []string{
		"http://127.0.0.1:1/",
		"http://localhost/",
		"http://[::1]/",
		"http://10.0.0.1/",
		"http://169.254.169.254/latest/meta-data/",
		"file:///etc/passwd",
		"javascript:alert(1)",
		otherSite.URL,
	} {
		_, err := testPool.Render(context.Background(), raw)
		if !errors.Is(err, egress.ErrRefused) {
			t.Errorf("Render(%s) err = %v, want an egress refusal", raw, err)
		}
	}
	if hits := otherHits.Load(); hits != 0 {
		t.Errorf("the unallowed loopback server was reached %d times", hits)
	}
}

func TestPrintPDF(t *testing.T) {
	pdf, err := testPool.PrintPDF(context.Background(), "<!DOCTYPE html><html><body><h1>Report</h1><p>Sources [S1].</p></body></html>")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(pdf), "%PDF-") || len(pdf) < 500 {
		t.Errorf("not a PDF: %d bytes starting %q", len(pdf), pdf[:min(len(pdf), 8)])
	}
}

// waitIdle waits for asynchronous tab resets to hand their slots back.
func waitIdle(t *testing.T, p *Pool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for p.Stats().InUse != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("tabs still in use: %+v", p.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
