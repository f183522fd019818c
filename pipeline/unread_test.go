package pipeline

import (
	"testing"

	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/search"
)

// The results a search listed but neither read nor failed on are kept for
// the heartbeat; a page read since by another action is dropped.
func TestUnreadHits(t *testing.T) {
	out := search.Outcome{
		Results: []search.Result{
			{URL: "http://docs.test/a", Title: "A"},
			{URL: "http://docs.test/b#top", Title: "B"},
			{URL: "http://docs.test/c", Title: "C", Snippet: "about c"},
			{URL: "http://docs.test/d", Title: "D"},
		},
		Pages:  []extract.Page{{URL: "http://docs.test/a", CanonicalURL: extract.CanonicalURL("http://docs.test/a")}},
		Errors: []search.PageError{{URL: "http://docs.test/b", Err: "HTTP 500"}},
	}
	hits := unreadHits(out)
	if len(hits) != 2 || hits[0].URL != "http://docs.test/c" || hits[0].Snippet != "about c" || hits[1].URL != "http://docs.test/d" {
		t.Fatalf("unreadHits = %+v, want c and d", hits)
	}
	st := &State{Unread: append(hits, research.Hit{URL: "http://docs.test/c/", Title: "C again"})}
	got := unreadOf(st, []research.Source{{ID: "S1", URL: "http://docs.test/d"}})
	if len(got) != 1 || got[0].URL != "http://docs.test/c" {
		t.Errorf("unreadOf = %+v, want only c (d was read, c listed twice)", got)
	}
}
