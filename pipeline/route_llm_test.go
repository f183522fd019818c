package pipeline_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/engine/llm"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// TestHeuristicRouterBeforeModel: with a model engine, a greeting is
// routed by the zero-latency rules and answered with one chat call, no
// plan call; a real question still goes to the model's plan.
func TestHeuristicRouterBeforeModel(t *testing.T) {
	for _, provider := range []string{llm.ProviderOpenAI, llm.ProviderAnthropic} {
		t.Run(provider, func(t *testing.T) {
			s := newSite(t, 0)
			api := newLLMServer(t, provider, func(c llmCall) llmReply {
				switch c.Stage {
				case stageChat:
					return llmReply{Text: "Hello! What would you like me to research?", In: 40, Out: 12}
				case stagePlan:
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
			run, err := r.Submit(context.Background(), pipeline.Request{Question: "hello", Depth: research.DepthStandard})
			if err != nil {
				t.Fatal(err)
			}
			done := waitStatus(t, store, run.ID, research.StatusDone)
			if got := api.stages(); !equalStrings(got, []string{stageChat}) {
				t.Errorf("calls for %q = %v, want the chat answer only", "hello", got)
			}
			if done.Route != research.RouteChat {
				t.Errorf("route = %q, want chat", done.Route)
			}
			checkSpend(t, done, api, 1, testPrice)

			run, err = r.Submit(context.Background(), pipeline.Request{Question: weworkQuestion, Depth: research.DepthStandard})
			if err != nil {
				t.Fatal(err)
			}
			waitStatus(t, store, run.ID, research.StatusDone)
			if got := strings.Join(api.stages(), " "); !strings.HasPrefix(got, "chat plan ") {
				t.Errorf("calls = %v, want the question planned by the model", got)
			}
		})
	}
}
