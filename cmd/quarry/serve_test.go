package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db/dbtest"
)

// quarryCommand returns a command that runs this package's main with
// args: the test binary itself, re-executed with asMainEnv set.
func quarryCommand(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append([]string{asMainEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	return cmd
}

// process is a `quarry serve` the test started.
type process struct {
	cmd    *exec.Cmd
	addr   string
	stderr *bytes.Buffer
	mu     *sync.Mutex
	done   chan error
}

// lockedBuffer collects a process's log while the test reads it.
type lockedBuffer struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (b lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// serveStartWait bounds how long `quarry serve` may take to listen. It
// opens the database and starts Chromium first; on a 2-core machine
// running four race-built test packages that each start browsers (a
// cold `make test`), that took over 30 s once, with nothing wrong.
const serveStartWait = 90 * time.Second

// startServe starts `quarry serve` on a free port with env added to a
// clean environment and waits until it listens.
func startServe(t *testing.T, env ...string) *process {
	t.Helper()
	cmd := quarryCommand(t, append([]string{"QUARRY_ADDR=127.0.0.1:0", "QUARRY_WORKERS=1", "QUARRY_POOL_SIZE=1"}, env...), "serve")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // so a failed test can stop its Chromium too
	p := &process{cmd: cmd, stderr: new(bytes.Buffer), mu: new(sync.Mutex), done: make(chan error, 1)}
	pr, pw := io.Pipe()
	cmd.Stderr = io.MultiWriter(pw, lockedBuffer{p.mu, p.stderr})
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait(); pw.Close() }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-p.doneOnce()
		if t.Failed() {
			t.Logf("quarry serve log:\n%s", p.log())
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
				addr <- line.Addr
				break
			}
		}
		io.Copy(io.Discard, pr)
	}()
	select {
	case p.addr = <-addr:
	case err := <-p.done:
		p.done <- err
		t.Fatalf("quarry serve exited before listening: %v\n%s", err, p.log())
	case <-time.After(serveStartWait):
		t.Fatalf("quarry serve did not listen within %s:\n%s", serveStartWait, p.log())
	}
	return p
}

func (p *process) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// doneOnce returns a channel that yields the exit once, however often asked.
func (p *process) doneOnce() <-chan error {
	ch := make(chan error, 1)
	go func() {
		err := <-p.done
		p.done <- err
		ch <- err
	}()
	return ch
}

// stop sends SIGTERM and returns how long the process took to exit and
// its exit error.
func (p *process) stop(t *testing.T) (time.Duration, error) {
	t.Helper()
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.doneOnce():
		return time.Since(start), err
	case <-time.After(15 * time.Second):
		t.Fatalf("quarry serve still running 15s after SIGTERM:\n%s", p.log())
		return 0, nil
	}
}

// sseEvent is one event of a stream.
type sseEvent struct{ id, event, data string }

// readEvents connects to url and sends its events on the returned channel,
// which closes when the stream ends.
func readEvents(t *testing.T, ctx context.Context, url, lastEventID string) <-chan sseEvent {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	ch := make(chan sseEvent, 256)
	go func() {
		defer resp.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.data != "" {
					ch <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.data += line[6:]
			}
		}
	}()
	return ch
}

