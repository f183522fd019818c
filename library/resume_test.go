package library

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
)

// bigPDF joins copies of a real 12-page PDF with poppler's pdfunite into
// one of at least pages pages.
func bigPDF(t testing.TB, pages int) []byte {
	t.Helper()
	dir := t.TempDir()
	var args []string
	for i := 0; i*12 < pages; i++ {
		args = append(args, filepath.Join("testdata", "docs", "GPL-3.pdf"))
	}
	out := filepath.Join(dir, "big.pdf")
	if msg, err := exec.Command("pdfunite", append(args, out)...).CombinedOutput(); err != nil {
		t.Fatalf("pdfunite: %v %s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A worker cancelled in the middle of a document leaves it leased; when
// the lease expires another worker resumes it, and the document ends with
// exactly the chunks one uninterrupted ingestion stores.
func TestResumeAfterCrash(t *testing.T) {
	store := dbtest.NewStore(t)
	ctx := context.Background()
	pdf := bigPDF(t, 240)

	first := New(store, Options{Owner: "crashing", LeaseTTL: time.Second})
	var once sync.Once
	wctx, kill := context.WithCancel(ctx)
	first.OnProgress(func(p Progress) {
		if p.Status == db.DocIngesting && p.Chunks >= 2*chunkBatch {
			once.Do(kill) // the process dies mid-document
		}
	})
	doc, _, err := first.Add(ctx, Upload{Collection: "resume", Filename: "big.pdf", Content: pdf})
	if err != nil {
		t.Fatal(err)
	}
	first.Work(wctx) // returns once killed
	mid, err := store.GetDocument(ctx, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if mid.Status != db.DocIngesting || mid.Chunks < 2*chunkBatch {
		t.Fatalf("after the crash: status %s, %d chunks", mid.Status, mid.Chunks)
	}

	second := New(store, Options{Owner: "restarted", LeaseTTL: time.Second, Poll: 100 * time.Millisecond})
	var resumedAt []int
	second.OnProgress(func(p Progress) {
		if p.Status == db.DocIngesting {
			resumedAt = append(resumedAt, p.Chunks)
		}
	})
	docs := waitReady(t, second, doc.ID)
	if docs.Status != db.DocReady {
		t.Fatalf("status %s: %s", docs.Status, docs.Error)
	}
	if len(resumedAt) == 0 || resumedAt[0] < mid.Chunks {
		t.Errorf("the second worker started at chunk %v, the first had stored %d", resumedAt, mid.Chunks)
	}

	// The reference: the same file ingested in one go.
	ref := ingestAllBytes(t, New(store, Options{Owner: "ref"}), "resume-ref", "big.pdf", pdf)
	got, err := store.DocumentChunks(ctx, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	want, err := store.DocumentChunks(ctx, ref.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || docs.Chunks != len(want) {
		t.Fatalf("resumed document has %d chunks (row says %d), uninterrupted %d", len(got), docs.Chunks, len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("chunk %d differs: %+v vs %+v", i, got[i], want[i])
		}
	}
}

func waitReady(t testing.TB, lib *Library, id string) db.Document {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { lib.Work(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		d, err := lib.Store().GetDocument(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if d.Status == db.DocReady || d.Status == db.DocFailed {
			return *d
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("ingestion did not finish")
	return db.Document{}
}

func ingestAllBytes(t testing.TB, lib *Library, collection, name string, content []byte) db.Document {
	t.Helper()
	doc, _, err := lib.Add(context.Background(), Upload{Collection: collection, Filename: name, Content: content})
	if err != nil {
		t.Fatal(err)
	}
	return waitReady(t, lib, doc.ID)
}

// BenchmarkIngest1000Pages ingests a 1,008-page PDF and reports the time,
// the chunks and the Go heap's peak (pdftotext runs in its own process,
// bounded by its limits).
func BenchmarkIngest1000Pages(b *testing.B) {
	store := dbtest.NewStore(b)
	pdf := bigPDF(b, 1000)
	for i := 0; i < b.N; i++ {
		lib := New(store, Options{Owner: "bench"})
		var peak uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		start := time.Now()
		// A distinct collection each round: the same bytes twice are a duplicate.
		d := ingestAllBytes(b, lib, "bench-"+strconv.Itoa(i)+"-"+strconv.FormatInt(time.Now().UnixNano(), 36), "big.pdf", pdf)
		el := time.Since(start)
		close(stop)
		wg.Wait()
		if d.Status != db.DocReady || d.Pages < 1000 {
			b.Fatalf("status %s (%s), %d pages", d.Status, d.Error, d.Pages)
		}
		b.ReportMetric(el.Seconds(), "s/1000pages")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(d.Chunks), "chunks")
	}
}

// A document whose every ingestion died is not claimed forever.
func TestGiveUpAfterAttempts(t *testing.T) {
	store := dbtest.NewStore(t)
	lib := New(store, Options{Owner: "patient", Poll: 50 * time.Millisecond})
	doc, _, err := lib.Add(context.Background(), Upload{Collection: "poison", Filename: "a.txt", Content: []byte("Some words of plain text.")})
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Exec(t, store, `UPDATE library_documents SET status = 'ingesting', attempts = $2, lease_owner = 'dead',
		lease_expires_at = now() - interval '1 second' WHERE id = $1`, doc.ID, maxAttempts)
	d := waitReady(t, lib, doc.ID)
	if d.Status != db.DocFailed || !strings.Contains(d.Error, "giving up") {
		t.Errorf("status %s, error %q", d.Status, d.Error)
	}
}
