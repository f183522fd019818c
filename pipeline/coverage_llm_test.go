package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/engine/llm"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

// coverageCriteria are criteria the site's two articles answer in their
// own words.
var coverageCriteria = []string{
	"Who is investigating WeWork",
	"Whether Adam Neumann indulged in self-dealing",
	"How much SoftBank agreed to inject into WeWork",
}

// coveragePlanJSON is a research plan with coverageCriteria and two
// searches on engine.
func coveragePlanJSON(engine string) string {
	b, _ := json.Marshal(map[string]any{
		"route": "research", "goal": "Explain why the New York attorney general is investigating WeWork.",
		"criteria": coverageCriteria, "sections": coverageCriteria,
		"actions": []map[string]any{
			{"kind": "search", "engine": engine, "query": "WeWork attorney general investigation", "priority": 1},
			{"kind": "search", "engine": engine, "query": "WeWork Adam Neumann self-dealing", "priority": 1},
		},
		"assumptions": []string{}, "clarity": 0.9, "questions": []string{},
	})
	return string(b)
}

// coverageMinded is a scripted model that does what the heartbeat prompt
// asks: it keeps searching while the prompt says a criterion lacks
// evidence and stops once every one is covered.
func coverageMinded(t *testing.T, s *site) func(c llmCall) llmReply {
	return func(c llmCall) llmReply {
		switch c.Stage {
		case stagePlan:
			return llmReply{Text: coveragePlanJSON(s.engine()), In: 900, Out: 160}
		case stageHeartbeat:
			if strings.Contains(c.User, "NOT YET COVERED") || strings.Contains(c.User, "MISSING") || strings.Contains(c.User, "coverage unknown") {
				q := fmt.Sprintf("WeWork investigation angle %d", c.Nth+1)
				return llmReply{Text: `{"done": false, "reason": "criteria still missing", "actions": [{"kind": "search", "engine": "` + s.engine() + `", "query": "` + q + `", "priority": 1}]}`, In: 700, Out: 40}
			}
			return llmReply{Text: heartbeatDone, In: 700, Out: 25}
		case stageSynthesize:
			return llmReply{Text: citedReport(t, c.User).markdown(), In: 3200, Out: 420}
		}
		t.Errorf("unexpected %q call:\n%s", c.Stage, clipText(c.Body, 500))
		return llmReply{Status: http.StatusBadRequest}
	}
}

// TestHeartbeatSeesCoverage runs a model engine whose heartbeat trusts
// the coverage it is shown: the pipeline's coverage (sources and key
// sentences per criterion, time and batches left) reaches the prompt, so
// the run stops after the first batch instead of searching until its
// batches run out; the checkpoint event carries the same coverage.
func TestHeartbeatSeesCoverage(t *testing.T) {
	for _, provider := range []string{llm.ProviderOpenAI, llm.ProviderAnthropic} {
		t.Run(provider, func(t *testing.T) {
			s := newSite(t, 0)
			api := newLLMServer(t, provider, coverageMinded(t, s))
			r, store := newRunner(t, s, api.engine(t, testPrice, nil))
			run, err := r.Submit(context.Background(), pipeline.Request{Question: weworkQuestion, Depth: research.DepthStandard})
			if err != nil {
				t.Fatal(err)
			}
			waitStatus(t, store, run.ID, research.StatusDone)
			evs := runEvents(t, store, run.ID)
			budgets := payloads[research.BudgetPayload](t, evs, research.EventBudget)
			batches := budgets[len(budgets)-1].Batches
			t.Logf("%s: batches used %d of %d; calls %v", provider, batches, budgets[len(budgets)-1].MaxBatches, api.stages())

			hb := api.callsOf(stageHeartbeat)
			if len(hb) == 0 {
				t.Fatal("no heartbeat call")
			}
			first := hb[0].User
			for _, want := range []string{"3 of 3 covered", "Who is investigating WeWork (covered by S", "   - [S", "batches: 1 run of 3, 2 left", "actions: 2 of 10 run, 8 left", "time: "} {
				if !strings.Contains(first, want) {
					t.Errorf("heartbeat prompt lacks %q:\n%s", want, clipText(first, 3000))
				}
			}
			if batches != 1 {
				t.Errorf("run used %d batches, want 1: every criterion was covered after the first", batches)
			}
			// The published report says, per criterion, that it is answered
			// and by which sources.
			rep, _ := publishedReport(t, store, run.ID)
			var doc report.Report
			if err := json.Unmarshal(rep.Citations, &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Criteria) != 3 {
				t.Errorf("report criteria = %+v, want 3", doc.Criteria)
			}
			for _, c := range doc.Criteria {
				if c.Status != report.CriterionAnswered || len(c.Citations) == 0 {
					t.Errorf("criterion %+v, want answered with its citations\n%s", c, rep.Markdown)
				}
			}
			cps := payloads[research.CheckpointPayload](t, evs, research.EventCheckpoint)
			if len(cps) == 0 || len(cps[0].Coverage) != 3 || cps[0].Covered != 3 || cps[0].Batch != 1 {
				t.Fatalf("checkpoint payloads = %+v, want batch 1 with 3 of 3 criteria covered", cps)
			}
			for _, c := range cps[0].Coverage {
				if !c.Covered() || len(c.Key) == 0 || !strings.HasPrefix(c.Key[0], "["+c.Sources[0]+"] ") {
					t.Errorf("checkpoint coverage %+v lacks its sources and key sentences", c)
				}
			}
		})
	}
}
