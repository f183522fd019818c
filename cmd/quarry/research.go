package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// runResearch implements `quarry research [--depth D] [--engines LIST]
// [--json] QUESTION`: the whole pipeline in this process, recorded in the
// database like any run, with the report printed at the end.
func runResearch(ctx context.Context, args []string) error {
	return researchTo(ctx, os.Stdout, os.Stderr, os.Getenv, args)
}

// researchOutput is the --json object of the command-line contract.
type researchOutput struct {
	RunID          string             `json:"run_id"`
	Status         research.RunStatus `json:"status"`
	Error          string             `json:"error,omitempty"`
	StopReason     string             `json:"stop_reason,omitempty"`
	ReportMarkdown string             `json:"report_markdown"`
	Sources        []researchSource   `json:"sources"`
	Verification   json.RawMessage    `json:"verification"`
	Timings        map[string]int64   `json:"timings"`
}

type researchSource struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

func researchTo(ctx context.Context, stdout, stderr io.Writer, getenv func(string) string, args []string) error {
	fs := flag.NewFlagSet("research", flag.ContinueOnError)
	fs.SetOutput(stderr)
	depth := fs.String("depth", "", "quick, standard or deep (default QUARRY_DEPTH)")
	engines := fs.String("engines", "", "comma-separated search engines (default QUARRY_SEARCH_ENGINES)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the Markdown report")
	if err := fs.Parse(args); err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if question == "" {
		return errors.New("research: usage: quarry research [--depth D] [--engines LIST] [--json] QUESTION")
	}
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return err
	}
	if *engines != "" {
		cfg.SearchEngines = splitList(*engines)
	}
	if *depth == "" {
		*depth = cfg.Depth
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	start := time.Now()
	conn, _, err := cfg.openDB(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	store := db.NewStore(conn, nil)
	engine, err := buildEngine(cfg, logger)
	if err != nil {
		return err
	}
	pool, gatherer, err := buildBrowser(ctx, cfg, store, logger)
	if err != nil {
		return err
	}
	defer pool.Close()
	runner := pipeline.NewRunner(pipeline.Options{Store: store, Engine: engine, Gatherer: gatherer, Engines: cfg.SearchEngines,
		Workers: 1, BaseURL: cfg.BaseURL, RunBudgetUSD: cfg.RunBudgetUSD, Logger: logger,
		NoPreliminary: cfg.NoPreliminary})
	run, err := runner.Submit(ctx, pipeline.Request{Question: question, Depth: *depth, Engines: cfg.SearchEngines})
	if err != nil {
		return err
	}
	// Execute this run here rather than whatever a worker would claim first.
	claimed, err := store.ClaimRunByID(ctx, run.ID, runner.Owner(), 15*time.Second)
	if err != nil {
		return err
	}
	runner.Execute(claimed)
	final, err := store.GetRun(context.Background(), run.ID)
	if err != nil {
		return err
	}
	out := researchOutput{RunID: run.ID, Status: final.Status, Error: final.Error, StopReason: final.StopReason,
		Verification: json.RawMessage(`{}`), Timings: map[string]int64{"total_ms": time.Since(start).Milliseconds()}}
	if st, err := pipeline.LatestState(context.Background(), store, run.ID); err == nil {
		for stage, ms := range st.Timings {
			out.Timings[stage+"_ms"] = ms
		}
	}
	if rep, err := store.PublishedReport(context.Background(), run.ID); err == nil {
		out.ReportMarkdown = rep.Markdown
		out.Verification = rep.Verification
	}
	sources, err := store.Sources(context.Background(), run.ID)
	if err != nil {
		return err
	}
	out.Sources = []researchSource{}
	for _, s := range sources {
		out.Sources = append(out.Sources, researchSource{ID: research.SourceID(s.SID), URL: s.URL, Title: s.Title, Text: s.Text})
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else if out.ReportMarkdown != "" {
		fmt.Fprintln(stdout, out.ReportMarkdown)
	}
	if final.Status != research.StatusDone {
		return fmt.Errorf("research: run %s ended %s: %s", run.ID, final.Status, final.Error)
	}
	return nil
}
