package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/r3labs/sse/v2"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/handlers/runview"
)

// Each SSE connection gets its own r3labs stream fed by its own pump
// goroutine. r3labs fans a stream out to its subscribers one after the
// other and blocks on a full one, so sharing a stream between viewers would
// let one slow viewer stall the rest; with a stream per connection a slow
// viewer only stalls its own pump, whose broker subscription then lags and
// is caught up from Postgres.

// streamHooks tie a stream id to its connection: registered is closed once
// r3labs has added the subscriber (publishing earlier would lose events),
// unsubscribed once it has removed it (removing the stream earlier would
// leave r3labs' goroutine blocked forever on the stream's deregister).
type streamHooks struct {
	registered   chan struct{}
	unsubscribed chan struct{}
}

// Header that tells nginx (and compatible proxies) not to buffer a stream.
const accelBufferingHeader = "X-Accel-Buffering"

// sseWriteTimeout bounds one write to a stream; a viewer that does not read
// for this long is cut off rather than holding its goroutines forever.
const sseWriteTimeout = 30 * time.Second

func newSSEServer(s *Server) *sse.Server {
	srv := sse.New()
	srv.AutoReplay = false
	srv.AutoStream = false
	srv.SplitData = true
	srv.BufferSize = s.opt.SSEBuffer
	srv.Headers = map[string]string{accelBufferingHeader: "no", "Cache-Control": "no-cache"}
	srv.OnSubscribe = func(id string, _ *sse.Subscriber) {
		if h, ok := s.hooks.Load(id); ok {
			close(h.(*streamHooks).registered)
		}
	}
	srv.OnUnsubscribe = func(id string, _ *sse.Subscriber) {
		if h, ok := s.hooks.Load(id); ok {
			close(h.(*streamHooks).unsubscribed)
		}
	}
	return srv
}

// renderFunc turns one event into the SSE event to send, or nil to send
// nothing for it.
type renderFunc func(ctx context.Context, ev db.Event) (*sse.Event, error)

// apiRunEvents is GET /api/runs/{id}/events: every event as
// `event: <type>` with the event row as JSON data.
func (s *Server) apiRunEvents(w http.ResponseWriter, r *http.Request) {
	run, err := s.store.GetRun(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	s.serveEvents(w, r, run, func(_ context.Context, ev db.Event) (*sse.Event, error) {
		data, err := json.Marshal(ev)
		if err != nil {
			return nil, err
		}
		return &sse.Event{ID: seqID(ev.Seq), Event: []byte(ev.Type), Data: data}, nil
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
	frag := newFragmenter(s, s.page(r, ""), run)
	s.serveEvents(w, r, run, func(ctx context.Context, ev db.Event) (*sse.Event, error) {
		html, err := frag.render(ctx, ev)
		if err != nil || len(html) == 0 {
			return nil, err
		}
		return &sse.Event{ID: seqID(ev.Seq), Event: []byte("update"), Data: html}, nil
	})
}

func seqID(seq int64) []byte { return []byte(strconv.FormatInt(seq, 10)) }

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

// serveEvents streams the run's events after resumeAfter(r): it subscribes
// to the broker first, then replays from Postgres, then forwards live
// events, so nothing committed in between is lost and nothing is sent
// twice. The stream ends after the run's terminal event; a run that had
// already ended before the resume point gets 204, which tells an
// EventSource to stop reconnecting.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request, run *db.Run, render renderFunc) {
	broker := s.store.Broker()
	if broker == nil {
		http.Error(w, "live events are not available", http.StatusServiceUnavailable)
		return
	}
	s.streamsMu.Lock()
	if s.streamsShut {
		s.streamsMu.Unlock()
		http.Error(w, "server is shutting down", http.StatusServiceUnavailable)
		return
	}
	s.streams.Add(1)
	s.streamsMu.Unlock()
	defer s.streams.Done()

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stopOnClose := context.AfterFunc(s.streamsCtx, cancel)
	defer stopOnClose()

	sub, err := broker.Subscribe(ctx, run.ID, 64)
	if err != nil {
		s.log.Error("subscribe to run events", "run_id", run.ID, "err", err)
		http.Error(w, "cannot follow the run's events", http.StatusInternalServerError)
		return
	}
	defer sub.Close()
	// Re-read the run after subscribing: its last seq now bounds what replay
	// must cover, and a resume point beyond it is bogus.
	cur, err := s.store.GetRun(ctx, run.ID)
	if err != nil {
		s.log.Error("read run for events", "run_id", run.ID, "err", err)
		http.Error(w, "cannot read the run", http.StatusInternalServerError)
		return
	}
	after := min(resumeAfter(r), cur.LastSeq)
	if cur.Status.Terminal() && after >= cur.LastSeq {
		w.WriteHeader(http.StatusNoContent)
		return
	}

	s.clients.Add(1)
	defer s.clients.Add(-1)
	id := "c" + randomToken(12)
	hooks := &streamHooks{registered: make(chan struct{}), unsubscribed: make(chan struct{})}
	s.hooks.Store(id, hooks)
	defer s.hooks.Delete(id)
	s.sse.CreateStream(id)
	defer s.sse.RemoveStream(id)

	p := &pump{s: s, ctx: ctx, runID: run.ID, streamID: id, sub: sub, last: after, render: render, hooks: hooks}
	pumpDone := make(chan struct{})
	go func() {
		defer close(pumpDone)
		if err := p.run(); err != nil && ctx.Err() == nil {
			s.log.Warn("event stream ended", "run_id", run.ID, "request_id", requestIDFrom(r.Context()), "err", err)
		}
	}()

	// r3labs reads the stream id from the query and would answer a
	// non-numeric Last-Event-ID with 400; the resume point is ours.
	r2 := r.Clone(ctx)
	q := r2.URL.Query()
	q.Set("stream", id)
	r2.URL.RawQuery = q.Encode()
	r2.Header.Del("Last-Event-ID")
	dw := &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), fail: cancel}
	s.sse.ServeHTTP(dw, r2)

	cancel()
	<-pumpDone
	select {
	case <-hooks.unsubscribed:
	case <-time.After(5 * time.Second):
		s.log.Warn("sse subscriber not removed in time", "stream", id)
	}
	dw.rc.SetWriteDeadline(time.Time{})
}

