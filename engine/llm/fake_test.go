package llm

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// step is one scripted answer of the fake API.
type step struct {
	status   int               // non-zero: answer with this error status
	header   map[string]string // extra response headers
	chunks   []string          // text deltas of a successful stream
	thinking []string          // Anthropic thinking deltas, sent as their own block
	in, out  int               // usage to report
	noUsage  bool              // report no usage at all
	hangup   bool              // close the connection without answering
	cutAfter int               // >0: drop the connection after this many chunks
}

// fakeAPI is an httptest server speaking the real streaming protocol of
// OpenAI chat completions or Anthropic messages, answering from a script
// and recording every request body.
type fakeAPI struct {
	t        *testing.T
	protocol string
	srv      *httptest.Server
	mu       sync.Mutex
	script   []step
	bodies   []map[string]any
	raw      []string // bodies as sent
	paths    []string
	headers  []http.Header
}

func newFakeAPI(t *testing.T, protocol string, script ...step) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, protocol: protocol, script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.raw)
}

// body returns the i-th request body, decoded.
func (f *fakeAPI) body(i int) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.bodies) {
		f.t.Fatalf("request %d was never made (%d requests)", i, len(f.bodies))
	}
	return f.bodies[i]
}

// header returns the headers of the i-th request.
func (f *fakeAPI) header(i int) http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.headers[i]
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var decoded map[string]any
	if err := json.Unmarshal(b, &decoded); err != nil {
		f.t.Errorf("request body is not JSON: %v", err)
	}
	f.mu.Lock()
	f.raw = append(f.raw, string(b))
	f.bodies = append(f.bodies, decoded)
	f.paths = append(f.paths, r.URL.Path)
	f.headers = append(f.headers, r.Header.Clone())
	if len(f.script) == 0 {
		f.mu.Unlock()
		f.t.Errorf("unexpected request %d: script exhausted", len(f.raw))
		http.Error(w, "script exhausted", http.StatusTeapot)
		return
	}
	s := f.script[0]
	f.script = f.script[1:]
	f.mu.Unlock()

	wantPath := "/v1/chat/completions"
	if f.protocol == ProviderAnthropic {
		wantPath = "/v1/messages"
	}
	if r.URL.Path != wantPath {
		f.t.Errorf("path %q, want %q", r.URL.Path, wantPath)
	}
	if s.hangup {
		hangUp(w)
		return
	}
	for k, v := range s.header {
		w.Header().Set(k, v)
	}
	if s.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.status)
		if f.protocol == ProviderAnthropic {
			fmt.Fprintf(w, `{"type":"error","error":{"type":"rate_limit_error","message":"scripted %d"}}`, s.status)
		} else {
			fmt.Fprintf(w, `{"error":{"message":"scripted %d","type":"server_error","param":null,"code":null}}`, s.status)
		}
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if f.protocol == ProviderAnthropic {
		f.streamAnthropic(w, s)
	} else {
		f.streamOpenAI(w, s)
	}
}

func (f *fakeAPI) send(w http.ResponseWriter, event string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		f.t.Fatal(err)
	}
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	w.(http.Flusher).Flush()
}

func (f *fakeAPI) streamOpenAI(w http.ResponseWriter, s step) {
	chunk := func(choices []any, usage any) map[string]any {
		return map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk",
			"created": 1700000000, "model": "test-model", "choices": choices, "usage": usage}
	}
	choice := func(delta map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}
	}
	f.send(w, "", chunk(choice(map[string]any{"role": "assistant", "content": ""}, nil), nil))
	for i, c := range s.chunks {
		if s.cutAfter > 0 && i == s.cutAfter {
			hangUp(w)
			return
		}
		f.send(w, "", chunk(choice(map[string]any{"content": c}, nil), nil))
	}
	f.send(w, "", chunk(choice(map[string]any{}, "stop"), nil))
	if !s.noUsage {
		f.send(w, "", chunk([]any{}, map[string]any{"prompt_tokens": s.in, "completion_tokens": s.out, "total_tokens": s.in + s.out}))
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	w.(http.Flusher).Flush()
}

func (f *fakeAPI) streamAnthropic(w http.ResponseWriter, s step) {
	f.send(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_test", "type": "message", "role": "assistant", "model": "test-model",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": s.in, "output_tokens": 1}}})
	index := 0
	if len(s.thinking) > 0 {
		f.send(w, "content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
		for _, t := range s.thinking {
			f.send(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "thinking_delta", "thinking": t}})
		}
		f.send(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	f.send(w, "content_block_start", map[string]any{"type": "content_block_start", "index": index,
		"content_block": map[string]any{"type": "text", "text": ""}})
	f.send(w, "ping", map[string]any{"type": "ping"})
	for i, c := range s.chunks {
		if s.cutAfter > 0 && i == s.cutAfter {
			hangUp(w)
			return
		}
		f.send(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
			"delta": map[string]any{"type": "text_delta", "text": c}})
	}
	f.send(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
	out := s.out
	if s.noUsage {
		out = 0
	}
	f.send(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": out}})
	f.send(w, "message_stop", map[string]any{"type": "message_stop"})
}

// sleeps records the delays an engine asked for.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// newTestEngine builds an engine talking to f, with sleeps recorded.
func newTestEngine(t *testing.T, f *fakeAPI, model string, tweak func(*Options)) (*Engine, *sleeps) {
	t.Helper()
	sl := &sleeps{}
	base := f.srv.URL + "/v1"
	if f.protocol == ProviderAnthropic {
		base = f.srv.URL
	}
	opt := Options{
		Provider: f.protocol,
		APIKey:   "test-key",
		BaseURL:  base,
		Model:    model,
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Sleep:    sl.sleep,
	}
	if tweak != nil {
		tweak(&opt)
	}
	e, err := New(opt)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e, sl
}

// providers runs a subtest per protocol.
func providers(t *testing.T, fn func(t *testing.T, protocol string)) {
	for _, p := range []string{ProviderOpenAI, ProviderAnthropic} {
		t.Run(p, func(t *testing.T) { fn(t, p) })
	}
}

// split cuts s into n-byte chunks, as a server streams tokens.
func split(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// userText returns the concatenated user-turn text of a recorded body, for
// either protocol.
func userText(body map[string]any) string {
	var b strings.Builder
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		mm := m.(map[string]any)
		switch c := mm["content"].(type) {
		case string:
			b.WriteString(c)
		case []any:
			for _, part := range c {
				if p, ok := part.(map[string]any); ok {
					if s, ok := p["text"].(string); ok {
						b.WriteString(s)
					}
				}
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// hangUp drops the connection, mid-response if one was started, so the
// client sees a broken stream rather than a clean end.
func hangUp(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}
