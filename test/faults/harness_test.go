//go:build faults || load

package faults

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

var (
	quarryBin string      // built once by TestMain
	cluster   *pgCluster  // the private Postgres
	dbSeq     int         // names the tests' databases
	dbSeqMu   sync.Mutex  //
	workDir   string      // scratch space of the whole run
	reps      = repeats() // QUARRY_FAULT_REPS
)

func TestMain(m *testing.M) {
	os.Exit(setup(m))
}

func setup(m *testing.M) int {
	var err error
	workDir, err = os.MkdirTemp("", "quarry-faults-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(workDir)
	quarryBin = filepath.Join(workDir, "quarry")
	build := exec.Command("go", "build", "-o", quarryBin, "github.com/quarryhq/quarry/cmd/quarry")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build quarry: %v\n%s", err, out)
		return 1
	}
	// nginx is looked for by the tests that start it (make faults).
	if _, err := findBinary("chromium"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cluster, err = startCluster()
	if err != nil {
		fmt.Fprintln(os.Stderr, "postgres:", err)
		return 1
	}
	defer cluster.stop()
	return m.Run()
}

func repeats() int {
	n, err := strconv.Atoi(os.Getenv("QUARRY_FAULT_REPS"))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// findBinary looks in PATH and the sbin directories Debian uses.
func findBinary(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/bin", "/sbin"} {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found (install the Debian package %s; make faults does)", name, name)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// database makes a fresh database on the private cluster for one test.
func database(t *testing.T) (string, *sqlx.DB) {
	t.Helper()
	dbSeqMu.Lock()
	dbSeq++
	name := fmt.Sprintf("faults_%d_%d", os.Getpid(), dbSeq)
	dbSeqMu.Unlock()
	url, conn, err := cluster.newDatabase(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return url, conn
}

// replica is one `quarry serve` process.
type replica struct {
	name string
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	log  bytes.Buffer
	done chan struct{}
	err  error
}

// baseEnv is what every replica of a test shares: the database, the site
// as the only search engine, small pools, a short lease, no rate limits
// (the tests create runs quickly from one address).
func baseEnv(dbURL string, s *site) []string {
	return []string{
		"DATABASE_URL=" + dbURL,
		"QUARRY_ADDR=127.0.0.1:0",
		"QUARRY_AUTH=none",
		"QUARRY_SEARCH_ENGINES=" + s.engine(),
		"QUARRY_ALLOW_HOSTS=127.0.0.1",
		"QUARRY_POOL_SIZE=2",
		"QUARRY_WORKERS=2",
		"QUARRY_LEASE_TTL=4s",
		"QUARRY_RUNS_PER_MINUTE=0",
		"QUARRY_RUNS_PER_MINUTE_PER_IP=0",
		"QUARRY_MAX_ACTIVE_RUNS=0",
		"QUARRY_MAX_STREAMS=0",
		"QUARRY_DEPTH=quick",
	}
}

// startReplica starts `quarry serve` in its own process group (so a kill
// takes its Chromium too) and waits until it listens.
func startReplica(t *testing.T, name string, env ...string) *replica {
	t.Helper()
	r := &replica{name: name, done: make(chan struct{})}
	r.cmd = exec.Command(quarryBin, "serve")
	r.cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	r.cmd.Stderr = io.MultiWriter(pw, lockedWriter{&r.mu, &r.log})
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r.err = r.cmd.Wait()
		pw.Close()
		close(r.done)
	}()
	t.Cleanup(func() {
		r.kill()
		if t.Failed() {
			t.Logf("%s log (tail):\n%s", r.name, tail(r.logText(), 6000))
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
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
	case r.addr = <-addr:
	case <-r.done:
		t.Fatalf("%s exited before listening: %v\n%s", name, r.err, r.logText())
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not listen within 60s:\n%s", name, r.logText())
	}
	return r
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (r *replica) logText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.String()
}

func (r *replica) url() string { return "http://" + r.addr }

// kill sends SIGKILL to the replica's whole process group (the server and
// its Chromium) and waits for it.
func (r *replica) kill() {
	select {
	case <-r.done:
		return
	default:
	}
	syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
	<-r.done
}

func (r *replica) pid() int { return r.cmd.Process.Pid }

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// nginx is a reverse proxy the test starts on loopback: round-robin over
// the replicas under the path prefix /quarry/, unbuffered for SSE.
type nginx struct {
	cmd  *exec.Cmd
	addr string
	dir  string
}

func startNginx(t *testing.T, addr string, upstreams ...string) *nginx {
	t.Helper()
	bin, err := findBinary("nginx")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o777)
	var servers strings.Builder
	for _, u := range upstreams {
		fmt.Fprintf(&servers, "\t\tserver %s max_fails=1 fail_timeout=3s;\n", u)
	}
	userLine := ""
	if os.Getuid() == 0 {
		userLine = "user root;"
	}
	conf := fmt.Sprintf(nginxConf, userLine, dir, dir, servers.String(), dir, dir, dir, dir, dir, addr)
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	n := &nginx{addr: addr, dir: dir}
	n.cmd = exec.Command(bin, "-e", filepath.Join(dir, "error.log"), "-c", confPath, "-p", dir)
	n.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	n.cmd.Stdout, n.cmd.Stderr = &out, &out
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-n.cmd.Process.Pid, syscall.SIGKILL)
		n.cmd.Wait()
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Logf("nginx: %s\nerror.log:\n%s", out.String(), tail(string(log), 4000))
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/quarry/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return n
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx did not come up: %v %s\n%s", err, out.String(), log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (n *nginx) url() string { return "http://" + n.addr + "/quarry" }

// freeAddr reserves a loopback port (the proxy's, known before the
// replicas start so they can be told their public URL).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// nginxConf is the configuration README.md documents, made runnable as a
// test fixture: the prefix is kept on the way to Quarry, which strips it
// (QUARRY_BASE_URL carries it), and SSE streams pass unbuffered.
const nginxConf = `%s
worker_processes 1;
daemon off;
pid %s/nginx.pid;
events { worker_connections 4096; }
http {
	access_log %s/access.log;
	upstream quarry {
%s		keepalive 16;
	}
	client_body_temp_path %s/body;
	proxy_temp_path %s/proxy;
	fastcgi_temp_path %s/fastcgi;
	uwsgi_temp_path %s/uwsgi;
	scgi_temp_path %s/scgi;
	server {
		listen %s;
		location /quarry/ {
			proxy_pass http://quarry;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header Host $http_host;
			proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
			proxy_set_header X-Forwarded-Proto $scheme;
			proxy_set_header X-Forwarded-Host $http_host;
			proxy_buffering off;
			proxy_cache off;
			proxy_read_timeout 1h;
			proxy_next_upstream error timeout http_502 http_503;
		}
	}
}
`

// createRun asks a question through the JSON API at base.
func createRun(t *testing.T, base, question, depth string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"question": question, "depth": depth})
	resp, err := http.Post(base+"/api/runs", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ ID, Error string }
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusCreated || out.ID == "" {
		t.Fatalf("create run at %s: %d %s", base, resp.StatusCode, out.Error)
	}
	return out.ID
}

// runRow is the state of a run as the tests check it.
type runRow struct {
	Status     string `db:"status"`
	Error      string `db:"error"`
	LeaseOwner string `db:"lease_owner"`
	LastSeq    int64  `db:"last_seq"`
	Attempts   int    `db:"attempts"`
}

func getRun(t *testing.T, conn *sqlx.DB, id string) runRow {
	t.Helper()
	var r runRow
	for i := 0; ; i++ {
		err := conn.Get(&r, `SELECT status, error, COALESCE(lease_owner, '') AS lease_owner, last_seq, attempts FROM runs WHERE id = $1`, id)
		if err == nil {
			return r
		}
		if i > 100 {
			t.Fatalf("read run %s: %v", id, err)
		}
		time.Sleep(100 * time.Millisecond) // the database may be restarting
	}
}

// waitFor polls the run until ok says so, failing after d.
func waitFor(t *testing.T, conn *sqlx.DB, id string, d time.Duration, what string, ok func(runRow) bool) runRow {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		r := getRun(t, conn, id)
		if ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s: not %s within %s (status %s, lease %q, attempts %d, error %q)", id, what, d, r.Status, r.LeaseOwner, r.Attempts, r.Error)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func terminal(r runRow) bool {
	return r.Status == "done" || r.Status == "failed" || r.Status == "cancelled"
}

// checkEnded asserts nothing was lost: the run ended done, or failed with
// a reason; its events are numbered 1..last_seq without a gap, and the
// one terminal event is the last.
func checkEnded(t *testing.T, conn *sqlx.DB, id string, r runRow) {
	t.Helper()
	switch {
	case r.Status == "done":
	case r.Status == "failed" && strings.TrimSpace(r.Error) != "":
		t.Logf("run %s failed with a reason: %s", id, r.Error)
	default:
		t.Errorf("run %s ended %s (error %q)", id, r.Status, r.Error)
	}
	var evs []struct {
		Seq  int64  `db:"seq"`
		Type string `db:"type"`
	}
	if err := conn.Select(&evs, `SELECT seq, type FROM run_events WHERE run_id = $1 ORDER BY seq`, id); err != nil {
		t.Fatal(err)
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Errorf("run %s: event %d has seq %d (gap or duplicate)", id, i+1, ev.Seq)
			break
		}
		end := ev.Type == "run_completed" || ev.Type == "run_failed" || ev.Type == "run_cancelled"
		if end != (i == len(evs)-1) {
			t.Errorf("run %s: terminal event %s at %d of %d", id, ev.Type, i+1, len(evs))
		}
	}
	if int64(len(evs)) != r.LastSeq {
		t.Errorf("run %s: %d events, last_seq %d", id, len(evs), r.LastSeq)
	}
	if r.Status == "done" {
		var n int
		conn.Get(&n, `SELECT count(*) FROM reports WHERE run_id = $1 AND published`, id)
		if n != 1 {
			t.Errorf("run %s is done with %d published reports", id, n)
		}
	}
}

