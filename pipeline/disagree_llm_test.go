package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/engine/llm"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// bridgePages are two articles that disagree on the year a bridge opened.
var bridgePages = map[string]string{
	"/history": "The Halden bridge opened in 1932. Construction took four years and employed hundreds of workers from the town. " +
		"The bridge crosses the river below the old fortress and carries both road and rail traffic.",
	"/guide": "The Halden bridge opened to traffic in 1934. Visitors can walk across it on a footpath on the eastern side. " +
		"The view from the middle of the bridge takes in the fortress and the harbour.",
}

// newBridgeSite serves the two articles behind a search results page
// listing both.
func newBridgeSite(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Search</title></head><body><main id="results">`)
		for path := range bridgePages {
			fmt.Fprintf(w, `<div class="result"><h2><a href="%s">Halden bridge %s</a></h2><p>About the Halden bridge.</p></div>`, path, strings.TrimPrefix(path, "/"))
		}
		fmt.Fprint(w, `</main></body></html>`)
	})
	for path, body := range bridgePages {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html><head><title>Halden bridge %s</title></head><body><article><h1>The Halden bridge</h1><p>%s</p></article></body></html>`,
				strings.TrimPrefix(path, "/"), body)
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	host, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	return srv, net.JoinHostPort(host, port)
}

// TestSourcesThatDisagreeAreReported: a model that states both years as
// facts fails verification as a contradiction; the repair pass is told to
// write the disagreement sentence, and the published report carries it.
func TestSourcesThatDisagreeAreReported(t *testing.T) {
	for _, provider := range []string{llm.ProviderOpenAI, llm.ProviderAnthropic} {
		t.Run(provider, func(t *testing.T) {
			srv, hostPort := newBridgeSite(t)
			eng := "url:" + srv.URL + "/search?q={query}"
			criteria := []string{"When the Halden bridge opened", "What the Halden bridge carries", "Who designed the Halden bridge"}
			plan, _ := json.Marshal(map[string]any{"route": "research", "goal": "Find when the Halden bridge opened.",
				"criteria": criteria, "sections": []string{"Opening", "Traffic", "Design"},
				"actions": []map[string]any{
					{"kind": "search", "engine": eng, "query": "Halden bridge opened", "priority": 1},
					{"kind": "search", "engine": eng, "query": "Halden bridge history", "priority": 1},
				}, "assumptions": []string{}, "clarity": 0.9, "questions": []string{}})
			ids := func(user string) (string, string) {
				var hist, guide string
				for _, s := range parseEvidence(user) {
					switch {
					case strings.HasSuffix(s.URL, "/history"):
						hist = s.ID
					case strings.HasSuffix(s.URL, "/guide"):
						guide = s.ID
					}
				}
				return hist, guide
			}
			const rest = "## Traffic\n\nThe bridge carries both road and rail traffic [%s].\n\n## Design\n\n" + research.Undetermined + "\n"
			api := newLLMServer(t, provider, func(c llmCall) llmReply {
				switch {
				case c.Stage == stagePlan:
					return llmReply{Text: string(plan), In: 900, Out: 160}
				case c.Stage == stageHeartbeat:
					return llmReply{Text: heartbeatDone, In: 700, Out: 25}
				case c.Stage == stageSynthesize && c.Nth == 0:
					h, g := ids(c.User)
					return llmReply{Text: fmt.Sprintf("## Opening\n\nThe Halden bridge opened in 1932 [%s]. The Halden bridge opened to traffic in 1934 [%s].\n\n"+rest, h, g, h), In: 2000, Out: 120}
				case c.Stage == stageSynthesize:
					h, g := ids(c.User)
					return llmReply{Text: fmt.Sprintf("## Opening\n\nSources disagree: [%s] gives 1932; [%s] gives 1934.\n\n"+rest, h, g, h), In: 2400, Out: 120}
				}
				t.Errorf("unexpected %q call", c.Stage)
				return llmReply{Status: http.StatusBadRequest}
			})
			store := dbtest.NewStore(t)
			r := pipeline.NewRunner(pipeline.Options{Store: store, Engine: api.engine(t, testPrice, nil), Gatherer: testGatherer(t, hostPort),
				Engines: []string{eng}, Workers: 1, LeaseTTL: 5 * time.Second, PollInterval: 100 * time.Millisecond})
			r.Start()
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				r.Shutdown(ctx)
			})
			run, err := r.Submit(context.Background(), pipeline.Request{Question: "When did the Halden bridge open?", Depth: research.DepthStandard})
			if err != nil {
				t.Fatal(err)
			}
			waitStatus(t, store, run.ID, research.StatusDone)
			syn := api.callsOf(stageSynthesize)
			if len(syn) != 2 {
				t.Fatalf("calls = %v, want a repair pass after the contradiction", api.stages())
			}
			if !strings.Contains(syn[0].Body, `Sources disagree: [S2] gives 1932; [S5] gives 1934.`) {
				t.Error("the synthesis prompt does not ask for disagreements to be reported")
			}
			if !strings.Contains(syn[1].User, `give different values for the same thing (\"1932\" and \"1934\")`) &&
				!strings.Contains(syn[1].User, `give different values for the same thing ("1932" and "1934")`) {
				t.Errorf("repair prompt lacks the contradiction:\n%s", clipText(syn[1].User, 4000))
			}
			h, g := ids(syn[1].User)
			rep, ver := publishedReport(t, store, run.ID)
			want := research.DisagreeSentence(research.Claim{Source: h, Value: "1932"}, research.Claim{Source: g, Value: "1934"})
			if !ver.Passed || ver.Pass != 2 || !strings.Contains(rep.Markdown, want) {
				t.Errorf("published pass %d (passed %v), want pass 2 with %q:\n%s", ver.Pass, ver.Passed, want, rep.Markdown)
			}
			evs := runEvents(t, store, run.ID)
			if v := payloads[research.VerificationPayload](t, evs, research.EventVerification); len(v) != 2 || v[0].Passed || !strings.Contains(v[0].Warning, "different values") {
				t.Errorf("verifications = %+v, want the first failing on the contradiction", v)
			}
		})
	}
}
