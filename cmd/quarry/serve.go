package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/web"
)

// Shutdown budget: the whole sequence ends well inside the 10 s a process
// manager usually waits between SIGTERM and SIGKILL.
const (
	shutdownHTTP    = 4 * time.Second
	shutdownStreams = 1 * time.Second
	shutdownRunner  = 3 * time.Second
)

// runServe implements `quarry serve`.
func runServe(ctx context.Context, args []string) error {
	getenv, err := serveFlags(args, os.Getenv)
	if err != nil {
		return err
	}
	return serve(ctx, getenv, newLogger(os.Stderr))
}

// serveFlags parses the flags of `quarry serve`; a flag overrides the
// environment variable it names.
func serveFlags(args []string, getenv func(string) string) (func(string) string, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	names := map[string]string{
		"addr":      "QUARRY_ADDR",
		"base-url":  "QUARRY_BASE_URL",
		"workers":   "QUARRY_WORKERS",
		"pool-size": "QUARRY_POOL_SIZE",
		"depth":     "QUARRY_DEPTH",
		"llm":       "QUARRY_LLM",
	}
	values := map[string]*string{}
	for flagName, env := range names {
		values[env] = fs.String(flagName, "", "overrides "+env)
	}
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	return func(name string) string {
		if v, ok := values[name]; ok && *v != "" {
			return *v
		}
		return getenv(name)
	}, nil
}

// newLogger logs JSON lines, or text when stderr is a terminal; a line
// logged with a run's context carries its run_id.
func newLogger(w *os.File) *slog.Logger {
	if fi, err := w.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		return slog.New(pipeline.NewLogHandler(slog.NewTextHandler(w, nil)))
	}
	return slog.New(pipeline.NewLogHandler(slog.NewJSONHandler(w, nil)))
}

// serve runs the server until ctx ends (SIGTERM or SIGINT), then shuts
// down in order: stop accepting requests, end the SSE streams, stop the
// workers (which releases their leases so another replica resumes their
// runs at once), close the browser, close the database.
func serve(ctx context.Context, getenv func(string) string, logger *slog.Logger) error {
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return err
	}
	if err := checkExposure(cfg); err != nil {
		return err
	}
	openCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, applied, err := cfg.openDB(openCtx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if len(applied) > 0 {
		logger.Info("migrations applied", "files", applied)
	}
	broker := db.NewBroker(db.NewEventReader(conn), logger)
	store := db.NewStore(conn, broker)
	listenCtx, stopListen := context.WithCancel(context.Background())
	defer stopListen()
	dbURL, _ := cfg.dbURL() // openDB has checked it
	if err := broker.Listen(listenCtx, dbURL); err != nil {
		return fmt.Errorf("listen for events: %w", err)
	}
	inbox := db.NewInbox(logger)
	if err := inbox.Listen(listenCtx, dbURL); err != nil {
		return fmt.Errorf("listen for notifications: %w", err)
	}
	outbox := buildOutbox(cfg, store, logger)

	engine, err := buildEngine(cfg, logger)
	if err != nil {
		return err
	}
	pool, gatherer, err := buildBrowser(openCtx, cfg, store, logger)
	if err != nil {
		return err
	}
	defer pool.Close()

	lib := buildLibrary(cfg, store, "", logger)
	gatherer.WithLibrary(lib)
	metrics := newRunMetrics()
	model := cfg.LLMModel
	if model == "" {
		model = "default"
	}
	runner := pipeline.NewRunner(pipeline.Options{
		Store: store, Engine: meteredEngine{engine, metrics, model}, Gatherer: meteredGatherer{gatherer, metrics},
		Metrics: metrics, Engines: cfg.SearchEngines,
		Workers: cfg.Workers, BaseURL: cfg.BaseURL, RunBudgetUSD: cfg.RunBudgetUSD, Logger: logger,
		ShareTTL: cfg.ShareTTL, LeaseTTL: cfg.LeaseTTL,
		Presets: cfg.Presets, Verify: cfg.Verify, ClarifyBelow: cfg.ClarifyBelow,
		NoPreliminary: cfg.NoPreliminary,
	})
	store.SetTaskConcurrency(cfg.Tasks.Concurrency)
	scheduler, taskOpts := buildTasks(cfg, store, runner, outbox, logger)
	h := handlers.New(handlers.Options{
		Store: store, Runs: runner, Browser: pool, Logger: logger, Inbox: inbox,
		BaseURL: cfg.BaseURL, DefaultDepth: cfg.Depth, Settings: settingsView(cfg),
		Collectors:     append(poolCollectors(pool), metrics.collectors()...),
		Auth:           handlers.AuthOptions{Mode: cfg.Auth, Header: cfg.AuthHeader, SessionTTL: cfg.SessionTTL},
		TrustedProxies: cfg.TrustedProxies, Limits: cfg.Limits,
		Printer: pool, ShareTTL: cfg.ShareTTL, AllowedHosts: cfg.AllowedHosts,
		Tasks:   taskOpts,
		Library: lib,
		MCP:     mcpHandler(store, cfg, logger),
	})
	if cfg.Auth == handlers.AuthPassword {
		if users, err := store.ListUsers(openCtx); err == nil && len(users) == 0 {
			logger.Warn("QUARRY_AUTH=password but there are no users yet; add one with: quarry user add --name NAME --password-stdin")
		}
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("QUARRY_ADDR: listen on %s: %w", cfg.Addr, err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		// No ReadTimeout or WriteTimeout: either would cut the SSE streams.
		// Request bodies are bounded by the handlers' middleware instead.
	}
	// Shutdown waits for handlers to return, and a stream never returns by
	// itself: end the streams as soon as shutdown begins.
	srv.RegisterOnShutdown(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownHTTP)
		defer cancel()
		h.CloseStreams(ctx)
	})

	// Every replica delivers the outbox, until shutdown (before the
	// database closes).
	outboxCtx, stopOutbox := context.WithCancel(context.Background())
	outboxDone := make(chan struct{})
	go func() { outbox.Run(outboxCtx); close(outboxDone) }()
	defer func() { stopOutbox(); <-outboxDone }()
	runner.Start()
	// Every replica runs the scheduler; they share the work through
	// Postgres. NOTIFY on a task's creation or edit wakes them.
	schedCtx, stopScheduler := context.WithCancel(context.Background())
	defer stopScheduler()
	if err := db.ListenTasks(schedCtx, dbURL, scheduler.Wake); err != nil {
		return err
	}
	scheduler.Start(schedCtx)
	libCtx, stopLibrary := context.WithCancel(context.Background())
	defer stopLibrary() // an interrupted ingestion is resumed by the next claim of its lease
	go lib.Work(libCtx)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	logger.Info("listening", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String()+"/",
		"engine", engine.Name(), "workers", cfg.Workers, "version", version)

	var failed error
	select {
	case <-ctx.Done():
		logger.Info("shutting down")
	case err := <-serveErr:
		failed = fmt.Errorf("serve http: %w", err)
		logger.Error("http server stopped", "err", err)
	}

	start := time.Now()
	httpCtx, cancelHTTP := context.WithTimeout(context.Background(), shutdownHTTP)
	if err := srv.Shutdown(httpCtx); err != nil {
		logger.Warn("http shutdown incomplete; closing connections", "err", err)
		srv.Close()
	}
	cancelHTTP()
	streamsCtx, cancelStreams := context.WithTimeout(context.Background(), shutdownStreams)
	if err := h.CloseStreams(streamsCtx); err != nil {
		logger.Warn("sse streams still open", "err", err)
	}
	cancelStreams()
	stopScheduler()
	scheduler.Wait()
	runnerCtx, cancelRunner := context.WithTimeout(context.Background(), shutdownRunner)
	if err := runner.Shutdown(runnerCtx); err != nil {
		logger.Warn("workers did not stop in time", "err", err)
	}
	cancelRunner()
	pool.Close()
	stopListen()
	conn.Close()
	logger.Info("stopped", "shutdown_ms", time.Since(start).Milliseconds())
	if failed != nil && !errors.Is(failed, http.ErrServerClosed) {
		return failed
	}
	return nil
}

