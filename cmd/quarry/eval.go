package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
)

// runEval implements `quarry eval extraction --dir DIR [--out FILE]`: it
// scores the extractor against a benchmark directory and prints precision,
// recall and F1, then the same figures as one JSON line.
func runEval(ctx context.Context, args []string) error {
	return evalTo(ctx, os.Stdout, args)
}

func evalTo(ctx context.Context, w io.Writer, args []string) error {
	if len(args) == 0 || args[0] != "extraction" {
		return errors.New("usage: quarry eval extraction --dir DIR [--out FILE]")
	}
	fs := flag.NewFlagSet("eval extraction", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", "", "benchmark directory with html/ and ground-truth.json")
	out := fs.String("out", "", "write predictions as JSON to this file")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "pages extracted in parallel")
	worst := fs.Int("worst", 0, "also list the N pages with the lowest F1")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("eval extraction: %w (usage: quarry eval extraction --dir DIR [--out FILE])", err)
	}
	if *dir == "" {
		return errors.New("eval extraction: --dir is required")
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	report, preds, err := evalDir(*dir, *workers)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := writePredictions(*out, preds); err != nil {
			return err
		}
	}
	if *worst > 0 {
		printWorst(w, report.PerPage, *worst)
	}
	fmt.Fprintf(w, "pages:     %d (%d failed)\n", report.Pages, report.Failures)
	fmt.Fprintf(w, "precision: %.4f\n", report.Precision)
	fmt.Fprintf(w, "recall:    %.4f\n", report.Recall)
	fmt.Fprintf(w, "f1:        %.4f\n", report.F1)
	fmt.Fprintf(w, "seconds:   %.1f\n", report.Seconds)
	line, err := json.Marshal(report)
	if err != nil {
		return fmt.Errorf("eval extraction: encode report: %w", err)
	}
	fmt.Fprintf(w, "%s\n", line)
	return nil
}

func writePredictions(path string, preds map[string]string) error {
	type body struct {
		ArticleBody string `json:"articleBody"`
	}
	out := make(map[string]body, len(preds))
	for id, text := range preds {
		out[id] = body{ArticleBody: text}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("eval extraction: encode predictions: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("eval extraction: write predictions: %w", err)
	}
	return nil
}

func printWorst(w io.Writer, pages []pageScore, n int) {
	sorted := append([]pageScore(nil), pages...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].F1 < sorted[j].F1 })
	for _, p := range sorted[:min(n, len(sorted))] {
		fmt.Fprintf(w, "%.3f  p=%.3f r=%.3f  %s %s\n", p.F1, p.Precision, p.Recall, p.ID, p.Err)
	}
}
