package pipeline

import (
	"context"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/search"
	"github.com/quarryhq/quarry/text"
)

// StagePreliminary names the preliminary search in stage events; it runs
// inside intake and has no checkpoint of its own.
const StagePreliminary = "preliminary"

// Preliminary search limits: the longest it may take (also at most a
// quarter of the run's time budget), the results the planner sees, and
// the longest query sent.
const (
	prelimTimeout  = 10 * time.Second
	maxPrelimHits  = 8
	maxPrelimQuery = 200
)

// preliminary runs one quick search of the question for a model engine's
// planner: it reads the results page only, never the pages it lists, and
// returns the top titles and snippets. It is skipped for the extractive
// engine (which plans from the question's own words) and when turned off;
// its time counts against the run's time budget. A failed search only
// means planning without it.
func (r *Runner) preliminary(ctx context.Context, run *db.Run, st *State, budget research.Budget) []research.Hit {
	if r.opt.NoPreliminary || r.opt.Gatherer == nil || r.opt.Engine.Name() == "extractive" || st.Preliminary != nil {
		return st.Preliminary
	}
	limit := prelimTimeout
	if bt := time.Duration(budget.MaxTime); bt > 0 {
		limit = min(limit, bt/4)
	}
	q := text.Clip(text.OneLine(run.Question), maxPrelimQuery)
	if err := r.emit(ctx, run, event{research.EventStageStarted, research.StagePayload{Stage: StagePreliminary, Status: research.StatusPlanning}}); err != nil {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, limit)
	start := time.Now()
	// Every result is skipped: the search lists, it visits nothing.
	out, err := r.opt.Gatherer.Search(sctx, search.Action{Engines: st.Engines, Query: q, Pages: 1, Exact: true, Skip: func(string) bool { return true }})
	cancel()
	elapsed := time.Since(start)
	st.GatherMS += elapsed.Milliseconds()
	p := research.PreliminaryPayload{Query: q, Engine: out.Engine, ElapsedMS: elapsed.Milliseconds()}
	for _, res := range out.Results {
		if len(p.Hits) == maxPrelimHits {
			break
		}
		p.Hits = append(p.Hits, research.Hit{URL: res.URL, Title: text.Clip(text.OneLine(res.Title), 200), Snippet: text.Clip(text.OneLine(res.Snippet), 300)})
	}
	if err != nil && len(p.Hits) == 0 {
		p.Error = text.Clip(err.Error(), 200)
	}
	st.Preliminary = p.Hits
	if st.Preliminary == nil {
		st.Preliminary = []research.Hit{} // tried: a resumed intake does not search again
	}
	if err := r.emit(ctx, run, event{research.EventPreliminary, p}); err != nil && ctx.Err() == nil {
		r.log.Warn("report preliminary search", "run_id", run.ID, "err", err)
	}
	return st.Preliminary
}