// TestTwoServeProcessesShareRuns starts two `quarry serve` processes on one
// database: a run created through one moves through the extractive intake
// to the plan review, and a viewer of the other sees every event of it;
// reconnecting there with Last-Event-ID N yields exactly the events after
// N; SIGTERM ends both promptly with exit code 0, even with a stream open.
func TestTwoServeProcessesShareRuns(t *testing.T) {
	t.Parallel()
	dbURL := ownDatabase(t)
	a := startServe(t, "DATABASE_URL="+dbURL)
	b := startServe(t, "DATABASE_URL="+dbURL)

	resp, err := http.Post("http://"+a.addr+"/api/runs", "application/json",
		strings.NewReader(`{"question":"How do Postgres advisory locks differ from row locks, and when should each be used?","depth":"quick","review":true}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		ID        string `json:"id"`
		EventsURL string `json:"events_url"`
	}
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || created.ID == "" {
		t.Fatalf("create: %d %+v", resp.StatusCode, created)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var seen []sseEvent
	var plan bool
	for ev := range readEvents(t, ctx, "http://"+b.addr+created.EventsURL, "") {
		seen = append(seen, ev)
		if ev.id != fmt.Sprint(len(seen)) {
			t.Fatalf("event %d has id %s", len(seen), ev.id)
		}
		if ev.event == "awaiting_approval" {
			plan = true
			var row struct {
				Payload struct {
					Status string
					Spec   struct{ Criteria []string }
				}
			}
			json.Unmarshal([]byte(ev.data), &row)
			if row.Payload.Status != "awaiting_approval" || len(row.Payload.Spec.Criteria) == 0 {
				t.Errorf("plan event payload: %s", ev.data)
			}
			break
		}
	}
	if !plan {
		t.Fatalf("no plan event through the other replica; saw %d events", len(seen))
	}
	types := make([]string, len(seen))
	for i, ev := range seen {
		types[i] = ev.event
	}
	t.Logf("replica B streamed: %s", strings.Join(types, ", "))
	if types[0] != "run_created" {
		t.Errorf("first event %s", types[0])
	}

	// The run is paused for review, so its history is complete: reconnect
	// with Last-Event-ID 2 and get exactly the events 3..last_seq.
	get, err := http.Get("http://" + b.addr + "/api/runs/" + created.ID)
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Status  string
		LastSeq int `json:"last_seq"`
	}
	json.NewDecoder(get.Body).Decode(&run)
	get.Body.Close()
	if run.Status != "awaiting_approval" || run.LastSeq < len(seen) {
		t.Fatalf("run through B: %+v", run)
	}
	rctx, rcancel := context.WithCancel(ctx)
	replay := readEvents(t, rctx, "http://"+b.addr+created.EventsURL, "2")
	for want := 3; want <= run.LastSeq; want++ {
		select {
		case ev := <-replay:
			if ev.id != fmt.Sprint(want) {
				t.Fatalf("replay: got id %s, want %d", ev.id, want)
			}
			if want <= len(seen) && ev.event != seen[want-1].event {
				t.Errorf("replay %d: %s, first time %s", want, ev.event, seen[want-1].event)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("replay stalled before id %d", want)
		}
	}
	// The stream stays open (the run is paused, not finished); SIGTERM
	// must close it rather than wait for it.
	took, err := b.stop(t)
	if err != nil {
		t.Errorf("replica B exit: %v\n%s", err, b.log())
	}
	select {
	case _, ok := <-replay:
		if ok {
			t.Error("an event arrived after the replay")
		}
	case <-time.After(2 * time.Second):
		t.Error("the open stream was not closed by shutdown")
	}
	rcancel()
	t.Logf("replica B stopped in %s with a stream open", took)
	if took > 10*time.Second {
		t.Errorf("replica B took %s to stop", took)
	}
	took, err = a.stop(t)
	if err != nil {
		t.Errorf("replica A exit: %v", err)
	}
	if took > 10*time.Second {
		t.Errorf("replica A took %s to stop", took)
	}
	for _, p := range []*process{a, b} {
		if !strings.Contains(p.log(), `"msg":"stopped"`) {
			t.Errorf("no orderly stop in the log:\n%s", p.log())
		}
	}
}

// TestServeRejectsBadConfig: invalid configuration stops start-up with a
// message naming the variable and exit code 1. (In-process: run is what
// main calls; the subprocess test above covers main itself.)
func TestServeRejectsBadConfig(t *testing.T) {
	tests := []struct{ env, value string }{
		{"QUARRY_WORKERS", "lots"},
		{"QUARRY_FETCH_CONCURRENCY", "0"},
		{"QUARRY_FETCH_PER_HOST", "many"},
		{"QUARRY_ADDR", "nonsense"},
		{"QUARRY_LLM", "oracle"},
		{"QUARRY_DEPTH", "bottomless"},
		{"QUARRY_AUTH", "kerberos"},
		{"QUARRY_SESSION_TTL", "forever"},
		{"QUARRY_MAX_STREAMS", "-3"},
		{"QUARRY_SMTP_URL", "smtp://mail.example.com"},
		{"QUARRY_SMTP_URL", "imap://mail.example.com?from=q@example.com"},
		{"QUARRY_AGENT_MAX_STEPS", "0"},
		{"QUARRY_PRELIMINARY_SEARCH", "sometimes"},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			t.Setenv("DATABASE_URL", dbtest.URL(t))
			t.Setenv(tt.env, tt.value)
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), []string{"serve"}, &stdout, &stderr); code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if !strings.Contains(stderr.String(), tt.env) {
				t.Errorf("message %q does not name %s", stderr.String(), tt.env)
			}
		})
	}
}

// TestMigrateVersionUsage: `quarry migrate` on a migrated database applies
// nothing, `quarry version` prints the version, an unknown command is a
// usage error.
func TestMigrateVersionUsage(t *testing.T) {
	t.Setenv("DATABASE_URL", dbtest.URL(t))
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"migrate"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "up to date") {
		t.Errorf("migrate: exit %d, %q %q", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"version"}, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "quarry ") {
		t.Errorf("version: exit %d, %q", code, stdout.String())
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"frobnicate"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "unknown command") {
		t.Errorf("unknown command: exit %d, %q", code, stderr.String())
	}
	if code := run(context.Background(), []string{"serve", "--workers"}, &stdout, &stderr); code != 1 {
		t.Errorf("serve with a bad flag: exit %d, want 1", code)
	}
}

// TestSettingsViewHasNoSecrets: what /settings shows names the engine and
// the browser but never a key or a token in the browser URL.
func TestSettingsViewHasNoSecrets(t *testing.T) {
	env := map[string]string{
		"OPENAI_API_KEY":     "sk-secret-123",
		"QUARRY_LLM_MODEL":   "gpt-test",
		"QUARRY_BROWSER_URL": "ws://browser.internal:9222/devtools/browser/abc?token=hunter2",
	}
	cfg, err := LoadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	v := settingsView(cfg)
	dump := fmt.Sprintf("%+v", v)
	for _, secret := range []string{"sk-secret-123", "hunter2", "abc"} {
		if strings.Contains(dump, secret) {
			t.Errorf("settings view contains %q: %s", secret, dump)
		}
	}
	if v.Engine != "openai" || v.Model != "gpt-test" || v.Browser != "remote browser.internal:9222" {
		t.Errorf("settings view %s", dump)
	}
}
