package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/mcpserver"
)

// mcpQuestion is asked of the loopback site in the MCP tests.
const mcpQuestion = "Why is the New York attorney general investigating WeWork?"

// mcpSite is a loopback site for the url: engine: a results page linking
// two benchmark news pages (shared with the pipeline's tests). While slow
// is set, the news pages answer only when released (or after 30 s), so a
// run can be cancelled, or outwaited, while it gathers.
type mcpSite struct {
	*httptest.Server
	slow    atomic.Bool
	mu      sync.Mutex
	release chan struct{}
}

// hold makes the news pages wait until the returned function is called.
func (s *mcpSite) hold() func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{})
	s.release = ch
	s.slow.Store(true)
	return sync.OnceFunc(func() { s.slow.Store(false); close(ch) })
}

func (s *mcpSite) released() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.release
}

func newMCPSite(t *testing.T) *mcpSite {
	t.Helper()
	s := &mcpSite{}
	pages := map[string]string{"/articles/venturebeat": "06e5123e4ef7.html", "/articles/techcrunch": "1ace8c85aaee.html"}
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><body><main>`)
		for path := range pages {
			fmt.Fprintf(w, `<div class="result"><h2><a href="%s">%s</a></h2></div>`, path, path)
		}
		fmt.Fprint(w, `</main></body></html>`)
	})
	for path, file := range pages {
		body, err := os.ReadFile(filepath.Join("..", "..", "pipeline", "testdata", "site", file))
		if err != nil {
			t.Fatal(err)
		}
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			if s.slow.Load() {
				select {
				case <-r.Context().Done():
				case <-s.released():
				case <-time.After(30 * time.Second):
				}
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(body)
		})
	}
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// engine is the site's url: engine.
func (s *mcpSite) engine() string { return "url:" + s.URL + "/search?q={query}" }

// progressLog collects a client's progress notifications with their times.
type progressLog struct {
	mu    sync.Mutex
	start time.Time
	items []progressItem
	seen  chan string // each message, as it comes
}

type progressItem struct {
	at       time.Duration
	progress float64
	message  string
}

func newProgressLog() *progressLog { return &progressLog{seen: make(chan string, 1000)} }

func (p *progressLog) handler(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	p.items = append(p.items, progressItem{at: time.Since(p.start), progress: req.Params.Progress, message: req.Params.Message})
	p.mu.Unlock()
	p.seen <- req.Params.Message
}

func (p *progressLog) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.start, p.items = time.Now(), nil
	for len(p.seen) > 0 {
		<-p.seen
	}
}

func (p *progressLog) snapshot() []progressItem {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.items)
}

// settled is snapshot once the notification final has been handled, or
// after wait: the SDK's client handles a notification apart from the
// call it belongs to, so the last one, sent before the result, can be
// handled just after the call returns (as mcpserver's forwarder knows).
func (p *progressLog) settled(final string, wait time.Duration) []progressItem {
	deadline := time.Now().Add(wait)
	for {
		items := p.snapshot()
		if n := len(items); n > 0 && items[n-1].message == final || time.Now().After(deadline) {
			return items
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// connectHTTP opens an MCP session on url with token ("" for none).
func connectHTTP(ctx context.Context, url, token string, progress *progressLog) (*mcp.ClientSession, error) {
	opts := &mcp.ClientOptions{}
	if progress != nil {
		opts.ProgressNotificationHandler = progress.handler
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "quarry-test", Version: "1"}, opts)
	hc := &http.Client{Transport: headerTransport{"Authorization": "Bearer " + token}}
	if token == "" {
		hc = http.DefaultClient
	}
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
}

type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// callResearch calls research with a progress token and decodes its result.
func callResearch(t *testing.T, ctx context.Context, cs *mcp.ClientSession, args map[string]any) (*mcp.CallToolResult, mcpserver.RunResult) {
	t.Helper()
	params := &mcp.CallToolParams{Name: "research", Arguments: args}
	params.SetProgressToken("research-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("research: %v", err)
	}
	var out mcpserver.RunResult
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
	}
	return res, out
}

// checkReport asserts a finished research result: a report citing the
// loopback pages, verified.
func checkReport(t *testing.T, out mcpserver.RunResult, site string) {
	t.Helper()
	if out.Status != "done" || out.RunID == "" {
		t.Fatalf("research ended %q: %s %s", out.Status, out.Message, out.Error)
	}
	if !strings.Contains(out.ReportMarkdown, "[S1]") || !strings.Contains(out.ReportMarkdown, "## Sources") {
		t.Errorf("report without citations:\n%s", out.ReportMarkdown)
	}
	if len(out.Sources) == 0 || !strings.HasPrefix(out.Sources[0].URL, site+"/articles/") {
		t.Errorf("sources = %+v", out.Sources)
	}
	if out.Verification["passed"] != true || out.Verification["validity"] != 1.0 {
		t.Errorf("verification = %v", out.Verification)
	}
}

// checkProgress asserts the notifications came numbered in order, began
// with the queued run and ended with the report, stages and actions
// between.
func checkProgress(t *testing.T, items []progressItem) {
	t.Helper()
	if len(items) < 4 {
		t.Fatalf("only %d progress notifications: %+v", len(items), items)
	}
	var msgs []string
	for i, it := range items {
		if it.progress != float64(i+1) {
			t.Errorf("notification %d has progress %v, want %d", i, it.progress, i+1)
		}
		msgs = append(msgs, it.message)
	}
	first, last := msgs[0], msgs[len(msgs)-1]
	if !strings.HasPrefix(first, "Run ") || !strings.Contains(first, "queued") || last != "Report ready" {
		t.Errorf("progress from %q to %q", first, last)
	}
	stage := slices.IndexFunc(msgs, func(m string) bool { return strings.HasPrefix(m, "Stage started: ") })
	action := slices.IndexFunc(msgs, func(m string) bool { return strings.HasPrefix(m, "Action ") })
	verified := slices.IndexFunc(msgs, func(m string) bool { return strings.HasPrefix(m, "Citations verified") })
	if stage < 0 || action < stage || verified < action {
		t.Errorf("stages, actions and verification out of order: %q", msgs)
	}
}

// TestMCPOverHTTP drives `quarry serve`'s /mcp with the Go SDK's client
// and an API token made by `quarry token create`: the tools and their
// schemas, research end to end on a loopback site with progress in
// order, the same report through get_research, list_reports and the
// resources, search_library, the API's own messages as tool errors, a
// read-only token, no token, cancellation, the stdio forwarder
// (`quarry mcp --url`), and the TypeScript SDK as an independent client.
func TestMCPOverHTTP(t *testing.T) {
	t.Parallel()
	site := newMCPSite(t)
	dbURL := ownDatabase(t)
	env := map[string]string{"DATABASE_URL": dbURL, "QUARRY_POOL_SIZE": "1"}
	getenv := func(k string) string { return env[k] }
	ctx := context.Background()

	var out bytes.Buffer
	doc := filepath.Join("..", "..", "library", "testdata", "docs", "chi-README.md")
	if err := libraryTo(ctx, &out, getenv, []string{"add", "--collection", "manuals", doc}); err != nil {
		t.Fatalf("library add: %v\n%s", err, out.String())
	}
	var stderr bytes.Buffer
	token := func(args ...string) string {
		t.Helper()
		out.Reset()
		if err := tokenTo(ctx, append([]string{"create"}, args...), &out, &stderr, getenv); err != nil {
			t.Fatalf("token create: %v", err)
		}
		return strings.TrimSpace(out.String())
	}
	secret := token("--user", "dana", "--name", "mcp client")
	readOnly := token("--user", "dana", "--name", "reader", "--read-only")
	// Each client has a token of its own, and so its own rate limits.
	forwarderToken := token("--user", "dana", "--name", "desktop assistant")
	tsToken := token("--user", "dana", "--name", "typescript")

	p := startServe(t, "DATABASE_URL="+dbURL, "QUARRY_AUTH=password", "QUARRY_SEARCH_ENGINES="+site.engine(),
		"QUARRY_ALLOW_HOSTS="+strings.TrimPrefix(site.URL, "http://"), "QUARRY_DEPTH_QUICK=actions=3,pages=2")
	base := "http://" + p.addr
	endpoint := base + "/mcp"

	progress := newProgressLog()
	cctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	cs, err := connectHTTP(cctx, endpoint, secret, progress)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, p.log())
	}
	defer cs.Close()

	// tools/list: every tool, described, with an object schema.
	tools, err := cs.ListTools(cctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		if len(tool.Description) < 40 || !strings.Contains(string(schema), `"type":"object"`) {
			t.Errorf("tool %s: description %q, schema %s", tool.Name, tool.Description, schema)
		}
		if tool.Name == "research" && (!strings.Contains(string(schema), `quick`) || !strings.Contains(string(schema), `"question"`) || !strings.Contains(string(schema), `kb:`)) {
			t.Errorf("research schema: %s", schema)
		}
	}
	slices.Sort(names)
	if want := []string{"get_research", "list_reports", "research", "search_library", "start_research"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}

	// research, end to end, with progress.
	progress.reset()
	res, result := callResearch(t, cctx, cs, map[string]any{"question": mcpQuestion, "depth": "quick"})
	total := time.Since(progress.start)
	if res.IsError {
		t.Fatalf("research failed: %s", toolText(res))
	}
	checkReport(t, result, site.URL)
	items := progress.settled("Report ready", 2*time.Second)
	checkProgress(t, items)
	t.Logf("MCP research over HTTP (Go SDK): first progress notification after %v, result after %v (%d notifications)",
		items[0].at.Round(time.Millisecond), total.Round(time.Millisecond), len(items))
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "[S1]") || !strings.Contains(text, "Verification:") {
		t.Errorf("text content lacks the report or its scores:\n%s", text)
	}

	// get_research and list_reports see the same run.
	got, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "get_research", Arguments: map[string]any{"run_id": result.RunID}})
	if err != nil || got.IsError {
		t.Fatalf("get_research: %v %v", err, got)
	}
	var again mcpserver.RunResult
	b, _ := json.Marshal(got.StructuredContent)
	json.Unmarshal(b, &again)
	if again.Status != "done" || again.ReportMarkdown != result.ReportMarkdown || again.Progress == nil || again.Progress.ActionsDone == 0 {
		t.Errorf("get_research = %+v", again)
	}
	list, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "list_reports", Arguments: map[string]any{}})
	if err != nil || list.IsError || !strings.Contains(list.Content[0].(*mcp.TextContent).Text, result.RunID) {
		t.Errorf("list_reports: %v %+v", err, list)
	}

	// Resources: the published report as Markdown and JSON.
	resources, err := cs.ListResources(cctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mdURI := "quarry://runs/" + result.RunID + "/report.md"
	if !slices.ContainsFunc(resources.Resources, func(r *mcp.Resource) bool { return r.URI == mdURI && r.Title == mcpQuestion }) {
		t.Errorf("resources/list lacks %s: %+v", mdURI, resources.Resources)
	}
	md, err := cs.ReadResource(cctx, &mcp.ReadResourceParams{URI: mdURI})
	if err != nil || len(md.Contents) != 1 || !strings.Contains(md.Contents[0].Text, "[S1]") || md.Contents[0].MIMEType != "text/markdown" {
		t.Errorf("read %s: %v %+v", mdURI, err, md)
	}
	js, err := cs.ReadResource(cctx, &mcp.ReadResourceParams{URI: "quarry://runs/" + result.RunID + "/report.json"})
	if err != nil || len(js.Contents) != 1 || !json.Valid([]byte(js.Contents[0].Text)) {
		t.Errorf("read report.json: %v %+v", err, js)
	}
	if _, err := cs.ReadResource(cctx, &mcp.ReadResourceParams{URI: "quarry://runs/00000000-0000-0000-0000-000000000000/report.md"}); err == nil {
		t.Errorf("reading an unknown run's report succeeded")
	}

	// search_library: passages of the user's documents.
	found, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "search_library", Arguments: map[string]any{"query": "router middleware", "collection": "manuals"}})
	if err != nil || found.IsError {
		t.Fatalf("search_library: %v %+v", err, found)
	}
	var passages mcpserver.SearchResult
	b, _ = json.Marshal(found.StructuredContent)
	json.Unmarshal(b, &passages)
	if len(passages.Passages) == 0 || passages.Passages[0].Collection != "manuals" || passages.Passages[0].Document == "" || passages.Passages[0].Score <= 0 {
		t.Errorf("passages = %+v", passages)
	}

	// Errors are tool errors with the API's own messages; the session goes on.
	for _, args := range []map[string]any{
		{"question": mcpQuestion, "depth": "bottomless"},
		{"question": mcpQuestion, "engines": []string{"altavista"}},
	} {
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "start_research", Arguments: args})
		if err != nil || !res.IsError {
			t.Fatalf("start_research %v: %v %+v", args, err, res)
		}
		body, _ := json.Marshal(args)
		req, _ := http.NewRequest(http.MethodPost, base+"/api/runs", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var apiErr struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&apiErr)
		resp.Body.Close()
		if msg := res.Content[0].(*mcp.TextContent).Text; resp.StatusCode != http.StatusBadRequest || msg != apiErr.Error {
			t.Errorf("tool error %q, API error %d %q", msg, resp.StatusCode, apiErr.Error)
		}
	}
	if _, err := cs.ListTools(cctx, nil); err != nil {
		t.Errorf("the session did not survive the tool errors: %v", err)
	}

	// A read-only token reads but may not start research.
	roSession, err := connectHTTP(cctx, endpoint, readOnly, nil)
	if err != nil {
		t.Fatal(err)
	}
	refused, err := roSession.CallTool(cctx, &mcp.CallToolParams{Name: "start_research", Arguments: map[string]any{"question": mcpQuestion}})
	if err != nil || !refused.IsError || !strings.Contains(refused.Content[0].(*mcp.TextContent).Text, "read-only") {
		t.Errorf("read-only start_research: %v %+v", err, refused)
	}
	if res, err := roSession.CallTool(cctx, &mcp.CallToolParams{Name: "list_reports", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Errorf("read-only list_reports: %v %+v", err, res)
	}
	roSession.Close()

	// No token, or a made-up one: the endpoint refuses to connect.
	for _, tok := range []string{"", "qry_" + strings.Repeat("x", 43)} {
		if s, err := connectHTTP(cctx, endpoint, tok, nil); err == nil {
			s.Close()
			t.Errorf("connected with token %q", tok)
		}
	}

	// Cancelling the call cancels the run.
	release := site.hold()
	progress.reset()
	callCtx, stop := context.WithCancel(cctx)
	runID := make(chan string, 1)
	go func() {
		for msg := range progress.seen {
			if id, ok := strings.CutPrefix(msg, "Run "); ok {
				runID <- strings.Fields(id)[0]
			}
			if strings.HasPrefix(msg, "Stage started: gather") {
				stop()
				return
			}
		}
	}()
	params := &mcp.CallToolParams{Name: "research", Arguments: map[string]any{"question": mcpQuestion, "depth": "quick"}}
	params.SetProgressToken("cancel-me")
	if _, err := cs.CallTool(callCtx, params); err == nil {
		t.Fatalf("the cancelled call returned a result")
	}
	stop()
	release()
	id := <-runID
	deadline := time.Now().Add(30 * time.Second)
	for {
		var run struct{ Status string }
		getJSON(t, base+"/api/runs/"+id, secret, &run)
		if run.Status == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s is %s 30 s after its call was cancelled", id, run.Status)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, err := cs.ListTools(cctx, nil); err != nil {
		t.Errorf("the session did not survive the cancellation: %v", err)
	}

	t.Run("stdio forwarder", func(t *testing.T) {
		client := startStdio(t, cctx, []string{"--url", base, "--token", forwarderToken}, getenv, progress)
		defer client.Close()
		progress.reset()
		res, result := callResearch(t, cctx, client, map[string]any{"question": mcpQuestion, "depth": "quick"})
		if res.IsError {
			t.Fatalf("research through the forwarder: %s", toolText(res))
		}
		checkReport(t, result, site.URL)
		checkProgress(t, progress.settled("Report ready", 2*time.Second))
		md, err := client.ReadResource(cctx, &mcp.ReadResourceParams{URI: "quarry://runs/" + result.RunID + "/report.md"})
		if err != nil || !strings.Contains(md.Contents[0].Text, "[S1]") {
			t.Errorf("resource through the forwarder: %v", err)
		}
	})

	t.Run("typescript sdk", func(t *testing.T) {
		dir := npmInstall(t)
		cmd := execNode(t, cctx, dir, endpoint, tsToken, mcpQuestion, site.engine())
		outb, err := cmd.Output()
		if err != nil {
			t.Fatalf("node client: %v\n%s", err, cmd.Stderr)
		}
		var ts struct {
			Tools      []string
			IsError    bool
			Structured mcpserver.RunResult
			Progress   []struct {
				Progress float64
				Message  string
			}
			FirstProgressMs, ResultMs int
		}
		if err := json.Unmarshal(outb, &ts); err != nil {
			t.Fatalf("node printed: %s", outb)
		}
		if ts.IsError || len(ts.Tools) != 5 {
			t.Fatalf("typescript client: %s", outb)
		}
		checkReport(t, ts.Structured, site.URL)
		if len(ts.Progress) < 4 || ts.Progress[len(ts.Progress)-1].Message != "Report ready" {
			t.Errorf("typescript progress: %+v", ts.Progress)
		}
		t.Logf("MCP research over HTTP (TypeScript SDK): first progress notification after %d ms, result after %d ms", ts.FirstProgressMs, ts.ResultMs)
	})
}

// toolText is the text of a tool result.
func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// getJSON GETs url with a bearer token into v.
func getJSON(t *testing.T, url, token string, v any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
}

// startStdio runs `quarry mcp args…` in this process on a pair of pipes and
// connects the Go SDK's client to its stdin and stdout.
func startStdio(t *testing.T, ctx context.Context, args []string, getenv func(string) string, progress *progressLog) *mcp.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr lockedBuffer = lockedBuffer{new(sync.Mutex), new(bytes.Buffer)}
	done := make(chan error, 1)
	sctx, stop := context.WithCancel(ctx)
	go func() {
		done <- mcpTo(sctx, args, inR, outW, stderr, getenv)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		stop()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("quarry mcp: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("quarry mcp did not stop")
		}
		if t.Failed() {
			stderr.mu.Lock()
			t.Logf("quarry mcp stderr:\n%s", stderr.buf.String())
			stderr.mu.Unlock()
		}
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "quarry-test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: progress.handler})
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	return cs
}

// TestMCPStdio runs `quarry mcp` in process (research here, against
// DATABASE_URL) and drives it with the Go SDK's client over its stdin and
// stdout: tools/list, research end to end with progress in order, and
// get_research of the same run.
func TestMCPStdio(t *testing.T) {
	site := newMCPSite(t)
	env := map[string]string{
		"DATABASE_URL":          dbtest.URL(t),
		"QUARRY_SEARCH_ENGINES": site.engine(),
		"QUARRY_ALLOW_HOSTS":    strings.TrimPrefix(site.URL, "http://"),
		"QUARRY_POOL_SIZE":      "1",
		"QUARRY_DEPTH_QUICK":    "actions=3,pages=2",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	progress := newProgressLog()
	cs := startStdio(t, ctx, nil, func(k string) string { return env[k] }, progress)
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 5 {
		t.Fatalf("tools/list: %v %d", err, len(tools.Tools))
	}
	progress.reset()
	res, result := callResearch(t, ctx, cs, map[string]any{"question": mcpQuestion, "depth": "quick"})
	total := time.Since(progress.start)
	if res.IsError {
		t.Fatalf("research: %s", toolText(res))
	}
	checkReport(t, result, site.URL)
	items := progress.settled("Report ready", 2*time.Second)
	checkProgress(t, items)
	t.Logf("MCP research over stdio (in process): first progress notification after %v, result after %v",
		items[0].at.Round(time.Millisecond), total.Round(time.Millisecond))
	got, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_research", Arguments: map[string]any{"run_id": result.RunID}})
	if err != nil || got.IsError || !strings.Contains(got.Content[0].(*mcp.TextContent).Text, "[S1]") {
		t.Errorf("get_research: %v %+v", err, got)
	}

	// A run that outlasts wait_seconds keeps going: research answers with
	// where it stands, and get_research later has the report.
	release := site.hold()
	defer release()
	res, waiting := callResearch(t, ctx, cs, map[string]any{"question": mcpQuestion, "depth": "quick", "wait_seconds": 1})
	if res.IsError || waiting.RunID == "" || waiting.Status == "done" || !strings.Contains(waiting.Message, "get_research") {
		t.Fatalf("research past its wait: %s %+v", toolText(res), waiting)
	}
	release()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		got, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_research", Arguments: map[string]any{"run_id": waiting.RunID}})
		if err != nil || got.IsError {
			t.Fatalf("get_research: %v %s", err, toolText(got))
		}
		var later mcpserver.RunResult
		b, _ := json.Marshal(got.StructuredContent)
		json.Unmarshal(b, &later)
		if later.Status == "done" {
			checkReport(t, later, site.URL)
			break
		}
		if later.Progress == nil || time.Now().After(deadline) {
			t.Fatalf("run %s is %s after its wait ended: %+v", waiting.RunID, later.Status, later)
		}
	}

	// Bad arguments are tool errors that say what is wrong.
	bad, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "research", Arguments: map[string]any{"question": mcpQuestion, "wait_seconds": 99999}})
	if err != nil || !bad.IsError || !strings.Contains(toolText(bad), "wait_seconds") {
		t.Errorf("wait_seconds out of range: %v %s", err, toolText(bad))
	}
	bad, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_research", Arguments: map[string]any{"run_id": "no-such-run"}})
	if err != nil || !bad.IsError || !strings.Contains(toolText(bad), "no such run") {
		t.Errorf("get_research of an unknown run: %v %s", err, toolText(bad))
	}
}
