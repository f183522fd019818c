package llm

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
)

const goodPlan = `{"route":"research","goal":"Find when the Golden Gate Bridge opened and how long it is",
"criteria":["opening date","total length","main span length"],
"sections":["Overview","Dimensions"],
"actions":[{"kind":"search","engine":"duckduckgo","query":"Golden Gate Bridge opening date","priority":1,"reason":"opening date"},
{"kind":"search","engine":"wikipedia","query":"Golden Gate Bridge length main span","priority":1}],
"assumptions":[],"clarity":0.95,"questions":[]}`

var testSources = []research.Source{
	{ID: "S1", URL: "https://example.org/history", Title: "History of the Golden Gate Bridge", Host: "example.org",
		Text: "The Golden Gate Bridge opened to traffic on May 28, 1937. Construction began in 1933."},
	{ID: "S2", URL: "https://example.org/facts", Title: "Bridge facts", Host: "example.org",
		Findings: []string{"The main span is 1,280 metres long."},
		Text:     "The Golden Gate Bridge has a main span of 1,280 metres and a total length of 2,737 metres."},
}

func planRequest() engine.PlanRequest {
	return engine.PlanRequest{
		Question: "When did the Golden Gate Bridge open and how long is it?",
		Depth:    research.DepthStandard,
		Budget:   research.Presets()[research.DepthStandard],
		Engines:  []string{"duckduckgo", "wikipedia"},
		Now:      time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC),
	}
}

func collect() (*[]string, func(string)) {
	var deltas []string
	return &deltas, func(s string) { deltas = append(deltas, s) }
}

