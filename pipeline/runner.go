// Package pipeline runs a research run through its stages: intake, plan
// review, gather, synthesize, verify (with repair) and publish. Code owns the
// state; an engine only answers the focused question each stage asks it.
package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/search"
)

// Gatherer fetches evidence: a two-step search or one page. *search.Gatherer
// implements it.
type Gatherer interface {
	Search(ctx context.Context, a search.Action) (search.Outcome, error)
	Navigate(ctx context.Context, url string) (extract.Page, error)
}

// Options configure a Runner.
type Options struct {
	Store    *db.Store
	Engine   engine.Engine
	Gatherer Gatherer // nil: gathering fails every action with a clear error
	// Engines are the configured search engines, in preference order.
	Engines []string
	// Workers is how many runs this process executes at once.
	Workers int
	// LeaseTTL is how long a claim lasts without renewal.
	LeaseTTL time.Duration
	// Owner names this process in leases (host:pid:random by default).
	Owner string
	// BaseURL is the public URL prefix for share links ("" = relative).
	BaseURL string
	// RunBudgetUSD caps each run's LLM spend (0 = no cap).
	RunBudgetUSD float64
	// ShareTTL is how long a new share link works (0 = until revoked).
	ShareTTL time.Duration
	// Metrics, when set, is told of stage and action outcomes.
	Metrics Metrics
	Verify  report.VerifyOptions
	Presets map[string]research.Budget
	// ClarifyBelow is the clarity under which a run in review mode auto
	// pauses for review (when its plan asks clarifying questions); 0 takes
	// DefaultClarifyBelow, a negative value never pauses.
	ClarifyBelow float64
	Logger       *slog.Logger
	// PollInterval is how often idle workers look for runs queued by other
	// replicas.
	PollInterval time.Duration
	// NoPreliminary turns off the preliminary search a model engine's
	// planner gets (QUARRY_PRELIMINARY_SEARCH=off).
	NoPreliminary bool
}

// DefaultClarifyBelow is the clarity under which review "auto" pauses:
// the engines' scores put a question that names its subject and what is
// wanted of it above it, and one missing either below.
const DefaultClarifyBelow = 0.6

// Runner executes runs: its workers claim them from Postgres, run the stage
// loop from the latest checkpoint, and hold a lease while they work.
type Runner struct {
	opt    Options
	log    *slog.Logger
	wake   chan struct{}
	stop   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	active map[string]context.CancelFunc
	closed bool
}

// NewRunner returns a runner; call Start to run its workers.
func NewRunner(opt Options) *Runner {
	if opt.Workers <= 0 {
		opt.Workers = 2
	}
	if opt.LeaseTTL <= 0 {
		opt.LeaseTTL = 15 * time.Second
	}
	if opt.Owner == "" {
		host, _ := os.Hostname()
		b := make([]byte, 4)
		rand.Read(b)
		opt.Owner = fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b))
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Presets == nil {
		opt.Presets = research.Presets()
	}
	if opt.ClarifyBelow == 0 {
		opt.ClarifyBelow = DefaultClarifyBelow
	}
	if opt.PollInterval <= 0 {
		opt.PollInterval = time.Second
	}
	if opt.Verify == (report.VerifyOptions{}) {
		opt.Verify = report.DefaultVerifyOptions()
	}
	return &Runner{opt: opt, log: opt.Logger, wake: make(chan struct{}, 1), stop: make(chan struct{}), active: map[string]context.CancelFunc{}}
}

// Owner is the name this runner's leases carry.
func (r *Runner) Owner() string { return r.opt.Owner }

// Engine returns the configured engine.
func (r *Runner) Engine() engine.Engine { return r.opt.Engine }

// Start launches the workers; they run until Shutdown.
func (r *Runner) Start() {
	for i := 0; i < r.opt.Workers; i++ {
		r.wg.Add(1)
		go r.worker(i)
	}
}

