package extractive

import (
	"context"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
)

func TestHeartbeatDoneWhenCovered(t *testing.T) {
	t.Parallel()
	e := New()
	sources := loadSources(t)
	spec, _, _ := e.Plan(context.Background(), engine.PlanRequest{Question: "How large is Titan and what covers its surface?", Budget: research.Presets()[research.DepthStandard]})
	dec, usage, err := e.Heartbeat(context.Background(), engine.HeartbeatRequest{
		Spec: spec, Sources: sources, Done: spec.Actions, Batch: 1, Budget: spec.Budget, MaxNew: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !dec.Done || len(dec.Actions) != 0 || usage != (engine.Usage{}) {
		t.Fatalf("decision %+v, want done: the Titan article covers every criterion", dec)
	}
	if !strings.Contains(dec.Reason, "2 of 2 criteria covered") {
		t.Errorf("reason %q", dec.Reason)
	}
}

func TestHeartbeatSearchesForUncoveredCriteria(t *testing.T) {
	t.Parallel()
	e := New()
	sources := loadSources(t)[:1] // only the installation page
	spec, _, _ := e.Plan(context.Background(), engine.PlanRequest{
		Question: "What is the default port of EmberDB and how does replication failover work?",
		Budget:   research.Presets()[research.DepthDeep],
	})
	done := append([]research.ActionSpec(nil), spec.Actions...)
	seen := map[string]bool{}
	for _, a := range done {
		seen[queryKey(a.Query)] = true
	}
	for batch := 1; batch <= 4; batch++ {
		dec, _, err := e.Heartbeat(context.Background(), engine.HeartbeatRequest{
			Spec: spec, Sources: sources, Done: done, Batch: batch, Budget: spec.Budget, MaxNew: 2,
		})
		if err != nil {
			t.Fatal(err)
		}
		if dec.Done {
			if batch == 1 {
				t.Fatalf("done at once (%s), but the sources say nothing of ports or failover", dec.Reason)
			}
			break
		}
		if n := len(dec.Actions); n == 0 || n > 2 {
			t.Fatalf("batch %d: %d actions, want 1–2", batch, n)
		}
		if !strings.Contains(dec.Reason, "criteria covered; searching for:") {
			t.Errorf("reason %q", dec.Reason)
		}
		for _, a := range dec.Actions {
			if seen[queryKey(a.Query)] {
				t.Errorf("batch %d repeats query %q", batch, a.Query)
			}
			seen[queryKey(a.Query)] = true
			if a.Kind != research.ActionSearch || a.Priority != batch || a.Reason == "" {
				t.Errorf("bad action %+v", a)
			}
		}
		done = append(done, dec.Actions...)
	}
}

func TestHeartbeatStopsOnBudget(t *testing.T) {
	t.Parallel()
	e := New()
	spec, _, _ := e.Plan(context.Background(), engine.PlanRequest{Question: "What is the default port of EmberDB?", Budget: research.Presets()[research.DepthQuick]})
	tests := []struct {
		name  string
		batch int
		done  int
	}{
		{"batches used", 1, 2},
		{"actions used", 0, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var done []research.ActionSpec
			for i := 0; i < tt.done; i++ {
				done = append(done, research.ActionSpec{Kind: research.ActionSearch, Engine: "duckduckgo", Query: "q" + string(rune('a'+i))})
			}
			dec, _, _ := e.Heartbeat(context.Background(), engine.HeartbeatRequest{Spec: spec, Done: done, Batch: tt.batch, Budget: spec.Budget, MaxNew: 3})
			if !dec.Done || len(dec.Actions) != 0 || !strings.Contains(dec.Reason, "budget") {
				t.Errorf("decision %+v, want done on budget", dec)
			}
		})
	}
}

func TestHeartbeatHonoursReportedCoverage(t *testing.T) {
	t.Parallel()
	e := New()
	spec, _, _ := e.Plan(context.Background(), engine.PlanRequest{Question: "What is the default port of EmberDB?", Budget: research.Presets()[research.DepthStandard]})
	var cov []research.CriterionCoverage
	for _, c := range spec.Criteria {
		cov = append(cov, research.CriterionCoverage{Criterion: c, Sources: []string{"S1"}})
	}
	dec, _, _ := e.Heartbeat(context.Background(), engine.HeartbeatRequest{Spec: spec, Batch: 1, Budget: spec.Budget, MaxNew: 3, Coverage: cov})
	if !dec.Done {
		t.Errorf("decision %+v, want done when the pipeline reports every criterion covered", dec)
	}
}

// A result listed below the pages read, whose title names what is still
// missing, is read before any new search; one that does not is left.
func TestHeartbeatReadsUnreadResultThatNamesTheMissingCriterion(t *testing.T) {
	t.Parallel()
	e := New()
	sources := loadSources(t)[:1] // only the installation page
	spec, _, _ := e.Plan(context.Background(), engine.PlanRequest{
		Question: "What is the default port of EmberDB and how does replication failover work?",
		Budget:   research.Presets()[research.DepthDeep],
	})
	unread := []research.Hit{
		{URL: "http://docs.test/changelog.html", Title: "EmberDB changelog", Snippet: "3.2: failover fixes, replication speed-ups"},
		{URL: "http://docs.test/index.html", Title: "EmberDB index", Snippet: "port, replication, failover, backup"},
		{URL: "http://docs.test/replication-failover.html", Title: "Replication failover — EmberDB", Snippet: "When the leader stops, a follower is promoted."},
		{URL: "http://docs.test/backup.html", Title: "Backups — EmberDB", Snippet: "Take a snapshot."},
	}
	dec, _, err := e.Heartbeat(context.Background(), engine.HeartbeatRequest{
		Spec: spec, Sources: sources, Done: spec.Actions, Batch: 1, Budget: spec.Budget, MaxNew: 3, Unread: unread,
	})
	if err != nil {
		t.Fatal(err)
	}
	if dec.Done || len(dec.Actions) == 0 {
		t.Fatalf("decision %+v, want more gathering", dec)
	}
	var navs []string
	for _, a := range dec.Actions {
		if a.Kind == research.ActionNavigate {
			navs = append(navs, a.URL)
		}
	}
	if len(navs) != 1 || navs[0] != "http://docs.test/replication-failover.html" {
		t.Errorf("navigate actions %q, want only the page titled with the missing criterion", navs)
	}
	if dec.Actions[0].Kind != research.ActionNavigate {
		t.Errorf("first action %+v, want the unread page read before a new search", dec.Actions[0])
	}
}

// When a search already listed nothing, the follow-ups start with the
// shortest queries: the engine wants every word found.
func TestHeartbeatShortQueriesFirstAfterAnEmptyResultsPage(t *testing.T) {
	t.Parallel()
	e := New()
	q := "Why can repeatedly squash-merging two long-lived branches force me to re-resolve the same conflicts?"
	spec, _, _ := e.Plan(context.Background(), engine.PlanRequest{Question: q, Budget: research.Presets()[research.DepthStandard]})
	req := engine.HeartbeatRequest{Spec: spec, Done: spec.Actions, Batch: 1, Budget: spec.Budget, MaxNew: 3}
	long, _, err := e.Heartbeat(context.Background(), req)
	if err != nil || len(long.Actions) == 0 {
		t.Fatalf("heartbeat: %+v, %v", long, err)
	}
	req.Empty = []string{spec.Actions[0].Query}
	short, _, err := e.Heartbeat(context.Background(), req)
	if err != nil || len(short.Actions) == 0 {
		t.Fatalf("heartbeat: %+v, %v", short, err)
	}
	if n, m := len(strings.Fields(short.Actions[0].Query)), len(strings.Fields(long.Actions[0].Query)); n >= m || n > 3 {
		t.Errorf("after an empty results page the first follow-up is %q (%d words); before, %q (%d): want a short one first",
			short.Actions[0].Query, n, long.Actions[0].Query, m)
	}
}

// When every search so far listed nothing, and each held the same words
// (a name the search program cannot match as written), the next search
// leaves them out rather than failing the run for want of a page.
func TestHeartbeatDropsTheWordsOfEveryEmptySearch(t *testing.T) {
	t.Parallel()
	e := New()
	q := "Why did the sky above São Paulo go dark in the middle of the day?"
	spec, _, _ := e.Plan(context.Background(), engine.PlanRequest{Question: q, Budget: research.Presets()[research.DepthStandard]})
	req := engine.HeartbeatRequest{Spec: spec, Done: spec.Actions, Batch: 1, Budget: spec.Budget, MaxNew: 3}
	for _, a := range spec.Actions {
		req.Empty = append(req.Empty, a.Query)
	}
	req.Empty = append(req.Empty, "São Paulo", `"São Paulo" sky`)
	dec, _, err := e.Heartbeat(context.Background(), req)
	if err != nil || len(dec.Actions) == 0 {
		t.Fatalf("heartbeat: %+v, %v", dec, err)
	}
	first := dec.Actions[0].Query
	if strings.Contains(first, "São") || strings.Contains(first, "Paulo") || len(strings.Fields(first)) < 2 {
		t.Errorf("after searches that all held São Paulo listed nothing, the first follow-up is %q", first)
	}
}
