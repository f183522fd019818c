package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/extract"
)

// Defaults for Options fields left at zero.
const (
	DefaultMaxSteps      = 25
	DefaultActionTimeout = 15 * time.Second
	// noProgressLimit stops a run after this many successful actions in a
	// row that brought it no closer to the goal.
	noProgressLimit = 5
	// historyShown is how many past actions a planner sees in full.
	historyShown = 10
	// maxScreenshotBytes bounds a step's stored screenshot.
	maxScreenshotBytes = 48 << 10
	// maxSources bounds the pages one run extracts.
	maxSources = 10
)

// Status is how a run ended.
type Status string

// Run outcomes.
const (
	StatusDone             Status = "done"
	StatusFailed           Status = "failed"
	StatusAwaitingApproval Status = "awaiting_approval"
	StatusStopped          Status = "stopped" // a limit ended it
)

// Task is what a run is for.
type Task struct {
	// Goal is the user's goal on the site, in words.
	Goal string
	// StartURL is the page the run opens; its host is allowed.
	StartURL string
	// Query, when set, makes this a site search: use the site's own search
	// box for Query and end on the results page.
	Query string
	// AllowHosts are hosts allowed besides the start site's.
	AllowHosts []string
	// Prior are the steps an interrupted run recorded, for a resume.
	Prior []StepRecord
	// Approved lets the step the interrupted run stopped on (paused at the
	// gate, or cut off while it ran) through once: the first action the
	// resumed run proposes that is the same action on an element of the
	// same name.
	Approved bool
	// StepBase numbers this run's steps after those of an earlier run
	// recorded in the same place (a second attempt).
	StepBase int
}

// StepRecord is one step as recorded: before it runs (StepRunning) and
// after (StepSuccess, StepError, StepPaused).
type StepRecord struct {
	N           int       `json:"n"`
	Action      Action    `json:"action"`
	ElementName string    `json:"element,omitempty"`
	Status      string    `json:"status"`
	Error       string    `json:"error,omitempty"`
	URL         string    `json:"url"`
	Screenshot  []byte    `json:"-"` // JPEG, at most maxScreenshotBytes
	At          time.Time `json:"at"`
}

// Step statuses.
const (
	StepRunning = "running"
	StepSuccess = "success"
	StepError   = "error"
	StepPaused  = "paused"
)

// Recorder stores each step: it is called before an action runs, so that
// a resumed run knows what it may have done, and again with the outcome.
type Recorder interface {
	RecordStep(ctx context.Context, s StepRecord) error
}

// Options configures runs.
type Options struct {
	Pool *browser.Pool
	// NewPlanner makes the planner of one run; nil means NewRulePlanner
	// (no model).
	NewPlanner func() Planner
	// MaxSteps caps the actions of a run (QUARRY_AGENT_MAX_STEPS, default 25).
	MaxSteps int
	// ActionTimeout bounds one action (default 15 s).
	ActionTimeout time.Duration
	// Budget, when set, is asked before each step and stops the run with
	// its error (the run's time and spend budgets).
	Budget func() error
	// Recorder stores the steps; nil keeps them in the Result only.
	Recorder Recorder
	Logger   *slog.Logger
}

// Result is how a run ended and what it found.
type Result struct {
	Status Status
	Answer string
	Reason string // why it failed, stopped or paused
	// Approval describes the action waiting for the user's approval.
	Approval   string
	Screenshot []byte // of the page awaiting approval
	Sources    []extract.Page
	Steps      []StepRecord
	// Final is the page the run ended on (a site search's results page).
	Final *browser.Rendered
}

// Run is one agent run in progress: its session, latest snapshot and history.
type Run struct {
	opt     Options
	planner Planner
	task    Task
	sess    *browser.Session
	allow   Allowlist
	snap    *Snapshot
	history []StepRecord
	sources []extract.Page
	log     *slog.Logger

	mu   sync.Mutex // guards gate
	gate stepGate   // what the running step may send
}