// Shutdown stops claiming runs, interrupts the runs in flight (their
// checkpoints are already saved), releases their leases so another replica
// resumes them at once, and waits for the workers to exit.
func (r *Runner) Shutdown(ctx context.Context) error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.stop)
	}
	for _, cancel := range r.active {
		cancel()
	}
	r.mu.Unlock()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("runner shutdown: %w", ctx.Err())
	}
}

// Wake tells an idle worker there may be a run to claim.
func (r *Runner) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *Runner) worker(n int) {
	defer r.wg.Done()
	for {
		select {
		case <-r.stop:
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		run, err := r.opt.Store.ClaimRun(ctx, r.opt.Owner, r.opt.LeaseTTL)
		cancel()
		if err != nil {
			r.log.Warn("claim run", "worker", n, "err", err)
		}
		if run == nil {
			select {
			case <-r.stop:
				return
			case <-r.wake:
			case <-time.After(r.opt.PollInterval):
			}
			continue
		}
		r.Execute(run)
	}
}

// Execute runs one claimed run until it finishes, pauses for review, fails,
// or this process gives it up (shutdown or lost lease). It renews the lease
// while it works and releases it at the end.
func (r *Runner) Execute(run *db.Run) {
	log := r.log.With("run_id", run.ID)
	ctx, cancel := context.WithCancel(WithRunID(context.Background(), run.ID))
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		cancel()
		r.release(run.ID)
		return
	}
	r.active[run.ID] = cancel
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.active, run.ID)
		r.mu.Unlock()
		cancel()
		r.release(run.ID)
	}()

	renewDone := make(chan struct{})
	go func() {
		defer close(renewDone)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		last := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
			err := r.opt.Store.RenewLease(rctx, run.ID, r.opt.Owner, r.opt.LeaseTTL)
			rcancel()
			switch {
			case err == nil:
				last = time.Now()
			case errors.Is(err, db.ErrLeaseLost):
				// Cancelled by the user, or claimed by another replica.
				log.Info("lease gone; stopping run here")
				cancel()
				return
			case time.Since(last) > r.opt.LeaseTTL*2/3:
				log.Warn("cannot renew lease; stopping before it expires", "err", err)
				cancel()
				return
			}
		}
	}()

	err := r.loop(ctx, run, log)
	cancel()
	<-renewDone
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, db.ErrLeaseLost) {
		return
	}
	var fail *RunError
	if errors.As(err, &fail) || run.Attempts >= 5 {
		msg := err.Error()
		if fail == nil {
			msg = fmt.Sprintf("gave up after %d attempts: %v", run.Attempts, err)
		}
		if ferr := r.fail(context.Background(), run.ID, msg); ferr != nil {
			log.Error("record failure", "err", ferr)
		}
		log.Warn("run failed", "err", msg)
		return
	}
	// An infrastructure error (database restarting, say): give the run up;
	// any worker resumes it from its checkpoint.
	log.Warn("run interrupted; will resume", "err", err)
}

func (r *Runner) release(runID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.opt.Store.ReleaseLease(ctx, runID, r.opt.Owner); err != nil {
		r.log.Warn("release lease", "run_id", runID, "err", err)
	}
}

// RunError is a failure that ends the run as failed, with a message for the
// person who asked.
type RunError struct{ Msg string }

func (e *RunError) Error() string { return e.Msg }

func failf(format string, args ...any) error { return &RunError{Msg: fmt.Sprintf(format, args...)} }

