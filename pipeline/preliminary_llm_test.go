package pipeline_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/engine/llm"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// TestPreliminarySearchReachesPlanner: before a model plans, one search
// of the question lists results; their titles and snippets are in the
// plan prompt, the run shows the search as its own stage, and no page is
// read for it. Turned off, the planner gets none and nothing is searched
// before the plan.
func TestPreliminarySearchReachesPlanner(t *testing.T) {
	for _, provider := range []string{llm.ProviderOpenAI, llm.ProviderAnthropic} {
		t.Run(provider, func(t *testing.T) {
			s := newSite(t, 0)
			var searchedBeforePlan []string
			api := newLLMServer(t, provider, func(c llmCall) llmReply {
				switch c.Stage {
				case stagePlan:
					s.mu.Lock()
					searchedBeforePlan = append([]string(nil), s.queries...)
					s.mu.Unlock()
					return llmReply{Text: planJSON(s.engine()), In: 900, Out: 160}
				case stageHeartbeat:
					return llmReply{Text: heartbeatDone, In: 700, Out: 25}
				case stageSynthesize:
					return llmReply{Text: citedReport(t, c.User).markdown(), In: 3200, Out: 420}
				}
				t.Errorf("unexpected %q call:\n%s", c.Stage, clipText(c.Body, 500))
				return llmReply{Status: http.StatusBadRequest}
			})
			r, store := newRunner(t, s, api.engine(t, testPrice, nil))
			run, err := r.Submit(context.Background(), pipeline.Request{Question: weworkQuestion, Depth: research.DepthStandard})
			if err != nil {
				t.Fatal(err)
			}
			waitStatus(t, store, run.ID, research.StatusDone)
			if !equalStrings(searchedBeforePlan, []string{weworkQuestion}) {
				t.Errorf("searches before the plan = %q, want one of the question", searchedBeforePlan)
			}
			plan := api.callsOf(stagePlan)[0].User
			for _, want := range []string{"A quick search of the message listed these results", "06e5123e4ef7.html", "A result for " + weworkQuestion} {
				if !strings.Contains(plan, want) {
					t.Errorf("plan prompt lacks %q:\n%s", want, clipText(plan, 3000))
				}
			}
			evs := runEvents(t, store, run.ID)
			pre := payloads[research.PreliminaryPayload](t, evs, research.EventPreliminary)
			if len(pre) != 1 || pre[0].Query != weworkQuestion || len(pre[0].Hits) != 2 || pre[0].Error != "" {
				t.Fatalf("preliminary events = %+v, want one with the 2 results", pre)
			}
			started := false
			for _, p := range payloads[research.StagePayload](t, evs, research.EventStageStarted) {
				started = started || p.Stage == pipeline.StagePreliminary
			}
			if !started {
				t.Error("no stage_started event for the preliminary search")
			}
			for _, a := range payloads[research.ActionPayload](t, evs, research.EventAction) {
				if a.Query == weworkQuestion {
					t.Errorf("the preliminary search ran as an action: %+v", a)
				}
			}
		})
	}

	t.Run("off", func(t *testing.T) {
		s := newSite(t, 0)
		var searchedBeforePlan = -1
		api := newLLMServer(t, llm.ProviderOpenAI, func(c llmCall) llmReply {
			switch c.Stage {
			case stagePlan:
				s.mu.Lock()
				searchedBeforePlan = len(s.queries)
				s.mu.Unlock()
				return llmReply{Text: planJSON(s.engine()), In: 900, Out: 160}
			case stageHeartbeat:
				return llmReply{Text: heartbeatDone, In: 700, Out: 25}
			case stageSynthesize:
				return llmReply{Text: citedReport(t, c.User).markdown(), In: 3200, Out: 420}
			}
			return llmReply{Status: http.StatusBadRequest}
		})
		store := dbtest.NewStore(t)
		r := pipeline.NewRunner(pipeline.Options{Store: store, Engine: api.engine(t, testPrice, nil), Gatherer: testGatherer(t, s.hostPort()),
			Engines: []string{s.engine()}, Workers: 1, LeaseTTL: 5 * time.Second, PollInterval: 100 * time.Millisecond, NoPreliminary: true})
		r.Start()
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			r.Shutdown(ctx)
		})
		run, err := r.Submit(context.Background(), pipeline.Request{Question: weworkQuestion, Depth: research.DepthStandard})
		if err != nil {
			t.Fatal(err)
		}
		waitStatus(t, store, run.ID, research.StatusDone)
		if searchedBeforePlan != 0 || strings.Contains(api.callsOf(stagePlan)[0].User, "A quick search") {
			t.Errorf("with the preliminary search off, %d searches ran before the plan", searchedBeforePlan)
		}
	})
}
