package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/search"
)

// site serves the benchmark pages in testdata/site behind a search results
// page that links to them, like a small web with a search engine.
type site struct {
	*httptest.Server
	mu      sync.Mutex
	queries []string
}

var sitePages = map[string]string{
	"/articles/wework-ag-venturebeat": "06e5123e4ef7.html",
	"/articles/wework-ag-techcrunch":  "1ace8c85aaee.html",
	"/articles/macbook-keyboard":      "232a43fb15ab.html",
}

func newSite(t testing.TB, latency time.Duration) *site {
	t.Helper()
	s := &site{}
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(latency)
		q := r.URL.Query().Get("q")
		s.mu.Lock()
		s.queries = append(s.queries, q)
		s.mu.Unlock()
		var b strings.Builder
		fmt.Fprintf(&b, `<!doctype html><html><head><title>%s - Search</title></head><body><header><a href="/">Home</a></header><main id="results">`, html.EscapeString(q))
		for path, file := range sitePages {
			if strings.Contains(strings.ToLower(q), "macbook") != strings.Contains(path, "macbook") {
				continue
			}
			fmt.Fprintf(&b, `<div class="result"><h2><a href="%s">%s</a></h2><p>A result for %s.</p></div>`, path, file, html.EscapeString(q))
		}
		b.WriteString(`</main></body></html>`)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(b.String()))
	})
	for path, file := range sitePages {
		body, err := os.ReadFile(filepath.Join("testdata", "site", file))
		if err != nil {
			t.Fatal(err)
		}
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(latency)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(body)
		})
	}
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *site) engine() string { return "url:" + s.URL + "/search?q={query}" }

func (s *site) hostPort() string {
	u := strings.TrimPrefix(s.URL, "http://")
	host, port, _ := net.SplitHostPort(u)
	return net.JoinHostPort(host, port)
}

var (
	poolOnce sync.Once
	pool     *browser.Pool
	poolErr  error
)

// testGatherer returns a gatherer on a pool shared by this package's tests,
// allowed to reach the loopback test sites (and nothing else private).
func testGatherer(t testing.TB, allow ...string) pipeline.Gatherer {
	t.Helper()
	guard := egress.NewGuard(append([]string{"127.0.0.1"}, allow...))
	poolOnce.Do(func() {
		pool, poolErr = browser.NewPool(context.Background(), browser.PoolOptions{Size: 2, Guard: guard, NavTimeout: 15 * time.Second})
	})
	if poolErr != nil {
		t.Fatal(poolErr)
	}
	searcher := search.NewSearcher(pool, search.Options{Guard: guard})
	return search.NewGatherer(pool, searcher)
}

func newRunner(t testing.TB, s *site, engine engine.Engine) (*pipeline.Runner, *db.Store) {
	t.Helper()
	store := dbtest.NewStore(t)
	r := pipeline.NewRunner(pipeline.Options{
		Store:        store,
		Engine:       engine,
		Gatherer:     testGatherer(t, s.hostPort()),
		Engines:      []string{s.engine()},
		Workers:      1,
		LeaseTTL:     5 * time.Second,
		PollInterval: 100 * time.Millisecond,
	})
	r.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r.Shutdown(ctx)
	})
	return r, store
}

