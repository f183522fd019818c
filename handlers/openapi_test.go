package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/library"
	"github.com/quarryhq/quarry/pipeline"
)

// apiContract checks every answer from /api/ that the package's tests
// receive through http.DefaultTransport against the OpenAPI description
// (handlers/openapi.yaml), and records which operations answered with
// which statuses. Installed by TestMain, so the description cannot drift
// from the code without some test failing.
type apiContract struct {
	base   http.RoundTripper
	router routers.Router

	mu       sync.Mutex
	problems []string
	seen     map[string]map[int]bool // "METHOD /path/{template}" → statuses
}

var contract *apiContract

func init() {
	// Plain-text answers are checked as strings.
	text := func(r io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
		b, err := io.ReadAll(r)
		return string(b), err
	}
	for _, ct := range []string{"text/markdown", "text/event-stream", "application/pdf"} {
		openapi3filter.RegisterBodyDecoder(ct, text)
	}
}

// installAPIContract wraps http.DefaultTransport with the contract check.
func installAPIContract() error {
	doc, err := handlers.LoadOpenAPI()
	if err != nil {
		return err
	}
	doc.Servers = nil // match paths as they are, under any base path
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return err
	}
	contract = &apiContract{base: http.DefaultTransport, router: router, seen: map[string]map[int]bool{}}
	http.DefaultTransport = contract
	return nil
}

// RoundTrip sends the request, then checks the answer if it came from /api/.
func (c *apiContract) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	i := strings.Index(req.URL.Path, "/api/")
	if i < 0 {
		return resp, nil
	}
	probe := req.Clone(context.Background())
	u := *req.URL
	u.Path, u.RawPath = req.URL.Path[i:], ""
	probe.URL = &u
	route, params, ferr := c.router.FindRoute(probe)
	if ferr != nil {
		// An unknown endpoint must answer 404 or 405; anything else is an
		// undocumented route.
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
			c.fail("%s %s answered %d but is not in the OpenAPI description", req.Method, u.Path, resp.StatusCode)
		}
		return resp, nil
	}
	op := req.Method + " " + route.Path
	c.mu.Lock()
	if c.seen[op] == nil {
		c.seen[op] = map[int]bool{}
	}
	c.seen[op][resp.StatusCode] = true
	c.mu.Unlock()

	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: probe, PathParams: params, Route: route, Options: opts},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Options:                opts,
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// A stream is read by the test; its status and headers are checked.
		check := *opts
		check.ExcludeResponseBody = true
		in.Options = &check
	} else {
		body, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if rerr != nil {
			return resp, nil // the test reading it sees the same failure
		}
		in.SetBodyBytes(body)
	}
	if verr := openapi3filter.ValidateResponse(context.Background(), in); verr != nil {
		c.fail("%s → %d does not match the OpenAPI description: %v", op, resp.StatusCode, verr)
	}
	return resp, nil
}

func (c *apiContract) fail(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.problems) < 50 {
		c.problems = append(c.problems, fmt.Sprintf(format, args...))
	}
}

// report returns the problems seen so far (for TestMain).
func (c *apiContract) report() []string {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.problems...)
}

// statuses returns what op has answered so far.
func (c *apiContract) statuses(op string) map[int]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[int]bool{}
	for s := range c.seen[op] {
		out[s] = true
	}
	return out
}

