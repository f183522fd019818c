package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/handlers/runview"
	"github.com/quarryhq/quarry/web"
)

// Each SSE connection is served by its own handler goroutine, which
// writes its frames straight to its connection (eventStream, sse.go): a
// slow viewer stalls only its own goroutine, whose broker subscription then
// lags and is caught up from Postgres.

// renderFunc turns one event into the name and data of the SSE event to
// send; no data sends nothing for it.
type renderFunc func(ctx context.Context, ev db.Event) (name string, data []byte, err error)

// apiRunEvents is GET /api/runs/{id}/events: every event as
// `event: <type>` with the event row as JSON data.
func (s *Server) apiRunEvents(w http.ResponseWriter, r *http.Request) {
	run, err := s.store.GetRun(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	s.serveEvents(w, r, run, func(_ context.Context, ev db.Event) (string, []byte, error) {
		data, err := json.Marshal(ev)
		return ev.Type, data, err
	})
}

// runPageEvents is GET /runs/{id}/events: the run page's stream, every
// event as `event: update` with HTML fragments that htmx swaps in
// out-of-band.
func (s *Server) runPageEvents(w http.ResponseWriter, r *http.Request) {
	run, err := s.store.GetRun(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	frag := newFragmenter(s, s.page(r, ""), run, func(v *web.RunView) { s.restrictView(r, run, v) })
	s.serveEvents(w, r, run, func(ctx context.Context, ev db.Event) (string, []byte, error) {
		html, err := frag.render(ctx, ev)
		return pageEvent, html, err
	})
}

// pageEvent is the name of the run page's SSE events (its sse-swap).
const pageEvent = "update"

// resumeAfter is the seq a stream starts after: the larger of the
// Last-Event-ID header (an EventSource reconnecting) and ?after= (the seq
// the page was rendered at).
func resumeAfter(r *http.Request) int64 {
	var after int64
	for _, v := range []string{r.Header.Get("Last-Event-ID"), r.URL.Query().Get("after")} {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > after {
			after = n
		}
	}
	return after
}

// openStream registers a long-lived stream with the server, so Shutdown
// waits for it and ends it; ok is false (and the refusal written) when the
// server is shutting down. The stream's context ends with the request or
// with the server's streams; call done when the stream ends.
func (s *Server) openStream(w http.ResponseWriter, r *http.Request) (ctx context.Context, done func(), ok bool) {
	s.streamsMu.Lock()
	if s.streamsShut {
		s.streamsMu.Unlock()
		streamError(w, r, http.StatusServiceUnavailable, "server is shutting down")
		return nil, nil, false
	}
	s.streams.Add(1)
	s.streamsMu.Unlock()
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(s.streamsCtx, cancel)
	return ctx, func() { stop(); cancel(); s.streams.Done() }, true
}

// serveEvents streams the run's events after resumeAfter(r): it subscribes
// to the broker first, then replays from Postgres, then forwards live
// events, so nothing committed in between is lost and nothing is sent
// twice. The stream ends after the run's terminal event; a run that had
// already ended before the resume point gets 204, which tells an
// EventSource to stop reconnecting.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request, run *db.Run, render renderFunc) {
	broker := s.store.Broker()
	if broker == nil {
		streamError(w, r, http.StatusServiceUnavailable, "live events are not available")
		return
	}
	ctx, done, ok := s.openStream(w, r)
	if !ok {
		return
	}
	defer done()

	sub, err := broker.Subscribe(ctx, run.ID, 64)
	if err != nil {
		s.log.Error("subscribe to run events", "run_id", run.ID, "err", err)
		streamError(w, r, http.StatusInternalServerError, "cannot follow the run's events")
		return
	}
	defer sub.Close()
	// Re-read the run after subscribing: its last seq now bounds what replay
	// must cover, and a resume point beyond it is bogus.
	cur, err := s.store.GetRun(ctx, run.ID)
	if err != nil {
		s.log.Error("read run for events", "run_id", run.ID, "err", err)
		streamError(w, r, http.StatusInternalServerError, "cannot read the run")
		return
	}
	after := min(resumeAfter(r), cur.LastSeq)
	if cur.Status.Terminal() && after >= cur.LastSeq {
		w.WriteHeader(http.StatusNoContent)
		return
	}

	s.clients.Add(1)
	defer s.clients.Add(-1)
	out, err := openEventStream(w)
	if err != nil {
		s.log.Warn("open event stream", "run_id", run.ID, "request_id", requestIDFrom(r.Context()), "err", err)
		return
	}
	defer out.close()
	// Shutdown must not wait for a viewer that stopped reading.
	stopAbort := context.AfterFunc(s.streamsCtx, out.abort)
	defer stopAbort()
	p := &pump{s: s, ctx: ctx, runID: run.ID, sub: sub, out: out, last: after, render: render}
	if err := p.run(); err != nil && ctx.Err() == nil && !errors.Is(err, errViewerGone) {
		s.log.Warn("event stream ended", "run_id", run.ID, "request_id", requestIDFrom(r.Context()), "err", err)
	}
}

// pump feeds one connection's stream: replay from Postgres, then live
// events from the broker subscription.
type pump struct {
	s      *Server
	ctx    context.Context
	runID  string
	sub    *db.Subscription
	out    *eventStream
	last   int64 // seq of the last event handled
	render renderFunc
	ended  bool // the terminal event was sent
}

func (p *pump) run() error {
	if err := p.catchUp(); err != nil || p.ended {
		return err
	}
	heartbeat := time.NewTicker(p.s.opt.SSEHeartbeat)
	defer heartbeat.Stop()
	for {
		var err error
		select {
		case <-p.ctx.Done():
			return p.ctx.Err()
		case ev := <-p.sub.C:
			switch {
			case ev.Seq <= p.last:
				continue // already sent by the replay
			case ev.Seq > p.last+1:
				err = p.catchUp() // a gap: read what is missing from the table
			default:
				err = p.send(ev)
			}
		case <-p.sub.Lagged:
			err = p.catchUp()
		case <-heartbeat.C:
			err = p.out.Comment("keep-alive")
		}
		if err != nil || p.ended {
			return err
		}
	}
}

// catchUp sends every stored event after the last one sent, page by page.
func (p *pump) catchUp() error {
	for !p.ended {
		evs, err := p.s.store.EventsAfter(p.ctx, p.runID, p.last, eventPage)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if err := p.send(ev); err != nil || p.ended {
				return err
			}
		}
		if len(evs) < eventPage {
			return nil
		}
	}
	return nil
}

// send renders and writes one event. The write blocks while the viewer
// does not read: only this viewer waits.
func (p *pump) send(ev db.Event) error {
	name, data, err := p.render(p.ctx, ev)
	if err != nil {
		return err
	}
	if p.ctx.Err() != nil {
		return p.ctx.Err()
	}
	if len(data) > 0 {
		if err := p.out.Send(ev.Seq, name, data); err != nil {
			return err
		}
	}
	p.last = ev.Seq
	if runview.EndsRun(ev.Type) {
		p.ended = true
	}
	return nil
}

// streamError refuses a stream: JSON under /api/, as every API error,
// plain text for the pages' streams.
func streamError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if strings.Contains(r.URL.Path, "/api/") {
		writeError(w, status, msg)
		return
	}
	http.Error(w, msg, status)
}