func waitStatus(t testing.TB, store *db.Store, id string, want ...research.RunStatus) *db.Run {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		run, err := store.GetRun(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if run.Status == w {
				return run
			}
		}
		if run.Status.Terminal() {
			t.Fatalf("run ended %s (%s), want %v", run.Status, run.Error, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("run %s did not reach %v", id, want)
	return nil
}

var citeRe = regexp.MustCompile(`\[(S\d+)\]`)

func TestExtractiveRunEndToEnd(t *testing.T) {
	s := newSite(t, 0)
	r, store := newRunner(t, s, extractive.New())
	ctx := context.Background()
	run, err := r.Submit(ctx, pipeline.Request{Question: "Why is the New York attorney general investigating WeWork?", Depth: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, store, run.ID, research.StatusDone)

	rep, err := store.PublishedReport(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Engine != "extractive" {
		t.Errorf("report engine = %q, want extractive", rep.Engine)
	}
	sources, err := store.Sources(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) < 2 {
		t.Fatalf("got %d sources, want the two WeWork articles", len(sources))
	}
	ids := map[string]bool{}
	for _, src := range sources {
		ids[fmt.Sprintf("S%d", src.SID)] = true
		if strings.Contains(src.URL, "/search") {
			t.Errorf("a results page became evidence: %s", src.URL)
		}
	}
	cites := citeRe.FindAllStringSubmatch(rep.Markdown, -1)
	if len(cites) == 0 {
		t.Fatalf("report has no citations:\n%s", rep.Markdown)
	}
	for _, c := range cites {
		if !ids[c[1]] {
			t.Errorf("citation [%s] names no source of the run", c[1])
		}
	}
	var ver research.VerificationPayload
	if err := json.Unmarshal(rep.Verification, &ver); err != nil {
		t.Fatal(err)
	}
	if !ver.Passed || ver.Validity != 1 {
		t.Errorf("verification = %+v, want passed with validity 1", ver)
	}
	if !strings.Contains(strings.ToLower(rep.Markdown), "wework") {
		t.Errorf("report does not mention WeWork:\n%s", rep.Markdown)
	}
	t.Logf("report:\n%s", rep.Markdown)
	if !strings.Contains(rep.Markdown, "## Sources") || !strings.Contains(rep.HTML, `data-testid="citation"`) {
		t.Errorf("report lacks the Sources list or citation links")
	}
	evs, err := store.EventsAfter(ctx, run.ID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event seq gap at %d: %d", i, e.Seq)
		}
		seen[e.Type] = true
	}
	for _, typ := range []string{research.EventPlan, research.EventAction, research.EventHeartbeatDecision, research.EventSynthesisDelta, research.EventVerification, research.EventRunCompleted} {
		if !seen[typ] {
			t.Errorf("no %s event", typ)
		}
	}
}

func TestReviewApproveAndCancel(t *testing.T) {
	s := newSite(t, 0)
	r, store := newRunner(t, s, extractive.New())
	ctx := context.Background()
	run, err := r.Submit(ctx, pipeline.Request{Question: "What is WeWork being investigated for?", Depth: "quick", Review: research.ReviewAlways})
	if err != nil {
		t.Fatal(err)
	}
	paused := waitStatus(t, store, run.ID, research.StatusAwaitingApproval)
	if paused.LeaseOwner.Valid {
		t.Error("a paused run still holds a lease")
	}
	var spec research.TaskSpec
	json.Unmarshal(paused.TaskSpec, &spec)
	spec.Criteria = []string{"Who is investigating WeWork"}
	spec.Actions = []research.ActionSpec{{Kind: "search", Query: "WeWork attorney general investigation"}}

	// Two approvals at once: exactly one applies.
	var wg sync.WaitGroup
	results := make(chan error, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.Approve(ctx, run.ID, pipeline.Approval{Spec: &spec})
			results <- err
		}()
	}
	wg.Wait()
	close(results)
	var ok, refused int
	for err := range results {
		switch err {
		case nil:
			ok++
		case pipeline.ErrNotAwaiting:
			refused++
		default:
			t.Fatal(err)
		}
	}
	if ok != 1 || refused != 1 {
		t.Fatalf("approvals: %d applied, %d refused; want 1 and 1", ok, refused)
	}
	done := waitStatus(t, store, run.ID, research.StatusDone)
	json.Unmarshal(done.TaskSpec, &spec)
	if len(spec.Criteria) != 1 || spec.Criteria[0] != "Who is investigating WeWork" {
		t.Errorf("edited criteria not kept: %v", spec.Criteria)
	}

	// Cancel a run while it gathers slowly.
	slow := newSite(t, 3*time.Second)
	r2, store2 := newRunner(t, slow, extractive.New())
	run2, err := r2.Submit(ctx, pipeline.Request{Question: "Why is WeWork under investigation?", Depth: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, store2, run2.ID, research.StatusGathering)
	start := time.Now()
	if err := r2.Cancel(ctx, run2.ID); err != nil {
		t.Fatal(err)
	}
	got := waitStatus(t, store2, run2.ID, research.StatusCancelled)
	for time.Since(start) < 3*time.Second {
		cur, _ := store2.GetRun(ctx, run2.ID)
		if !cur.LeaseOwner.Valid {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancel took %s, want under 2s", d)
	}
	if got.Status != research.StatusCancelled {
		t.Errorf("status %s", got.Status)
	}
	if err := r2.Cancel(ctx, run2.ID); err != pipeline.ErrFinished {
		t.Errorf("second cancel = %v, want ErrFinished", err)
	}
}
