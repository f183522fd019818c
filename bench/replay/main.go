// Command replay rewrites the reports of a benchmark run from the pages
// that run fetched, with the extractive engine of the current work tree:
// no browser, no search program, seconds instead of minutes. It reads
// lines "question<TAB>in.json<TAB>out.json" on standard input, where
// in.json is `quarry research --json` output with its page texts (not a
// run kept by bench/answers/keep.py), and writes out.json in the same
// form so the benchmark's scorer reads it unchanged.
//
//	bench/replay/run.sh answers IN OUT   # bench/answers run, then score.py
//	bench/replay/run.sh docsqa IN OUT    # bench/docsqa run, then its score.py
//
// A replay holds the sources fixed, so it measures what the engine makes
// of them, not what search finds; confirm a change with a full run.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/research"
)

type run struct {
	Status string            `json:"status"`
	Report string            `json:"report_markdown"`
	Error  string            `json:"error,omitempty"`
	Srcs   []research.Source `json:"sources"`
}

func main() {
	depth := flag.String("depth", research.DepthStandard, "the runs' depth")
	jobs := flag.Int("jobs", 2, "questions replayed at once")
	flag.Parse()
	type job struct{ question, in, out string }
	var todo []job
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			continue
		}
		todo = append(todo, job{f[0], f[1], f[2]})
	}
	ch := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < *jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				if err := replay(j.question, j.in, j.out, *depth); err != nil {
					fmt.Fprintf(os.Stderr, "replay: %s: %v\n", j.in, err)
				}
			}
		}()
	}
	for _, j := range todo {
		ch <- j
	}
	close(ch)
	wg.Wait()
}

func replay(question, in, out, depth string) error {
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var r run
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	res := run{Status: r.Status, Error: r.Error, Srcs: r.Srcs}
	if len(r.Srcs) > 0 {
		e := extractive.New()
		ctx := context.Background()
		spec, _, err := e.Plan(ctx, engine.PlanRequest{Question: question, Budget: research.Presets()[depth]})
		if err != nil {
			return err
		}
		md, _, err := e.Synthesize(ctx, engine.SynthesisRequest{Question: question, Spec: spec, Sources: r.Srcs, Budget: spec.Budget}, func(string) {})
		if err != nil {
			return err
		}
		res.Report, res.Status = md, "done"
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	b, err = json.MarshalIndent(res, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(strings.TrimSuffix(out, ".json")+".md", []byte(res.Report), 0o644)
}
