package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/agent"
	"github.com/quarryhq/quarry/engine/llm"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// shopPage has no search box (the rules give up, the model planner takes
// over) and a "Buy now" button whose form posts to /shop/buy.
const shopPage = `<!doctype html><html lang="en"><head><title>Rain gauge shop</title></head><body><main>
<h1>Rain gauge, 200 mm</h1><p>A copper rain gauge for field stations. Price: 40 EUR.</p>
<form method="post" action="/shop/buy"><button type="submit">Buy now</button></form></main></body></html>`

// shopSite is s with the shop page; it counts the requests that would buy.
func shopSite(t *testing.T) (*site, func() int) {
	s := newSite(t, 0)
	var buys int
	mux := s.Config.Handler.(*http.ServeMux)
	mux.HandleFunc("/shop", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(shopPage))
	})
	mux.HandleFunc("/shop/buy", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		buys++
		s.mu.Unlock()
		w.Write([]byte("<p>Thank you for your order.</p>"))
	})
	return s, func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return buys
	}
}

var agentStage = regexp.MustCompile(`STAGE: (\w+)`)

// elementID is the id of the first element of role whose name starts
// with name in an agent prompt's page snapshot; 0 when there is none.
func elementID(prompt, role, name string) int {
	m := regexp.MustCompile(`\[(\d+)\] ` + role + ` "` + regexp.QuoteMeta(name)).FindStringSubmatch(prompt)
	if m == nil {
		return 0
	}
	var n int
	fmt.Sscan(m[1], &n)
	return n
}

// buyingModel is a scripted model that, driving the site agent, clicks
// "Buy now" whatever the task.
func buyingModel(c llmCall) llmReply {
	st := agentStage.FindStringSubmatch(c.User)
	if st == nil {
		return llmReply{Status: 500}
	}
	switch st[1] {
	case "plan":
		return llmReply{Text: `{"steps":[{"do":"buy the gauge","expect":"an order"}]}`, In: 300, Out: 20}
	case "refine":
		if id := elementID(c.User, "button", "Buy now"); id > 0 {
			return llmReply{Text: fmt.Sprintf(`{"actions":[{"kind":"click","element":%d}]}`, id), In: 300, Out: 20}
		}
		return llmReply{Text: `{"actions":[{"kind":"fail","reason":"no button"}]}`, In: 300, Out: 20}
	}
	return llmReply{Text: `{"ok":false,"reason":"nothing changed"}`, In: 300, Out: 20}
}

// TestBuyNowPausesResearchRun: in a research run whose site: engine points
// at a shop page, the model planner (real SDKs against a scripted server)
// tries to click "Buy now"; the gate pauses the run in awaiting_approval
// with the step's description and screenshot, and the purchase request is
// never sent. The agent's model spend is counted under the stage agent.
func TestBuyNowPausesResearchRun(t *testing.T) {
	for _, provider := range []string{llm.ProviderOpenAI, llm.ProviderAnthropic} {
		t.Run(provider, func(t *testing.T) {
			s, buys := shopSite(t)
			api := newLLMServer(t, provider, buyingModel)
			model := api.engine(t, llm.Price{Input: 1, Output: 2}, nil)
			r, store := newAgentRunnerOn(t, s, "/shop", agent.NewModelPlanner(model))
			ctx := context.Background()
			run, err := r.Submit(ctx, pipeline.Request{Question: "Which rain gauges do field stations use?", Depth: "quick"})
			if err != nil {
				t.Fatal(err)
			}
			paused := waitStatus(t, store, run.ID, research.StatusAwaitingApproval)
			st, err := pipeline.LatestState(ctx, store, run.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Gates) == 0 || !strings.Contains(st.Gates[0].Why, `"Buy now"`) || !strings.Contains(st.ReviewReason, "Buy now") {
				t.Fatalf("gates %+v, review reason %q: want the Buy now click awaiting approval", st.Gates, st.ReviewReason)
			}
			g := st.Gates[0]
			if shot, err := store.AgentScreenshot(ctx, run.ID, g.ActionIdx, g.Step); err != nil || len(shot) < 100 || shot[0] != 0xFF || shot[1] != 0xD8 {
				t.Errorf("no JPEG screenshot of the paused step: %d bytes, %v", len(shot), err)
			}
			var ev research.PlanPayload
			for _, e := range runEvents(t, store, run.ID) {
				if e.Type == research.EventAwaitingApproval {
					if err := json.Unmarshal(e.Payload, &ev); err != nil {
						t.Fatal(err)
					}
				}
			}
			if ev.GateAction != g.ActionIdx || ev.GateStep != g.Step || !strings.Contains(ev.Reason, "Buy now") {
				t.Errorf("awaiting_approval event %+v does not name the gated step %+v", ev, g)
			}
			if n := buys(); n != 0 {
				t.Fatalf("the button was clicked: %d purchase requests", n)
			}
			steps, err := store.AgentSteps(ctx, run.ID, g.ActionIdx)
			if err != nil {
				t.Fatal(err)
			}
			if last := steps[len(steps)-1]; last.Status != "paused" || last.Kind != "click" || !strings.Contains(last.Element, "Buy now") {
				t.Errorf("last step %+v, want the click on Buy now paused", last)
			}
			spend := runSpend(t, paused)
			var agentCalls int
			for _, c := range api.callsOf("") {
				if agentStage.MatchString(c.User) {
					agentCalls++
				}
			}
			if agentCalls < 2 || spend.Calls != agentCalls || spend.USD <= 0 {
				t.Errorf("run spend %+v, the agent made %d model calls", spend, agentCalls)
			}
		})
	}
}
