package library

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Run(m)) }

func readDoc(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ingestAll adds files to collection and runs a worker until every one is
// ready or failed.
func ingestAll(t testing.TB, lib *Library, collection string, names ...string) map[string]db.Document {
	t.Helper()
	ctx := context.Background()
	ids := map[string]string{}
	for _, n := range names {
		doc, _, err := lib.Add(ctx, Upload{Collection: collection, Filename: n, Content: readDoc(t, n), AddedBy: "tester"})
		if err != nil {
			t.Fatalf("add %s: %v", n, err)
		}
		ids[n] = doc.ID
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { lib.Work(wctx); close(done) }()
	defer func() { cancel(); <-done }()
	out := map[string]db.Document{}
	deadline := time.Now().Add(3 * time.Minute)
	for len(out) < len(ids) {
		if time.Now().After(deadline) {
			t.Fatalf("ingestion did not finish: %d of %d documents", len(out), len(ids))
		}
		for n, id := range ids {
			d, err := lib.Store().GetDocument(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if d.Status == db.DocReady || d.Status == db.DocFailed {
				out[n] = *d
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return out
}
