package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/engine/llm"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// Whole runs through the OpenAI and Anthropic engines, against scripted
// HTTP servers that speak the providers' real streaming protocols, so the
// real SDKs, the engine and every pipeline stage are exercised together.

// Stages of an LLM call, recognised from the stage's system prompt.
const (
	stagePlan       = "plan"
	stageHeartbeat  = "heartbeat"
	stageSynthesize = "synthesize"
	stageChat       = "chat"
)

// stageMarkers are phrases of the embedded prompts (engine/llm/prompts)
// that identify each stage in a request body.
var stageMarkers = []struct{ marker, stage string }{
	{"You plan web research for Quarry", stagePlan},
	{"You supervise a web research run", stageHeartbeat},
	{"You write research reports in Markdown strictly from numbered sources", stageSynthesize},
	{"You are Quarry, a research assistant", stageChat},
}

// retryMarker opens the prompt that asks again after an unusable JSON reply.
const retryMarker = "Your previous reply could not be used"

const (
	testModel  = "scripted-model"
	testAPIKey = "test"
)

// llmCall is one request the scripted server received.
type llmCall struct {
	Stage string // plan, heartbeat, synthesize, chat ("" if unrecognised)
	Nth   int    // earlier calls of the same stage
	Retry bool   // a retry quoting why the previous JSON reply was refused
	Body  string // raw request body
	User  string // text of the user turns
	Reply llmReply
}

// llmReply is the scripted answer to one call.
type llmReply struct {
	Status  int               // non-zero: answer with this HTTP error
	Header  map[string]string // extra response headers (Retry-After)
	Text    string            // streamed text of a successful answer
	In, Out int               // usage reported
}

// llmServer is a scripted hosted LLM API: an httptest server speaking the
// streaming protocol of OpenAI chat completions or Anthropic messages,
// answering each call from script, which sees the stage and the prompt.
type llmServer struct {
	t        *testing.T
	provider string
	script   func(c llmCall) llmReply
	srv      *httptest.Server

	mu      sync.Mutex
	calls   []llmCall
	in, out int // usage of the successful answers
}

func newLLMServer(t *testing.T, provider string, script func(c llmCall) llmReply) *llmServer {
	t.Helper()
	s := &llmServer{t: t, provider: provider, script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// engine returns a real llm.Engine pointed at the server, priced so that
// spend accrues, with retries waiting through sleep.
func (s *llmServer) engine(t *testing.T, price llm.Price, sleep func(time.Duration)) *llm.Engine {
	t.Helper()
	base := s.srv.URL + "/v1"
	if s.provider == llm.ProviderAnthropic {
		base = s.srv.URL // the Anthropic SDK adds /v1 itself
	}
	e, err := llm.New(llm.Options{
		Provider:      s.provider,
		BaseURL:       base,
		APIKey:        testAPIKey,
		Model:         testModel,
		Prices:        map[string]llm.Price{testModel: price},
		ContextWindow: 32000,
		Sleep:         sleep,
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// stages lists the stage of every call so far, retries marked "+retry".
func (s *llmServer) stages() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.calls))
	for i, c := range s.calls {
		out[i] = c.Stage
		if c.Retry {
			out[i] += "+retry"
		}
		if c.Reply.Status != 0 {
			out[i] += fmt.Sprintf("(%d)", c.Reply.Status)
		}
	}
	return out
}

// callsOf returns the calls of one stage, in order.
func (s *llmServer) callsOf(stage string) []llmCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []llmCall
	for _, c := range s.calls {
		if c.Stage == stage {
			out = append(out, c)
		}
	}
	return out
}

// usage is the tokens the server reported in successful answers.
func (s *llmServer) usage() (in, out int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.in, s.out
}

func (s *llmServer) serve(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		s.t.Errorf("read request: %v", err)
		return
	}
	s.checkRequest(r, raw)
	c := llmCall{Body: string(raw), User: userTurns(raw), Retry: strings.Contains(string(raw), retryMarker)}
	for _, m := range stageMarkers {
		if strings.Contains(c.Body, m.marker) {
			c.Stage = m.stage
			break
		}
	}
	s.mu.Lock()
	for _, prev := range s.calls {
		if prev.Stage == c.Stage {
			c.Nth++
		}
	}
	s.mu.Unlock()
	c.Reply = s.script(c)
	s.mu.Lock()
	s.calls = append(s.calls, c)
	if c.Reply.Status == 0 {
		s.in += c.Reply.In
		s.out += c.Reply.Out
	}
	s.mu.Unlock()

	rep := c.Reply
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	if rep.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		if s.provider == llm.ProviderAnthropic {
			fmt.Fprintf(w, `{"type":"error","error":{"type":"rate_limit_error","message":"scripted %d"}}`, rep.Status)
		} else {
			fmt.Fprintf(w, `{"error":{"message":"scripted %d","type":"rate_limit_exceeded","param":null,"code":null}}`, rep.Status)
		}
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if s.provider == llm.ProviderAnthropic {
		s.streamAnthropic(w, rep)
	} else {
		s.streamOpenAI(w, rep)
	}
}

