package llm

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestExtractJSON(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"whole", ` {"a":1} `, `{"a":1}`},
		{"fenced json", "Sure:\n```json\n{\"a\": [1, 2]}\n```\nDone.", `{"a": [1, 2]}`},
		{"fenced bare", "```\n{\"a\":\"b\"}\n```", `{"a":"b"}`},
		{"prose around", `The plan is {"a":{"b":"}"}} and that's it.`, `{"a":{"b":"}"}}`},
		{"braces and quotes in strings", `x {"q":"say \"{hi\" }}","n":2} y`, `{"q":"say \"{hi\" }}","n":2}`},
		{"first object invalid, second valid", `{not json} then {"ok":true}`, `{"ok":true}`},
		{"nested object of an invalid one is not taken", `{"a" {"b":1}} {"c":2}`, `{"c":2}`},
		{"fence without object falls through", "```json\n[1,2]\n```\n{\"x\":1}", `{"x":1}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := extractJSON(tc.in)
			if err != nil || string(got) != tc.want {
				t.Errorf("extractJSON = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "no json here", `{"unclosed": "`, "[1,2,3]", strings.Repeat("{", 100000)} {
		if got, err := extractJSON(bad); err == nil {
			t.Errorf("extractJSON(%.20q) = %q, want an error", bad, got)
		}
	}
}

func TestThinkStripperEverySplit(t *testing.T) {
	cases := []struct{ in, want string }{
		{"<think>plan</think>Answer.", "Answer."},
		{"Before <THINK>x < y</think>after", "Before after"},
		{"<thinking>a</thinking>B<think>c</think>D", "BD"},
		{"a < b and c <thin ice", "a < b and c <thin ice"},
		{"<think>never closed", ""},
		{"tail <thi", "tail <thi"},
	}
	for _, tc := range cases {
		for i := 0; i <= len(tc.in); i++ {
			for j := i; j <= len(tc.in); j++ {
				var s thinkStripper
				got := s.feed(tc.in[:i]) + s.feed(tc.in[i:j]) + s.feed(tc.in[j:]) + s.flush()
				if got != tc.want {
					t.Fatalf("%q split at %d,%d = %q, want %q", tc.in, i, j, got, tc.want)
				}
			}
		}
	}
	if got := stripThink("reasoning without an opening tag</think>\nAnswer"); got != "\nAnswer" {
		t.Errorf("orphan close tag: %q", got)
	}
}

func TestSinkDropsSourcesListAtEverySplit(t *testing.T) {
	in := "\n\n## Answer\nText [S1].\n### Details\n# not sources\n## Sources\n- [S1] https://x\n"
	want := "## Answer\nText [S1].\n### Details\n# not sources\n"
	for i := 0; i <= len(in); i++ {
		var got strings.Builder
		s := newTextSink(func(d string) { got.WriteString(d) }, true)
		s.write(in[:i])
		s.write(in[i:])
		s.close()
		if got.String() != want {
			t.Fatalf("split %d: %q", i, got.String())
		}
	}
	if got := cutSourcesList("## A\nx\n\n## References\ny"); got != "## A\nx\n\n" {
		t.Errorf("cutSourcesList = %q", got)
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		header map[string]string
		want   time.Duration
	}{
		{map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": "-4"}, 0},
		{nil, 0},
	}
	for _, tc := range cases {
		resp := &http.Response{Header: http.Header{}}
		for k, v := range tc.header {
			resp.Header.Set(k, v)
		}
		if got := retryAfter(resp, now); got != tc.want {
			t.Errorf("%v: got %v, want %v", tc.header, got, tc.want)
		}
	}
}

func TestPriceAndWindowLookup(t *testing.T) {
	prices := DefaultPrices()
	cases := []struct {
		model string
		want  Price
		ok    bool
	}{
		{"gpt-4o-mini", Price{0.15, 0.60}, true},
		{"gpt-4o-mini-2024-07-18", Price{0.15, 0.60}, true},
		{"gpt-4o-2024-08-06", Price{2.50, 10}, true},
		{"openai/gpt-4.1", Price{2, 8}, true},
		{"claude-sonnet-4-5-20250929", Price{3, 15}, true},
		{"gpt-4omega", Price{}, false},
		{"llama3.1:8b", Price{}, false},
	}
	for _, tc := range cases {
		got, ok := lookupPrice(prices, tc.model)
		if got != tc.want || ok != tc.ok {
			t.Errorf("lookupPrice(%q) = %v %v", tc.model, got, ok)
		}
	}
	for model, want := range map[string]int{"gpt-4o": 128000, "claude-opus-4-1": 200000, "qwen3:8b": DefaultContextWindow} {
		if got := knownWindow(model); got != want {
			t.Errorf("knownWindow(%q) = %d, want %d", model, got, want)
		}
	}
}

func TestNewValidatesOptions(t *testing.T) {
	cases := []struct {
		name string
		opt  Options
		want string
	}{
		{"provider", Options{Provider: "gemini", APIKey: "k"}, "unknown provider"},
		{"key for public API", Options{Provider: "openai"}, "API key is required"},
		{"model with base URL", Options{Provider: "openai", BaseURL: "http://127.0.0.1:11434/v1"}, "model name is required"},
		{"base URL scheme", Options{Provider: "anthropic", BaseURL: "ftp://x", Model: "m"}, "absolute http(s) URL"},
		{"tiny window", Options{Provider: "openai", APIKey: "k", ContextWindow: 100}, "too small"},
		{"negative price", Options{Provider: "openai", APIKey: "k", Prices: map[string]Price{"x": {Input: -1}}}, "must not be negative"},
	}
	for _, tc := range cases {
		if _, err := New(tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	e, err := New(Options{Provider: "Anthropic", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Name() != "anthropic" || e.Model() != DefaultAnthropicModel || e.ContextWindow() != 200000 || e.MaxOutputTokens() != DefaultMaxOutputTokens {
		t.Errorf("defaults: %s %s %d %d", e.Name(), e.Model(), e.ContextWindow(), e.MaxOutputTokens())
	}
	local, err := New(Options{Provider: "openai", BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen3:8b"})
	if err != nil || local.ContextWindow() != DefaultContextWindow || local.MaxOutputTokens() != DefaultContextWindow/4 {
		t.Errorf("local defaults: %v %d %d", err, local.ContextWindow(), local.MaxOutputTokens())
	}
}