// ownerPID is the process id in a lease owner ("host:pid:random").
func ownerPID(owner string) int {
	parts := strings.Split(owner, ":")
	if len(parts) < 3 {
		return 0
	}
	pid, _ := strconv.Atoi(parts[len(parts)-2])
	return pid
}

// sseEvent is one event read from a stream.
type sseEvent struct {
	id, event, data string
	at              time.Time
}

// readStream reads an SSE response until it ends or ctx does.
func readStream(ctx context.Context, url string) (<-chan sseEvent, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	ch := make(chan sseEvent, 512)
	go func() {
		defer resp.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 8<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.data != "" {
					ev.at = time.Now()
					select {
					case ch <- ev:
					case <-ctx.Done():
						return
					}
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
	return ch, nil
}

// status GETs url and returns the response's status code.
func status(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func execCommand(name string, args ...string) *exec.Cmd { return exec.Command(name, args...) }

func pathEnv() string { return os.Getenv("PATH") }

// metric reads one unlabelled sample from the replica's /metrics.
func metric(t *testing.T, rp *replica, name string) float64 {
	t.Helper()
	for _, line := range strings.Split(metricsText(t, rp), "\n") {
		if strings.HasPrefix(line, name+" ") {
			v, _ := strconv.ParseFloat(strings.TrimSpace(line[len(name):]), 64)
			return v
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// metricsText is the replica's /metrics page.
func metricsText(t *testing.T, rp *replica) string {
	t.Helper()
	resp, err := http.Get(rp.url() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v", resp.StatusCode, err)
	}
	return string(b)
}

// metricSum adds up every sample of a metric whose line contains all of
// labels (e.g. `stage="gather"`).
func metricSum(text, name string, labels ...string) float64 {
	var sum float64
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(line, l)
		}
		if i := strings.LastIndexByte(line, ' '); ok && i > 0 {
			v, _ := strconv.ParseFloat(line[i+1:], 64)
			sum += v
		}
	}
	return sum
}