func TestEngineStagesEndToEnd(t *testing.T) {
	report := "## Overview\nThe Golden Gate Bridge opened on May 28, 1937 [S1].\n\n## Dimensions\nIts main span is 1,280 metres [S2].\n"
	providers(t, func(t *testing.T, protocol string) {
		model := map[string]string{ProviderOpenAI: "gpt-4o-mini", ProviderAnthropic: "claude-haiku-4-5"}[protocol]
		f := newFakeAPI(t, protocol,
			step{chunks: split("Here is the plan:\n```json\n"+goodPlan+"\n```\nGood luck!", 7), in: 900, out: 210},
			step{chunks: split(`{"done":false,"reason":"main span unconfirmed","actions":[{"kind":"search","engine":"wikipedia","query":"Golden Gate Bridge main span metres","priority":1}]}`, 5), in: 700, out: 60},
			step{chunks: split(report, 9), in: 2000, out: 120},
			step{chunks: []string{"Hello", "! How can I ", "help?"}, in: 50, out: 8},
		)
		e, _ := newTestEngine(t, f, model, nil)
		ctx := context.Background()

		spec, u1, err := e.Plan(ctx, planRequest())
		if err != nil {
			t.Fatalf("Plan: %v", err)
		}
		if spec.Route != research.RouteResearch || len(spec.Criteria) != 3 || len(spec.Actions) != 2 || spec.Sections[1] != "Dimensions" {
			t.Fatalf("spec = %+v", spec)
		}
		if spec.Actions[1].Engine != "wikipedia" || spec.Budget != planRequest().Budget || spec.Clarity != 0.95 {
			t.Errorf("spec actions/budget/clarity = %+v %+v %v", spec.Actions, spec.Budget, spec.Clarity)
		}
		if u1.Calls != 1 || u1.InputTokens != 900 || u1.OutputTokens != 210 {
			t.Errorf("plan usage = %+v", u1)
		}
		p, _ := lookupPrice(DefaultPrices(), model)
		if want := (900*p.Input + 210*p.Output) / 1e6; math.Abs(u1.USD-want) > 1e-12 || want == 0 {
			t.Errorf("plan USD = %v, want %v", u1.USD, want)
		}
		checkRequestShape(t, protocol, f.body(0), model)

		hb, u2, err := e.Heartbeat(ctx, engine.HeartbeatRequest{
			Spec: spec, Sources: testSources, Done: spec.Actions, Batch: 1, Budget: spec.Budget, MaxNew: 3,
			Engines: []string{"duckduckgo", "wikipedia"}, Elapsed: 12 * time.Second,
			Coverage: []research.CriterionCoverage{{Criterion: "opening date", Sources: []string{"S1"}, Key: []string{"[S1] The Golden Gate Bridge opened to traffic on May 28, 1937."}},
				{Criterion: "main span length"}, {Criterion: "total length"}},
		})
		if err != nil {
			t.Fatalf("Heartbeat: %v", err)
		}
		if hb.Done || len(hb.Actions) != 1 || hb.Actions[0].Query != "Golden Gate Bridge main span metres" {
			t.Fatalf("heartbeat = %+v", hb)
		}
		if u2.InputTokens != 700 || u2.OutputTokens != 60 {
			t.Errorf("heartbeat usage = %+v", u2)
		}
		if hbText := userText(f.body(1)); !strings.Contains(hbText, "1 of 3 covered") || !strings.Contains(hbText, "opening date (covered by S1)") ||
			!strings.Contains(hbText, "- [S1] The Golden Gate Bridge opened") || !strings.Contains(hbText, "main span length (MISSING") ||
			!strings.Contains(hbText, "time: 12s of 1m0s used, 48s left") || !strings.Contains(hbText, "actions: 2 of 10 run, 8 left") ||
			!strings.Contains(hbText, "batches: 1 run of 3, 2 left") {
			t.Errorf("heartbeat prompt lacks coverage:\n%s", hbText)
		}

		deltas, stream := collect()
		md, u3, err := e.Synthesize(ctx, engine.SynthesisRequest{Question: planRequest().Question, Spec: spec,
			Sources: testSources, Budget: spec.Budget}, stream)
		if err != nil {
			t.Fatalf("Synthesize: %v", err)
		}
		// Held answer first: the Overview states every part in order — the
		// span the model wrote under Dimensions moved up (Dimensions, left
		// empty, is dropped), the total length it never wrote quoted from S2.
		held := "## Overview\nThe Golden Gate Bridge opened on May 28, 1937 [S1]. Its main span is 1,280 metres [S2]. The Golden Gate Bridge has a main span of 1,280 metres and a total length of 2,737 metres [S2]."
		if md != held {
			t.Errorf("report = %q, want %q", md, held)
		}
		if len(*deltas) < 5 || strings.TrimSpace(strings.Join(*deltas, "")) != strings.TrimSpace(report) {
			t.Errorf("streamed %d deltas %q, want the report incrementally", len(*deltas), *deltas)
		}
		if u3.OutputTokens != 120 {
			t.Errorf("synthesis usage = %+v", u3)
		}
		sText := userText(f.body(2))
		for _, want := range []string{"[S1] History of the Golden Gate Bridge", "[S2] Bridge facts", "## Overview", "opening date"} {
			if !strings.Contains(sText, want) {
				t.Errorf("synthesis prompt lacks %q", want)
			}
		}

		deltas, stream = collect()
		answer, u4, err := e.Chat(ctx, engine.ChatRequest{Message: "hi"}, stream)
		if err != nil || answer != "Hello! How can I help?" || strings.Join(*deltas, "") != answer || len(*deltas) != 3 {
			t.Errorf("Chat = %q %v, deltas %q", answer, err, *deltas)
		}
		total := u1.Add(u2).Add(u3).Add(u4)
		if total.Calls != 4 || total.InputTokens != 3650 || total.OutputTokens != 398 {
			t.Errorf("total usage = %+v", total)
		}
	})
}

// checkRequestShape asserts what the real SDK put on the wire.
func checkRequestShape(t *testing.T, protocol string, body map[string]any, model string) {
	t.Helper()
	if body["model"] != model || body["stream"] != true {
		t.Errorf("model/stream = %v/%v", body["model"], body["stream"])
	}
	if mt, _ := body["max_tokens"].(float64); mt < minAnswerTokens {
		t.Errorf("max_tokens = %v", body["max_tokens"])
	}
	switch protocol {
	case ProviderOpenAI:
		so, _ := body["stream_options"].(map[string]any)
		if so["include_usage"] != true {
			t.Errorf("stream_options = %v, want include_usage", body["stream_options"])
		}
		msgs := body["messages"].([]any)
		first := msgs[0].(map[string]any)
		if first["role"] != "system" || !strings.Contains(fmt.Sprint(first["content"]), `"route"`) {
			t.Errorf("first message = %v, want the plan system prompt", first)
		}
	case ProviderAnthropic:
		if !strings.Contains(fmt.Sprint(body["system"]), `"route"`) {
			t.Errorf("system = %v, want the plan system prompt", body["system"])
		}
	}
}

