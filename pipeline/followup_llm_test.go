package pipeline_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/engine/llm"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

// doneRunWithReport stores a finished run (a follow-up of parent when
// set) with a published report.
func doneRunWithReport(t *testing.T, store *db.Store, question, parent, markdown string) *db.Run {
	t.Helper()
	ctx := context.Background()
	run, err := store.CreateRun(ctx, db.NewRun{Question: question, Depth: research.DepthQuick, ParentRunID: parent})
	if err != nil {
		t.Fatal(err)
	}
	err = store.InTx(ctx, func(tx *db.Tx) error {
		if _, err := tx.AddReport(ctx, db.Report{RunID: run.ID, Markdown: markdown, HTML: "<p>r</p>", Published: true}); err != nil {
			return err
		}
		status := research.StatusDone
		return tx.UpdateRun(ctx, run.ID, db.RunUpdate{Status: &status})
	})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestFollowUpChatSeesTheWholeChain: "simplify that", asked of a
// follow-up's report, is answered as chat (no plan call) from the
// sections of every report up the chain, numbered P1… from the oldest
// so the parent's own [P1] still names the same section; the answer's
// [P#] are listed as prior research used.
func TestFollowUpChatSeesTheWholeChain(t *testing.T) {
	for _, provider := range []string{llm.ProviderOpenAI, llm.ProviderAnthropic} {
		t.Run(provider, func(t *testing.T) {
			store := dbtest.NewStore(t)
			first := doneRunWithReport(t, store, "How does Postgres deliver NOTIFY?", "",
				"## Delivery\n\nPostgres delivers notifications when the transaction commits [S1].\n\n## Sources\n\n- [S1] [NOTIFY](<https://docs.example.org/notify>)\n")
			second := doneRunWithReport(t, store, "And on replicas?", first.ID,
				"## Replicas\n\nStandby servers do not receive notifications [S1]. Delivery on the primary happens at commit [P1].\n\n## Prior research used\n\n- [P1] Delivery\n")
			const answer = "Notifications are sent when the transaction commits [P1], and only on the primary [P2]."
			api := newLLMServer(t, provider, func(c llmCall) llmReply {
				switch c.Stage {
				case stageChat:
					return llmReply{Text: answer, In: 300, Out: 30}
				case stagePlan:
					return llmReply{Text: planJSON("duckduckgo"), In: 900, Out: 160}
				case stageHeartbeat:
					return llmReply{Text: heartbeatDone, In: 700, Out: 25}
				case stageSynthesize:
					return llmReply{Text: "## Who is investigating WeWork\n\nDelivery happens at commit [P1].\n", In: 900, Out: 30}
				}
				t.Errorf("unexpected %q call:\n%s", c.Stage, clipText(c.Body, 500))
				return llmReply{Status: http.StatusBadRequest}
			})
			r := pipeline.NewRunner(pipeline.Options{Store: store, Engine: api.engine(t, testPrice, nil), Workers: 1,
				LeaseTTL: 5 * time.Second, PollInterval: 100 * time.Millisecond})
			r.Start()
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				r.Shutdown(ctx)
			})
			run, err := r.Submit(context.Background(), pipeline.Request{Question: "simplify that", Depth: research.DepthQuick, ParentID: second.ID})
			if err != nil {
				t.Fatal(err)
			}
			done := waitStatus(t, store, run.ID, research.StatusDone)
			if got := api.stages(); !equalStrings(got, []string{stageChat}) || done.Route != research.RouteChat {
				t.Fatalf("calls = %v, route %q; want one chat call", got, done.Route)
			}
			user := api.callsOf(stageChat)[0].User
			p1 := strings.Index(user, "[P1] Delivery\nPostgres delivers notifications when the transaction commits")
			p2 := strings.Index(user, "[P2] Replicas\nStandby servers do not receive notifications")
			if p1 < 0 || p2 < p1 || strings.Contains(user, "[P3]") || !strings.Contains(user, "Message:\nsimplify that") {
				t.Errorf("chat prompt does not carry the chain's sections as P1 (oldest), P2:\n%s", user)
			}
			rep, err := store.PublishedReport(context.Background(), run.ID)
			if err != nil {
				t.Fatal(err)
			}
			var doc report.Report
			if err := json.Unmarshal(rep.Citations, &doc); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(rep.Markdown, answer) || len(doc.Prior) != 2 || doc.Prior[0] != (report.Prior{ID: "P1", Heading: "Delivery"}) ||
				doc.Prior[1] != (report.Prior{ID: "P2", Heading: "Replicas"}) {
				t.Errorf("published answer %q with prior %+v", rep.Markdown, doc.Prior)
			}

			// A research follow-up of that answer sees all three reports,
			// the chat answer (no headings) as a section of its own.
			next, err := r.Submit(context.Background(), pipeline.Request{Question: "How do standby servers catch up on NOTIFY?", Depth: research.DepthQuick, ParentID: run.ID})
			if err != nil {
				t.Fatal(err)
			}
			waitStatus(t, store, next.ID, research.StatusDone)
			syn := api.callsOf(stageSynthesize)
			if len(syn) != 1 {
				t.Fatalf("calls = %v, want one synthesis", api.stages())
			}
			p1, p2 = strings.Index(syn[0].User, "[P1] Delivery\n"), strings.Index(syn[0].User, "[P2] Replicas\n")
			p3 := strings.Index(syn[0].User, "[P3] Answer\n"+answer)
			if p1 < 0 || p2 < p1 || p3 < p2 {
				t.Errorf("research follow-up's synthesis prompt lacks the chain P1, P2, P3:\n%s", clipText(syn[0].User, 4000))
			}
		})
	}
}
