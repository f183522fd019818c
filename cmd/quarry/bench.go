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
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/fetch"
	"github.com/quarryhq/quarry/search"
)

// benchResult is the line `quarry bench fetch` prints.
type benchResult struct {
	Mode      string  `json:"mode"`
	Pages     int     `json:"pages"`
	Failures  int     `json:"failures"`
	Seconds   float64 `json:"seconds"`
	PagesPerS float64 `json:"pages_per_s"`
	// Rendered is how many pages went through the browser, by reason.
	Rendered      int            `json:"rendered"`
	RenderedShare float64        `json:"rendered_share"`
	Reasons       map[string]int `json:"reasons,omitempty"`
	// PhaseMS is the mean time per page of each phase, in milliseconds.
	PhaseMS benchPhases `json:"phase_ms"`
	RSSMB   float64     `json:"rss_mb"`
}

type benchPhases struct {
	Connect   float64 `json:"connect"`
	FirstByte float64 `json:"first_byte"`
	Body      float64 `json:"body"`
	Extract   float64 `json:"extract"`
	Render    float64 `json:"render"`
}

// runBench implements `quarry bench fetch [--concurrency N] --urls FILE`:
// it fetches every URL as a run does (HTTP first, the browser when the page
// needs it; --mode render renders every page), extracts each page and
// prints one JSON object: throughput, the share rendered and the mean time
// of each phase. The browser comes from QUARRY_CHROMIUM or
// QUARRY_BROWSER_URL, the pool size from QUARRY_POOL_SIZE and the egress
// allow list from QUARRY_ALLOW_HOSTS; flags override them.
func runBench(ctx context.Context, args []string) error {
	return benchTo(ctx, os.Stdout, os.Stderr, os.Getenv, args)
}

