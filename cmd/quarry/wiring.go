package main

import (
	"context"
	"fmt"
	"github.com/quarryhq/quarry/agent"
	"log/slog"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/engine/llm"
	"github.com/quarryhq/quarry/fetch"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/notify"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/search"
	"github.com/quarryhq/quarry/tasks"
	"github.com/quarryhq/quarry/text"
)

// buildEngine returns the engine QUARRY_LLM selects.
func buildEngine(cfg *Config, logger *slog.Logger) (engine.Engine, error) {
	switch cfg.LLM {
	case "openai":
		e, err := llm.New(llm.Options{Provider: llm.ProviderOpenAI, APIKey: cfg.OpenAIKey, BaseURL: cfg.OpenAIBaseURL, Model: cfg.LLMModel, Prices: cfg.Prices, Logger: logger})
		if err != nil {
			return nil, fmt.Errorf("QUARRY_LLM=openai: %w", err)
		}
		return e, nil
	case "anthropic":
		e, err := llm.New(llm.Options{Provider: llm.ProviderAnthropic, APIKey: cfg.AnthropicKey, Model: cfg.LLMModel, Prices: cfg.Prices, Logger: logger})
		if err != nil {
			return nil, fmt.Errorf("QUARRY_LLM=anthropic: %w", err)
		}
		return e, nil
	}
	// The built-in engine reads meaning from WordNet; without it its reports
	// quietly get worse, so a missing database stops start-up instead.
	if _, err := text.SharedLexicon(); err != nil {
		return nil, fmt.Errorf("QUARRY_LLM=extractive: %w", err)
	}
	return extractive.New(), nil
}

// buildBrowser starts the tab pool and the search/gather layer on it. Pages
// are fetched over HTTP first and rendered in the pool when they need it;
// hosts (nil: this process only) remembers which way worked per host.
func buildBrowser(ctx context.Context, cfg *Config, hosts fetch.HostStore, logger *slog.Logger) (*browser.Pool, *search.Gatherer, error) {
	guard := egress.NewGuard(cfg.AllowHosts)
	pool, err := browser.NewPool(ctx, browser.PoolOptions{
		ChromiumPath: cfg.Chromium,
		RemoteURL:    cfg.BrowserURL,
		Size:         cfg.PoolSize,
		Guard:        guard,
		Logger:       logger,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("start browser (QUARRY_CHROMIUM / QUARRY_BROWSER_URL): %w", err)
	}
	// A model, when one is configured, takes over a site search the rules
	// cannot finish.
	var fallback func() agent.Planner
	if e, err := buildEngine(cfg, logger); err == nil {
		if m, ok := e.(agent.JSONAsker); ok {
			fallback = agent.NewModelPlanner(m)
		}
	}
	site := agent.SiteSearch(agent.Options{Pool: pool, MaxSteps: cfg.AgentMaxSteps, Logger: logger}, fallback)
	searcher := search.NewSearcher(pool, search.Options{Engines: cfg.SearchEngines, SearxngURL: cfg.SearxngURL, Guard: guard, Logger: logger, Site: site})
	fetcher := fetch.New(fetch.Options{
		Guard:       guard,
		Pool:        pool,
		Hosts:       hosts,
		Concurrency: cfg.FetchConcurrency,
		PerHost:     cfg.FetchPerHost,
		Logger:      logger,
	})
	return pool, search.NewGatherer(pool, searcher).WithFetcher(fetcher), nil
}

// buildTasks builds the scheduler and the task handlers' options on the
// runner: a task's run is an ordinary run, built by the same rules as a
// person's.
func buildTasks(cfg *Config, store *db.Store, runner *pipeline.Runner, outbox *notify.Outbox, logger *slog.Logger) (*tasks.Scheduler, handlers.TaskOptions) {
	makeRun := func(t *db.Task, review bool) (db.NewRun, error) {
		return runner.NewRun(pipeline.Request{Question: t.Question, Depth: t.Depth, Engines: t.Engines, Review: research.ReviewWhen(review), Owner: t.Owner})
	}
	policy := tasks.Policy{Grace: cfg.Tasks.Grace, DailyBudgetUSD: cfg.Tasks.DailyBudgetUSD, DailyRuns: cfg.Tasks.DailyRuns,
		MakeRun: makeRun}
	scheduler := tasks.NewScheduler(tasks.Options{
		Store:    store,
		Policy:   policy,
		Wake:     runner.Wake,
		Logger:   logger,
		Notifier: outbox,
		Changes:  changeReader(store),
	})
	guard := egress.NewGuard(cfg.AllowHosts)
	return scheduler, handlers.TaskOptions{
		Rules:      tasks.Rules{MinInterval: cfg.Tasks.MinInterval, CheckURL: guard.Check},
		MaxPerUser: cfg.Tasks.PerUser,
		Normalize:  runner.Normalize,
		NewRun:     makeRun,
		AllowRun:   policy.AllowManual,
		Wake:       runner.Wake,
		Changes:    changeReader(store),
	}
}
