//go:build load

package faults

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestLoadConcurrentRuns: 20 standard runs at once on one replica with a
// pool of 4 tabs (and 4 workers): all complete, they start in the order
// they were asked (the queue is first come, first served), and memory stays
// bounded. Figures: total time, queue waits, peak RSS of the server and of
// the server with its Chromium.
func TestLoadConcurrentRuns(t *testing.T) {
	const runs = 20
	dbURL, conn := database(t)
	s := newSite(200 * time.Millisecond)
	defer s.Close()
	env := append(baseEnv(dbURL, s), "QUARRY_POOL_SIZE=4", "QUARRY_WORKERS=4", "QUARRY_DEPTH=standard")
	rp := startReplica(t, "replica", env...)

	stop := make(chan struct{})
	var peakServer, peakAll int64
	var samples sync.WaitGroup
	samples.Add(1)
	go func() {
		defer samples.Done()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			server := rssOf(rp.pid())
			all := server
			for _, p := range descendants(rp.pid()) {
				all += rssOf(p)
			}
			peakServer, peakAll = max(peakServer, server), max(peakAll, all)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()

	start := time.Now()
	ids := make([]string, runs)
	for i := range ids {
		// One after the other, a few ms apart, so the order asked is known.
		ids[i] = createRun(t, rp.url(), fmt.Sprintf("How do Postgres %s affect job queues (load run %d)?", topics[i%len(topics)], i+1), "standard")
	}
	for _, id := range ids {
		r := waitFor(t, conn, id, 20*time.Minute, "finished", terminal)
		checkEnded(t, conn, id, r)
		if r.Status != "done" {
			t.Errorf("run %s: %s", id, r.Status)
		}
	}
	total := time.Since(start)
	close(stop)
	samples.Wait()

	var rows []struct {
		ID       string  `db:"id"`
		WaitMS   float64 `db:"wait_ms"`
		RunMS    float64 `db:"run_ms"`
		Position int     `db:"position"`
	}
	if err := conn.Select(&rows, `SELECT id, extract(epoch FROM started_at - created_at) * 1000 AS wait_ms,
		extract(epoch FROM finished_at - started_at) * 1000 AS run_ms,
		row_number() OVER (ORDER BY started_at, id) AS position FROM runs ORDER BY created_at, id`); err != nil {
		t.Fatal(err)
	}
	var waits, durs []float64
	for i, r := range rows {
		if r.ID != ids[i] {
			t.Fatalf("run %d in creation order is %s, want %s", i+1, r.ID, ids[i])
		}
		// Workers claim the oldest run first; four claim at once, so a run
		// may start at most a few places off its turn, never later.
		if r.Position > i+1+4 || r.Position < i+1-4 {
			t.Errorf("run %d (asked %d-th) started %d-th: the queue is not fair", i+1, i+1, r.Position)
		}
		waits = append(waits, r.WaitMS)
		durs = append(durs, r.RunMS)
	}
	sort.Float64s(waits)
	sort.Float64s(durs)
	var pages int64 = s.pages.Load()
	t.Logf("FIGURES 20 concurrent standard runs (pool 4 tabs, 4 workers): all %d done in %s; %d pages fetched; queue wait p50 %.1fs max %.1fs; run time p50 %.1fs max %.1fs; peak RSS server %d MiB, server+Chromium %d MiB",
		runs, total.Round(time.Second), pages, waits[len(waits)/2]/1000, waits[len(waits)-1]/1000, durs[len(durs)/2]/1000, durs[len(durs)-1]/1000,
		peakServer>>20, peakAll>>20)
	if peakServer > 1<<30 {
		t.Errorf("the server's RSS peaked at %d MiB", peakServer>>20)
	}
}

// TestLoadSSEViewers: 1,000 viewers follow one run on one replica: every
// viewer gets every event once and in order. Figures: delivery lag p50 and
// p99 (event commit to receipt, client and server on the same 2 cores),
// and the server's memory per open stream.
func TestLoadSSEViewers(t *testing.T) {
	const viewers = 1000
	dbURL, conn := database(t)
	s := newSite(100 * time.Millisecond)
	defer s.Close()
	rp := startReplica(t, "replica", baseEnv(dbURL, s)...)

	body, _ := json.Marshal(map[string]any{"question": "How do Postgres advisory locks work for job queues?", "depth": "quick", "review": true})
	resp, err := http.Post(rp.url()+"/api/runs", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	id := created.ID
	paused := waitFor(t, conn, id, time.Minute, "awaiting approval", func(r runRow) bool { return r.Status == "awaiting_approval" })
	after := paused.LastSeq

	before := serverMemory(t, rp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	type delivery struct {
		seq int64
		lag time.Duration
	}
	results := make([][]delivery, viewers)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: viewers, DisableCompression: true}}
	var wg sync.WaitGroup
	for v := 0; v < viewers; v++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/api/runs/%s/events?after=%d", rp.url(), id, after), nil)
			resp, err := client.Do(req)
			if err != nil {
				t.Errorf("viewer %d: %v", v, err)
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("viewer %d: %d", v, resp.StatusCode)
				return
			}
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 64<<10), 8<<20)
			for sc.Scan() {
				line := sc.Bytes()
				if !bytes.HasPrefix(line, []byte("data: ")) {
					continue
				}
				now := time.Now()
				var ev struct {
					Seq       int64     `json:"seq"`
					Type      string    `json:"type"`
					CreatedAt time.Time `json:"created_at"`
				}
				if json.Unmarshal(line[6:], &ev) != nil {
					continue
				}
				results[v] = append(results[v], delivery{ev.Seq, now.Sub(ev.CreatedAt)})
				if ev.Type == "run_completed" || ev.Type == "run_failed" {
					return
				}
			}
		}()
	}
	// All connected?
	deadline := time.Now().Add(2 * time.Minute)
	for metric(t, rp, "quarry_sse_clients") < viewers {
		if time.Now().After(deadline) {
			t.Fatalf("only %.0f of %d viewers connected", metric(t, rp, "quarry_sse_clients"), viewers)
		}
		time.Sleep(200 * time.Millisecond)
	}
	connected := serverMemory(t, rp)

	approved := time.Now()
	resp, err = http.Post(rp.url()+"/api/runs/"+id+"/approve", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("approve: %d", resp.StatusCode)
	}
	r := waitFor(t, conn, id, 3*time.Minute, "finished", terminal)
	checkEnded(t, conn, id, r)
	wg.Wait()

	var lags []time.Duration
	for v, got := range results {
		if int64(len(got)) != r.LastSeq-after {
			t.Errorf("viewer %d got %d events, want %d", v, len(got), r.LastSeq-after)
			continue
		}
		for i, d := range got {
			if d.seq != after+int64(i)+1 {
				t.Errorf("viewer %d: event %d has seq %d", v, i, d.seq)
				break
			}
			lags = append(lags, d.lag)
		}
	}
	if len(lags) == 0 {
		t.Fatal("no deliveries")
	}
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
	pct := func(p float64) time.Duration { return lags[min(len(lags)-1, int(p*float64(len(lags))))] }
	t.Logf("FIGURES %d SSE viewers of one run: %d events each (%d deliveries) in %s; delivery lag p50 %s, p99 %s, max %s; server RSS %d MiB idle → %d MiB with the viewers (%.1f KiB per stream), Go heap %.1f KiB per stream, goroutines %.1f per stream",
		viewers, r.LastSeq-after, len(lags), time.Since(approved).Round(100*time.Millisecond),
		pct(0.50).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), lags[len(lags)-1].Round(time.Millisecond),
		before.rss>>20, connected.rss>>20, float64(connected.rss-before.rss)/viewers/1024,
		float64(connected.heap-before.heap)/viewers/1024, float64(connected.goroutines-before.goroutines)/viewers)
}

// memory is a replica's memory as /metrics reports it.
type memory struct {
	rss, heap  int64
	goroutines int64
}

func serverMemory(t *testing.T, rp *replica) memory {
	return memory{
		rss:        int64(metric(t, rp, "process_resident_memory_bytes")),
		heap:       int64(metric(t, rp, "go_memstats_heap_inuse_bytes")),
		goroutines: int64(metric(t, rp, "go_goroutines")),
	}
}

// rssOf is a process's resident memory in bytes (0 when it is gone).
func rssOf(pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// descendants are every process below pid.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			if f := strings.Fields(s[i+1:]); len(f) >= 2 {
				parent[p], _ = strconv.Atoi(f[1])
			}
		}
	}
	var out []int
	for p := range parent {
		for a := parent[p]; a > 1; a = parent[a] {
			if a == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
