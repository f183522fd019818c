package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/mcpserver"
	"github.com/quarryhq/quarry/pipeline"
)

// runMCP implements `quarry mcp [--url URL --token T]`: an MCP server on
// stdin/stdout, for assistants that start a command. Without --url it
// runs the research in this process against DATABASE_URL, like `quarry
// research` (with the server's workers, browser and library); with --url
// it forwards every call to that server's /mcp with the API token (also
// read from QUARRY_TOKEN). Logs go to stderr: stdout is the protocol's.
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return mcpTo(ctx, args, stdin, stdout, stderr, os.Getenv)
}

func mcpTo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	remote := fs.String("url", "", "forward to the Quarry server at this URL instead of researching here")
	token := fs.String("token", "", "the API token for --url (default $QUARRY_TOKEN)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("mcp: unexpected argument %q", fs.Arg(0))
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	transport := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	if *token == "" {
		*token = getenv("QUARRY_TOKEN")
	}
	if *remote != "" {
		if *token == "" {
			return errors.New("mcp: --url needs an API token: --token T or QUARRY_TOKEN (create one with quarry token create)")
		}
		srv, closeRemote, err := mcpserver.Forward(ctx, *remote, *token, version, logger)
		if err != nil {
			return fmt.Errorf("mcp: %w", err)
		}
		defer closeRemote()
		return serveStdio(ctx, srv, transport)
	}
	if *token != "" && getenv("QUARRY_TOKEN") == "" {
		return errors.New("mcp: --token goes with --url (in-process research needs no token)")
	}
	return mcpHere(ctx, transport, getenv, logger)
}

// mcpHere serves MCP on transport with the research done in this process:
// the database, workers, browser pool and library of `quarry serve`, and
// its JSON API called in process without an account (as QUARRY_AUTH=none:
// whoever can start this command can read the database anyway).
func mcpHere(ctx context.Context, transport mcp.Transport, getenv func(string) string, logger *slog.Logger) error {
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return err
	}
	openCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, _, err := cfg.openDB(openCtx)
	if err != nil {
		return err
	}
	defer conn.Close()
	broker := db.NewBroker(db.NewEventReader(conn), logger)
	store := db.NewStore(conn, broker)
	listenCtx, stopListen := context.WithCancel(context.Background())
	defer stopListen()
	dbURL, _ := cfg.dbURL()
	if err := broker.Listen(listenCtx, dbURL); err != nil {
		return fmt.Errorf("listen for events: %w", err)
	}
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
	runner := pipeline.NewRunner(pipeline.Options{Store: store, Engine: engine, Gatherer: gatherer, Engines: cfg.SearchEngines,
		Workers: cfg.Workers, BaseURL: cfg.BaseURL, RunBudgetUSD: cfg.RunBudgetUSD, Logger: logger,
		ShareTTL: cfg.ShareTTL, LeaseTTL: cfg.LeaseTTL,
		Presets: cfg.Presets, Verify: cfg.Verify, ClarifyBelow: cfg.ClarifyBelow, NoPreliminary: cfg.NoPreliminary})
	api := handlers.New(handlers.Options{Store: store, Runs: runner, Logger: logger, BaseURL: cfg.BaseURL,
		DefaultDepth: cfg.Depth, Limits: cfg.Limits, ShareTTL: cfg.ShareTTL, Library: lib,
		Auth: handlers.AuthOptions{Mode: handlers.AuthNone}})
	runner.Start()
	defer func() {
		// Runs still going are left to any `quarry serve`: their leases are
		// given up so another worker resumes them at once.
		sctx, cancel := context.WithTimeout(context.Background(), shutdownRunner)
		defer cancel()
		runner.Shutdown(sctx)
	}()
	srv := mcpserver.New(mcpserver.Options{Store: store, BaseURL: cfg.BaseURL, Version: version, Logger: logger}).Local(api)
	return serveStdio(ctx, srv, transport)
}

// serveStdio serves srv until the client closes the stream or ctx ends.
func serveStdio(ctx context.Context, srv *mcp.Server, transport mcp.Transport) error {
	err := srv.Run(ctx, transport)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("mcp: %w", err)
}

// mcpHandler is the /mcp endpoint of `quarry serve`.
func mcpHandler(store *db.Store, cfg *Config, logger *slog.Logger) func(*handlers.Server) http.Handler {
	m := mcpserver.New(mcpserver.Options{Store: store, BaseURL: cfg.BaseURL, Version: version, Logger: logger})
	return m.HTTPHandler
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