// Start runs task to its end in a browser session of its own, destroyed
// when it returns.
func Start(ctx context.Context, opt Options, task Task) (*Result, error) {
	if opt.Pool == nil {
		return nil, errors.New("agent: no browser pool")
	}
	if opt.MaxSteps <= 0 {
		opt.MaxSteps = DefaultMaxSteps
	}
	if opt.ActionTimeout <= 0 {
		opt.ActionTimeout = DefaultActionTimeout
	}
	if opt.NewPlanner == nil {
		opt.NewPlanner = NewRulePlanner
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Recorder == nil {
		opt.Recorder = recorderFrom(ctx)
	}
	if m := meterFrom(ctx); opt.Budget == nil && m != nil {
		opt.Budget = m.Budget
	}
	if err := (Action{Kind: Navigate, URL: task.StartURL}).Validate(); err != nil {
		return nil, fmt.Errorf("agent: start URL: %w", err)
	}
	sess, err := opt.Pool.OpenSession(ctx)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	defer sess.Close()
	r := &Run{opt: opt, planner: opt.NewPlanner(), task: task, sess: sess, allow: NewAllowlist(task.StartURL, task.AllowHosts...), log: opt.Logger.With("component", "agent")}
	sess.SetRequestPolicy(r.requestPolicy)
	return r.loop(ctx)
}

// loop is plan → refine → execute → verify until the goal is reached, the
// planner gives up, a limit is hit or an action needs approval.
func (r *Run) loop(ctx context.Context) (*Result, error) {
	res := &Result{}
	start := r.task.StartURL
	var approved *StepRecord
	if p, resumed := r.resumePoint(); resumed {
		if r.task.Approved && (p.Status == StepPaused || p.Status == StepRunning && p.Action.SideEffect()) {
			approved = &p
		} else if p.Status == StepRunning && p.Action.SideEffect() {
			res.Status, res.Approval = StatusAwaitingApproval, fmt.Sprintf("the run stopped during %q on %s; it may or may not have taken effect, and is not repeated without your approval", p.Action.String(), p.URL)
			res.Steps = r.task.Prior
			return res, nil
		}
		if r.allow.Allows(p.URL) {
			start = p.URL
		}
		r.history = append(r.history, r.task.Prior...)
	}
	if _, err := r.sess.Navigate(ctx, start); err != nil {
		return nil, fmt.Errorf("agent: open %s: %w", start, err)
	}
	if err := r.observe(ctx); err != nil {
		return nil, err
	}
	v := &View{Task: r.task}
	plan, err := r.planner.Plan(ctx, r.view(v))
	if err != nil {
		return nil, fmt.Errorf("agent: plan: %w", err)
	}
	v.Plan = plan
	var queue []Action
	idle := 0
	finish := func(st Status, why string) (*Result, error) {
		res.Status, res.Reason, res.Sources, res.Steps = st, why, r.sources, r.history
		if st == StatusDone || st == StatusStopped {
			if f, err := r.sess.Capture(ctx); err == nil {
				res.Final = f
			}
		}
		return res, nil
	}
	for n := r.task.StepBase + len(r.history) + 1; ; n++ {
		if n > r.task.StepBase+len(r.task.Prior)+r.opt.MaxSteps {
			return finish(StatusStopped, fmt.Sprintf("step limit (%d) reached", r.opt.MaxSteps))
		}
		if idle >= noProgressLimit {
			return finish(StatusStopped, fmt.Sprintf("%d actions in a row without progress", idle))
		}
		if r.opt.Budget != nil {
			if err := r.opt.Budget(); err != nil {
				return finish(StatusStopped, err.Error())
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if len(queue) == 0 {
			proposed, err := r.planner.Refine(ctx, r.view(v))
			if err != nil {
				return nil, fmt.Errorf("agent: refine: %w", err)
			}
			queue, err = Split(proposed)
			if err != nil && len(queue) == 0 {
				v.Problem = "invalid action: " + err.Error()
				idle++
				continue
			}
		}
		a := queue[0]
		queue = queue[1:]
		switch a.Kind {
		case Finish:
			res.Answer = a.Answer
			return finish(StatusDone, "")
		case Fail:
			return finish(StatusFailed, a.Reason)
		}
		if a.Element > 0 && r.snap.Element(a.Element) == nil {
			v.Problem = fmt.Sprintf("%v: element %d is not on the page", ErrStaleElement, a.Element)
			queue = nil
			idle++
			continue
		}
		pause := func(why string) (*Result, error) {
			rec := r.record(ctx, n, a, StepPaused, why)
			res.Approval, res.Screenshot = why, rec.Screenshot
			return finish(StatusAwaitingApproval, "waiting for approval: "+why)
		}
		var step stepGate
		if approved != nil && r.sameStep(*approved, a) {
			approved, step.open = nil, true // the user approved this very step
		} else if gate := assess(r.snap, a); gate.Why != "" {
			return pause(gate.Why)
		} else {
			step.post, step.autoSubmit = gate.Post, gate.AutoSubmit
		}
		before := r.snap
		r.record(ctx, n, a, StepRunning, "")
		r.sess.TakeRefused() // what the page sent between steps is not this step's
		r.setGate(step)
		err := r.execute(ctx, a)
		r.setGate(stepGate{})
		stopped, submitted, offSite := r.refused()
		switch {
		// The step tried to change something on the site: the request was
		// stopped before it was sent; it runs again once approved.
		case stopped != "":
			return pause(fmt.Sprintf("%s tried to send %s, which could change something on the site; it was stopped before it was sent", actionWords(before, a), stopped))
		case submitted != "":
			return pause(fmt.Sprintf("%s made the page submit %s (%s); it was stopped before it was sent", actionWords(before, a), step.autoSubmit, submitted))
		}
		if err == nil && offSite != "" {
			err = fmt.Errorf("%s would leave the allowed sites (%s) for %s; it was stopped before it was sent", actionWords(before, a), strings.Join(r.allow, ", "), offSite)
		}
		if err == nil && !r.allow.Allows(r.currentURL(ctx)) {
			err = fmt.Errorf("left the allowed sites for %s; went back", r.currentURL(ctx))
			_ = back(r.sess.Page(ctx))
			r.sess.Settle(ctx, settleAfter)
		}
		if oerr := r.observe(ctx); oerr != nil {
			return nil, oerr
		}
		if err == nil && a.Kind == Extract {
			err = r.extract(ctx)
		}
		verdict := check(a, before, r.snap, err)
		if verdict.Undecided {
			v.Problem = verdict.Reason // what the checks could not settle
			verdict, err = r.planner.Verify(ctx, r.view(v), a, before)
			if err != nil {
				return nil, fmt.Errorf("agent: verify: %w", err)
			}
		}
		status, msg := StepSuccess, ""
		if !verdict.OK {
			status, msg = StepError, verdict.Reason
			queue = nil // the rest of a compound step assumed this one worked
		}
		r.record(ctx, n, a, status, msg)
		v.Problem, v.Replan = "", verdict.Replan
		if !verdict.OK {
			v.Problem = verdict.Reason
		}
		if verdict.Replan != "" {
			queue = nil
			if plan, err := r.planner.Plan(ctx, r.view(v)); err == nil {
				v.Plan = plan
			}
		}
		if verdict.Progress {
			idle = 0
		} else {
			idle++
		}
	}
}

// actionWords is a in words with the role and name of its element on snap.
func actionWords(snap *Snapshot, a Action) string {
	e := snap.Element(a.Element)
	if e == nil {
		return a.String()
	}
	what := string(a.Kind)
	switch a.Kind {
	case Press:
		what = "press " + a.Key + " on"
	case Select:
		what = fmt.Sprintf("select %q in", a.Text)
	}
	return fmt.Sprintf("%s %s %q", what, e.Role, e.Name)
}

// refused takes the requests the run's policy stopped during a step: the
// first that could have changed something on the site and the first form
// the page submitted on a changed value (method and path each), and the
// first main-frame document off the allowed sites (its URL). What
// else was stopped (a frame or analytics off the site) is only logged.
func (r *Run) refused() (stateChange, submitted, offSite string) {
	for _, f := range r.sess.TakeRefused() {
		switch {
		case errors.Is(f.Err, errStateChange) && stateChange == "":
			stateChange = f.Method + " " + pathOf(f.URL)
		case errors.Is(f.Err, errAutoSubmit) && submitted == "":
			submitted = f.Method + " " + pathOf(f.URL)
		case errors.Is(f.Err, errOffSite) && f.Main && offSite == "":
			offSite = f.URL
		default:
			r.log.Debug("request stopped", "method", f.Method, "url", f.URL, "type", f.Type, "err", f.Err)
		}
	}
	return stateChange, submitted, offSite
}

// sameStep reports whether a, on the current snapshot, is the step p
// recorded: the same kind, key and text on an element of the same name.
func (r *Run) sameStep(p StepRecord, a Action) bool {
	e := r.snap.Element(a.Element)
	if e == nil || a.Kind != p.Action.Kind || a.Key != p.Action.Key || a.Text != p.Action.Text {
		return false
	}
	return e.Role+" "+e.Name == p.ElementName
}

// resumePoint is the last recorded step of an interrupted run.
func (r *Run) resumePoint() (StepRecord, bool) {
	if len(r.task.Prior) == 0 {
		return StepRecord{}, false
	}
	return r.task.Prior[len(r.task.Prior)-1], true
}

func (r *Run) observe(ctx context.Context) error {
	octx, cancel := context.WithTimeout(ctx, r.opt.ActionTimeout)
	defer cancel()
	snap, err := Observe(octx, r.sess.Page(octx))
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	r.snap = snap
	return nil
}

func (r *Run) currentURL(ctx context.Context) string {
	var u string
	if err := eval(r.sess.Page(ctx), "location.href", &u); err != nil {
		return ""
	}
	return u
}

// allowed refuses a navigation off the run's allowlist.
func (r *Run) allowed(rawURL string) error {
	if !r.allow.Allows(rawURL) {
		return fmt.Errorf("navigate %s: not on this run's allowed sites (%s)", rawURL, strings.Join(r.allow, ", "))
	}
	return nil
}

// extract makes the current page a source through the extractor.
func (r *Run) extract(ctx context.Context) error {
	if len(r.sources) >= maxSources {
		return fmt.Errorf("extract: already %d sources", maxSources)
	}
	cur, err := r.sess.Capture(ctx)
	if err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	page, err := extract.Rendered(cur.FinalURL, cur.FinalURL, cur.Title, cur.HTML)
	if err != nil {
		return err
	}
	page.FetchedAt = time.Now().UTC()
	for _, s := range r.sources {
		if s.CanonicalURL == page.CanonicalURL && s.Text == page.Text {
			return fmt.Errorf("extract: %s is already a source", page.FinalURL)
		}
	}
	r.sources = append(r.sources, page)
	return nil
}

// record stores a step with a screenshot of the page as it is now.
func (r *Run) record(ctx context.Context, n int, a Action, status, msg string) StepRecord {
	rec := StepRecord{N: n, Action: a, Status: status, Error: msg, URL: r.snap.URL, At: time.Now().UTC()}
	if e := r.snap.Element(a.Element); e != nil && status != StepSuccess && status != StepError {
		rec.ElementName = e.Role + " " + e.Name
	}
	if status != StepRunning {
		rec.Screenshot = r.screenshot(ctx)
	}
	if i := len(r.history) - 1; i >= 0 && r.history[i].N == n {
		rec.ElementName = r.history[i].ElementName // named on the snapshot it was refined on
		r.history[i] = rec
	} else {
		r.history = append(r.history, rec)
	}
	if r.opt.Recorder != nil {
		if err := r.opt.Recorder.RecordStep(ctx, rec); err != nil {
			r.log.WarnContext(ctx, "record step", "err", err)
		}
	}
	return rec
}

// screenshot is a small JPEG of the viewport, or nil when none fits the bound.
func (r *Run) screenshot(ctx context.Context) []byte {
	for _, q := range []int{50, 25} {
		b, err := r.sess.Screenshot(ctx, q)
		if err != nil {
			return nil
		}
		if len(b) <= maxScreenshotBytes {
			return b
		}
	}
	return nil
}

// View is what a planner is shown: the task, the plan, the current
// snapshot, the last ten steps in full and how many came before.
type View struct {
	Task    Task
	Plan    []PlanStep
	Snap    *Snapshot
	Recent  []StepRecord
	Earlier int
	Sources int
	// Problem is what went wrong with the last action, if anything.
	Problem string
	// Replan is why the page is not what the plan expected, if it is not.
	Replan string
	// Session lets a rule planner read the page (the harvester needs its HTML).
	Session *browser.Session
}

func (r *Run) view(v *View) View {
	out := *v
	out.Snap, out.Sources, out.Session = r.snap, len(r.sources), r.sess
	out.Recent = r.history
	if len(out.Recent) > historyShown {
		out.Earlier = len(out.Recent) - historyShown
		out.Recent = out.Recent[out.Earlier:]
	}
	return out
}