// readmeRoutes returns the "METHOD /api/…" routes of the README's JSON API
// table, path parameters written as {name}.
func readmeRoutes(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `(GET|POST|PATCH|PUT|DELETE) (/api/[^`]*)`")
	var out []string
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1]+" "+m[2])
	}
	if len(out) < 10 {
		t.Fatalf("README's JSON API table lists %d routes; expected the whole API", len(out))
	}
	return out
}

// apiServer is a server with every part of the API on (tasks, library,
// PDF printing by the package's shared browser pool), behind a trusted
// proxy naming the user in X-User, whose runner does not start (runs stay
// queued unless the test finishes them).
type apiServer struct{ *authServer }

func newAPIServer(t *testing.T) *apiServer {
	t.Helper()
	lib := library.New(dbtest.NewStore(t), library.Options{Poll: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { lib.Work(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	opt := handlers.Options{Library: lib, Printer: sharedUIEnv(t).pool,
		Auth: handlers.AuthOptions{Mode: handlers.AuthProxy, Header: "X-User"}, TrustedProxies: []*net.IPNet{loopback}}
	return &apiServer{newAuthServerWith(t, "", opt, func(r *pipeline.Runner, o *handlers.Options) { o.Tasks = testTaskOptions(r) })}
}

// call sends one API request as user ("" = anonymous) through the
// contract-checking transport and returns the status and body.
func (a *apiServer) call(t *testing.T, user, method, path string, body io.Reader, ctype string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, a.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if user != "" {
		req.Header.Set("X-User", user)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// Read up to the first event, enough to see the stream work.
		buf := make([]byte, 4096)
		n, _ := resp.Body.Read(buf)
		return resp.StatusCode, buf[:n]
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (a *apiServer) json(t *testing.T, user, method, path string, v any) (int, map[string]any) {
	t.Helper()
	var body io.Reader
	if v != nil {
		b, _ := json.Marshal(v)
		body = bytes.NewReader(b)
	}
	code, b := a.call(t, user, method, path, body, "application/json")
	var out map[string]any
	json.Unmarshal(b, &out)
	return code, out
}

// TestOpenAPIDescribesEveryRoute sends each route of the README's JSON API
// table at least one request that succeeds and one that fails, each answer
// checked against the description by the contract transport, and then
// requires that every table route was answered both ways and that the
// description and the table list the same routes.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	if contract == nil {
		t.Fatal("the API contract check is not installed (TestMain)")
	}
	a := newAPIServer(t)
	const me, other = "ada", "bob"
	before := len(contract.report())

	// The description itself, anonymously too.
	code, b := a.call(t, "", http.MethodGet, "/api/openapi.json", nil, "")
	if code != http.StatusOK || !bytes.Contains(b, []byte(`"openapi":"3.1.0"`)) {
		t.Fatalf("GET /api/openapi.json: %d %.200s", code, b)
	}
	// Anonymous API calls are refused.
	if code, _ := a.json(t, "", http.MethodGet, "/api/tasks", nil); code != http.StatusUnauthorized {
		t.Fatalf("anonymous GET /api/tasks: %d", code)
	}

	// Runs.
	code, created := a.json(t, me, http.MethodPost, "/api/runs", map[string]any{"question": "How does Postgres deliver NOTIFY messages?", "depth": "quick"})
	if code != http.StatusCreated {
		t.Fatalf("POST /api/runs: %d %v", code, created)
	}
	runID, _ := created["id"].(string)
	if code, _ := a.json(t, me, http.MethodPost, "/api/runs", map[string]any{"question": "x", "depth": "forever"}); code != http.StatusBadRequest {
		t.Fatalf("POST /api/runs with a bad depth: %d", code)
	}
	if code, _ := a.json(t, me, http.MethodGet, "/api/runs/"+runID, nil); code != http.StatusOK {
		t.Fatalf("GET run: %d", code)
	}
	missing := "00000000-0000-0000-0000-000000000000"
	a.json(t, me, http.MethodGet, "/api/runs/"+missing, nil)
	a.json(t, me, http.MethodPost, "/api/runs/"+runID+"/approve", nil) // not awaiting: 409
	a.json(t, me, http.MethodPost, "/api/runs/"+missing+"/approve", nil)
	a.json(t, me, http.MethodPost, "/api/runs/"+runID+"/cancel", nil)
	a.json(t, me, http.MethodPost, "/api/runs/"+missing+"/cancel", nil)

	// A run paused for review, approved.
	paused := awaitingRun(t, a.store, me, "Which isolation level is the default?")
	if code, out := a.json(t, "", http.MethodPost, "/api/runs/"+paused.ID+"/approve", nil); code != http.StatusUnauthorized {
		t.Fatalf("anonymous approve: %d %v", code, out)
	}
	if code, out := a.json(t, me, http.MethodPost, "/api/runs/"+paused.ID+"/approve", map[string]any{"reply": "yes"}); code != http.StatusOK {
		t.Fatalf("approve: %d %v", code, out)
	}

	// A published report in every format, and its events.
	sr := publishTestReport(t, a.store, "How does NOTIFY deliver?")
	owner := sr.run.Owner
	if owner == "" {
		owner = me
	}
	for _, p := range []string{"/report.md", "/report.json", "/events"} {
		if code, b := a.call(t, owner, http.MethodGet, "/api/runs/"+sr.run.ID+p, nil, ""); code != http.StatusOK {
			t.Fatalf("GET %s: %d %.200s", p, code, b)
		}
		if code, _ := a.call(t, owner, http.MethodGet, "/api/runs/"+missing+p, nil, ""); code != http.StatusNotFound {
			t.Fatalf("GET %s of an unknown run: %d", p, code)
		}
	}
	// report.pdf: printed by the package's shared browser pool.
	a.call(t, owner, http.MethodGet, "/api/runs/"+sr.run.ID+"/report.pdf", nil, "")
	a.call(t, owner, http.MethodGet, "/api/runs/"+missing+"/report.pdf", nil, "")
	// Cancelling a finished run conflicts.
	a.json(t, owner, http.MethodPost, "/api/runs/"+sr.run.ID+"/cancel", nil)
	// A new share link; none for a run without a report.
	dbtest.Exec(t, a.store, `UPDATE runs SET owner = $2 WHERE id = $1`, sr.run.ID, owner)
	if code, out := a.json(t, owner, http.MethodPost, "/api/runs/"+sr.run.ID+"/share", nil); code != http.StatusOK {
		t.Fatalf("POST share: %d %v", code, out)
	}
	a.json(t, me, http.MethodPost, "/api/runs/"+runID+"/share", nil)

	// Tasks.
	task := map[string]any{"name": "Releases", "question": "What changed in the latest release?", "schedule": "every 6 hours", "timezone": "UTC",
		"notify": map[string]any{"on": "always", "webhook_url": "https://hooks.example.org/quarry", "webhook_secret": "whsec_" + strings.Repeat("k", 32)}}
	code, tc := a.json(t, me, http.MethodPost, "/api/tasks", task)
	if code != http.StatusCreated {
		t.Fatalf("POST /api/tasks: %d %v", code, tc)
	}
	taskID, _ := tc["id"].(string)
	a.json(t, me, http.MethodPost, "/api/tasks", map[string]any{"name": "x", "question": "y", "schedule": "whenever the moon is full"})
	a.json(t, me, http.MethodGet, "/api/tasks", nil)
	a.json(t, me, http.MethodGet, "/api/tasks/preview?schedule=every+6+hours&timezone=Europe/Paris", nil)
	a.json(t, me, http.MethodGet, "/api/tasks/preview?schedule=sometimes", nil)
	a.json(t, me, http.MethodGet, "/api/tasks/"+taskID, nil)
	a.json(t, other, http.MethodGet, "/api/tasks/"+taskID, nil) // not theirs: 404
	a.json(t, me, http.MethodPatch, "/api/tasks/"+taskID, map[string]any{"schedule": "daily at noon"})
	a.json(t, me, http.MethodPatch, "/api/tasks/"+taskID, map[string]any{"timezone": "Mars/Olympus"})
	for _, action := range []string{"pause", "resume", "run"} {
		a.json(t, me, http.MethodPost, "/api/tasks/"+taskID+"/"+action, nil)
		a.json(t, other, http.MethodPost, "/api/tasks/"+taskID+"/"+action, nil)
	}
	a.json(t, other, http.MethodDelete, "/api/tasks/"+taskID, nil)
	a.json(t, me, http.MethodDelete, "/api/tasks/"+taskID, nil)

	// Documents.
	body, ctype := multipartBody(t, map[string]string{"collection": "manuals"}, map[string][]byte{"notes.md": []byte("# Notes\n\nNOTIFY is delivered at commit.\n")})
	code, b = a.call(t, me, http.MethodPost, "/api/documents", body, ctype)
	if code != http.StatusCreated {
		t.Fatalf("POST /api/documents: %d %s", code, b)
	}
	var doc map[string]any
	json.Unmarshal(b, &doc)
	docID, _ := doc["id"].(string)
	body, ctype = multipartBody(t, map[string]string{"collection": "manuals"}, nil)
	a.call(t, me, http.MethodPost, "/api/documents", body, ctype) // no file: 400
	a.json(t, me, http.MethodGet, "/api/documents/"+docID, nil)
	a.json(t, me, http.MethodGet, "/api/documents/"+missing, nil)
	a.json(t, me, http.MethodGet, "/api/library/search?q=NOTIFY+commit", nil)
	a.json(t, me, http.MethodGet, "/api/library/search?q=", nil) // no query: 400

	// Run lists and API tokens.
	a.json(t, me, http.MethodGet, "/api/runs?limit=5", nil)
	a.json(t, me, http.MethodGet, "/api/runs?limit=1000", nil) // 400
	code, tok := a.json(t, me, http.MethodPost, "/api/tokens", map[string]any{"name": "contract", "read_only": true})
	if code != http.StatusCreated {
		t.Fatalf("POST /api/tokens: %d %v", code, tok)
	}
	a.json(t, me, http.MethodPost, "/api/tokens", map[string]any{"name": ""}) // 400
	a.json(t, me, http.MethodGet, "/api/tokens", nil)
	a.json(t, "", http.MethodGet, "/api/tokens", nil) // 401
	a.json(t, me, http.MethodDelete, fmt.Sprintf("/api/tokens/%v", tok["id"]), nil)
	a.json(t, other, http.MethodDelete, fmt.Sprintf("/api/tokens/%v", tok["id"]), nil) // not theirs: 404

	// Notifications.
	n, err := a.store.AddNotification(context.Background(), db.NewNotification{Owner: me, Kind: "task_run", Title: "Releases ran", Body: "Nothing changed.", URL: "/runs/" + runID})
	if err != nil {
		t.Fatal(err)
	}
	a.json(t, me, http.MethodGet, "/api/notifications", nil)
	a.json(t, "", http.MethodGet, "/api/notifications", nil)
	a.json(t, me, http.MethodPost, "/api/notifications/"+n.ID+"/read", nil)
	a.json(t, other, http.MethodPost, "/api/notifications/"+n.ID+"/read", nil)

	if p := contract.report()[before:]; len(p) > 0 {
		t.Fatalf("answers that do not match the OpenAPI description:\n%s", strings.Join(p, "\n"))
	}

	// Every route of the README's table answered at least once with
	// success and once with an error, and the description lists exactly
	// the table's routes.
	doc3, err := handlers.LoadOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	described := map[string]bool{}
	for path, item := range doc3.Paths.Map() {
		for method := range item.Operations() {
			described[method+" "+path] = true
		}
	}
	table := readmeRoutes(t)
	inTable := map[string]bool{}
	for _, op := range table {
		inTable[op] = true
		if !described[op] {
			t.Errorf("README lists %s, the OpenAPI description does not", op)
			continue
		}
		var ok, bad bool
		for s := range contract.statuses(op) {
			ok = ok || s < 400
			bad = bad || s >= 400
		}
		if op == "GET /api/openapi.json" {
			bad = true // a fixed document: it has no error of its own to show
		}
		if !ok || !bad {
			t.Errorf("%s: answered %v; the test must see a success and an error", op, keys(contract.statuses(op)))
		}
	}
	for op := range described {
		if !inTable[op] {
			t.Errorf("the OpenAPI description has %s, README's JSON API table does not", op)
		}
	}
}

func keys(m map[int]bool) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