func TestPlanRetriesWithValidationError(t *testing.T) {
	cases := []struct {
		name, first, wantErr string
	}{
		{"invalid route", strings.Replace(goodPlan, `"route":"research"`, `"route":"investigate"`, 1), `route "investigate" must be`},
		{"malformed JSON", "```json\n" + strings.Replace(goodPlan, `"goal":`, `"goal"`, 1) + "\n```", "the reply's JSON object is invalid: invalid character"},
		{"truncated JSON", goodPlan[:120], "the reply's JSON object is cut off"},
	}
	for _, tc := range cases {
		providers(t, func(t *testing.T, protocol string) {
			t.Run(tc.name, func(t *testing.T) {
				f := newFakeAPI(t, protocol,
					step{chunks: split(tc.first, 11), in: 800, out: 200},
					step{chunks: split(goodPlan, 11), in: 1100, out: 200},
				)
				e, _ := newTestEngine(t, f, "some-local-model", nil)
				spec, u, err := e.Plan(context.Background(), planRequest())
				if err != nil {
					t.Fatal(err)
				}
				if spec.Route != research.RouteResearch || spec.Goal == planRequest().Question || len(spec.Actions) != 2 {
					t.Errorf("spec = %+v, want the corrected plan, not the fallback", spec)
				}
				if u.Calls != 2 || u.InputTokens != 1900 || u.USD != 0 {
					t.Errorf("usage = %+v, want 2 calls, 1900 input tokens, no cost for an unpriced model", u)
				}
				second := userText(f.body(1))
				if !strings.Contains(second, "could not be used: "+tc.wantErr) {
					t.Errorf("second request does not quote the validation error %q:\n%s", tc.wantErr, second)
				}
				if !strings.Contains(second, strings.TrimSpace(tc.first[:60])) {
					t.Errorf("second request does not replay the rejected answer")
				}
			})
		})
	}
}

func TestOpenAIReasoningModelParameters(t *testing.T) {
	f := newFakeAPI(t, ProviderOpenAI, step{chunks: []string{"ok"}})
	e, _ := newTestEngine(t, f, "o4-mini", nil)
	if _, _, err := e.Chat(context.Background(), engine.ChatRequest{Message: "hi"}, nil); err != nil {
		t.Fatal(err)
	}
	body := f.body(0)
	if _, ok := body["max_completion_tokens"]; !ok || body["max_tokens"] != nil || body["temperature"] != nil {
		t.Errorf("reasoning model body: max_completion_tokens=%v max_tokens=%v temperature=%v",
			body["max_completion_tokens"], body["max_tokens"], body["temperature"])
	}
}

