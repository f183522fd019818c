package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// runResearch implements `quarry research [--depth D] [--engines LIST]
// [--review] [--json] QUESTION`: the whole pipeline in this process,
// recorded in the database like any run, with the report printed at the
// end. It never pauses for plan review unless --review asks it to; then
// it shows the plan on stderr and reads replies from stdin.
func runResearch(ctx context.Context, args []string) error {
	return researchTo(ctx, os.Stdin, os.Stdout, os.Stderr, os.Getenv, args)
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
	// Spend is the model spend in total and per stage.
	Spend pipeline.Spend `json:"spend"`
}

type researchSource struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

func researchTo(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, args []string) error {
	fs := flag.NewFlagSet("research", flag.ContinueOnError)
	fs.SetOutput(stderr)
	depth := fs.String("depth", "", "quick, standard or deep (default QUARRY_DEPTH)")
	engines := fs.String("engines", "", "comma-separated search engines (default QUARRY_SEARCH_ENGINES)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the Markdown report")
	review := fs.Bool("review", false, "show the plan and wait for a reply on stdin before searching")
	if err := fs.Parse(args); err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if question == "" {
		return errors.New("research: usage: quarry research [--depth D] [--engines LIST] [--review] [--json] QUESTION")
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
	gatherer.WithLibrary(buildLibrary(cfg, store, "", logger))
	runner := pipeline.NewRunner(pipeline.Options{Store: store, Engine: engine, Gatherer: gatherer, Engines: cfg.SearchEngines,
		Workers: 1, BaseURL: cfg.BaseURL, RunBudgetUSD: cfg.RunBudgetUSD, Logger: logger,
		Presets: cfg.Presets, Verify: cfg.Verify, ClarifyBelow: cfg.ClarifyBelow, NoPreliminary: cfg.NoPreliminary})
	mode := research.ReviewNever
	if *review {
		mode = research.ReviewAlways
	}
	run, err := runner.Submit(ctx, pipeline.Request{Question: question, Depth: *depth, Engines: cfg.SearchEngines, Review: mode})
	if err != nil {
		return err
	}
	final, err := executeHere(ctx, store, runner, run.ID, bufio.NewReader(stdin), stderr)
	if err != nil {
		return err
	}
	run = final
	out := researchOutput{RunID: run.ID, Status: final.Status, Error: final.Error, StopReason: final.StopReason,
		Verification: json.RawMessage(`{}`), Timings: map[string]int64{"total_ms": time.Since(start).Milliseconds()}}
	if st, err := pipeline.LatestState(context.Background(), store, run.ID); err == nil {
		for stage, ms := range st.Timings {
			out.Timings[stage+"_ms"] = ms
		}
		out.Spend = st.Spend()
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

// executeHere runs the run in this process rather than whatever a worker
// would claim first. When it pauses for review it shows the plan and
// reads a reply; a reply that needs confirmation lists the choices and
// reads the number of one. It returns the run as it ended (or stayed
// paused, when stdin ends).
func executeHere(ctx context.Context, store *db.Store, runner *pipeline.Runner, id string, in *bufio.Reader, out io.Writer) (*db.Run, error) {
	for {
		claimed, err := store.ClaimRunByID(ctx, id, runner.Owner(), 15*time.Second)
		if err != nil {
			return nil, err
		}
		runner.Execute(claimed)
		run, err := store.GetRun(context.Background(), id)
		if err != nil || run.Status != research.StatusAwaitingApproval {
			return run, err
		}
		var spec research.TaskSpec
		json.Unmarshal(run.TaskSpec, &spec)
		fmt.Fprintf(out, "Plan (clarity %.2f): %s\n", spec.Clarity, spec.Goal)
		for _, a := range spec.Actions {
			fmt.Fprintf(out, "  - %s %s%s\n", a.Kind, a.Query, a.URL)
		}
		for _, q := range spec.Questions {
			fmt.Fprintf(out, "  ? %s\n", q)
		}
		fmt.Fprint(out, "Reply (yes, or what to change): ")
		reply, err := readLine(in)
		if err != nil {
			return run, nil // no reply: the run stays paused
		}
		dec, err := runner.Approve(ctx, id, pipeline.Approval{Reply: reply})
		for err == nil && dec.NeedsConfirmation {
			fmt.Fprintln(out, dec.Message)
			for i, c := range dec.Choices {
				fmt.Fprintf(out, "  %d. %s\n", i+1, c.Label)
			}
			fmt.Fprint(out, "Choice: ")
			line, rerr := readLine(in)
			if rerr != nil {
				return run, nil
			}
			n, cerr := strconv.Atoi(line)
			if cerr != nil || n < 1 || n > len(dec.Choices) {
				continue
			}
			c := dec.Choices[n-1]
			dec, err = runner.Approve(ctx, id, pipeline.Approval{Reply: reply, Intent: c.Intent, Confirm: true})
		}
		if err != nil {
			return nil, err
		}
		if dec.NewRunID != "" {
			id = dec.NewRunID
		}
		if dec.Intent == pipeline.IntentCancel {
			return store.GetRun(context.Background(), id)
		}
	}
}

// readLine reads one line, without its end.
func readLine(in *bufio.Reader) (string, error) {
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimSpace(line), nil
}
