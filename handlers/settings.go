package handlers

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/web"
)

// settingsPage is GET /settings: what is configured (never a secret) and
// the health of the database, the browser, live events and the queue.
func (s *Server) settingsPage(w http.ResponseWriter, r *http.Request) {
	s.renderSettings(w, r, http.StatusOK, func(*web.SettingsView) {})
}

// renderSettings renders the settings page with status, after edit has
// added what the request did (a token just created, an error).
func (s *Server) renderSettings(w http.ResponseWriter, r *http.Request, status int, edit func(*web.SettingsView)) {
	v := s.opt.Settings
	v.PDF = s.opt.Printer != nil
	if v.ShareTTL == 0 {
		v.ShareTTL = s.opt.ShareTTL
	}
	if len(v.Presets) == 0 {
		v.Presets = PresetViews(research.Presets())
	}
	v.Health = nil
	for _, c := range s.checks(r.Context()) {
		item := web.HealthItem{Name: c.name, OK: c.err == nil}
		if c.err != nil {
			item.Detail = c.err.Error()
		}
		v.Health = append(v.Health, item)
	}
	v.Health = append(v.Health, s.eventsHealth(), s.queueHealth(r.Context()))
	if user := UserFrom(r.Context()); user != "" {
		tokens, err := s.store.APITokens(r.Context(), user)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		v.TokensOn = true
		v.Tokens = tokenViews(tokens)
	}
	edit(&v)
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, status, web.SettingsPage(s.page(r, "Settings"), v), nil)
}

// eventsHealth says whether live progress can reach the pages.
func (s *Server) eventsHealth() web.HealthItem {
	b := s.store.Broker()
	if b == nil {
		return web.HealthItem{Name: "live events", Detail: "no event broker: run pages will not update until reloaded"}
	}
	return web.HealthItem{Name: "live events", OK: true,
		Detail: fmt.Sprintf("%d page streams open on this process", s.SSEClients())}
}

// queueHealth reports the runs waiting for a worker.
func (s *Server) queueHealth(ctx context.Context) web.HealthItem {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	n, err := s.store.QueuedRuns(ctx)
	if err != nil {
		return web.HealthItem{Name: "run queue", Detail: "cannot count queued runs"}
	}
	return web.HealthItem{Name: "run queue", OK: true, Detail: fmt.Sprintf("%d runs waiting for a worker", n)}
}

// PresetViews shows the depth budgets, shallow to deep.
func PresetViews(all map[string]research.Budget) []web.PresetView {
	if len(all) == 0 {
		all = research.Presets()
	}
	var out []web.PresetView
	for _, d := range []string{research.DepthQuick, research.DepthStandard, research.DepthDeep} {
		b := all[d]
		out = append(out, web.PresetView{Depth: d, MaxActions: b.MaxActions, MaxBatches: b.MaxBatches, MaxTime: time.Duration(b.MaxTime),
			PagesPerSearch: b.PagesPerSearch, RepairPasses: b.RepairPasses, ContextTokens: b.ContextTokens})
	}
	return out
}

// check is the outcome of one readiness check.
type check struct {
	name string
	err  error
}

// checks pings the database and the browser, each within its own deadline.
func (s *Server) checks(ctx context.Context) []check {
	dbCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	out := []check{{"database", s.store.Ping(dbCtx)}}
	if s.opt.Browser != nil {
		bctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		out = append(out, check{"browser", s.opt.Browser.Ping(bctx)})
	}
	return out
}