func TestPlanFallsBackAfterGarbageTwice(t *testing.T) {
	providers(t, func(t *testing.T, protocol string) {
		f := newFakeAPI(t, protocol,
			step{chunks: []string{"I think we should {search the web"}, in: 10, out: 10},
			step{chunks: []string{"<think>hmm</think>Sorry, I cannot produce JSON."}, in: 10, out: 10},
		)
		e, _ := newTestEngine(t, f, "local", nil)
		req := planRequest()
		spec, u, err := e.Plan(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if spec.Route != research.RouteResearch || len(spec.Actions) != 1 || spec.Actions[0].Query != req.Question ||
			spec.Actions[0].Kind != research.ActionSearch || spec.Actions[0].Engine != "duckduckgo" {
			t.Errorf("fallback actions = %+v", spec.Actions)
		}
		if len(spec.Criteria) != 1 || spec.Criteria[0] != req.Question || len(spec.Sections) != 1 || spec.Sections[0] != "Answer" {
			t.Errorf("fallback criteria/sections = %q %q", spec.Criteria, spec.Sections)
		}
		if u.Calls != 2 || f.requests() != 2 {
			t.Errorf("usage %+v after %d requests, want 2 calls", u, f.requests())
		}
		if !strings.Contains(userText(f.body(1)), "could not be used: the reply's JSON object is cut off") {
			t.Errorf("retry does not say why")
		}
	})
}

func TestHeartbeatRetryAndFallback(t *testing.T) {
	spec := fallbackPlan(planRequest())
	done := []research.ActionSpec{{Kind: research.ActionSearch, Engine: "duckduckgo", Query: "Golden Gate Bridge length"}}
	req := engine.HeartbeatRequest{Spec: spec, Done: done, MaxNew: 2, Engines: []string{"duckduckgo"}}
	repeat := `{"done":false,"reason":"x","actions":[{"kind":"search","engine":"duckduckgo","query":"golden gate bridge   LENGTH","priority":1}]}`
	cases := []struct {
		name    string
		replies []string
		done    bool
		query   string
		wantErr string // in the second request
	}{
		{"repeat then new", []string{repeat, `{"done":false,"reason":"y","actions":[{"kind":"search","query":"Golden Gate Bridge span","priority":1}]}`},
			false, "Golden Gate Bridge span", "was already run"},
		{"repeat twice becomes done", []string{repeat, repeat}, true, "", "was already run"},
		{"garbage twice", []string{"no", "still no"}, true, "", "the reply contains no JSON object"},
		{"too many actions", []string{`{"done":false,"reason":"z","actions":[{"kind":"search","query":"a b"},{"kind":"search","query":"c d"},{"kind":"search","query":"e f"}]}`,
			`{"done":true,"reason":"enough"}`}, true, "", "want at most 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeAPI(t, ProviderOpenAI, step{chunks: []string{tc.replies[0]}}, step{chunks: []string{tc.replies[1]}})
			e, _ := newTestEngine(t, f, "local", nil)
			d, u, err := e.Heartbeat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if d.Done != tc.done || (tc.query != "" && (len(d.Actions) != 1 || d.Actions[0].Query != tc.query)) || (tc.done && len(d.Actions) != 0) {
				t.Errorf("decision = %+v", d)
			}
			if d.Reason == "" || u.Calls != 2 {
				t.Errorf("reason %q, usage %+v", d.Reason, u)
			}
			if !strings.Contains(userText(f.body(1)), tc.wantErr) {
				t.Errorf("second request lacks %q:\n%s", tc.wantErr, userText(f.body(1)))
			}
		})
	}
}

func TestHeartbeatWithoutRoomMakesNoCall(t *testing.T) {
	f := newFakeAPI(t, ProviderOpenAI)
	e, _ := newTestEngine(t, f, "local", nil)
	d, u, err := e.Heartbeat(context.Background(), engine.HeartbeatRequest{MaxNew: 0})
	if err != nil || !d.Done || u.Calls != 0 || f.requests() != 0 {
		t.Errorf("got %+v %+v %v after %d requests", d, u, err, f.requests())
	}
}

func TestRetriesTransientFailures(t *testing.T) {
	date := time.Now().Add(20 * time.Second).UTC().Format(http1123)
	cases := []struct {
		name   string
		first  step
		checkD func(d time.Duration) bool
	}{
		{"429 Retry-After seconds", step{status: 429, header: map[string]string{"Retry-After": "7"}},
			func(d time.Duration) bool { return d == 7*time.Second }},
		{"429 Retry-After date", step{status: 429, header: map[string]string{"Retry-After": date}},
			func(d time.Duration) bool { return d > 15*time.Second && d <= 20*time.Second }},
		{"500 backoff", step{status: 500},
			func(d time.Duration) bool { return d >= baseBackoff && d <= baseBackoff*5/4+1 }},
		{"529 overloaded", step{status: 529},
			func(d time.Duration) bool { return d >= baseBackoff }},
		{"connection dropped", step{hangup: true},
			func(d time.Duration) bool { return d >= baseBackoff }},
	}
	for _, tc := range cases {
		providers(t, func(t *testing.T, protocol string) {
			t.Run(tc.name, func(t *testing.T) {
				f := newFakeAPI(t, protocol, tc.first, step{chunks: []string{"All ", "good."}, in: 5, out: 2})
				e, sl := newTestEngine(t, f, "local", nil)
				deltas, stream := collect()
				answer, u, err := e.Chat(context.Background(), engine.ChatRequest{Message: "hi"}, stream)
				if err != nil || answer != "All good." || strings.Join(*deltas, "") != "All good." {
					t.Fatalf("Chat = %q, %v (deltas %q)", answer, err, *deltas)
				}
				if f.requests() != 2 || u.Calls != 1 {
					t.Errorf("%d requests, usage %+v; want 2 requests and 1 billed call", f.requests(), u)
				}
				if d := sl.all(); len(d) != 1 || !tc.checkD(d[0]) {
					t.Errorf("sleeps = %v", d)
				}
			})
		})
	}
}