// checkRequest asserts what every call of the provider's SDK must send.
func (s *llmServer) checkRequest(r *http.Request, raw []byte) {
	var body struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		s.t.Errorf("request body is not JSON: %v", err)
	}
	if body.Model != testModel || !body.Stream {
		s.t.Errorf("request model %q stream %v, want %q streaming", body.Model, body.Stream, testModel)
	}
	switch s.provider {
	case llm.ProviderAnthropic:
		if r.URL.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != testAPIKey || r.Header.Get("Anthropic-Version") == "" {
			s.t.Errorf("anthropic request %s key %q version %q", r.URL.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Anthropic-Version"))
		}
	default:
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+testAPIKey {
			s.t.Errorf("openai request %s auth %q", r.URL.Path, r.Header.Get("Authorization"))
		}
		if !strings.Contains(string(raw), `"include_usage":true`) {
			s.t.Errorf("openai request does not ask for usage: %s", clipText(string(raw), 300))
		}
	}
}

// send writes one server-sent event and flushes it.
func (s *llmServer) send(w http.ResponseWriter, event string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.t.Errorf("marshal event: %v", err)
		return
	}
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	w.(http.Flusher).Flush()
}

// streamOpenAI answers as chat.completion.chunk events: a role chunk, the
// text in pieces, a finish chunk, a usage chunk, then [DONE].
func (s *llmServer) streamOpenAI(w http.ResponseWriter, rep llmReply) {
	chunk := func(choices []any, usage any) map[string]any {
		return map[string]any{"id": "chatcmpl-scripted", "object": "chat.completion.chunk",
			"created": time.Now().Unix(), "model": testModel, "choices": choices, "usage": usage}
	}
	choice := func(delta map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}
	}
	s.send(w, "", chunk(choice(map[string]any{"role": "assistant", "content": ""}, nil), nil))
	for _, piece := range pieces(rep.Text, 24) {
		s.send(w, "", chunk(choice(map[string]any{"content": piece}, nil), nil))
	}
	s.send(w, "", chunk(choice(map[string]any{}, "stop"), nil))
	s.send(w, "", chunk([]any{}, map[string]any{"prompt_tokens": rep.In, "completion_tokens": rep.Out, "total_tokens": rep.In + rep.Out}))
	fmt.Fprint(w, "data: [DONE]\n\n")
	w.(http.Flusher).Flush()
}

