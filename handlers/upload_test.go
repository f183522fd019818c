package handlers_test

import (
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/library"
)

// uploadServer is a server with a library (no ingestion worker) behind a
// trusted proxy naming the user in X-User.
func uploadServer(t testing.TB, max int64, limits handlers.Limits) *authServer {
	t.Helper()
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	lib := library.New(dbtest.NewStore(t), library.Options{UploadMax: max})
	return newAuthServer(t, "", handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthProxy, Header: "X-User"},
		TrustedProxies: []*net.IPNet{loopback}, Library: lib, Limits: limits})
}

// textOf is size bytes of plain text, distinct for each seed.
type textOf struct {
	seed, left int64
	line       []byte
	off        int
}

func newText(seed, size int64) *textOf {
	return &textOf{seed: seed, left: size, line: []byte(fmt.Sprintf("Upload %d: a line of plain words about the library and its limits.\n", seed))}
}

func (r *textOf) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && r.left > 0 {
		c := copy(p[n:min(len(p), n+int(min(r.left, int64(len(r.line)-r.off))))], r.line[r.off:])
		n += c
		r.left -= int64(c)
		r.off = (r.off + c) % len(r.line)
	}
	return n, nil
}

// streamUpload posts a multipart upload whose file is read from content
// as the request is sent (the client never holds it whole). With a gate,
// the first KiB of the file is sent and the rest waits until the gate
// closes: the upload is then in progress on the server.
func streamUpload(url, user, collection, name string, content io.Reader, gate <-chan struct{}) (int, map[string]any, error) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		mw.WriteField("collection", collection)
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		if gate != nil {
			io.CopyN(fw, content, 1024)
			<-gate
		}
		if _, err := io.Copy(fw, content); err != nil {
			pw.CloseWithError(err)
			return
		}
		pw.CloseWithError(mw.Close())
	}()
	req, _ := http.NewRequest(http.MethodPost, url+"/api/documents", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("X-User", user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out, nil
}

func spooled(t *testing.T, dir string) int {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "quarry-upload-*"))
	return len(m)
}

// TestUploadLimits: a file past QUARRY_UPLOAD_MAX is refused while it is
// read, naming the setting; an upload past the per-user or the total
// number at once is refused with 429 naming its setting; nothing refused
// is stored and no spooled file is left behind.
func TestUploadLimits(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	const max = 64 << 10
	s := uploadServer(t, max, handlers.Limits{UploadsPerUser: 1, Uploads: 2})
	coll := "uploads-" + strings.ToLower(t.Name())
	t.Cleanup(func() { dbtest.Exec(t, s.store, `DELETE FROM library_collections WHERE name = $1`, coll) })
	stored := func(user string) int {
		var n int
		dbtest.Get(t, s.store, &n, `SELECT count(*) FROM library_documents WHERE added_by = $1`, user)
		return n
	}
	users := func(base string) string { return base + "-" + strings.ToLower(t.Name()) }
	ann, bob, carl := users("ann"), users("bob"), users("carl")

	code, out, err := streamUpload(s.srv.URL, ann, coll, "big.txt", newText(1, max+1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if code != http.StatusBadRequest || out["field"] != "file" || !strings.Contains(fmt.Sprint(out["error"]), "QUARRY_UPLOAD_MAX") {
		t.Fatalf("a file one byte too large: %d %v", code, out)
	}
	if stored(ann) != 0 || spooled(t, tmp) != 0 {
		t.Fatalf("the refused file: %d stored, %d spooled files left", stored(ann), spooled(t, tmp))
	}

	// ann's and bob's uploads hang halfway; their places are taken.
	gates := []chan struct{}{make(chan struct{}), make(chan struct{})}
	var wg sync.WaitGroup
	results := make([]int, 2)
	for i, u := range []string{ann, bob} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _, _ = streamUpload(s.srv.URL, u, coll, u+".txt", newText(int64(10+i), 8<<10), gates[i])
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for spooled(t, tmp) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := spooled(t, tmp); n != 2 {
		t.Fatalf("%d uploads in progress, want 2", n)
	}
	code, out, _ = streamUpload(s.srv.URL, ann, coll, "second.txt", newText(20, 1<<10), nil)
	if code != http.StatusTooManyRequests || !strings.Contains(fmt.Sprint(out["error"]), "QUARRY_UPLOADS_PER_USER") {
		t.Errorf("ann's second upload at once: %d %v", code, out)
	}
	code, out, _ = streamUpload(s.srv.URL, carl, coll, "carl.txt", newText(30, 1<<10), nil)
	if code != http.StatusTooManyRequests || !strings.Contains(fmt.Sprint(out["error"]), "QUARRY_UPLOADS)") {
		t.Errorf("a third upload past the total: %d %v", code, out)
	}
	for _, g := range gates {
		close(g)
	}
	wg.Wait()
	if results[0] != http.StatusCreated || results[1] != http.StatusCreated {
		t.Fatalf("the uploads in progress: %v", results)
	}
	if stored(ann) != 1 || stored(bob) != 1 || stored(carl) != 0 {
		t.Errorf("stored: ann %d, bob %d, carl %d; want 1, 1, 0", stored(ann), stored(bob), stored(carl))
	}
	if n := spooled(t, tmp); n != 0 {
		t.Errorf("%d spooled files left", n)
	}
	// The places are free again.
	if code, out, _ := streamUpload(s.srv.URL, carl, coll, "carl.txt", newText(31, 1<<10), nil); code != http.StatusCreated {
		t.Errorf("carl's upload after the others: %d %v", code, out)
	}
}

// peakRSS is the process's peak resident set (VmHWM) in bytes.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			kb, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkConcurrentUploads measures memory while eight clients upload
// 32 MB files at once (the server takes QUARRY_UPLOADS=4 of them, the
// others retry): the peak Go heap sampled every millisecond, and the
// process's peak RSS. The clients stream their bodies, so the figures are
// the server's.
func BenchmarkConcurrentUploads(b *testing.B) {
	const size, clients = 32 << 20, 8
	s := uploadServer(b, size, handlers.Limits{Uploads: 4})
	coll := "bench-uploads"
	b.Cleanup(func() { dbtest.Exec(b, s.store, `DELETE FROM library_collections WHERE name = $1`, coll) })
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
		}
	}()
	var seed atomic.Int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					code, out, err := streamUpload(s.srv.URL, fmt.Sprintf("bench-%d", c), coll, "big.txt", newText(seed.Add(1), size), nil)
					if err != nil {
						b.Error(err)
						return
					}
					if code == http.StatusTooManyRequests {
						time.Sleep(20 * time.Millisecond)
						continue
					}
					if code != http.StatusCreated {
						b.Errorf("upload: %d %v", code, out)
					}
					return
				}
			}()
		}
		wg.Wait()
	}
	b.StopTimer()
	close(stop)
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MB")
	b.ReportMetric(float64(clients*size)/(1<<20), "uploaded-MB/op")
}