// checkExposure refuses to serve a non-loopback address with
// authentication off by default: QUARRY_AUTH=none must then be said
// explicitly.
func checkExposure(cfg *Config) error {
	host, _, _ := net.SplitHostPort(cfg.Addr)
	if cfg.AuthExplicit || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("QUARRY_AUTH: refusing to serve %s without authentication, since it is not a loopback address; "+
		"set QUARRY_AUTH=password (accounts: quarry user add) or QUARRY_AUTH=proxy (with QUARRY_TRUSTED_PROXIES), "+
		"or QUARRY_AUTH=none to serve it open on purpose", cfg.Addr)
}

// runMigrate implements `quarry migrate`.
func runMigrate(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("migrate: unexpected argument %q", args[0])
	}
	cfg, err := LoadConfig(os.Getenv)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, applied, err := cfg.openDB(ctx)
	if err != nil {
		return err
	}
	conn.Close()
	if len(applied) == 0 {
		fmt.Fprintln(stdout, "migrate: the database is up to date")
	}
	for _, f := range applied {
		fmt.Fprintln(stdout, "migrate: applied", f)
	}
	return nil
}

// settingsView is the configuration as /settings shows it: no secret, and
// a remote browser by host only (its URL may carry a token).
func settingsView(cfg *Config) web.SettingsView {
	v := web.SettingsView{
		Engine: cfg.LLM, Model: cfg.LLMModel, SearchEngines: cfg.SearchEngines, PoolSize: cfg.PoolSize,
		Workers: cfg.Workers, DefaultDepth: cfg.Depth, Auth: cfg.Auth, BaseURL: cfg.BaseURL, RunBudgetUSD: cfg.RunBudgetUSD,
		Presets: handlers.PresetViews(cfg.Presets),
	}
	switch {
	case cfg.BrowserURL != "":
		v.Browser = "remote"
		if u, err := url.Parse(cfg.BrowserURL); err == nil {
			v.Browser = "remote " + u.Host
		}
	default:
		v.Browser = "local"
		if bin, err := browser.FindChromium(cfg.Chromium); err == nil {
			v.Browser = "local " + bin
		}
	}
	if v.Engine != "extractive" && v.Model == "" {
		v.Model = "(provider default)"
	}
	return v
}

// poolCollectors expose the browser pool on /metrics.
func poolCollectors(pool *browser.Pool) []prometheus.Collector {
	stat := func(f func(browser.PoolStats) float64) func() float64 {
		return func() float64 { return f(pool.Stats()) }
	}
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "quarry_browser_tabs_in_use", Help: "Browser tabs lent out."},
			stat(func(s browser.PoolStats) float64 { return float64(s.InUse) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "quarry_browser_tabs_waiting", Help: "Callers waiting for a tab."},
			stat(func(s browser.PoolStats) float64 { return float64(s.Waiting) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "quarry_browser_pages_total", Help: "Navigations since start."},
			stat(func(s browser.PoolStats) float64 { return float64(s.Pages) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "quarry_browser_crashes_total", Help: "Browsers found dead or silent."},
			stat(func(s browser.PoolStats) float64 { return float64(s.Crashes) })),
	}
}
