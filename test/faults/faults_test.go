//go:build faults

package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// A fault scenario runs reps times (QUARRY_FAULT_REPS, default 1): start a
// run, wait for the moment to strike, strike, and check the run still ends
// done or failed with a reason, with its events intact. Two replicas
// share the work; a killed one is replaced before the next repetition.

// scenario is one kind of fault.
type scenario struct {
	name     string
	env      []string                                          // extra replica environment
	ready    func(t *testing.T, conn *sqlx.DB, id string) bool // the moment to strike
	strike   func(t *testing.T, f *fixture, victim *replica)
	replaces bool // the strike kills the victim replica
}

// fixture is the world of one scenario.
type fixture struct {
	conn     *sqlx.DB
	env      []string
	replicas []*replica
	llm      *fakeLLM
}

func gathering(t *testing.T, conn *sqlx.DB, id string) bool {
	var n int
	conn.Get(&n, `SELECT count(*) FROM actions a JOIN runs r ON r.id = a.run_id
		WHERE a.run_id = $1 AND a.status = 'running' AND r.status = 'gathering'`, id)
	return n > 0
}

func TestFaultKillServerMidGather(t *testing.T) {
	runScenario(t, scenario{
		name:     "SIGKILL mid-gather",
		ready:    gathering,
		strike:   func(t *testing.T, f *fixture, victim *replica) { victim.kill() },
		replaces: true,
	})
}

func TestFaultKillServerMidSynthesis(t *testing.T) {
	runScenario(t, scenario{
		name: "SIGKILL mid-synthesis",
		ready: func(t *testing.T, conn *sqlx.DB, id string) bool {
			var st string
			conn.Get(&st, `SELECT status FROM runs WHERE id = $1`, id)
			if st != "synthesizing" {
				return false
			}
			// Some report text has streamed: the engine is writing.
			var n int
			conn.Get(&n, `SELECT count(*) FROM run_events WHERE run_id = $1 AND type = 'synthesis_delta'`, id)
			return n > 0
		},
		strike:   func(t *testing.T, f *fixture, victim *replica) { victim.kill() },
		replaces: true,
		env:      []string{"QUARRY_LLM=openai"}, // OPENAI_BASE_URL added by runScenario
	})
}

func TestFaultKillChromium(t *testing.T) {
	runScenario(t, scenario{
		name:  "Chromium SIGKILL mid-run",
		ready: gathering,
		strike: func(t *testing.T, f *fixture, victim *replica) {
			pids := chromiumOf(victim.pid())
			if len(pids) == 0 {
				t.Fatalf("no Chromium process under %s (pid %d)", victim.name, victim.pid())
			}
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		},
	})
}

func TestFaultRestartPostgres(t *testing.T) {
	runScenario(t, scenario{
		name:  "Postgres restart mid-run",
		ready: gathering,
		strike: func(t *testing.T, f *fixture, victim *replica) {
			if err := cluster.restart(time.Second); err != nil {
				t.Fatal(err)
			}
		},
	})
}

func runScenario(t *testing.T, sc scenario) {
	dbURL, conn := database(t)
	s := newSite(700 * time.Millisecond)
	defer s.Close()
	f := &fixture{conn: conn, env: append(baseEnv(dbURL, s), sc.env...)}
	if strings.Contains(strings.Join(sc.env, " "), "QUARRY_LLM=openai") {
		f.llm = newFakeLLM(3 * time.Second)
		defer f.llm.Close()
		f.env = append(f.env, "OPENAI_BASE_URL="+f.llm.URL+"/v1/", "OPENAI_API_KEY=test-key", "QUARRY_LLM_MODEL=fake")
	}
	f.replicas = []*replica{startReplica(t, "replica 1", f.env...), startReplica(t, "replica 2", f.env...)}
	next := 3

	var recover []time.Duration
	outcomes := map[string]int{}
	for rep := 1; rep <= reps; rep++ {
		entry := f.replicas[rep%2]
		id := createRun(t, entry.url(), fmt.Sprintf("How do Postgres advisory locks and SKIP LOCKED job queues interact (%s, %d)?", sc.name, rep), "quick")
		deadline := time.Now().Add(60 * time.Second)
		for !sc.ready(t, conn, id) {
			if r := getRun(t, conn, id); terminal(r) || time.Now().After(deadline) {
				t.Fatalf("rep %d: the run reached %s before the moment to strike", rep, r.Status)
			}
			time.Sleep(10 * time.Millisecond)
		}
		r := getRun(t, conn, id)
		victim := f.replicas[0]
		if ownerPID(r.LeaseOwner) == f.replicas[1].pid() {
			victim = f.replicas[1]
		}
		struck := time.Now()
		sc.strike(t, f, victim)
		if sc.replaces {
			for i, rp := range f.replicas {
				if rp == victim {
					f.replicas[i] = startReplica(t, fmt.Sprintf("replica %d", next), f.env...)
					next++
				}
			}
		}
		r = waitFor(t, conn, id, 3*time.Minute, "finished", terminal)
		took := time.Since(struck)
		checkEnded(t, conn, id, r)
		recover = append(recover, took)
		outcomes[r.Status]++
		t.Logf("rep %d: %s at %s → %s in %s (claims %d)", rep, sc.name, victim.name, r.Status, took.Round(100*time.Millisecond), r.Attempts)
	}
	// Nothing stuck anywhere: every run of the scenario has ended.
	var stuck int
	conn.Get(&stuck, `SELECT count(*) FROM runs WHERE status NOT IN ('done','failed','cancelled')`)
	if stuck != 0 {
		t.Errorf("%d runs did not end", stuck)
	}
	if f.llm != nil {
		// The engine's tokens reached /metrics (on the replicas alive now).
		var tokens float64
		for _, rp := range f.replicas {
			tokens += metricSum(metricsText(t, rp), "quarry_llm_tokens_total", `engine="openai"`)
		}
		if tokens == 0 {
			t.Error("no LLM tokens counted on /metrics")
		}
	}
	sort.Slice(recover, func(i, j int) bool { return recover[i] < recover[j] })
	t.Logf("FIGURES %s: %d reps, outcomes %v, fault→end median %s, max %s", sc.name, reps, outcomes,
		recover[len(recover)/2].Round(100*time.Millisecond), recover[len(recover)-1].Round(100*time.Millisecond))
}

// chromiumOf returns the Chromium processes descended from pid.
func chromiumOf(pid int) []int {
	parent := map[int]int{}
	comm := map[int]string{}
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
		// pid (comm) state ppid …; comm may contain spaces.
		s := string(stat)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < 0 {
			continue
		}
		fields := strings.Fields(s[close+1:])
		if len(fields) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(fields[1])
		parent[p] = pp
		comm[p] = s[open+1 : close]
	}
	var out []int
	for p := range parent {
		for a := parent[p]; a > 1; a = parent[a] {
			if a == pid {
				if strings.Contains(comm[p], "chrom") {
					out = append(out, p)
				}
				break
			}
		}
	}
	return out
}
