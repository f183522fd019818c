package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/research"
)

// TestEventsReplayAfterLastEventID: a reconnect with Last-Event-ID N gets
// exactly the stored events after N, then the live ones, and the stream
// ends after the terminal event.
func TestEventsReplayAfterLastEventID(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	run := createRun(t, rep.store, "replay question") // seq 1: run_created
	for i := 2; i <= 6; i++ {
		appendEvent(t, rep.store, run.ID, research.EventStageStarted, research.StagePayload{Stage: fmt.Sprint("s", i), Status: research.StatusPlanning})
	}
	s := openSSE(t, rep.srv.URL+"/api/runs/"+run.ID+"/events", "3")
	if h := s.resp.Header.Get("X-Accel-Buffering"); h != "no" {
		t.Errorf("X-Accel-Buffering = %q", h)
	}
	if h := s.resp.Header.Get("Cache-Control"); h != "no-cache" {
		t.Errorf("Cache-Control = %q", h)
	}
	for want := int64(4); want <= 6; want++ {
		ev := s.next(t, 5*time.Second)
		got := apiEvent(t, ev)
		if ev.ID != strconv.FormatInt(want, 10) || got.Seq != want || ev.Event != research.EventStageStarted || got.RunID != run.ID {
			t.Fatalf("event %+v, want seq %d", ev, want)
		}
	}
	appendEvent(t, rep.store, run.ID, research.EventAction, research.ActionPayload{Idx: 1, Kind: "search", Query: "q", Status: research.ActionPending})
	appendEvent(t, rep.store, run.ID, research.EventRunFailed, research.FailedPayload{Status: research.StatusFailed, Error: "boom"})
	ev := s.next(t, 5*time.Second)
	if ev.ID != "7" || ev.Event != research.EventAction {
		t.Fatalf("live event %+v, want 7 action", ev)
	}
	ev = s.next(t, 5*time.Second)
	if ev.ID != "8" || ev.Event != research.EventRunFailed {
		t.Fatalf("live event %+v, want 8 run_failed", ev)
	}
	s.expectEnd(t, 5*time.Second)
}

// TestEventsAfterQueryAndHeader: the stream resumes after the larger of
// ?after= and Last-Event-ID, and a resume point past the end is clamped.
func TestEventsAfterQueryAndHeader(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	run := createRun(t, rep.store, "after question")
	for i := 0; i < 4; i++ {
		appendEvent(t, rep.store, run.ID, research.EventCheckpoint, map[string]int{"n": i})
	} // seqs 1..5
	tests := []struct {
		query, header string
		want          string
	}{
		{"?after=2", "", "3"},
		{"?after=2", "4", "5"},
		{"?after=4", "1", "5"},
		{"", "", "1"},
		{"?after=junk", "junk", "1"},
	}
	for _, tt := range tests {
		s := openSSE(t, rep.srv.URL+"/api/runs/"+run.ID+"/events"+tt.query, tt.header)
		if ev := s.next(t, 5*time.Second); ev.ID != tt.want {
			t.Errorf("query %q header %q: first id %s, want %s", tt.query, tt.header, ev.ID, tt.want)
		}
		s.resp.Body.Close()
	}
	// Past the end: nothing is replayed, the next live event arrives.
	s := openSSE(t, rep.srv.URL+"/api/runs/"+run.ID+"/events?after=99", "")
	appendEvent(t, rep.store, run.ID, research.EventCheckpoint, map[string]int{"n": 9})
	if ev := s.next(t, 5*time.Second); ev.ID != "6" {
		t.Errorf("after a bogus resume point: id %s, want 6", ev.ID)
	}
}

// TestEventsOfFinishedRun: a finished run replays up to its end and closes;
// reconnecting after the end gets 204 so the EventSource stops.
func TestEventsOfFinishedRun(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	run := createRun(t, rep.store, "finished question")
	if err := rep.runner.Cancel(context.Background(), run.ID); err != nil {
		t.Fatal(err)
	} // seq 2: run_cancelled
	s := openSSE(t, rep.srv.URL+"/api/runs/"+run.ID+"/events", "")
	if ev := s.next(t, 5*time.Second); ev.ID != "1" {
		t.Fatalf("first %+v", ev)
	}
	if ev := s.next(t, 5*time.Second); ev.ID != "2" || ev.Event != research.EventRunCancelled {
		t.Fatalf("second %+v", ev)
	}
	s.expectEnd(t, 5*time.Second)

	req, _ := http.NewRequest(http.MethodGet, rep.srv.URL+"/api/runs/"+run.ID+"/events", nil)
	req.Header.Set("Last-Event-ID", "2")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("reconnect after the end: %d, want 204", resp.StatusCode)
	}
}