// streamAnthropic answers as message_start, a text content block of
// content_block_delta events, message_delta with the usage, message_stop.
func (s *llmServer) streamAnthropic(w http.ResponseWriter, rep llmReply) {
	s.send(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_scripted", "type": "message", "role": "assistant", "model": testModel,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": rep.In, "output_tokens": 1}}})
	s.send(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	s.send(w, "ping", map[string]any{"type": "ping"})
	for _, piece := range pieces(rep.Text, 24) {
		s.send(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": piece}})
	}
	s.send(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.send(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": rep.Out}})
	s.send(w, "message_stop", map[string]any{"type": "message_stop"})
}

// pieces cuts s into chunks of about n bytes, on character boundaries, as a
// model streams tokens.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut < len(s) && s[cut]&0xC0 == 0x80 {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

// userTurns returns the text of the user turns of a request body, for
// either protocol (string content or text blocks).
func userTurns(raw []byte) string {
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(raw, &body)
	var b strings.Builder
	for _, m := range body.Messages {
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			b.WriteString(s + "\n")
			continue
		}
		var blocks []struct {
			Text string `json:"text"`
		}
		json.Unmarshal(m.Content, &blocks)
		for _, bl := range blocks {
			b.WriteString(bl.Text + "\n")
		}
	}
	return b.String()
}

// The scripted model: a plan, a heartbeat and reports that quote the
// evidence the synthesis prompt shows it.

// planCriteria double as section headings, so each section answers its
// criterion.
var planCriteria = []string{
	"Who is investigating WeWork",
	"What the investigation concerns",
	"How WeWork has responded",
}

// planJSON is a valid research plan with two searches on engine.
func planJSON(engine string) string {
	b, _ := json.Marshal(map[string]any{
		"route":    "research",
		"goal":     "Explain why the New York attorney general is investigating WeWork.",
		"criteria": planCriteria,
		"sections": planCriteria,
		"actions": []map[string]any{
			{"kind": "search", "engine": engine, "query": "WeWork attorney general investigation", "priority": 1, "reason": planCriteria[0]},
			{"kind": "search", "engine": engine, "query": "WeWork Adam Neumann self-dealing", "priority": 1, "reason": planCriteria[1]},
		},
		"assumptions": []string{},
		"clarity":     0.9,
		"questions":   []string{},
	})
	return string(b)
}

const heartbeatDone = `{"done": true, "reason": "Every criterion is addressed by the sources gathered."}`

// unsupportedClaim is a sentence no source states, cited to a real source
// in the form the synthesis prompt asks for.
const unsupportedClaim = "WeWork was fined $9 billion by the European Commission in 2019"

// evidenceSource is one source as the synthesis prompt shows it.
type evidenceSource struct {
	ID       string
	URL      string
	Findings []string
}

var sourceHeadRe = regexp.MustCompile(`(?m)^\[(S\d+)\] .*\nURL: (\S+)`)

// parseEvidence reads the sources and their key findings out of the user
// turn of a synthesis request.
func parseEvidence(user string) []evidenceSource {
	sources, evidence, _ := strings.Cut(user, "\nEvidence for each part of the question")
	var out []evidenceSource
	at := map[string]int{}
	for _, h := range sourceHeadRe.FindAllStringSubmatch(sources, -1) {
		at[h[1]] = len(out)
		out = append(out, evidenceSource{ID: h[1], URL: h[2]})
	}
	// Each part's key sentences: "[S2] sentence", quotable as findings.
	for _, m := range evidenceLineRe.FindAllStringSubmatch(evidence, -1) {
		if i, ok := at[m[1]]; ok && !slices.Contains(out[i].Findings, m[2]) {
			out[i].Findings = append(out[i].Findings, m[2])
		}
	}
	return out
}

var evidenceLineRe = regexp.MustCompile(`(?m)^\[(S\d+)\] (.+)$`)

// parseSections reads the headings the synthesis prompt asks for.
func parseSections(user string) []string {
	_, rest, ok := strings.Cut(user, "Write these sections, in this order:\n")
	if !ok {
		return nil
	}
	var out []string
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "## ") {
			break
		}
		out = append(out, strings.TrimPrefix(line, "## "))
	}
	return out
}

var innerStopRe = regexp.MustCompile(`[.!?]["”’)]?\s`)

// quotable reports whether a finding is one plain sentence that can be
// quoted verbatim with a citation before its final period.
func quotable(f string) bool {
	return len(f) >= 40 && len(f) <= 300 && strings.HasSuffix(f, ".") &&
		!innerStopRe.MatchString(f) && !strings.ContainsAny(f, "[]*_`#")
}

