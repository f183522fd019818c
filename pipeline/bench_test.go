package pipeline_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// timedEngine measures the wall time spent inside the engine.
type timedEngine struct {
	engine.Engine
	mu    sync.Mutex
	spent time.Duration
}

func (e *timedEngine) add(start time.Time) {
	e.mu.Lock()
	e.spent += time.Since(start)
	e.mu.Unlock()
}

func (e *timedEngine) Plan(ctx context.Context, req engine.PlanRequest) (research.TaskSpec, engine.Usage, error) {
	defer e.add(time.Now())
	return e.Engine.Plan(ctx, req)
}

func (e *timedEngine) Heartbeat(ctx context.Context, req engine.HeartbeatRequest) (engine.HeartbeatDecision, engine.Usage, error) {
	defer e.add(time.Now())
	return e.Engine.Heartbeat(ctx, req)
}

func (e *timedEngine) Synthesize(ctx context.Context, req engine.SynthesisRequest, stream func(string)) (string, engine.Usage, error) {
	defer e.add(time.Now())
	return e.Engine.Synthesize(ctx, req, stream)
}

// BenchmarkStandardRun times a standard extractive run over the loopback
// site with 200 ms added to every request, and reports it next to its
// floor: the network time on the critical path (per batch, a results page
// then the source pages in parallel: 2 × 200 ms) and the share of the run's
// time spent outside the network and the engine. A run's time is from its
// creation to its end as the database recorded them; wall-ms/run adds the
// benchmark's polling for the end.
//
//	go test -run '^$' -bench StandardRun -benchtime 3x ./pipeline/
func BenchmarkStandardRun(b *testing.B) {
	const latency = 200 * time.Millisecond
	s := newSite(b, latency)
	engine := &timedEngine{Engine: extractive.New()}
	r, store := newRunner(b, s, engine)
	ctx := context.Background()
	var total, wall, floor, engineTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		engine.spent = 0
		start := time.Now()
		run, err := r.Submit(ctx, pipeline.Request{Question: "Why is the New York attorney general investigating WeWork and its former CEO Adam Neumann?", Depth: "standard"})
		if err != nil {
			b.Fatal(err)
		}
		done := waitStatus(b, store, run.ID, research.StatusDone)
		wall += time.Since(start)
		// The run's own time, on the database's clock: the test's polling
		// for the end is not part of it.
		total += done.FinishedAt.Time.Sub(done.CreatedAt)
		engineTime += engine.spent
		st, err := pipeline.LatestState(ctx, store, run.ID)
		if err != nil {
			b.Fatal(err)
		}
		floor += time.Duration(st.Batch) * 2 * latency
		acts, _ := store.Actions(ctx, run.ID)
		for _, a := range acts {
			b.Logf("action %d %s %q: %s in %s", a.Idx, a.Kind, a.Query, a.Status, a.FinishedAt.Time.Sub(a.StartedAt.Time))
		}
		b.Logf("stage timings (ms): %v, batches %d", st.Timings, st.Batch)
	}
	b.StopTimer()
	n := time.Duration(b.N)
	b.ReportMetric(float64((total / n).Milliseconds()), "ms/run")
	b.ReportMetric(float64((wall / n).Milliseconds()), "wall-ms/run")
	b.ReportMetric(total.Seconds()/floor.Seconds(), "x-floor")
	b.ReportMetric(float64((floor / n).Milliseconds()), "floor-ms/run")
	b.ReportMetric(float64((engineTime / n).Milliseconds()), "engine-ms/run")
	other := total - floor - engineTime
	b.ReportMetric(100*other.Seconds()/total.Seconds(), "%outside-net-engine")
}