const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"

func TestRetryLimits(t *testing.T) {
	t.Run("gives up after MaxRetries", func(t *testing.T) {
		f := newFakeAPI(t, ProviderOpenAI, step{status: 503}, step{status: 503}, step{status: 503})
		e, sl := newTestEngine(t, f, "local", func(o *Options) { o.MaxRetries = 2 })
		_, _, err := e.Chat(context.Background(), engine.ChatRequest{Message: "hi"}, nil)
		if err == nil || !strings.Contains(err.Error(), "503") || f.requests() != 3 {
			t.Fatalf("err = %v after %d requests", err, f.requests())
		}
		if d := sl.all(); len(d) != 2 || d[1] < 2*baseBackoff {
			t.Errorf("sleeps = %v, want two growing delays", d)
		}
	})
	t.Run("no retry on 400", func(t *testing.T) {
		f := newFakeAPI(t, ProviderAnthropic, step{status: 400})
		e, sl := newTestEngine(t, f, "local", nil)
		_, _, err := e.Chat(context.Background(), engine.ChatRequest{Message: "hi"}, nil)
		if err == nil || f.requests() != 1 || len(sl.all()) != 0 {
			t.Errorf("err = %v after %d requests, sleeps %v", err, f.requests(), sl.all())
		}
	})
	t.Run("Retry-After beyond the cap fails at once", func(t *testing.T) {
		f := newFakeAPI(t, ProviderOpenAI, step{status: 429, header: map[string]string{"Retry-After": "3600"}})
		e, sl := newTestEngine(t, f, "local", nil)
		_, _, err := e.Chat(context.Background(), engine.ChatRequest{Message: "hi"}, nil)
		if err == nil || f.requests() != 1 || len(sl.all()) != 0 {
			t.Errorf("err = %v after %d requests, sleeps %v", err, f.requests(), sl.all())
		}
	})
	t.Run("no retry once text was streamed", func(t *testing.T) {
		f := newFakeAPI(t, ProviderOpenAI, step{chunks: []string{"## Answer\n", "Partial ", "text", " never", " ends"}, cutAfter: 3}, step{chunks: []string{"again"}})
		e, _ := newTestEngine(t, f, "local", nil)
		deltas, stream := collect()
		_, _, err := e.Synthesize(context.Background(), engine.SynthesisRequest{Question: "q"}, stream)
		if err == nil || f.requests() != 1 || len(*deltas) == 0 {
			t.Errorf("err = %v after %d requests with %d deltas; want the error, no retry", err, f.requests(), len(*deltas))
		}
	})
	t.Run("a broken JSON stream is retried", func(t *testing.T) {
		f := newFakeAPI(t, ProviderAnthropic, step{chunks: split(goodPlan, 20), cutAfter: 2}, step{chunks: split(goodPlan, 20), in: 3, out: 4})
		e, sl := newTestEngine(t, f, "local", nil)
		spec, u, err := e.Plan(context.Background(), planRequest())
		if err != nil || len(spec.Criteria) != 3 || u.Calls != 1 || f.requests() != 2 || len(sl.all()) != 1 {
			t.Errorf("spec %+v usage %+v err %v after %d requests", spec, u, err, f.requests())
		}
	})
	t.Run("cancelled context stops waiting", func(t *testing.T) {
		f := newFakeAPI(t, ProviderOpenAI, step{status: 500})
		ctx, cancel := context.WithCancel(context.Background())
		e, _ := newTestEngine(t, f, "local", func(o *Options) { o.Sleep = func(time.Duration) { cancel() } })
		_, _, err := e.Chat(ctx, engine.ChatRequest{Message: "hi"}, nil)
		if err == nil || !strings.Contains(err.Error(), "canceled") || f.requests() != 1 {
			t.Errorf("err = %v after %d requests", err, f.requests())
		}
	})
}