// heldFrom reports whether a published report is the model's text held
// answer first (engine/llm): it opens with the model's first heading, and
// every cited sentence it has before its Sources list is one the model
// wrote or a key sentence of the evidence it was given.
func heldFrom(published, written string) bool {
	body, _, _ := strings.Cut(published, "\n## Sources")
	first, _, _ := strings.Cut(strings.TrimSpace(written), "\n")
	if !strings.HasPrefix(body, first) {
		return false
	}
	for _, h := range regexp.MustCompile(`(?m)^## .*$`).FindAllString(body, -1) {
		if !strings.Contains(written, h) {
			return false
		}
	}
	return true
}

// draft is what the scripted model writes: one section per requested
// heading, each quoting verbatim a finding of the sources in turn.
type draft struct {
	sections []string
	lines    [][]string // per section, its sentences
	quoted   []string   // the verbatim findings used, without the period
	sources  []evidenceSource
}

// citedReport builds a report from a synthesis request's user turn.
func citedReport(t *testing.T, user string) *draft {
	t.Helper()
	rep := &draft{sections: parseSections(user), sources: parseEvidence(user)}
	if len(rep.sections) == 0 || len(rep.sources) == 0 {
		t.Errorf("synthesis prompt shows %d sections and %d sources:\n%s", len(rep.sections), len(rep.sources), clipText(user, 3000))
		return rep
	}
	used := map[string]bool{}
	for i := range rep.sections {
		var line string
		for k := 0; k < len(rep.sources) && line == ""; k++ {
			src := rep.sources[(i+k)%len(rep.sources)]
			for _, f := range src.Findings {
				if quotable(f) && !used[f] {
					used[f] = true
					body := strings.TrimSuffix(f, ".")
					rep.quoted = append(rep.quoted, body)
					line = fmt.Sprintf("%s [%s].", body, src.ID)
					break
				}
			}
		}
		// A section the evidence has nothing more for stays empty, as the
		// prompt asks (length follows the evidence).
		var lines []string
		if line != "" {
			lines = []string{line}
		}
		rep.lines = append(rep.lines, lines)
	}
	if len(rep.quoted) == 0 {
		t.Errorf("no quotable finding in:\n%s", clipText(user, 3000))
	}
	return rep
}

// add appends a sentence to section i.
func (r *draft) add(i int, sentence string) {
	if i < len(r.lines) {
		r.lines[i] = append(r.lines[i], sentence)
	}
}

// fabricated adds the two faults verification must catch: a real quote
// cited to [S7], which does not exist, and a claim its source does not
// support.
func (r *draft) fabricated() *draft {
	if len(r.quoted) > 0 {
		r.add(len(r.lines)-1, r.quoted[0]+" [S7].")
	}
	r.add(0, unsupportedClaim+" [S1].")
	return r
}

func (r *draft) markdown() string {
	var b strings.Builder
	for i, sec := range r.sections {
		fmt.Fprintf(&b, "## %s\n\n", sec)
		if i < len(r.lines) {
			b.WriteString(strings.Join(r.lines[i], " "))
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

// Helpers shared by the tests below.

// sleepLog records the waits the engine asked for between retries.
type sleepLog struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleepLog) sleep(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
}

func (s *sleepLog) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// runEvents returns the run's events, asserting their seqs have no gap.
func runEvents(t *testing.T, store *db.Store, id string) []db.Event {
	t.Helper()
	evs, err := store.EventsAfter(context.Background(), id, 0, 5000)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event seq gap at %d: %d", i, e.Seq)
		}
	}
	return evs
}

// payloads decodes the payloads of the events of one type.
func payloads[T any](t *testing.T, evs []db.Event, typ string) []T {
	t.Helper()
	var out []T
	for _, e := range evs {
		if e.Type != typ {
			continue
		}
		var p T
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			t.Fatalf("%s payload: %v", typ, err)
		}
		out = append(out, p)
	}
	return out
}

// runSpend decodes runs.spend.
func runSpend(t *testing.T, run *db.Run) engine.Usage {
	t.Helper()
	var u engine.Usage
	if err := json.Unmarshal(run.Spend, &u); err != nil {
		t.Fatalf("runs.spend %s: %v", run.Spend, err)
	}
	return u
}

