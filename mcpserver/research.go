package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/research"
)

// maxWait bounds research's wait_seconds.
const maxWait = time.Hour

// eventPoll is how often a waiting research call reads the run's events
// when no live notification came (a replica without a broker, a missed
// wake-up).
const eventPoll = 2 * time.Second

// errStillRunning ends a wait that outlasted wait_seconds.
var errStillRunning = errors.New("still running")

// research starts a run and waits for its report, sending a progress
// notification as each stage and action completes. A cancelled call
// cancels the run; a call that outlasts its wait, or a client that goes
// away, leaves the run going (get_research fetches it later).
func (t *tools) research(ctx context.Context, req *mcp.CallToolRequest, in ResearchArgs) (*mcp.CallToolResult, RunResult, error) {
	wait := t.srv.opt.DefaultWait
	switch {
	case in.WaitSeconds < 0 || time.Duration(in.WaitSeconds)*time.Second > maxWait:
		return nil, RunResult{}, fmt.Errorf("wait_seconds: from 1 to %d", int(maxWait.Seconds()))
	case in.WaitSeconds > 0:
		wait = time.Duration(in.WaitSeconds) * time.Second
	}
	created, err := t.create(ctx, in)
	if err != nil {
		return nil, RunResult{}, err
	}
	notify := t.progress(req)
	notify(ctx, "Run "+created.ID+" queued: "+t.link(created.URL))
	err = t.follow(ctx, created.ID, wait, notify)
	if ctx.Err() != nil {
		if errors.Is(context.Cause(ctx), context.Canceled) {
			// The client cancelled the call (notifications/cancelled): the
			// run is cancelled too, as the caller (so rights apply).
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if cerr := t.api.do(cctx, http.MethodPost, "/api/runs/"+url.PathEscape(created.ID)+"/cancel", nil, nil); cerr != nil {
				t.srv.log.Warn("cancel run after the MCP call was cancelled", "run_id", created.ID, "err", cerr)
			}
		}
		return nil, RunResult{}, ctx.Err()
	}
	out, rerr := t.result(ctx, created.ID)
	if rerr != nil {
		return nil, RunResult{}, rerr
	}
	if errors.Is(err, errStillRunning) {
		out.Message = fmt.Sprintf("The run is still going after %s; it keeps going: call get_research with run_id %q later.", wait, created.ID)
	} else if err != nil {
		return nil, RunResult{}, err
	}
	res := resultContent(out)
	// A run that ended without a report (a budget reached, a failure) is
	// the tool's failure, with the run's own reason.
	res.IsError = out.Status == string(research.StatusFailed) || out.Status == string(research.StatusCancelled)
	return res, out, nil
}

// progress returns how to tell the client of progress on req: a numbered
// notification per message when the client asked for progress, nothing
// otherwise.
func (t *tools) progress(req *mcp.CallToolRequest) func(context.Context, string) {
	token := req.Params.GetProgressToken()
	n := 0
	return func(ctx context.Context, msg string) {
		if token == nil || req.Session == nil {
			return
		}
		n++
		if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: msg}); err != nil {
			t.srv.log.Debug("progress notification", "err", err)
		}
	}
}

// follow reads the run's events in order (woken by the event broker, and
// every eventPoll regardless) and reports each completed step, until the
// run ends or pauses, ctx ends, or wait passes (errStillRunning).
func (t *tools) follow(ctx context.Context, runID string, wait time.Duration, notify func(context.Context, string)) error {
	store := t.srv.opt.Store
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	var wake <-chan db.Event
	if b := store.Broker(); b != nil {
		sub, err := b.Subscribe(ctx, runID, 64)
		if err != nil {
			return fmt.Errorf("follow run %s: %w", runID, err)
		}
		defer sub.Close()
		wake = sub.C
	}
	poll := time.NewTicker(eventPoll)
	defer poll.Stop()
	var last int64
	for {
		events, err := store.EventsAfter(ctx, runID, last, 500)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("follow run %s: %w", runID, err)
		}
		for _, ev := range events {
			last = ev.Seq
			msg, end := describe(ev.Type, ev.Payload)
			if msg != "" {
				notify(ctx, msg)
			}
			if end {
				return nil
			}
		}
		if len(events) == 500 {
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return errStillRunning
		case <-wake:
		case <-poll.C:
		}
	}
}

// describe says what an event means to someone waiting for the report
// ("" for events that are not a completed step), and whether the wait is
// over (the run ended, or paused for a person's approval).
func describe(typ string, payload json.RawMessage) (msg string, end bool) {
	switch typ {
	case research.EventStageStarted:
		var p research.StagePayload
		json.Unmarshal(payload, &p)
		return "Stage started: " + p.Stage, false
	case research.EventStageCompleted:
		var p research.StagePayload
		json.Unmarshal(payload, &p)
		return "Stage completed: " + p.Stage, false
	case research.EventAction:
		var p research.ActionPayload
		json.Unmarshal(payload, &p)
		if !p.Status.Finished() {
			return "", false
		}
		what := p.URL
		if p.Kind == research.ActionSearch {
			what = fmt.Sprintf("search %q on %s", p.Query, p.Engine)
		}
		if p.Status == research.ActionError {
			return fmt.Sprintf("Action %d failed: %s: %s", p.Idx+1, what, p.Error), false
		}
		return fmt.Sprintf("Action %d done: %s", p.Idx+1, what), false
	case research.EventVerification:
		var p research.VerificationPayload
		json.Unmarshal(payload, &p)
		return fmt.Sprintf("Citations verified (pass %d): support %.0f%%, coverage %.0f%%", p.Pass, 100*p.Support, 100*p.Coverage), false
	case research.EventRepairStarted:
		return "Repairing the report", false
	case research.EventAwaitingApproval:
		return "The run is waiting for approval on its page", true
	case research.EventRunCompleted:
		return "Report ready", true
	case research.EventRunFailed:
		var p research.FailedPayload
		json.Unmarshal(payload, &p)
		return "Run failed: " + p.Error, true
	case research.EventRunCancelled:
		return "Run cancelled", true
	}
	return "", false
}