func TestThinkNeverStreamed(t *testing.T) {
	answer := "<thi" + "nk>The user wants secret reasoning about <b>tags</b>.</th" + "ink>\n\nThe bridge opened in 1937 [S1]."
	providers(t, func(t *testing.T, protocol string) {
		for _, size := range []int{1, 3, 7, 1000} {
			f := newFakeAPI(t, protocol, step{chunks: split(answer, size), thinking: []string{"native ", "secret thinking"}, in: 1, out: 1})
			e, _ := newTestEngine(t, f, "local", nil)
			deltas, stream := collect()
			got, _, err := e.Chat(context.Background(), engine.ChatRequest{Message: "when?"}, stream)
			if err != nil {
				t.Fatal(err)
			}
			streamed := strings.Join(*deltas, "")
			if got != "The bridge opened in 1937 [S1]." || streamed != got {
				t.Errorf("chunk size %d: answer %q, streamed %q", size, got, streamed)
			}
			for _, d := range *deltas {
				if strings.Contains(d, "secret") || strings.Contains(d, "<") {
					t.Errorf("chunk size %d: reasoning leaked in delta %q", size, d)
				}
			}
		}
	})
}

func TestUsageAccounting(t *testing.T) {
	t.Run("custom price and reported usage", func(t *testing.T) {
		f := newFakeAPI(t, ProviderAnthropic, step{chunks: []string{"ok"}, in: 1_000_000, out: 500_000})
		e, _ := newTestEngine(t, f, "my-model", func(o *Options) { o.Prices = map[string]Price{"my-model": {Input: 2, Output: 6}} })
		_, u, err := e.Chat(context.Background(), engine.ChatRequest{Message: "hi"}, nil)
		if err != nil || u.InputTokens != 1_000_000 || u.OutputTokens != 500_000 || u.USD != 5 {
			t.Errorf("usage = %+v, %v; want $5", u, err)
		}
		if got := e.EstimateCost(2_000_000, 0); got != 4 {
			t.Errorf("EstimateCost = %v, want 4", got)
		}
	})
	t.Run("missing usage is estimated", func(t *testing.T) {
		f := newFakeAPI(t, ProviderOpenAI, step{chunks: []string{strings.Repeat("word ", 40)}, noUsage: true})
		e, _ := newTestEngine(t, f, "gpt-4o", nil)
		_, u, err := e.Chat(context.Background(), engine.ChatRequest{Message: "hi"}, nil)
		if err != nil || u.InputTokens < 50 || u.OutputTokens != 50 || u.USD <= 0 {
			t.Errorf("usage = %+v, %v; want estimated tokens and a cost", u, err)
		}
	})
}