// checkSpend asserts the run's recorded spend is exactly what the server
// reported in calls successful answers, at price.
func checkSpend(t *testing.T, run *db.Run, api *llmServer, calls int, price llm.Price) {
	t.Helper()
	u := runSpend(t, run)
	in, out := api.usage()
	want := (float64(in)*price.Input + float64(out)*price.Output) / 1e6
	if u.Calls != calls || u.InputTokens != in || u.OutputTokens != out || math.Abs(u.USD-want) > 1e-9 || u.USD <= 0 {
		t.Errorf("runs.spend = %+v, want %d calls, %d+%d tokens, $%.6f", u, calls, in, out, want)
	}
}

// publishedReport returns the run's published report and its verification.
func publishedReport(t *testing.T, store *db.Store, id string) (*db.Report, research.VerificationPayload) {
	t.Helper()
	rep, err := store.PublishedReport(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var ver research.VerificationPayload
	if err := json.Unmarshal(rep.Verification, &ver); err != nil {
		t.Fatal(err)
	}
	return rep, ver
}

// checkCitationsResolve asserts every [S#] of md names a source of the run.
func checkCitationsResolve(t *testing.T, store *db.Store, id, md string) {
	t.Helper()
	sources, err := store.Sources(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, s := range sources {
		ids[fmt.Sprintf("S%d", s.SID)] = true
	}
	cites := citeRe.FindAllStringSubmatch(md, -1)
	if len(cites) == 0 {
		t.Errorf("report has no citations:\n%s", md)
	}
	for _, c := range cites {
		if !ids[c[1]] {
			t.Errorf("citation [%s] names no source of the run", c[1])
		}
	}
}

func equalStrings(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00")
}

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

const weworkQuestion = "Why is the New York attorney general investigating WeWork?"

var testPrice = llm.Price{Input: 3, Output: 15}

// TestOpenAIRunEndToEnd runs a standard-depth research through the OpenAI
// engine: plan, one gather batch, a heartbeat that stops, a synthesis that
// quotes the fetched pages, verification, publish, and spend on the run.
func TestOpenAIRunEndToEnd(t *testing.T) {
	s := newSite(t, 0)
	api := newLLMServer(t, llm.ProviderOpenAI, func(c llmCall) llmReply {
		switch c.Stage {
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
	run, err := r.Submit(context.Background(), pipeline.Request{Question: weworkQuestion, Depth: research.DepthStandard})
	if err != nil {
		t.Fatal(err)
	}
	done := waitStatus(t, store, run.ID, research.StatusDone)

	if got, want := api.stages(), []string{stagePlan, stageHeartbeat, stageSynthesize}; !equalStrings(got, want) {
		t.Fatalf("calls = %v, want %v", got, want)
	}
	written := api.callsOf(stageSynthesize)[0].Reply.Text
	if hb := api.callsOf(stageHeartbeat); len(hb) == 1 && !strings.Contains(hb[0].User, "[S1]") {
		t.Errorf("heartbeat prompt lists no gathered source:\n%s", hb[0].User)
	}
	rep, ver := publishedReport(t, store, run.ID)
	if !ver.Passed || ver.Validity != 1 || ver.Support < 0.9 {
		t.Errorf("verification = %+v, want passed\n%s", ver, rep.Markdown)
	}
	if want := api.provider + " (" + testModel + ")"; rep.Engine != want {
		t.Errorf("report engine = %q, want %q", rep.Engine, want)
	}
	if !heldFrom(rep.Markdown, written) || !strings.Contains(rep.Markdown, "## Sources") {
		t.Errorf("published report is not the synthesis, held answer first, plus a Sources list:\n%s", rep.Markdown)
	}
	checkCitationsResolve(t, store, run.ID, rep.Markdown)
	checkSpend(t, done, api, 3, testPrice)

	evs := runEvents(t, store, run.ID)
	var streamed strings.Builder
	for _, d := range payloads[research.DeltaPayload](t, evs, research.EventSynthesisDelta) {
		streamed.WriteString(d.Text)
	}
	if streamed.String() != written {
		t.Errorf("streamed text differs from what the model wrote:\n%q\nvs\n%q", streamed.String(), written)
	}
	if hb := payloads[research.DecisionPayload](t, evs, research.EventHeartbeatDecision); len(hb) != 1 || !hb[0].Done {
		t.Errorf("heartbeat decisions = %+v, want one done", hb)
	}
	if c := payloads[research.CompletedPayload](t, evs, research.EventRunCompleted); len(c) != 1 || c[0].Warning != "" {
		t.Errorf("run_completed = %+v, want one without warning", c)
	}
	t.Logf("report:\n%s", rep.Markdown)
}

// TestAnthropicRunEndToEnd runs the same research through the Anthropic
// engine, with a malformed plan answered by a retry that quotes the
// validation error, and a 429 with Retry-After before the synthesis.
func TestAnthropicRunEndToEnd(t *testing.T) {
	s := newSite(t, 0)
	const malformed = "Sure! Here is the plan: {\"route\": \"research\", \"goal\": \"WeWork\", \"criteria\": ["
	api := newLLMServer(t, llm.ProviderAnthropic, func(c llmCall) llmReply {
		switch {
		case c.Stage == stagePlan && c.Nth == 0:
			return llmReply{Text: malformed, In: 850, Out: 30}
		case c.Stage == stagePlan:
			return llmReply{Text: "```json\n" + planJSON(s.engine()) + "\n```", In: 950, Out: 170}
		case c.Stage == stageHeartbeat:
			return llmReply{Text: heartbeatDone, In: 650, Out: 20}
		case c.Stage == stageSynthesize && c.Nth == 0:
			return llmReply{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "1"}}
		case c.Stage == stageSynthesize:
			return llmReply{Text: citedReport(t, c.User).markdown(), In: 3100, Out: 400}
		}
		t.Errorf("unexpected %q call:\n%s", c.Stage, clipText(c.Body, 500))
		return llmReply{Status: http.StatusBadRequest}
	})
	sleeps := &sleepLog{}
	r, store := newRunner(t, s, api.engine(t, testPrice, sleeps.sleep))
	run, err := r.Submit(context.Background(), pipeline.Request{Question: weworkQuestion, Depth: research.DepthStandard})
	if err != nil {
		t.Fatal(err)
	}
	done := waitStatus(t, store, run.ID, research.StatusDone)

	want := []string{stagePlan, stagePlan + "+retry", stageHeartbeat, stageSynthesize + "(429)", stageSynthesize}
	if got := api.stages(); !equalStrings(got, want) {
		t.Fatalf("calls = %v, want %v", got, want)
	}
	written := api.callsOf(stageSynthesize)[1].Reply.Text
	retry := api.callsOf(stagePlan)[1]
	if !regexp.MustCompile(retryMarker + `: [^\n]*JSON`).MatchString(retry.User) {
		t.Errorf("plan retry does not quote the validation error:\n%s", retry.User)
	}
	if !strings.Contains(retry.Body, `"role":"assistant"`) || !strings.Contains(retry.Body, "Here is the plan:") {
		t.Errorf("plan retry does not show the refused reply:\n%s", clipText(retry.Body, 2000))
	}
	if got := sleeps.all(); len(got) != 1 || got[0] != time.Second {
		t.Errorf("retry waits = %v, want [1s] from Retry-After", got)
	}
	var spec research.TaskSpec
	json.Unmarshal(done.TaskSpec, &spec)
	if !equalStrings(spec.Criteria, planCriteria) || len(spec.Actions) != 2 {
		t.Errorf("run's plan = %+v, want the retried plan", spec)
	}
	rep, ver := publishedReport(t, store, run.ID)
	if !ver.Passed || ver.Validity != 1 {
		t.Errorf("verification = %+v, want passed\n%s", ver, rep.Markdown)
	}
	if !heldFrom(rep.Markdown, written) {
		t.Errorf("published report is not the synthesis, held answer first:\n%s", rep.Markdown)
	}
	checkCitationsResolve(t, store, run.ID, rep.Markdown)
	// Both plan answers are paid for; the refused 429 is not.
	checkSpend(t, done, api, 4, testPrice)
}

// TestFabricatedCitationIsRepaired has the first synthesis cite a source
// that does not exist and make a claim no source supports: verification
// must fail it and a repair pass must get the failures as feedback. When the
// repair is clean, it is published; when it is as bad, the best version is
// published with a warning and its unsupported sentences marked.
func TestFabricatedCitationIsRepaired(t *testing.T) {
	cases := []struct {
		name       string
		cleanAfter bool // the repair pass writes a clean report
	}{
		{"repair succeeds", true},
		{"repair fails too", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, 0)
			api := newLLMServer(t, llm.ProviderOpenAI, func(c llmCall) llmReply {
				switch {
				case c.Stage == stagePlan:
					return llmReply{Text: planJSON(s.engine()), In: 900, Out: 160}
				case c.Stage == stageHeartbeat:
					return llmReply{Text: heartbeatDone, In: 700, Out: 25}
				case c.Stage == stageSynthesize && (c.Nth == 0 || !tc.cleanAfter):
					return llmReply{Text: citedReport(t, c.User).fabricated().markdown(), In: 3200, Out: 450}
				case c.Stage == stageSynthesize:
					return llmReply{Text: citedReport(t, c.User).markdown(), In: 3600, Out: 420}
				}
				t.Errorf("unexpected %q call:\n%s", c.Stage, clipText(c.Body, 500))
				return llmReply{Status: http.StatusBadRequest}
			})
			r, store := newRunner(t, s, api.engine(t, testPrice, nil))
			run, err := r.Submit(context.Background(), pipeline.Request{Question: weworkQuestion, Depth: research.DepthStandard})
			if err != nil {
				t.Fatal(err)
			}
			done := waitStatus(t, store, run.ID, research.StatusDone)

			want := []string{stagePlan, stageHeartbeat, stageSynthesize, stageSynthesize}
			if got := api.stages(); !equalStrings(got, want) {
				t.Fatalf("calls = %v, want %v (one repair pass at depth standard)", got, want)
			}
			repair := api.callsOf(stageSynthesize)[1].User
			for _, part := range []string{"This is a revision", "[S7], which is not a source of this run",
				"is not supported by [S1]", unsupportedClaim, "Previous draft:"} {
				if !strings.Contains(repair, part) {
					t.Errorf("repair prompt lacks %q:\n%s", part, clipText(repair, 4000))
				}
			}

			evs := runEvents(t, store, run.ID)
			vers := payloads[research.VerificationPayload](t, evs, research.EventVerification)
			if len(vers) != 2 || vers[0].Passed || vers[0].Validity >= 1 || vers[0].Support >= 0.9 {
				t.Fatalf("verifications = %+v, want the first failing validity and support", vers)
			}
			repairs := payloads[research.RepairPayload](t, evs, research.EventRepairStarted)
			if len(repairs) != 1 || repairs[0].Pass != 2 || !strings.Contains(strings.Join(repairs[0].Failures, "\n"), "[S7]") {
				t.Errorf("repair_started = %+v, want pass 2 naming [S7]", repairs)
			}
			completed := payloads[research.CompletedPayload](t, evs, research.EventRunCompleted)
			if len(completed) != 1 {
				t.Fatalf("%d run_completed events", len(completed))
			}
			rep, ver := publishedReport(t, store, run.ID)
			checkSpend(t, done, api, 4, testPrice)

			if tc.cleanAfter {
				if !vers[1].Passed || !ver.Passed || ver.Pass != 2 || ver.Validity != 1 {
					t.Errorf("verification = %+v (events %+v), want pass 2 passed", ver, vers)
				}
				if strings.Contains(rep.Markdown, "[S7]") || strings.Contains(rep.Markdown, "9 billion") || strings.Contains(rep.Markdown, "unverified") {
					t.Errorf("published report keeps the faults:\n%s", rep.Markdown)
				}
				if completed[0].Warning != "" {
					t.Errorf("warning %q on a passing report", completed[0].Warning)
				}
				checkCitationsResolve(t, store, run.ID, rep.Markdown)
				return
			}
			if vers[1].Passed || ver.Passed {
				t.Errorf("verification = %+v, want failed", ver)
			}
			if !strings.Contains(completed[0].Warning, "Verification fell short") {
				t.Errorf("warning = %q, want one saying verification fell short", completed[0].Warning)
			}
			for _, mark := range []string{
				unsupportedClaim + " [S1]. *(unverified: not supported by the cited source)*",
				"[S7]. *(unverified: cites a source that does not exist)*",
			} {
				if !strings.Contains(rep.Markdown, mark) {
					t.Errorf("published report lacks %q:\n%s", mark, rep.Markdown)
				}
			}
			if n := strings.Count(rep.Markdown, "*(unverified:"); n != 2 {
				t.Errorf("%d sentences marked unverified, want exactly the 2 faulty ones:\n%s", n, rep.Markdown)
			}
			if !strings.Contains(rep.HTML, "unverified: not supported by the cited source") {
				t.Errorf("report HTML does not show the mark:\n%s", rep.HTML)
			}
		})
	}
}

// TestCostBudgetStopsRun prices the model so that the plan call alone
// exceeds the run's budget: the run must stop there, visibly, with
// budget_exceeded, and make no further LLM call or page visit.
func TestCostBudgetStopsRun(t *testing.T) {
	s := newSite(t, 0)
	api := newLLMServer(t, llm.ProviderOpenAI, func(c llmCall) llmReply {
		if c.Stage == stagePlan {
			return llmReply{Text: planJSON(s.engine()), In: 1000, Out: 100}
		}
		t.Errorf("%s call after the budget was spent", c.Stage)
		return llmReply{Status: http.StatusBadRequest}
	})
	price := llm.Price{Input: 1000, Output: 1000} // the plan costs $1.10
	store := dbtest.NewStore(t)
	r := pipeline.NewRunner(pipeline.Options{
		Store:        store,
		Engine:       api.engine(t, price, nil),
		Gatherer:     testGatherer(t, s.hostPort()),
		Engines:      []string{s.engine()},
		Workers:      1,
		LeaseTTL:     5 * time.Second,
		PollInterval: 100 * time.Millisecond,
		RunBudgetUSD: 0.5,
	})
	r.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r.Shutdown(ctx)
	})
	ctx := context.Background()
	run, err := r.Submit(ctx, pipeline.Request{Question: weworkQuestion, Depth: research.DepthStandard})
	if err != nil {
		t.Fatal(err)
	}
	end := waitStatus(t, store, run.ID, research.StatusFailed, research.StatusDone)

	if got := api.stages(); !equalStrings(got, []string{stagePlan}) {
		t.Errorf("calls = %v, want the plan only", got)
	}
	if !strings.Contains(end.Error+" "+end.StopReason, "budget_exceeded") {
		t.Errorf("run ended %s with error %q, stop reason %q; want budget_exceeded shown", end.Status, end.Error, end.StopReason)
	}
	checkSpend(t, end, api, 1, price)
	actions, err := store.Actions(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	searched := append([]string(nil), s.queries...)
	s.mu.Unlock()
	// The one search is the preliminary search, before the plan's call.
	if len(actions) != 0 || !equalStrings(searched, []string{weworkQuestion}) {
		t.Errorf("%d actions and searches %q ran; want no action and only the preliminary search", len(actions), searched)
	}
	evs := runEvents(t, store, run.ID)
	if end.Status == research.StatusFailed {
		f := payloads[research.FailedPayload](t, evs, research.EventRunFailed)
		if len(f) != 1 || !strings.Contains(f[0].Error, "budget_exceeded") {
			t.Errorf("run_failed events = %+v, want one naming budget_exceeded", f)
		}
	}
	t.Logf("run ended %s: %s%s", end.Status, end.Error, end.StopReason)
}
