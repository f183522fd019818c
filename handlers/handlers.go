// Package handlers is Quarry's HTTP surface: the chi router with its one
// middleware chain, the pages (templ + htmx), the JSON API under /api/ and
// the SSE event streams that replay a run's history from Postgres and then
// follow it live.
package handlers

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/quarryhq/quarry/auth"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/library"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/web"
)

// Runs is what the handlers ask of the pipeline; *pipeline.Runner
// implements it.
type Runs interface {
	// Submit validates and stores a queued run; bad input is a
	// *pipeline.ValidationError and nothing is stored.
	Submit(ctx context.Context, req pipeline.Request) (*db.Run, error)
	// Approve resumes a run paused for plan review (pipeline.ErrNotAwaiting
	// when it is not paused).
	Approve(ctx context.Context, runID string, a pipeline.Approval) (pipeline.Decision, error)
	// Cancel stops a run (pipeline.ErrFinished when it already ended).
	Cancel(ctx context.Context, runID string) error
}

// Pinger is a dependency /readyz checks; *browser.Pool implements it.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Defaults of Options.
const (
	DefaultMaxBodyBytes = 64 << 10
	DefaultSSEHeartbeat = 15 * time.Second
	DefaultSSEBuffer    = 8
)

// Options configure the handlers.
type Options struct {
	Store *db.Store // with a Broker, for live events
	Runs  Runs
	// Browser is pinged by /readyz; nil when there is no browser pool.
	Browser Pinger
	Logger  *slog.Logger
	// BaseURL is the public URL (QUARRY_BASE_URL). Its path, if any, is the
	// prefix of every link Quarry renders; requests may arrive with or
	// without it (a proxy that strips it, or one that does not).
	BaseURL string
	// DefaultDepth is preselected on the ask form and used when a request
	// names none.
	DefaultDepth string
	// Settings is what /settings shows (no secrets); health is filled in
	// per request.
	Settings web.SettingsView
	// Collectors are extra Prometheus collectors exposed on /metrics (for
	// instance the browser pool's).
	Collectors []prometheus.Collector
	// MaxBodyBytes caps request bodies (default 64 KiB).
	MaxBodyBytes int64
	// SSEHeartbeat is the interval of the comment that keeps idle streams
	// open through proxies (default 15 s).
	SSEHeartbeat time.Duration
	// SSEBuffer is no longer used: a stream writes each event to its
	// connection as it is sent (docs/DECISIONS.md). Kept so callers build.
	SSEBuffer int
	// Auth says who may use the server (QUARRY_AUTH); off by default.
	Auth AuthOptions
	// TrustedProxies are the reverse proxies whose forwarded headers
	// (X-Forwarded-For/Proto/Host, the proxy auth header) are believed.
	TrustedProxies []*net.IPNet
	// Limits bound what one client may ask (defaults: DefaultLimits).
	Limits Limits
	// Inbox wakes the live notification streams (db.Inbox, listening on
	// Postgres); nil turns the inbox link and its live toasts off.
	Inbox *db.Inbox
	// Printer prints reports to PDF (the browser pool); nil turns PDF
	// export off.
	Printer PDFPrinter
	// ShareTTL is how long a share link made from the report page works
	// (0 = until revoked), like the pipeline's.
	ShareTTL time.Duration
	// AllowedHosts are further host names (or "*.example.com") the server
	// answers to besides IP literals, localhost and the host of BaseURL
	// (QUARRY_ALLOWED_HOSTS); see hostPolicy.
	AllowedHosts []string
	// Tasks configure scheduled research (the /tasks pages and API).
	Tasks TaskOptions
	// Library is the document library (/library, /api/documents); nil
	// turns it off.
	Library *library.Library
}

// Server holds the handlers' dependencies and serves the router.
type Server struct {
	opt     Options
	log     *slog.Logger
	store   *db.Store
	runs    Runs
	base    string // path prefix, "" at the root
	handler http.Handler

	pdfSlots chan struct{} // PDF prints at once; the rest wait or give up

	clients      atomic.Int64
	streamsCtx   context.Context // cancelled by CloseStreams
	closeStreams context.CancelFunc
	streamsMu    sync.Mutex
	streamsShut  bool
	streams      sync.WaitGroup // open streams; Add only under streamsMu before streamsShut

	registry *prometheus.Registry
	requests *prometheus.CounterVec

	access   *access        // authentication and abuse limits
	hosts    hostPolicy     // which Host headers are served (DNS rebinding)
	sessions *auth.Sessions // login sessions (QUARRY_AUTH=password)
}

// New builds the handlers and their router.
func New(opt Options) *Server {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.MaxBodyBytes <= 0 {
		opt.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opt.SSEHeartbeat <= 0 {
		opt.SSEHeartbeat = DefaultSSEHeartbeat
	}
	if opt.SSEBuffer <= 0 {
		opt.SSEBuffer = DefaultSSEBuffer
	}
	if opt.DefaultDepth == "" {
		opt.DefaultDepth = research.DepthStandard
	}
	opt.BaseURL = strings.TrimRight(opt.BaseURL, "/")
	s := &Server{opt: opt, log: opt.Logger, store: opt.Store, runs: ownedRuns{opt.Runs, AdmissionOf(opt.Limits)}}
	if u, err := url.Parse(opt.BaseURL); err == nil {
		s.base = strings.TrimRight(u.Path, "/")
	}
	s.access = newAccess(opt.Limits, opt.Store)
	s.hosts = newHostPolicy(opt.Auth.Mode, opt.BaseURL, opt.AllowedHosts)
	s.sessions = auth.NewSessions(opt.Store, opt.Auth.SessionTTL)
	s.pdfSlots = make(chan struct{}, maxPDFPrints)
	s.streamsCtx, s.closeStreams = context.WithCancel(context.Background())
	s.registerMetrics()
	s.handler = s.routes()
	return s
}

// ServeHTTP serves a request through the router.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// CloseStreams ends every open SSE stream so its handler returns, and
// refuses new ones; call it when the HTTP server starts shutting down
// (http.Server.RegisterOnShutdown), since Shutdown waits for handlers and a
// stream never ends by itself. It waits up to ctx for the streams to end.
func (s *Server) CloseStreams(ctx context.Context) error {
	s.streamsMu.Lock()
	s.streamsShut = true
	s.streamsMu.Unlock()
	s.closeStreams()
	done := make(chan struct{})
	go func() { s.streams.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SSEClients is the number of open event streams.
func (s *Server) SSEClients() int64 { return s.clients.Load() }

// page returns what every full page needs from the request.
func (s *Server) page(r *http.Request, title string) web.Page {
	user := UserFrom(r.Context())
	inbox := s.opt.Inbox != nil && (user != "" || s.opt.Auth.Mode == "" || s.opt.Auth.Mode == AuthNone)
	return web.Page{Title: title, Base: s.base, Nonce: nonceFrom(r.Context()), User: user, Inbox: inbox}
}

// url returns the path of p under the base path.
func (s *Server) url(p string) string { return s.base + p }
