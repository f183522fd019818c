package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/handlers/runview"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/web"
)

// eventPage is how many events one read of run_events returns.
const eventPage = 500

// loadRunView builds the run page's view as of one moment: the run row
// gives the status and LastSeq, and the actions, decisions, budget,
// verification passes and draft are folded from the run's events up to
// LastSeq, so the page and the SSE stream that continues after LastSeq
// never disagree (an action read from its table could be newer than
// LastSeq and then arrive again as an event).
func (s *Server) loadRunView(ctx context.Context, id string) (web.RunView, error) {
	run, err := s.store.GetRun(ctx, id)
	if err != nil {
		return web.RunView{}, err
	}
	return s.runView(ctx, run)
}

// runView is loadRunView for a run already read.
func (s *Server) runView(ctx context.Context, run *db.Run) (web.RunView, error) {
	v := s.baseView(run)
	v.Private = run.ReadsPrivate
	if run.ParentRunID.Valid {
		v.ParentID = run.ParentRunID.String
		if parent, err := s.store.GetRun(ctx, v.ParentID); err == nil {
			v.ParentQuestion = parent.Question
		} else if !errors.Is(err, db.ErrNotFound) {
			return web.RunView{}, err
		}
	}
	completed, err := s.foldEvents(ctx, &v, run.ID, run.LastSeq)
	if err != nil {
		return web.RunView{}, err
	}
	// The row's status, error and stop reason are those of LastSeq; the
	// stop reason is the row's alone (no event carries it to the status).
	v.Status, v.Error, v.StopReason = run.Status, run.Error, run.StopReason
	if run.Status.Terminal() {
		runview.Settle(&v)
	}
	if spend := decodeSpend(run.Spend); spend != nil {
		v.Budget.Tokens = spend.InputTokens + spend.OutputTokens
		v.Budget.USD = spend.USD
		v.Budget.Stages = spend.Stages
	}
	if run.Status == research.StatusDone {
		rv, err := s.reportView(ctx, run, false)
		switch {
		case err == nil:
			v.Report = rv
		case errors.Is(err, db.ErrNotFound):
			// A run completed without a stored report (it should not
			// happen): show what the completion event carried.
			if completed != nil {
				v.Report = s.reportFromEvent(run, *completed)
			}
		default:
			return web.RunView{}, err
		}
	}
	return v, nil
}

// baseView is what the run row says of the run before any event is
// folded in: what it is, and the plan as stored until a plan event says
// otherwise. Its status is left to the events (or the row, on a page).
func (s *Server) baseView(run *db.Run) web.RunView {
	v := web.RunView{
		ID: run.ID, Question: run.Question, Depth: run.Depth, CreatedAt: run.CreatedAt,
		Spec: decodeSpec(run.TaskSpec), LastSeq: run.LastSeq,
		EventsURL: s.url(fmt.Sprintf("/runs/%s/events?after=%d", run.ID, run.LastSeq)),
		Engines:   s.runEngines(run),
	}
	if v.Spec != nil {
		v.Budget = runview.BudgetFromSpec(v.Spec.Budget)
	}
	return v
}

// foldEvents applies the run's stored events up to seq upTo to v through
// runview.Apply, and returns the completion event's payload if it was
// among them.
func (s *Server) foldEvents(ctx context.Context, v *web.RunView, runID string, upTo int64) (*research.CompletedPayload, error) {
	var completed *research.CompletedPayload
	for after := int64(0); after < upTo; {
		evs, err := s.store.EventsAfter(ctx, runID, after, eventPage)
		if err != nil {
			return nil, err
		}
		if len(evs) == 0 {
			break
		}
		for _, ev := range evs {
			if ev.Seq > upTo {
				return completed, nil
			}
			if c := runview.Apply(v, ev); c.Completed != nil {
				completed = c.Completed
			}
		}
		after = evs[len(evs)-1].Seq
	}
	return completed, nil
}

// runEngines are the search engines the run may use: those it asked for,
// else the configured ones.
func (s *Server) runEngines(run *db.Run) []string {
	var opts pipeline.RunOptions
	if json.Unmarshal(run.Options, &opts) == nil && len(opts.Engines) > 0 {
		return opts.Engines
	}
	return s.opt.Settings.SearchEngines
}

// decodeSpec reads the run's task spec column (JSON null before intake).
func decodeSpec(raw json.RawMessage) *research.TaskSpec {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var spec research.TaskSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil
	}
	return &spec
}

// decodeSpend reads the run's spend column, nil when it records nothing.
func decodeSpend(raw json.RawMessage) *pipeline.Spend {
	var u pipeline.Spend
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil || u.Usage == (engine.Usage{}) {
		return nil
	}
	return &u
}

// scoresView shows a verification pass's scores (the report views use it
// too).
func scoresView(p research.VerificationPayload) web.Scores { return runview.ScoresView(p) }

// shareURL is the run's live share link, or "". A run that read private
// documents has none until its owner confirms sharing it (the rule of
// db.Store.RunByShareToken).
func (s *Server) shareURL(run *db.Run) string {
	if !run.ShareToken.Valid || run.ShareToken.String == "" || run.ShareRevokedAt.Valid {
		return ""
	}
	if run.ReadsPrivate && !run.ShareConfirmed {
		return ""
	}
	if run.ShareExpiresAt.Valid && run.ShareExpiresAt.Time.Before(time.Now()) {
		return ""
	}
	return s.shareLink(run.ShareToken.String)
}

// shareLink is the URL of a share token: absolute under QUARRY_BASE_URL,
// else a path (the browser resolves it against the page).
func (s *Server) shareLink(token string) string {
	if s.opt.BaseURL != "" {
		return s.opt.BaseURL + "/r/" + token
	}
	return "/r/" + token
}
