package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quarryhq/quarry/agent"
	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/engine/llm"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/search"
)

// crashSiteSearch is the crash worker's site: engine: the site agent with
// the model planner of the scripted server at QUARRY_CRASH_MODEL, or none.
func crashSiteSearch(pool *browser.Pool) search.SiteSearch {
	base := os.Getenv("QUARRY_CRASH_MODEL")
	if base == "" {
		return nil
	}
	e, err := llm.New(llm.Options{Provider: llm.ProviderOpenAI, BaseURL: base, APIKey: testAPIKey, Model: testModel,
		Prices: map[string]llm.Price{testModel: crashPrice}, ContextWindow: 32000, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	return agent.SiteSearch(agent.Options{Pool: pool}, agent.NewModelPlanner(e))
}

var crashPrice = llm.Price{Input: 3, Output: 15}

// finderPage hides its search box behind a button: the rules find no
// search box, the model planner opens the finder, types and submits.
const finderPage = `<!doctype html><html lang="en"><head><title>Station finder</title></head><body><main><h1>Station finder</h1>
<button id="open">Open the finder</button><div id="finder" hidden><input id="box" type="text" aria-label="Term"></div></main>
<script>
document.getElementById('open').onclick = () => { document.getElementById('finder').hidden = false; };
document.getElementById('box').addEventListener('keydown', e => { if (e.key === 'Enter') location.href = '/search?q=' + encodeURIComponent(e.target.value); });
</script></body></html>`

// TestAgentSpendSurvivesCrash: a worker process is SIGKILLed while its
// site agent waits for a model answer in the middle of a batch; the run
// resumed by another worker counts, under the stage agent, the model
// calls the dead worker's agent was answered as well as its own.
func TestAgentSpendSurvivesCrash(t *testing.T) {
	s := newSite(t, 0)
	s.Config.Handler.(*http.ServeMux).HandleFunc("/finder", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(finderPage))
	})
	var (
		mu       sync.Mutex
		agentN   int // agent calls received
		answered int // agent calls answered to a live worker
		release  = make(chan struct{})
		blocked  = make(chan struct{})
	)
	const blockAt = 3 // the child's third agent call never gets its answer
	api := newLLMServer(t, llm.ProviderOpenAI, func(c llmCall) llmReply {
		st := agentStage.FindStringSubmatch(c.User)
		if st == nil {
			return llmReply{Status: 500}
		}
		mu.Lock()
		agentN++
		n := agentN
		mu.Unlock()
		if n == blockAt {
			close(blocked)
			<-release // the worker is dead by then
			return llmReply{Text: `{"actions":[{"kind":"fail","reason":"late"}]}`}
		}
		mu.Lock()
		answered++
		mu.Unlock()
		rep := llmReply{In: 400, Out: 30}
		switch {
		case st[1] == "plan":
			rep.Text = `{"steps":[{"do":"open the finder and search","expect":"results"}]}`
		case st[1] == "verify":
			rep.Text = `{"ok":true,"progress":true}`
		case strings.Contains(c.User, "/search?q="):
			rep.Text = `{"actions":[{"kind":"finish","answer":"results listed"}]}`
		case elementID(c.User, "textbox", "Term") > 0:
			id := elementID(c.User, "textbox", "Term")
			rep.Text = fmt.Sprintf(`{"actions":[{"kind":"type","element":%d,"text":"WeWork attorney general"},{"kind":"press","element":%d,"key":"Enter"}]}`, id, id)
		default:
			rep.Text = fmt.Sprintf(`{"actions":[{"kind":"click","element":%d}]}`, elementID(c.User, "button", "Open the finder"))
		}
		return rep
	})
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	engineName := "site:" + s.URL + "/finder"
	store := db.NewStore(dbtest.Open(t), nil)
	submitter := pipeline.NewRunner(pipeline.Options{Store: store, Engine: extractive.New(), Engines: []string{engineName}})
	ctx := context.Background()
	run, err := submitter.Submit(ctx, pipeline.Request{Question: "Why is the New York attorney general investigating WeWork?", Depth: "quick", Review: research.ReviewAlways})
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), crashWorkerEnv+"=1", "QUARRY_CRASH_DB="+dbtest.URL(t),
		"QUARRY_CRASH_ALLOW="+s.hostPort(), "QUARRY_CRASH_ENGINE="+engineName, "QUARRY_CRASH_MODEL="+api.srv.URL+"/v1")
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	// One site search, so that no other action's answer is in flight when
	// the child dies (a call answered but not yet stored is lost with it).
	paused := waitStatus(t, store, run.ID, research.StatusAwaitingApproval)
	var spec research.TaskSpec
	if err := json.Unmarshal(paused.TaskSpec, &spec); err != nil {
		t.Fatal(err)
	}
	spec.Actions = []research.ActionSpec{{Kind: "search", Query: "WeWork attorney general"}}
	if _, err := submitter.Approve(ctx, run.ID, pipeline.Approval{Spec: &spec}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-blocked:
	case <-time.After(90 * time.Second):
		t.Fatal("the child's agent never made its third model call")
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	mu.Lock()
	beforeKill := answered
	mu.Unlock()
	close(release)
	if beforeKill != blockAt-1 {
		t.Fatalf("the child was answered %d agent calls before it died, want %d", beforeKill, blockAt-1)
	}

	// This process resumes the run with the same site agent and model.
	startAgentRunner(t, s, store, engineName, agent.NewModelPlanner(api.engine(t, crashPrice, nil)))
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		cur, _ := store.GetRun(ctx, run.ID)
		acts, _ := store.Actions(ctx, run.ID)
		t.Logf("run %s (%s)", cur.Status, cur.Error)
		for _, a := range acts {
			steps, _ := store.AgentSteps(ctx, run.ID, a.Idx)
			t.Logf("action %d %s %s: %s %s", a.Idx, a.Engine, a.Status, a.Error, a.Result)
			for _, st := range steps {
				t.Logf("  step %d %s %s %s %s", st.N, st.Kind, st.Element, st.Status, st.Error)
			}
		}
	})
	done := waitStatus(t, store, run.ID, research.StatusDone)
	if done.Attempts < 2 {
		t.Fatalf("attempts = %d; the run was not resumed", done.Attempts)
	}
	mu.Lock()
	total := answered
	mu.Unlock()
	if total <= beforeKill {
		t.Fatalf("the resumed run made no model call of its own (%d answered)", total)
	}
	st, err := pipeline.LatestState(ctx, store, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := st.StageUsage[pipeline.SpendAgent]
	want := float64(total) * (400*crashPrice.Input + 30*crashPrice.Output) / 1e6
	if got.Calls != total || got.InputTokens != 400*total || got.USD < want-1e-9 || got.USD > want+1e-9 {
		t.Errorf("agent spend %+v, want the %d calls answered (%d before the crash) = $%.6f", got, total, beforeKill, want)
	}
	if spend := runSpend(t, done); spend.Calls != total {
		t.Errorf("runs.spend counts %d calls, want %d", spend.Calls, total)
	}
}
