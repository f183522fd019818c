package handlers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quarryhq/quarry/auth"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/web"
)

func TestMain(m *testing.M) {
	if err := installAPIContract(); err != nil {
		fmt.Fprintln(os.Stderr, "the OpenAPI description:", err)
		os.Exit(1)
	}
	// Logins of unknown names compare against a cheap dummy hash: the
	// tests check which logins pass, and at the real cost each refusal
	// takes seconds under the race detector.
	auth.CheapRefusalsForTests()
	code := dbtest.Run(m)
	closeShared()
	if problems := contract.report(); len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d answers from /api/ do not match handlers/openapi.yaml:\n  %s\n", len(problems), strings.Join(problems, "\n  "))
		code = 1
	}
	os.Exit(code)
}

// replica is one Quarry process as the tests see it: its own connection
// pool, broker (listening for NOTIFY) and router, on the package's shared
// test database unless a URL is given.
type replica struct {
	store  *db.Store
	runner *pipeline.Runner
	h      *handlers.Server
	srv    *httptest.Server
}

type replicaOptions struct {
	url       string // database; "" = the package's
	start     bool   // start the runner's workers
	heartbeat time.Duration
	buffer    int
	sndbuf    int // socket send buffer of accepted connections; 0 = the kernel's
	browser   handlers.Pinger
	baseURL   string
	settings  web.SettingsView
	tasks     bool // scheduled tasks on (pages and API)
}

// failingPinger is a browser that does not answer.
type failingPinger struct{}

func (failingPinger) Ping(context.Context) error { return errors.New("chromium is not answering") }

func testLogger(t testing.TB) *slog.Logger {
	w := &testWriter{t: t}
	// Background goroutines (a stream's broker feed, say) may log while the
	// test is being torn down; testing panics on a Log after the test ends.
	t.Cleanup(func() { w.done.Store(true) })
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct {
	t    testing.TB
	done atomic.Bool
}

func (w *testWriter) Write(b []byte) (int, error) {
	if !w.done.Load() {
		w.t.Log(strings.TrimRight(string(b), "\n"))
	}
	return len(b), nil
}

func newReplica(t *testing.T, o replicaOptions) *replica {
	t.Helper()
	url := o.url
	if url == "" {
		url = dbtest.URL(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	log := testLogger(t)
	broker := db.NewBroker(db.NewEventReader(conn), log)
	store := db.NewStore(conn, broker)
	lctx, lcancel := context.WithCancel(context.Background())
	if err := broker.Listen(lctx, url); err != nil {
		t.Fatal(err)
	}
	runner := pipeline.NewRunner(pipeline.Options{Store: store, Engine: extractive.New(), Engines: []string{"duckduckgo"},
		Workers: 1, Logger: log, PollInterval: 200 * time.Millisecond})
	if o.start {
		runner.Start()
	}
	var taskOpts handlers.TaskOptions
	if o.tasks {
		taskOpts = testTaskOptions(runner)
	}
	h := handlers.New(handlers.Options{Store: store, Runs: runner, Logger: log, SSEHeartbeat: o.heartbeat, SSEBuffer: o.buffer,
		Browser: o.browser, BaseURL: o.baseURL, Settings: o.settings, Tasks: taskOpts})
	srv := httptest.NewUnstartedServer(h)
	if o.sndbuf > 0 {
		srv.Listener = sndbufListener{srv.Listener, o.sndbuf}
	}
	srv.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.CloseStreams(ctx)
		srv.Close()
		runner.Shutdown(ctx)
		lcancel()
		conn.Close()
	})
	return &replica{store: store, runner: runner, h: h, srv: srv}
}

// countRuns returns how many runs the database holds.
func countRuns(t *testing.T, store *db.Store) int {
	t.Helper()
	n, err := store.CountRuns(context.Background(), db.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// createRun stores a queued run directly (no runner involved).
func createRun(t *testing.T, store *db.Store, question string) *db.Run {
	t.Helper()
	run, err := store.CreateRun(context.Background(), db.NewRun{Question: question, Depth: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// appendEvent appends an event as the pipeline would.
func appendEvent(t *testing.T, store *db.Store, runID, typ string, payload any) db.Event {
	t.Helper()
	ev, err := store.AppendEvent(context.Background(), runID, typ, payload)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// sseEvent is one event read from a stream.
type sseEvent struct {
	ID, Event, Data string
	Comment         string
}

// sseStream reads Server-Sent Events from a response.
type sseStream struct {
	resp *http.Response
	r    *bufio.Reader
	ch   chan sseEvent
	err  chan error
}

// openSSE connects to url with an optional Last-Event-ID and checks the
// response is an event stream.
func openSSE(t *testing.T, url, lastEventID string) *sseStream {
	t.Helper()
	return openSSEAs(t, url, lastEventID)
}

// openSSEAs is openSSE with extra request headers (name, value, …).
func openSSEAs(t *testing.T, url, lastEventID string, headers ...string) *sseStream {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	s := &sseStream{resp: resp, r: bufio.NewReaderSize(resp.Body, 1<<20), ch: make(chan sseEvent, 1024), err: make(chan error, 1)}
	go s.read()
	t.Cleanup(func() { resp.Body.Close() })
	return s
}

func (s *sseStream) read() {
	var ev sseEvent
	var data []string
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			s.err <- err
			close(s.ch)
			return
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
			if len(data) > 0 || ev.Comment != "" {
				ev.Data = strings.Join(data, "\n")
				s.ch <- ev
			}
			ev, data = sseEvent{}, nil
		case strings.HasPrefix(line, ":"):
			ev.Comment = strings.TrimSpace(line[1:])
		case strings.HasPrefix(line, "id: "):
			ev.ID = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.Event = line[7:]
		case strings.HasPrefix(line, "data: "):
			data = append(data, line[6:])
		case strings.HasPrefix(line, "data:"):
			data = append(data, line[5:])
		}
	}
}

// next returns the next event that is not a comment, failing after d.
func (s *sseStream) next(t *testing.T, d time.Duration) sseEvent {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case ev, ok := <-s.ch:
			if !ok {
				t.Fatalf("stream ended: %v", <-s.err)
			}
			if ev.Comment != "" && ev.Data == "" {
				continue
			}
			return ev
		case <-timeout:
			t.Fatalf("no event within %s", d)
		}
	}
}

// expectEnd checks the server closes the stream within d with no further
// event.
func (s *sseStream) expectEnd(t *testing.T, d time.Duration) {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case ev, ok := <-s.ch:
			if !ok {
				return
			}
			if ev.Data != "" {
				t.Fatalf("unexpected event after the end: %+v", ev)
			}
		case <-timeout:
			t.Fatalf("stream still open after %s", d)
		}
	}
}

// apiEvent decodes the data of an /api/runs/{id}/events event.
func apiEvent(t *testing.T, ev sseEvent) db.Event {
	t.Helper()
	var out db.Event
	if err := json.Unmarshal([]byte(ev.Data), &out); err != nil {
		t.Fatalf("event data %q: %v", ev.Data, err)
	}
	return out
}

// sndbufListener shrinks the send buffer of accepted connections, so a
// client that does not read blocks the server's writes early.
type sndbufListener struct {
	net.Listener
	size int
}

func (l sndbufListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tcp, ok := c.(*net.TCPConn); ok {
		tcp.SetWriteBuffer(l.size)
	}
	return c, err
}