func TestSynthesisCutsSourcesToWindow(t *testing.T) {
	var sources []research.Source
	filler := strings.Repeat("Unrelated gardening advice about tomatoes and soil acidity. ", 80)
	for i := 1; i <= 40; i++ {
		sources = append(sources, research.Source{ID: fmt.Sprintf("S%d", i), URL: fmt.Sprintf("https://example.org/%d", i),
			Title: fmt.Sprintf("Garden page %d", i), Text: filler})
	}
	sources[33].Title = "Golden Gate Bridge facts"
	sources[33].Text = filler + "\n\nThe Golden Gate Bridge main span is 1,280 metres long and it opened in 1937.\n\n" + filler

	cases := []struct {
		name          string
		window        int
		contextTokens int
	}{
		{"window", 4096, 0},
		{"context budget", 32000, 1500},
	}
	for _, tc := range cases {
		providers(t, func(t *testing.T, protocol string) {
			t.Run(tc.name, func(t *testing.T) {
				f := newFakeAPI(t, protocol, step{chunks: []string{"## Answer\nIt opened in 1937 [S34]."}})
				e, _ := newTestEngine(t, f, "local", func(o *Options) { o.ContextWindow = tc.window })
				_, _, err := e.Synthesize(context.Background(), engine.SynthesisRequest{
					Question: "When did the Golden Gate Bridge open?", Spec: research.TaskSpec{Sections: []string{"Answer"}},
					Sources: sources, Budget: research.Budget{ContextTokens: tc.contextTokens}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				body := f.body(0)
				prompt := userText(body) + fmt.Sprint(body["system"])
				if protocol == ProviderOpenAI {
					prompt = userText(body)
				}
				input := estimateTokens(prompt)
				maxTokens := int(body["max_tokens"].(float64))
				if input+maxTokens > tc.window {
					t.Errorf("input ≈%d + max_tokens %d > window %d", input, maxTokens, tc.window)
				}
				if !strings.Contains(prompt, "[S34] Golden Gate Bridge facts") || !strings.Contains(prompt, "1,280 metres") {
					t.Errorf("the relevant source or its key passage was cut")
				}
				included := strings.Count(prompt, "URL: https://example.org/")
				if included == 0 || included >= 40 {
					t.Errorf("%d of 40 sources included, want a cut", included)
				}
				if tc.contextTokens > 0 {
					start := strings.Index(prompt, "Sources:")
					end := strings.Index(prompt, "Question:")
					if ev := estimateTokens(prompt[start:end]); ev > tc.contextTokens+20 {
						t.Errorf("evidence ≈%d tokens, want ≤ ContextTokens %d", ev, tc.contextTokens)
					}
				}
			})
		})
	}
}

func TestSynthesisRepairAndSourcesList(t *testing.T) {
	reply := "## Answer\nIt opened in 1937 [S1].\n\n## Sources\n[S1] https://example.org/history\n"
	f := newFakeAPI(t, ProviderOpenAI, step{chunks: split(reply, 4)})
	e, _ := newTestEngine(t, f, "local", nil)
	deltas, stream := collect()
	md, _, err := e.Synthesize(context.Background(), engine.SynthesisRequest{
		Question: "When did it open?", Spec: research.TaskSpec{Sections: []string{"Answer"}, Criteria: []string{"opening year"}},
		Sources: testSources, Feedback: []string{`sentence "It opened in 1936 [S7]." cites S7, which does not exist`},
		Previous: "## Answer\nIt opened in 1936 [S7].",
	}, stream)
	if err != nil {
		t.Fatal(err)
	}
	if md != "## Answer\nIt opened in 1937 [S1]." {
		t.Errorf("report = %q, want the Sources list dropped", md)
	}
	if s := strings.Join(*deltas, ""); strings.Contains(s, "Sources") || strings.Contains(s, "https://") {
		t.Errorf("streamed the model's source list: %q", s)
	}
	prompt := userText(f.body(0))
	for _, want := range []string{"cites S7, which does not exist", "Previous draft:", "It opened in 1936 [S7].", undetermined} {
		if !strings.Contains(prompt, want) {
			t.Errorf("repair prompt lacks %q", want)
		}
	}
}

// redirect sends every request to the fake server, whatever its host, so
// the public-API defaults can be exercised without the internet.
type redirect struct{ to *url.URL }

func (r redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = r.to.Scheme, r.to.Host
	return http.DefaultTransport.RoundTrip(req)
}

func TestPublicAPIDefaults(t *testing.T) {
	providers(t, func(t *testing.T, protocol string) {
		t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/elsewhere")
		t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1/elsewhere")
		f := newFakeAPI(t, protocol, step{chunks: []string{"ok"}})
		to, _ := url.Parse(f.srv.URL)
		e, err := New(Options{Provider: protocol, APIKey: "secret-key", HTTPClient: &http.Client{Transport: redirect{to}},
			Sleep: func(time.Duration) {}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.Chat(context.Background(), engine.ChatRequest{Message: "hi"}, nil); err != nil {
			t.Fatal(err)
		}
		h := f.header(0)
		switch protocol {
		case ProviderOpenAI:
			if h.Get("Authorization") != "Bearer secret-key" || f.body(0)["max_completion_tokens"] == nil || f.body(0)["model"] != DefaultOpenAIModel {
				t.Errorf("auth %q, body %v", h.Get("Authorization"), f.body(0))
			}
		case ProviderAnthropic:
			if h.Get("X-Api-Key") != "secret-key" || h.Get("Anthropic-Version") == "" || f.body(0)["model"] != DefaultAnthropicModel {
				t.Errorf("headers %v, body %v", h, f.body(0))
			}
		}
	})
}