// loop runs stages from the latest checkpoint until the run pauses or ends.
func (r *Runner) loop(ctx context.Context, run *db.Run, log *slog.Logger) error {
	st, err := r.loadState(ctx, run)
	if err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var next func(context.Context, *db.Run, *State) error
		switch st.Stage {
		case StageIntake:
			next = r.intake
		case StageReview:
			return nil // paused: no lease, no goroutine until approved
		case StageGather:
			next = r.gather
		case StageSynthesize:
			next = r.synthesize
		case StageVerify:
			next = r.verifyStage
		case StagePublish:
			next = r.publish
		case StageDone:
			return nil
		default:
			return failf("unknown stage %q in checkpoint", st.Stage)
		}
		stage := st.Stage
		start := time.Now()
		if st.Timings == nil {
			st.Timings = map[string]int64{}
		}
		// Added when the stage returns, so a stage's time reaches the next
		// checkpoint; publish, the last, is timed by the caller if needed.
		err := next(ctx, run, st)
		st.Timings[stage] += time.Since(start).Milliseconds()
		r.stageDone(stage, time.Since(start), err)
		if err != nil {
			return err
		}
		log.Debug("stage done", "stage", stage, "ms", time.Since(start).Milliseconds())
	}
}

// loadState reads the latest checkpoint or starts a fresh state.
func (r *Runner) loadState(ctx context.Context, run *db.Run) (*State, error) {
	cp, err := r.opt.Store.LatestCheckpoint(ctx, run.ID)
	if errors.Is(err, db.ErrNotFound) {
		var opts RunOptions
		json.Unmarshal(run.Options, &opts)
		engines := opts.Engines
		if len(engines) == 0 {
			engines = r.opt.Engines
		}
		return &State{Stage: StageIntake, Review: opts.Review, Engines: engines}, nil
	}
	if err != nil {
		return nil, err
	}
	st, err := DecodeState(cp.State)
	if err != nil {
		return nil, failf("checkpoint of run is unreadable: %v", err)
	}
	return st, nil
}

// event is one event to append when a stage commits.
type event struct {
	typ     string
	payload any
}

// newEvents turns a stage's events into the store's.
func newEvents(events []event) []db.NewEvent {
	out := make([]db.NewEvent, len(events))
	for i, e := range events {
		out[i] = db.NewEvent{Type: e.typ, Payload: e.payload}
	}
	return out
}

// commit saves the state as a checkpoint, applies the run update and appends
// the events, all in one transition that first checks this worker still
// holds the run. Events become visible only with the checkpoint.
func (r *Runner) commit(ctx context.Context, run *db.Run, st *State, upd db.RunUpdate, events ...event) error {
	return r.opt.Store.Transition(ctx, run.ID, r.opt.Owner, db.Step{Stage: st.Stage, State: st, Update: upd, Events: newEvents(events)})
}

// emit appends events without a checkpoint (progress that needs none, such
// as streamed text), still only while this worker holds the run.
func (r *Runner) emit(ctx context.Context, run *db.Run, events ...event) error {
	return r.opt.Store.Transition(ctx, run.ID, r.opt.Owner, db.Step{Events: newEvents(events)})
}

// errEnded stops fail from touching a run that already ended.
var errEnded = errors.New("the run already ended")

// fail ends the run as failed with msg.
func (r *Runner) fail(ctx context.Context, runID, msg string) error {
	status := research.StatusFailed
	err := r.opt.Store.Transition(ctx, runID, "", db.Step{
		Check: func(cur *db.Run) error {
			if cur.Status.Terminal() {
				return errEnded
			}
			return nil
		},
		Update: db.RunUpdate{Status: &status, Error: &msg},
		Events: []db.NewEvent{{Type: research.EventRunFailed, Payload: research.FailedPayload{Status: status, Error: msg}}},
	})
	if errors.Is(err, errEnded) {
		return nil
	}
	return err
}

// engineSources loads the run's sources labelled S1, S2, ….
func (r *Runner) engineSources(ctx context.Context, runID string) ([]research.Source, error) {
	rows, err := r.opt.Store.Sources(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := make([]research.Source, 0, len(rows))
	for _, s := range rows {
		var findings []string
		json.Unmarshal(s.Findings, &findings)
		out = append(out, research.Source{ID: research.SourceID(s.SID), URL: s.URL, Title: s.Title, Host: s.Host,
			Published: s.Published, Text: s.Text, Findings: findings, FetchedAt: s.FetchedAt})
	}
	return out, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