func benchTo(ctx context.Context, stdout, stderr io.Writer, getenv func(string) string, args []string) error {
	const usage = "usage: quarry bench fetch [--concurrency N] [--mode adaptive|render] [--chromium PATH] [--browser-url URL] [--allow-hosts LIST] [--recycle-after N] [--timeout D] [-v] --urls FILE"
	if len(args) == 0 || args[0] != "fetch" {
		return errors.New(usage)
	}
	fs := flag.NewFlagSet("bench fetch", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	urlsFile := fs.String("urls", "", "file with one URL per line")
	concurrency := fs.Int("concurrency", 0, "pages loading at once, over HTTP or in the browser (the pool size too; default QUARRY_POOL_SIZE, else 4)")
	mode := fs.String("mode", "adaptive", "adaptive (HTTP first, render when needed) or render (every page in the browser)")
	chromium := fs.String("chromium", getenv("QUARRY_CHROMIUM"), "Chromium binary")
	browserURL := fs.String("browser-url", getenv("QUARRY_BROWSER_URL"), "remote browser (CDP websocket)")
	allow := fs.String("allow-hosts", getenv("QUARRY_ALLOW_HOSTS"), "comma-separated hosts or host:port the egress guard allows")
	recycle := fs.Int("recycle-after", 0, "recycle the browser after N pages (default 500)")
	timeout := fs.Duration("timeout", 0, "per-page navigation timeout (default 20s)")
	verbose := fs.Bool("v", false, "log failures and memory to stderr")
	cpuProfile := fs.String("cpuprofile", "", "write a Go CPU profile to this file")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%w\n%s", err, usage)
	}
	if *urlsFile == "" || (*mode != "adaptive" && *mode != "render") {
		return errors.New(usage)
	}
	urls, err := readURLs(*urlsFile)
	if err != nil {
		return err
	}
	size := *concurrency
	if size <= 0 {
		if v := getenv("QUARRY_POOL_SIZE"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 64 {
				return fmt.Errorf("QUARRY_POOL_SIZE: %q is not a number from 1 to 64", v)
			}
			size = n
		}
	}
	if size <= 0 {
		size = browser.DefaultPoolSize
	}
	// Twice as many workers as fetches: a worker extracts a page after
	// giving its connection or tab back, and another worker's fetch keeps it
	// busy meanwhile. No more than size pages load at once either way.
	workers := 2 * size

	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	guard := egress.NewGuard(splitList(*allow))
	pool, err := browser.NewPool(ctx, browser.PoolOptions{
		ChromiumPath: *chromium,
		RemoteURL:    *browserURL,
		Size:         size,
		RecycleAfter: *recycle,
		NavTimeout:   *timeout,
		Guard:        guard,
		Logger:       logger,
	})
	if err != nil {
		return fmt.Errorf("bench: start browser: %w", err)
	}
	defer pool.Close()
	fetcher := fetch.New(fetch.Options{Guard: guard, Pool: pool, Concurrency: size, PerHost: size, Timeout: *timeout, Logger: logger})
	var mu sync.Mutex
	var phases fetch.Phases
	rendered := 0
	reasons := map[string]int{}
	visit := func(rawURL string) (extract.Page, error) {
		if *mode == "render" {
			t := time.Now()
			page, err := search.Visit(ctx, pool, rawURL)
			mu.Lock()
			phases.Render += time.Since(t)
			rendered++
			reasons["--mode render"]++
			mu.Unlock()
			return page, err
		}
		res, err := fetcher.Fetch(ctx, rawURL)
		mu.Lock()
		defer mu.Unlock()
		phases.Connect += res.Phases.Connect
		phases.FirstByte += res.Phases.FirstByte
		phases.Body += res.Phases.Body
		phases.Extract += res.Phases.Extract
		phases.Render += res.Phases.Render
		if res.Rendered {
			rendered++
			reasons[res.Reason]++
			logger.Info("rendered", "url", rawURL, "reason", res.Reason)
		}
		return res.Page, err
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	var next, failures atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(urls) || ctx.Err() != nil {
					return
				}
				page, err := visit(urls[i])
				if err == nil && strings.TrimSpace(page.Text) == "" {
					err = errors.New("no text extracted")
				}
				if err != nil {
					failures.Add(1)
					logger.Info("page failed", "url", urls[i], "err", err)
				}
				if *verbose && (i+1)%100 == 0 {
					logger.Info("progress", "pages", i+1, "stats", pool.Stats(), "rss_mb", rssMB(os.Getpid()), "tree_rss_mb", treeRSSMB(os.Getpid()))
				}
			}
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	n := float64(len(urls))
	mean := func(d time.Duration) float64 { return roundTo(float64(d.Milliseconds())/n, 1) }
	res := benchResult{
		Mode:          *mode,
		Pages:         len(urls),
		Failures:      int(failures.Load()),
		Seconds:       roundTo(secs, 3),
		PagesPerS:     roundTo(n/secs, 2),
		Rendered:      rendered,
		RenderedShare: roundTo(float64(rendered)/n, 3),
		Reasons:       reasons,
		PhaseMS: benchPhases{
			Connect:   mean(phases.Connect),
			FirstByte: mean(phases.FirstByte),
			Body:      mean(phases.Body),
			Extract:   mean(phases.Extract),
			Render:    mean(phases.Render),
		},
		RSSMB: rssMB(os.Getpid()),
	}
	return json.NewEncoder(stdout).Encode(res)
}

func readURLs(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bench: urls: %w", err)
	}
	defer f.Close()
	var urls []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		urls = append(urls, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bench: read %s: %w", path, err)
	}
	if len(urls) == 0 {
		return nil, fmt.Errorf("bench: %s holds no URLs", path)
	}
	return urls, nil
}

func roundTo(v float64, places int) float64 {
	p := 1.0
	for range places {
		p *= 10
	}
	return float64(int64(v*p+0.5)) / p
}

// rssMB is the resident memory of one process in MiB (Linux; 0 elsewhere).
func rssMB(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseFloat(f[0], 64)
				return roundTo(kb/1024, 1)
			}
		}
	}
	return 0
}

// treeRSSMB sums the resident memory of pid and all its descendants
// (Quarry plus its Chromium processes). Shared pages are counted per
// process, so it overstates, but it moves the way memory does.
func treeRSSMB(pid int) float64 {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 2 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], p)
		}
	}
	total := 0.0
	stack := []int{pid}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		total += rssMB(p)
		stack = append(stack, children[p]...)
	}
	return roundTo(total, 1)
}
