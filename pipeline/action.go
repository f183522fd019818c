package pipeline

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/quarryhq/quarry/agent"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/search"
	"github.com/quarryhq/quarry/text"
)

// urlSet is the canonical URLs a run already has (or must skip), shared by
// the actions of a batch.
type urlSet struct {
	mu   sync.Mutex
	urls map[string]bool
}

func (s *urlSet) claim(u string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.urls[u] {
		return false
	}
	s.urls[u] = true
	return true
}

func (r *Runner) knownURLs(ctx context.Context, runID string, st *State) (*urlSet, error) {
	sources, err := r.opt.Store.Sources(ctx, runID)
	if err != nil {
		return nil, err
	}
	set := &urlSet{urls: map[string]bool{}}
	for _, s := range sources {
		set.urls[s.CanonicalURL] = true
	}
	for _, u := range st.ParentURLs {
		set.urls[u] = true
	}
	return set, nil
}

// runAction executes one action within actx (bounded by the time budget)
// and records its outcome with ctx (so a timed-out action is still
// recorded). Only infrastructure errors are returned.
func (r *Runner) runAction(actx, ctx context.Context, run *db.Run, st *State, row db.Action, known *urlSet, unread *batchNotes) error {
	began := time.Now()
	if err := r.opt.Store.StartAction(ctx, run.ID, row.Idx); err != nil {
		return err
	}
	if err := r.emit(ctx, run, event{research.EventAction, actionPayload(row, research.ActionRunning, "", "", nil)}); err != nil {
		return err
	}
	meter := r.newActionMeter(ctx, run, row, unread)
	var pages []extract.Page
	var failure string
	var pageErrs []string
	switch {
	case r.opt.Gatherer == nil:
		failure = "no browser is configured"
	case row.Kind == research.ActionNavigate:
		if !known.claim(extract.CanonicalURL(row.URL)) {
			failure = "already fetched"
			break
		}
		page, err := r.opt.Gatherer.Navigate(actx, row.URL)
		if err != nil {
			failure = describeErr(err, actx)
		} else {
			pages = append(pages, page)
		}
	default:
		engines := append([]string{row.Engine}, without(st.Engines, row.Engine)...)
		if browseOnly(st, row.Engine) {
			engines = engines[:1]
		}
		approved := st.approvedGate(row.Idx)
		sctx, err := withAgentSteps(actx, r.opt.Store, run.ID, row.Idx, approved)
		if err != nil {
			return err
		}
		sctx = agent.WithMeter(sctx, meter)
		out, err := r.opt.Gatherer.Search(sctx, search.Action{
			Engines: engines,
			Query:   row.Query,
			Want:    row.Reason,
			Pages:   st.Spec.Budget.PagesPerSearch,
			Reader:  run.Owner, // library engines search what the run's owner may read
			// Widen a site search only once a batch has been read and the
			// heartbeat asked for more.
			Widen: st.Batch > 0,
			// Claim on check: a URL is visited by one action of the run only.
			Skip: func(u string) bool { return !known.claim(u) },
		})
		if g := approvalNeeded(err, row.Idx); g != nil {
			return g // the action stays open; the run pauses
		}
		pages = out.Pages
		unread.add(unreadHits(out)...)
		if len(out.Results) == 0 && len(out.Blocked) == 0 {
			unread.addEmpty(row.Query)
		}
		for _, pe := range out.Errors {
			pageErrs = append(pageErrs, pe.URL+": "+pe.Err)
		}
		if err != nil {
			failure = describeErr(err, actx)
		} else if len(pages) == 0 {
			switch {
			case len(out.Results) == 0:
				failure = "the results page had no usable links"
			case len(pageErrs) > 0:
				failure = "no page could be read (" + strings.Join(firstN(pageErrs, 3), "; ") + ")"
			}
			// Otherwise every result was already fetched: success, nothing new.
		}
	}
	var outcome string
	err := r.opt.Store.Transition(ctx, run.ID, r.opt.Owner, db.Step{Apply: func(ctx context.Context, tx *db.Tx) error {
		var ids, titles []string
		for _, p := range pages {
			canon := p.CanonicalURL
			if canon == "" {
				canon = extract.CanonicalURL(p.URL)
			}
			findings, _ := json.Marshal(p.Findings)
			src, added, err := tx.AddSource(ctx, db.Source{RunID: run.ID, URL: firstNonEmpty(p.FinalURL, p.URL), CanonicalURL: canon,
				Title: p.Title, Host: p.Host, Site: p.Site, Byline: p.Byline, Published: p.Published, Lang: p.Lang,
				Text: p.Text, Findings: findings, ActionIdx: sql.NullInt64{Int64: int64(row.Idx), Valid: true}, FetchedAt: p.FetchedAt})
			if err != nil {
				return err
			}
			if added {
				ids = append(ids, research.SourceID(src.SID))
				titles = append(titles, firstNonEmpty(src.Title, src.Host))
			}
		}
		status, preview := research.ActionSuccess, ""
		if failure != "" && len(ids) == 0 {
			status = research.ActionError
		} else {
			failure = ""
			preview = fmt.Sprintf("%d page(s): %s", len(ids), strings.Join(titles, " · "))
			if len(ids) == 0 {
				preview = "nothing new (pages already fetched)"
			}
		}
		result := map[string]any{"sources": ids, "page_errors": pageErrs}
		if u := meter.total(); u != (engine.Usage{}) {
			result[agentUsageKey] = u
		}
		if err := tx.FinishAction(ctx, run.ID, row.Idx, status, failure, text.Clip(preview, 300), result); err != nil {
			return err
		}
		outcome = string(status)
		_, err := tx.AppendEvent(ctx, run.ID, research.EventAction, actionPayload(row, status, text.Clip(preview, 300), failure, ids))
		return err
	}})
	if err == nil {
		r.actionDone(row.Kind, outcome, time.Since(began))
	}
	return err
}

func describeErr(err error, ctx context.Context) string {
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		return "stopped: the run's time budget ran out"
	}
	return text.Clip(err.Error(), 300)
}

func actionPayload(row db.Action, status research.ActionStatus, preview, errText string, ids []string) research.ActionPayload {
	return research.ActionPayload{Idx: row.Idx, Batch: row.Batch, Kind: row.Kind, Engine: row.Engine, Query: row.Query, URL: row.URL,
		Status: status, Preview: preview, Error: errText, Sources: ids}
}

func actionLabel(a db.Action) string {
	if a.Kind == research.ActionNavigate {
		return "read " + a.URL
	}
	return fmt.Sprintf("search %s for %q", a.Engine, a.Query)
}

func without(list []string, v string) []string {
	var out []string
	for _, x := range list {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

func firstN(list []string, n int) []string {
	if len(list) > n {
		return list[:n]
	}
	return list
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// unreadHits are the results of a search that were not visited.
func unreadHits(out search.Outcome) []research.Hit {
	visited := map[string]bool{}
	for _, p := range out.Pages {
		visited[extract.CanonicalURL(p.URL)] = true
		visited[p.CanonicalURL] = true
	}
	for _, pe := range out.Errors {
		visited[extract.CanonicalURL(pe.URL)] = true
	}
	var hits []research.Hit
	for _, r := range out.Results {
		if !visited[extract.CanonicalURL(r.URL)] {
			hits = append(hits, research.Hit{URL: r.URL, Title: text.Clip(r.Title, 200), Snippet: text.Clip(r.Snippet, 300)})
		}
	}
	return hits
}