// TestEventsAcrossReplicas: two routers on two stores and brokers sharing
// one database; a run created through one streams every event to a viewer
// of the other (NOTIFY carries the news, the table the events).
func TestEventsAcrossReplicas(t *testing.T) {
	a := newReplica(t, replicaOptions{})
	b := newReplica(t, replicaOptions{})
	resp, err := http.Post(a.srv.URL+"/api/runs", "application/json", strings.NewReader(`{"question":"cross-replica question","depth":"quick"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := strings.TrimPrefix(resp.Header.Get("Location"), "/api/runs/")
	s := openSSE(t, b.srv.URL+"/api/runs/"+id+"/events", "")
	if ev := s.next(t, 5*time.Second); ev.ID != "1" || ev.Event != research.EventRunCreated {
		t.Fatalf("first %+v", ev)
	}
	const n = 30
	go func() {
		for i := 0; i < n; i++ {
			appendEvent(t, a.store, id, research.EventSynthesisDelta, research.DeltaPayload{Text: fmt.Sprint("part ", i)})
		}
		appendEvent(t, a.store, id, research.EventRunFailed, research.FailedPayload{Status: research.StatusFailed, Error: "end"})
	}()
	for want := 2; want <= n+2; want++ {
		ev := s.next(t, 5*time.Second)
		if ev.ID != strconv.Itoa(want) {
			t.Fatalf("got id %s, want %d", ev.ID, want)
		}
	}
	s.expectEnd(t, 5*time.Second)
}

// TestSlowViewerDoesNotStallOthers: a viewer that never reads fills its
// own connection; another viewer of the same run still gets every event at
// once, and the slow one gets them all, in order, when it reads again.
func TestSlowViewerDoesNotStallOthers(t *testing.T) {
	rep := newReplica(t, replicaOptions{buffer: 2, sndbuf: 16 << 10})
	run := createRun(t, rep.store, "slow viewer question")

	// The slow viewer: a raw connection that sends its request and then
	// does not read.
	u := strings.TrimPrefix(rep.srv.URL, "http://")
	// A small receive window (set before connecting, so it is what the
	// server sees) makes the kernel absorb little of what is not read.
	dialer := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 32<<10) })
		return nil
	}}
	slow, err := dialer.Dial("tcp", u)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprintf(slow, "GET /api/runs/%s/events HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", run.ID, u)
	fast := openSSE(t, rep.srv.URL+"/api/runs/"+run.ID+"/events", "")
	if ev := fast.next(t, 5*time.Second); ev.ID != "1" {
		t.Fatalf("first %+v", ev)
	}

	// More than the socket buffers hold, so the slow viewer's stream
	// blocks in its write, and more than its broker subscription buffers
	// (64), so that lags and is caught up from the table.
	const n = 300
	big := strings.Repeat("evidence ", 8<<10/9) // ~8 KB per event
	start := time.Now()
	go func() {
		for batch := 0; batch < n/100; batch++ {
			err := rep.store.InTx(context.Background(), func(tx *db.Tx) error {
				for i := 0; i < 100; i++ {
					if _, err := tx.AppendEvent(context.Background(), run.ID, research.EventSynthesisDelta, research.DeltaPayload{Text: big}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Error(err)
				return
			}
		}
		t.Logf("inserted in %s", time.Since(start))
	}()
	for want := 2; want <= n+1; want++ {
		if ev := fast.next(t, 10*time.Second); ev.ID != strconv.Itoa(want) {
			t.Fatalf("fast viewer: id %s, want %d", ev.ID, want)
		}
	}
	t.Logf("fast viewer got %d events of %d KB in %s while the other did not read", n, len(big)>>10, time.Since(start))

	// The slow viewer reads now and gets everything, in order, once.
	slow.SetReadDeadline(time.Now().Add(20 * time.Second))
	want := 1
	buf := make([]byte, 0, 64<<10)
	chunk := make([]byte, 256<<10)
	for want <= n+1 {
		k, err := slow.Read(chunk)
		if err != nil {
			t.Fatalf("slow viewer after id %d: %v", want-1, err)
		}
		buf = append(buf, chunk[:k]...)
		for {
			i := strings.Index(string(buf), "\nid: ")
			if i < 0 {
				break
			}
			rest := buf[i+5:]
			j := strings.IndexByte(string(rest), '\n')
			if j < 0 {
				break
			}
			if got := string(rest[:j]); got != strconv.Itoa(want) {
				t.Fatalf("slow viewer: id %s, want %d", got, want)
			}
			want++
			buf = append(buf[:0], rest[j:]...)
		}
	}
}

// TestPageEventsRenderFragments: the run page's stream sends `update`
// events whose HTML replaces the parts of the page that changed.
func TestPageEventsRenderFragments(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	run := createRun(t, rep.store, "fragment question")
	s := openSSE(t, rep.srv.URL+"/runs/"+run.ID+"/events?after=1", "")
	spec := research.TaskSpec{Goal: "Find out", Criteria: []string{"first criterion", "second criterion"}, Sections: []string{"Answer"},
		Actions: []research.ActionSpec{{Kind: "search", Engine: "duckduckgo", Query: "fragment"}}}
	appendEvent(t, rep.store, run.ID, research.EventAwaitingApproval, research.PlanPayload{Status: research.StatusAwaitingApproval, Spec: spec})
	appendEvent(t, rep.store, run.ID, research.EventAction, research.ActionPayload{Idx: 1, Kind: "search", Engine: "duckduckgo", Query: "fragment <b>", Status: research.ActionPending})
	appendEvent(t, rep.store, run.ID, research.EventAction, research.ActionPayload{Idx: 1, Status: research.ActionSuccess, Preview: "found it"})
	appendEvent(t, rep.store, run.ID, research.EventHeartbeatDecision, research.DecisionPayload{Batch: 1, Done: true, Reason: "all criteria covered"})
	appendEvent(t, rep.store, run.ID, research.EventSynthesisDelta, research.DeltaPayload{Text: "Draft <script>x</script>"})
	appendEvent(t, rep.store, run.ID, research.EventRunCompleted, research.CompletedPayload{Status: research.StatusDone, HTML: "<p>The report</p>", ShareURL: "/r/tok"})

	ev := s.next(t, 5*time.Second)
	doc := mustDoc(t, strings.NewReader(ev.Data))
	if ev.Event != "update" || ev.ID != "2" {
		t.Fatalf("event %+v", ev)
	}
	if got := doc.Find("#status[hx-swap-oob=true] [data-testid=run-status]").Text(); got != string(research.StatusAwaitingApproval) {
		t.Errorf("status fragment %q", got)
	}
	if got := doc.Find("#plan[hx-swap-oob=true] [data-testid=edit-criterion]").First().Text(); got != "first criterion" {
		t.Errorf("plan review fragment: first criterion %q", got)
	}
	if doc.Find("#plan [data-testid=approve-form]").Length() != 1 {
		t.Errorf("plan awaiting approval lacks the approve form: %s", ev.Data)
	}

	ev = s.next(t, 5*time.Second)
	doc = mustDoc(t, strings.NewReader(ev.Data))
	li := doc.Find(`ol[hx-swap-oob="beforeend:#actions"] li#action-1[data-testid=action]`)
	if li.AttrOr("data-status", "") != string(research.ActionPending) || !strings.Contains(li.Text(), "fragment <b>") {
		t.Errorf("action append fragment: %s", ev.Data)
	}

	ev = s.next(t, 5*time.Second)
	doc = mustDoc(t, strings.NewReader(ev.Data))
	li = doc.Find(`li#action-1[hx-swap-oob=true]`)
	if li.AttrOr("data-status", "") != string(research.ActionSuccess) || !strings.Contains(li.Text(), "found it") || !strings.Contains(li.Text(), "fragment <b>") {
		t.Errorf("action update fragment: %s", ev.Data)
	}

	ev = s.next(t, 5*time.Second)
	if doc = mustDoc(t, strings.NewReader(ev.Data)); !strings.Contains(doc.Find(`[hx-swap-oob="beforeend:#decisions"] [data-testid=decision]`).Text(), "all criteria covered") {
		t.Errorf("decision fragment: %s", ev.Data)
	}

	ev = s.next(t, 5*time.Second)
	if strings.Contains(ev.Data, "<script>") || !strings.Contains(ev.Data, `hx-swap-oob="beforeend:#draft"`) {
		t.Errorf("draft fragment (must be escaped): %s", ev.Data)
	}

	ev = s.next(t, 5*time.Second)
	doc = mustDoc(t, strings.NewReader(ev.Data))
	if got := doc.Find("[data-testid=run-status]").Text(); got != string(research.StatusDone) {
		t.Errorf("final status %q", got)
	}
	if doc.Find("#run[hx-swap-oob=true] [data-testid=report] p").Text() != "The report" ||
		doc.Find("[data-testid=share-link]").AttrOr("href", "") != "/r/tok" {
		t.Errorf("report fragment: %s", ev.Data)
	}
	if doc.Find("[data-testid=stop]").Length() != 0 {
		t.Errorf("stop button still offered after the end")
	}
	// The stream holder is emptied, which closes the page's EventSource;
	// nothing inside the re-rendered run is itself swapped out of band.
	if live := doc.Find("#live[hx-swap-oob=true]"); live.Length() != 1 || live.Find("[sse-connect]").Length() != 0 {
		t.Errorf("stream holder not emptied: %s", ev.Data)
	}
	if n := doc.Find("#run [hx-swap-oob]").Length(); n != 0 {
		t.Errorf("%d nested out-of-band elements in the final fragment", n)
	}
	s.expectEnd(t, 5*time.Second)
}

// TestEventsHeartbeat: an idle stream carries a comment at the heartbeat
// interval.
func TestEventsHeartbeat(t *testing.T) {
	rep := newReplica(t, replicaOptions{heartbeat: 100 * time.Millisecond})
	run := createRun(t, rep.store, "heartbeat question")
	s := openSSE(t, rep.srv.URL+"/api/runs/"+run.ID+"/events?after=1", "")
	select {
	case ev := <-s.ch:
		if ev.Comment != "keep-alive" || ev.Data != "" {
			t.Errorf("first message %+v, want a keep-alive comment", ev)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("no heartbeat")
	}
}

// TestCloseStreamsEndsStreams: shutdown ends open streams promptly and
// refuses new ones.
func TestCloseStreamsEndsStreams(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	run := createRun(t, rep.store, "shutdown question")
	s1 := openSSE(t, rep.srv.URL+"/api/runs/"+run.ID+"/events?after=1", "")
	s2 := openSSE(t, rep.srv.URL+"/runs/"+run.ID+"/events?after=1", "")
	waitFor(t, func() bool { return rep.h.SSEClients() == 2 })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	if err := rep.h.CloseStreams(ctx); err != nil {
		t.Fatal(err)
	}
	s1.expectEnd(t, 2*time.Second)
	s2.expectEnd(t, 2*time.Second)
	t.Logf("streams closed in %s", time.Since(start))
	if n := rep.h.SSEClients(); n != 0 {
		t.Errorf("SSE clients after close: %d", n)
	}
	resp, err := http.Get(rep.srv.URL + "/api/runs/" + run.ID + "/events")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("new stream after close: %d, want 503", resp.StatusCode)
	}
}

// TestCloseStreamsCutsStuckViewer: a viewer that stopped reading, its
// stream blocked in a write, does not hold up shutdown until the write
// times out.
func TestCloseStreamsCutsStuckViewer(t *testing.T) {
	rep := newReplica(t, replicaOptions{sndbuf: 16 << 10})
	run := createRun(t, rep.store, "stuck viewer question")
	u := strings.TrimPrefix(rep.srv.URL, "http://")
	dialer := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 32<<10) })
		return nil
	}}
	stuck, err := dialer.Dial("tcp", u)
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	fmt.Fprintf(stuck, "GET /api/runs/%s/events HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", run.ID, u)
	waitFor(t, func() bool { return rep.h.SSEClients() == 1 })
	// Far more than the socket buffers hold: the stream blocks in a write.
	big := strings.Repeat("evidence ", 8<<10/9)
	err = rep.store.InTx(context.Background(), func(tx *db.Tx) error {
		for i := 0; i < 100; i++ {
			if _, err := tx.AppendEvent(context.Background(), run.ID, research.EventSynthesisDelta, research.DeltaPayload{Text: big}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // let the stream fill the buffers
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := rep.h.CloseStreams(ctx); err != nil {
		t.Fatalf("CloseStreams: %v after %s", err, time.Since(start))
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("shutdown waited %s for a viewer that does not read", d)
	}
	if n := rep.h.SSEClients(); n != 0 {
		t.Errorf("SSE clients after close: %d", n)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLiveFragmentsMatchPageLoad: a recorded run streamed to a page loaded
// before it began, each fragment swapped in as htmx swaps it, reads
// exactly like the page loaded afresh afterwards: the SSE path and the
// page load fold the same events into the same blocks.
func TestLiveFragmentsMatchPageLoad(t *testing.T) {
	rep := newReplica(t, replicaOptions{})
	run := createRun(t, rep.store, "Which SSE transport suits a Go server?")
	live := getPage(t, rep.srv.URL+"/runs/"+run.ID)
	s := openSSE(t, rep.srv.URL+"/runs/"+run.ID+"/events?after=1", "")

	ctx := context.Background()
	var last int64
	for _, rec := range recordedEvents(t) {
		// As the pipeline does: the row's status moves with the event
		// that says so.
		var st struct {
			Status research.RunStatus `json:"status"`
		}
		if rec.Type != research.EventAction {
			json.Unmarshal(rec.Payload, &st)
		}
		err := rep.store.InTx(ctx, func(tx *db.Tx) error {
			if st.Status != "" {
				if err := tx.UpdateRun(ctx, run.ID, db.RunUpdate{Status: &st.Status}); err != nil {
					return err
				}
			}
			ev, err := tx.AppendEvent(ctx, run.ID, rec.Type, rec.Payload)
			last = ev.Seq
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	blocks := []string{"status", "run-controls", "plan", "budget", "actions", "decisions", "report-block", "passes"}
	sent := map[string]bool{}
	for id := int64(0); id < last; {
		ev := s.next(t, 5*time.Second)
		if ev.Event != "update" {
			t.Fatalf("event %+v", ev)
		}
		id, _ = strconv.ParseInt(ev.ID, 10, 64)
		for _, b := range swapOOB(t, live, ev.Data) {
			sent[b] = true
		}
	}

	reloaded := getPage(t, rep.srv.URL+"/runs/"+run.ID)
	for _, b := range blocks {
		if !sent[b] {
			t.Errorf("no fragment changed #%s", b)
		}
		got, want := outerHTML(t, live, "#"+b), outerHTML(t, reloaded, "#"+b)
		if got != want {
			t.Errorf("#%s built live differs from the page load:\n--- live\n%s\n--- page load\n%s", b, got, want)
		}
	}
	if got, want := outerHTML(t, live, "#run"), outerHTML(t, reloaded, "#run"); got != want {
		t.Errorf("the run built live differs from the page load:\n--- live\n%s\n--- page load\n%s", got, want)
	}
	if got := reloaded.Find("#draft").Text(); !strings.HasPrefix(got, "## Reconnects\n\nAn EventSource resends") {
		t.Errorf("draft %q, want the repair pass's", got)
	}
	// The status classes the style sheet colours by.
	if reloaded.Find("[data-testid=run-status].badge.s-verifying").Length() != 1 || reloaded.Find("li.action.a-success").Length() != 2 ||
		reloaded.Find("li.action.a-error").Length() != 1 {
		t.Errorf("status classes: %s %s", outerHTML(t, reloaded, "#status"), outerHTML(t, reloaded, "#actions"))
	}
}

// recordedEvents are the events of runview's recorded run.
func recordedEvents(t *testing.T) []db.Event {
	t.Helper()
	b, err := os.ReadFile("runview/testdata/run.json")
	if err != nil {
		t.Fatal(err)
	}
	var evs []db.Event
	if err := json.Unmarshal(b, &evs); err != nil {
		t.Fatal(err)
	}
	return evs
}

func getPage(t *testing.T, url string) *goquery.Document {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	return mustDoc(t, resp.Body)
}

func outerHTML(t *testing.T, doc *goquery.Document, sel string) string {
	t.Helper()
	s := doc.Find(sel)
	if s.Length() != 1 {
		t.Fatalf("%d elements match %s", s.Length(), sel)
	}
	h, err := goquery.OuterHtml(s)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// swapOOB swaps a fragment into page as htmx does with hx-swap-oob: "true"
// replaces the element of the same id, "beforeend:<selector>" appends the
// element's children to the target. It returns the ids of the blocks it
// changed.
func swapOOB(t *testing.T, page *goquery.Document, fragment string) []string {
	t.Helper()
	var changed []string
	mustDoc(t, strings.NewReader(fragment)).Find("body").Children().Each(func(_ int, el *goquery.Selection) {
		how := el.AttrOr("hx-swap-oob", "")
		el.RemoveAttr("hx-swap-oob")
		switch {
		case how == "true":
			id := el.AttrOr("id", "")
			target := page.Find("#" + id)
			if target.Length() != 1 {
				t.Errorf("fragment replaces #%s, which the page has %d of", id, target.Length())
				return
			}
			// An item of a list belongs to its list's block.
			if list := target.ParentsFiltered("ol[id], ul[id]"); list.Length() > 0 {
				id = list.First().AttrOr("id", id)
			}
			target.ReplaceWithSelection(el)
			changed = append(changed, id)
		case strings.HasPrefix(how, "beforeend:#"):
			id := strings.TrimPrefix(how, "beforeend:#")
			target := page.Find("#" + id)
			if target.Length() != 1 {
				t.Errorf("fragment appends to #%s, which the page has %d of", id, target.Length())
				return
			}
			target.AppendSelection(el.Contents())
			if id == "draft" {
				id = "report-block"
			}
			changed = append(changed, id)
		default:
			t.Errorf("fragment element without an out-of-band swap: %s", el.Nodes[0].Data)
		}
	})
	return changed
}
