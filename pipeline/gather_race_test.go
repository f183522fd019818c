package pipeline_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/search"
)

// pagesPerSearch is how many new pages each search of burstGatherer returns.
const pagesPerSearch = 10

// burstGatherer answers every search at once with new pages, so that
// the actions of a batch record their sources at the same moment.
type burstGatherer struct {
	mu      sync.Mutex
	n       int
	release chan struct{}
	once    sync.Once
	calls   sync.WaitGroup
}

func (g *burstGatherer) Search(ctx context.Context, a search.Action) (search.Outcome, error) {
	g.mu.Lock()
	base := g.n
	g.n += pagesPerSearch
	g.mu.Unlock()
	select { // wait for the other actions, or a moment
	case <-g.release:
	case <-time.After(300 * time.Millisecond):
		g.once.Do(func() { close(g.release) })
	}
	var out search.Outcome
	for i := range pagesPerSearch {
		u := fmt.Sprintf("https://docs.example.org/page-%d", base+i)
		out.Pages = append(out.Pages, extract.Page{URL: u, CanonicalURL: u, Title: fmt.Sprintf("Page %d", base+i), Host: "docs.example.org",
			Text: fmt.Sprintf("Page %d explains how Quillstore and Emberdb store %s rows on disk in detail.", base+i, a.Query), FetchedAt: time.Now()})
	}
	return out, nil
}

func (g *burstGatherer) Navigate(ctx context.Context, url string) (extract.Page, error) {
	return extract.Page{}, fmt.Errorf("navigate %s: not in this test", url)
}

// TestConcurrentActionsRecordEverySource runs a batch of parallel searches
// that return at the same instant: every page must become a source with its
// own sid (two concurrent commits once both took the same one and the run
// stopped).
func TestConcurrentActionsRecordEverySource(t *testing.T) {
	store := dbtest.NewStore(t)
	r := pipeline.NewRunner(pipeline.Options{
		Store: store, Engine: extractive.New(), Gatherer: &burstGatherer{release: make(chan struct{})},
		Engines: []string{"url:https://search.example.org/?q={query}"}, Workers: 1,
		LeaseTTL: 5 * time.Second, PollInterval: 100 * time.Millisecond,
	})
	ctx := context.Background()
	run, err := r.Submit(ctx, pipeline.Request{Question: "Compare Quillstore and Emberdb for storing rows", Depth: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	// As `quarry research` does: one attempt, in this goroutine, so that
	// an interrupted run is not quietly resumed by a worker.
	claimed, err := store.ClaimRunByID(ctx, run.ID, r.Owner(), 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r.Execute(claimed)
	final, err := store.GetRun(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != research.StatusDone {
		t.Fatalf("run ended %s: %s", final.Status, final.Error)
	}
	actions, err := store.Actions(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	sources, err := store.Sources(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(actions) < 2 || len(sources) != pagesPerSearch*len(actions) {
		var qs []string
		for _, a := range actions {
			qs = append(qs, a.Query+" ("+string(a.Status)+")")
		}
		t.Fatalf("%d sources for %d actions (%s), want %d each", len(sources), len(actions), strings.Join(qs, "; "), pagesPerSearch)
	}
	for i, s := range sources {
		if s.SID != i+1 {
			t.Errorf("source %d has sid %d", i, s.SID)
		}
	}
}
