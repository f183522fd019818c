package main

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/search"
)

// runMetrics are the pipeline's figures on /metrics: stage durations,
// action outcomes, page load times, LLM calls, tokens and cost. It
// implements pipeline.Metrics and wraps the engine and the gatherer to
// see their calls without their knowing.
type runMetrics struct {
	stages    *prometheus.HistogramVec
	actions   *prometheus.CounterVec
	actionDur *prometheus.HistogramVec
	pageLoads *prometheus.HistogramVec
	llmCalls  *prometheus.CounterVec
	llmTokens *prometheus.CounterVec
	llmUSD    *prometheus.CounterVec
	llmDur    *prometheus.HistogramVec
}

func newRunMetrics() *runMetrics {
	return &runMetrics{
		stages: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "quarry_stage_duration_seconds", Help: "Time one execution of a pipeline stage took, by stage and outcome.",
			Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 320},
		}, []string{"stage", "outcome"}),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quarry_actions_total", Help: "Gather actions finished, by kind (search, navigate) and status (success, error).",
		}, []string{"kind", "status"}),
		actionDur: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "quarry_action_duration_seconds", Help: "Time a gather action took, by kind.",
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64},
		}, []string{"kind"}),
		pageLoads: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "quarry_page_load_seconds", Help: "Time to load and extract one source page, by outcome.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32},
		}, []string{"outcome"}),
		llmCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quarry_llm_calls_total", Help: "Engine calls, by engine, model, call and outcome.",
		}, []string{"engine", "model", "call", "outcome"}),
		llmTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quarry_llm_tokens_total", Help: "LLM tokens, by engine, model and direction (input, output).",
		}, []string{"engine", "model", "direction"}),
		llmUSD: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quarry_llm_cost_usd_total", Help: "Estimated LLM spend in US dollars, by engine and model.",
		}, []string{"engine", "model"}),
		llmDur: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "quarry_llm_call_duration_seconds", Help: "Time an engine call took, by engine and call.",
			Buckets: []float64{0.01, 0.1, 0.5, 1, 2, 5, 10, 20, 40, 80},
		}, []string{"engine", "call"}),
	}
}

func (m *runMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.stages, m.actions, m.actionDur, m.pageLoads, m.llmCalls, m.llmTokens, m.llmUSD, m.llmDur}
}

// StageDone implements pipeline.Metrics.
func (m *runMetrics) StageDone(stage string, d time.Duration, err error) {
	m.stages.WithLabelValues(stage, outcome(err)).Observe(d.Seconds())
}

// ActionDone implements pipeline.Metrics.
func (m *runMetrics) ActionDone(kind, status string, d time.Duration) {
	m.actions.WithLabelValues(kind, status).Inc()
	m.actionDur.WithLabelValues(kind).Observe(d.Seconds())
}

func outcome(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}

// meteredEngine counts an engine's calls, tokens and cost.
type meteredEngine struct {
	engine.Engine
	m     *runMetrics
	model string
}

func (e meteredEngine) record(call string, start time.Time, u engine.Usage, err error) {
	name := e.Engine.Name()
	e.m.llmCalls.WithLabelValues(name, e.model, call, outcome(err)).Inc()
	e.m.llmDur.WithLabelValues(name, call).Observe(time.Since(start).Seconds())
	if u.InputTokens > 0 {
		e.m.llmTokens.WithLabelValues(name, e.model, "input").Add(float64(u.InputTokens))
	}
	if u.OutputTokens > 0 {
		e.m.llmTokens.WithLabelValues(name, e.model, "output").Add(float64(u.OutputTokens))
	}
	if u.USD > 0 {
		e.m.llmUSD.WithLabelValues(name, e.model).Add(u.USD)
	}
}

// Plan implements engine.Engine.
func (e meteredEngine) Plan(ctx context.Context, req engine.PlanRequest) (research.TaskSpec, engine.Usage, error) {
	start := time.Now()
	spec, u, err := e.Engine.Plan(ctx, req)
	e.record("plan", start, u, err)
	return spec, u, err
}

// Heartbeat implements engine.Engine.
func (e meteredEngine) Heartbeat(ctx context.Context, req engine.HeartbeatRequest) (engine.HeartbeatDecision, engine.Usage, error) {
	start := time.Now()
	dec, u, err := e.Engine.Heartbeat(ctx, req)
	e.record("heartbeat", start, u, err)
	return dec, u, err
}

// Synthesize implements engine.Engine.
func (e meteredEngine) Synthesize(ctx context.Context, req engine.SynthesisRequest, stream func(string)) (string, engine.Usage, error) {
	start := time.Now()
	text, u, err := e.Engine.Synthesize(ctx, req, stream)
	e.record("synthesize", start, u, err)
	return text, u, err
}

// Chat implements engine.Engine.
func (e meteredEngine) Chat(ctx context.Context, req engine.ChatRequest, stream func(string)) (string, engine.Usage, error) {
	start := time.Now()
	text, u, err := e.Engine.Chat(ctx, req, stream)
	e.record("chat", start, u, err)
	return text, u, err
}

// ReadReply lets the pipeline ask the engine's model to read a reply to a
// plan, when the engine has a model (pipeline.ReplyReader).
func (e meteredEngine) ReadReply(ctx context.Context, spec research.TaskSpec, reply string) (string, string, engine.Usage, error) {
	rr, ok := e.Engine.(pipeline.ReplyReader)
	if !ok {
		return "", "", engine.Usage{}, errors.ErrUnsupported
	}
	start := time.Now()
	intent, text, u, err := rr.ReadReply(ctx, spec, reply)
	e.record("reply", start, u, err)
	return intent, text, u, err
}

// meteredGatherer times the source pages a gatherer loads.
type meteredGatherer struct {
	pipeline.Gatherer
	m *runMetrics
}

// Search implements pipeline.Gatherer.
func (g meteredGatherer) Search(ctx context.Context, a search.Action) (search.Outcome, error) {
	out, err := g.Gatherer.Search(ctx, a)
	for _, p := range out.Pages {
		g.m.pageLoads.WithLabelValues("ok").Observe(p.LoadTime.Seconds())
	}
	for range out.Errors {
		g.m.pageLoads.WithLabelValues("error").Observe(0)
	}
	return out, err
}

// Navigate implements pipeline.Gatherer.
func (g meteredGatherer) Navigate(ctx context.Context, url string) (extract.Page, error) {
	start := time.Now()
	p, err := g.Gatherer.Navigate(ctx, url)
	d := p.LoadTime
	if d == 0 {
		d = time.Since(start)
	}
	g.m.pageLoads.WithLabelValues(outcome(err)).Observe(d.Seconds())
	return p, err
}
