//go:build faults || load

package faults

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"
)

// site is a small loopback web with a search page: every query gets links
// to its articles, each served after a delay so a run spends a while
// gathering (long enough to be interrupted there).
type site struct {
	*httptest.Server
	latency atomic.Int64 // per page, nanoseconds
	pages   atomic.Int64 // article pages served
}

// topics are the articles' subjects; each article has distinct sentences
// about its subject so the extractive engine has evidence to cite.
var topics = []string{
	"advisory locks", "row-level locks", "SKIP LOCKED job queues", "deadlock detection",
	"lock timeouts", "MVCC snapshots", "vacuum and locks", "lock monitoring",
}

func newSite(latency time.Duration) *site {
	s := &site{}
	s.latency.Store(int64(latency))
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		var b strings.Builder
		fmt.Fprintf(&b, `<!doctype html><html><head><title>%s - Search</title></head><body><main id="results">`, html.EscapeString(q))
		// Rotate the list by the query so different searches lead to
		// different pages first.
		start := len(q) % len(topics)
		for i := range topics {
			n := (start + i) % len(topics)
			fmt.Fprintf(&b, `<div class="result"><h2><a href="/articles/%d">Postgres %s explained</a></h2><p>About %s.</p></div>`, n, topics[n], topics[n])
		}
		b.WriteString(`</main></body></html>`)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, b.String())
	})
	mux.HandleFunc("/articles/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n < 0 || n >= len(topics) {
			http.NotFound(w, r)
			return
		}
		select {
		case <-time.After(time.Duration(s.latency.Load())):
		case <-r.Context().Done():
			return
		}
		s.pages.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, article(n))
	})
	s.Server = httptest.NewServer(mux)
	return s
}

// article renders article n: a title, a byline and a dozen paragraphs.
func article(n int) string {
	t := topics[n]
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><html lang="en"><head><title>Postgres %s explained</title></head><body>
<header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>
<article><h1>Postgres %s explained</h1><p class="byline">By Database Weekly, 3 March 2024</p>`, t, t)
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, `<p>Postgres %s matter when many sessions touch the same rows: in test %d of %d the team measured %d transactions per second with %s enabled, `+
			`and the documentation explains that %s are released at the end of the transaction unless taken at session level. `+
			`Engineers who use %s for job queues should keep transactions short, because a long transaction holds its locks and blocks other workers for %d milliseconds on average.</p>`,
			t, i+1, n+1, 1000+97*i+13*n, t, t, t, 20+i*n)
	}
	b.WriteString(`</article><footer>Copyright Database Weekly. Subscribe to our newsletter.</footer></body></html>`)
	return b.String()
}

func (s *site) engine() string { return "url:" + s.URL + "/search?q={query}" }

// fakeLLM speaks the OpenAI chat completions streaming protocol: plans and
// heartbeats answer at once (an unusable plan, so the pipeline falls back
// to a search of the question; a heartbeat that says done), and a report
// streams slowly, so a run spends seconds synthesizing.
type fakeLLM struct {
	*httptest.Server
	reportTime time.Duration
	reports    atomic.Int64 // synthesis calls begun
}

func newFakeLLM(reportTime time.Duration) *fakeLLM {
	f := &fakeLLM{reportTime: reportTime}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

func (f *fakeLLM) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Stream bool `json:"stream"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	json.Unmarshal(body, &req)
	prompt := string(body)
	var chunks []string
	var pause time.Duration
	switch {
	case strings.Contains(prompt, "You supervise a web research run"):
		chunks = []string{`{"done": true, "reason": "The sources answer every criterion.", "actions": []}`}
	case strings.Contains(prompt, "You write research reports"):
		f.reports.Add(1)
		report := "## Answer\n\nPostgres advisory locks are released at the end of the transaction unless taken at session level [S1]. " +
			"Engineers who use them for job queues should keep transactions short [S1].\n"
		for _, w := range strings.SplitAfter(report, " ") {
			chunks = append(chunks, w)
		}
		pause = f.reportTime / time.Duration(len(chunks))
	default:
		chunks = []string{"I cannot plan this."}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	for i, c := range chunks {
		if i > 0 && pause > 0 {
			select {
			case <-time.After(pause):
			case <-r.Context().Done():
				return
			}
		}
		send(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": "fake",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": c}, "finish_reason": nil}}})
	}
	send(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": "fake",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 1000, "completion_tokens": 60, "total_tokens": 1060}})
	io.WriteString(w, "data: [DONE]\n\n")
}