// pump feeds one connection's stream: replay from Postgres, then live
// events from the broker subscription.
type pump struct {
	s        *Server
	ctx      context.Context
	runID    string
	streamID string
	sub      *db.Subscription
	last     int64 // seq of the last event handled
	render   renderFunc
	hooks    *streamHooks
	ended    bool // the terminal event was sent
}

func (p *pump) run() error {
	select {
	case <-p.hooks.registered:
	case <-p.ctx.Done():
		return p.ctx.Err()
	}
	if err := p.catchUp(); err != nil || p.ended {
		return p.finish(err)
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
			p.s.sse.Publish(p.streamID, &sse.Event{Comment: []byte("keep-alive")})
		}
		if err != nil || p.ended {
			return p.finish(err)
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

// send renders and publishes one event. Publish blocks while this
// connection's buffer is full: only this viewer waits.
func (p *pump) send(ev db.Event) error {
	out, err := p.render(p.ctx, ev)
	if err != nil {
		return err
	}
	if p.ctx.Err() != nil {
		return p.ctx.Err()
	}
	if out != nil {
		p.s.sse.Publish(p.streamID, out)
	}
	p.last = ev.Seq
	if runview.EndsRun(ev.Type) {
		p.ended = true
	}
	return nil
}

// finish ends the stream: an event with neither data nor comment makes
// r3labs' handler return after writing everything before it.
func (p *pump) finish(err error) error {
	if p.ctx.Err() == nil {
		p.s.sse.Publish(p.streamID, &sse.Event{})
	}
	return err
}

// deadlineWriter bounds every write of a stream, and cancels the stream on
// a failed write (the viewer is gone or stuck).
type deadlineWriter struct {
	http.ResponseWriter
	rc   *http.ResponseController
	fail context.CancelFunc
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	w.rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
	n, err := w.ResponseWriter.Write(b)
	if err != nil {
		w.fail()
	}
	return n, err
}

// Flush implements http.Flusher, which r3labs requires.
func (w *deadlineWriter) Flush() {
	if err := w.rc.Flush(); err != nil {
		w.fail()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
