package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/quarryhq/quarry/auth"
	"github.com/quarryhq/quarry/db"
)

// Limits bound what one client may ask of the server. A zero or negative
// field turns that limit off (the zero Limits limits nothing;
// DefaultLimits are the server's defaults). Rates and the caps on runs
// are kept in Postgres and hold across replicas; only the cap on open
// event streams is per process (a stream lives on one replica).
type Limits struct {
	// RunsPerMinute is how many runs one user (one address when
	// anonymous) may start per minute, after a burst of RunBurst.
	RunsPerMinute float64
	// RunsPerMinutePerIP bounds run creation per client address, whoever
	// is signed in there.
	RunsPerMinutePerIP float64
	// RunBurst is how many runs may be started at once before the rates
	// apply (at least 1).
	RunBurst int
	// MaxActiveRuns caps one user's runs queued or in progress.
	MaxActiveRuns int
	// MaxQueuedRuns caps the runs waiting for a worker, cluster-wide.
	MaxQueuedRuns int
	// MaxStreams caps the open event streams of one user (one address
	// when anonymous).
	MaxStreams int
	// Uploads caps the library uploads this process takes in at once, and
	// UploadsPerUser those of one user (one address when anonymous): an
	// upload holds up to QUARRY_UPLOAD_MAX bytes in memory while it is
	// stored, so these bound the memory uploads use.
	Uploads        int
	UploadsPerUser int
	// LoginsPerMinute is how many sign-in attempts one name may make per
	// minute from one address; an address may make four times as many
	// (over all names) and a name, from all addresses together,
	// loginNameFactor times as many, so no one can lock a user out from
	// elsewhere.
	LoginsPerMinute float64
}

// DefaultLimits are the limits `quarry serve` applies unless configured.
var DefaultLimits = Limits{
	RunsPerMinute:      6,
	RunsPerMinutePerIP: 30,
	RunBurst:           6,
	MaxActiveRuns:      5,
	MaxQueuedRuns:      200,
	MaxStreams:         24,
	LoginsPerMinute:    5,
	Uploads:            4,
	UploadsPerUser:     2,
}

// access is the state of authentication and abuse limits.
type access struct {
	limits     Limits
	runsByUser *auth.Limiter
	runsByIP   *auth.Limiter
	logins     *loginLimiter
	streams    *streamCounter
	uploads    *streamCounter         // uploads in progress, by client and in total
	limited    *prometheus.CounterVec // requests refused by a limit, by limit
	denied     *prometheus.CounterVec // anonymous requests turned away, by auth mode
}

func newAccess(l Limits, store *db.Store) *access {
	burst := float64(l.RunBurst)
	a := &access{
		limits:     l,
		runsByUser: auth.NewLimiter(store, "runs", l.RunsPerMinute/60, burst),
		runsByIP:   auth.NewLimiter(store, "runs-ip", l.RunsPerMinutePerIP/60, math.Max(burst, l.RunsPerMinutePerIP/2)),
		streams:    &streamCounter{open: map[string]int{}},
		uploads:    &streamCounter{open: map[string]int{}},
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quarry_limited_requests_total",
			Help: "Requests refused by an abuse limit, by limit.",
		}, []string{"limit"}),
		denied: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quarry_unauthenticated_requests_total",
			Help: "Anonymous requests for a protected path, by auth mode.",
		}, []string{"mode"}),
	}
	a.logins = &loginLimiter{
		byPair: auth.NewLimiter(store, "logins-pair", l.LoginsPerMinute/60, math.Max(1, l.LoginsPerMinute)),
		byName: auth.NewLimiter(store, "logins", loginNameFactor*l.LoginsPerMinute/60, math.Max(1, loginNameFactor*l.LoginsPerMinute)),
		byIP:   auth.NewLimiter(store, "logins-ip", 4*l.LoginsPerMinute/60, math.Max(1, 4*l.LoginsPerMinute)),
		metric: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quarry_logins_total",
			Help: "Sign-in attempts, by outcome (ok, failed, limited).",
		}, []string{"outcome"}),
	}
	return a
}

func (a *access) collectors() []prometheus.Collector {
	return []prometheus.Collector{a.limited, a.denied, a.logins.metric}
}

// loginNameFactor is how many times LoginsPerMinute one name may be tried
// from all addresses together.
const loginNameFactor = 10

// loginLimiter bounds sign-in attempts per address, per name from one
// address, and per name overall at a much higher rate: someone guessing
// from one address is stopped by the first two, and cannot keep the user
// out, who signs in from another address with a bucket of their own.
type loginLimiter struct {
	byIP, byPair, byName *auth.Limiter
	metric               *prometheus.CounterVec
}

// allow takes an attempt for name from ip, checking the address, the
// pair and the name in that order (a refused attempt takes nothing from
// the later buckets).
func (l *loginLimiter) allow(ctx context.Context, ip, name string) (bool, time.Duration, error) {
	name = strings.ToLower(name)
	for _, c := range []struct {
		lim *auth.Limiter
		key string
	}{{l.byIP, "ip:" + ip}, {l.byPair, "pair:" + ip + "|" + name}, {l.byName, "name:" + name}} {
		ok, wait, err := c.lim.Allow(ctx, c.key)
		if err != nil || !ok {
			return ok, wait, err
		}
	}
	return true, 0, nil
}

// clientID is who a limit counts: the user, or the address when anonymous.
func clientID(r *http.Request) string {
	if u := UserFrom(r.Context()); u != "" {
		return "user:" + u
	}
	return "ip:" + clientFrom(r.Context()).IP
}

// limitRunCreation guards the routes that start a run (the ask form, the
// API, a task's "Run now") with per-user and per-address rates (429 with
// Retry-After). The caps on runs in progress and on the queue are the
// store's Admission, checked as the run is inserted (see admission), so
// they hold for every creator, the scheduler included.
func (s *Server) limitRunCreation(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := s.access
		ok, wait, err := a.runsByUser.Allow(r.Context(), clientID(r))
		if err != nil {
			s.refuseError(w, r, err)
			return
		}
		if !ok {
			a.limited.WithLabelValues("runs_per_user").Inc()
			s.refuse(w, r, http.StatusTooManyRequests, wait, fmt.Sprintf(
				"Too many runs started; you may start %g per minute. Try again in %d seconds.", a.limits.RunsPerMinute, retrySeconds(wait)))
			return
		}
		ok, wait, err = a.runsByIP.Allow(r.Context(), "ip:"+clientFrom(r.Context()).IP)
		if err != nil {
			s.refuseError(w, r, err)
			return
		}
		if !ok {
			a.limited.WithLabelValues("runs_per_ip").Inc()
			s.refuse(w, r, http.StatusTooManyRequests, wait, fmt.Sprintf(
				"Too many runs started from your address. Try again in %d seconds.", retrySeconds(wait)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// limitStreams caps the event streams one client holds open.
func (s *Server) limitStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := s.access
		if a.limits.MaxStreams <= 0 {
			next.ServeHTTP(w, r)
			return
		}
		refuse := func() {
			a.limited.WithLabelValues("streams").Inc()
			w.Header().Set("Retry-After", "10")
			writeError(w, http.StatusTooManyRequests, fmt.Sprintf(
				"Too many open event streams from this client (at most %d); close some tabs.", a.limits.MaxStreams))
		}
		key, anonymous := s.streamKey(r)
		if anonymous {
			// A browser's own cookie is the client's to forge, so the
			// address as a whole still has a (much larger) cap.
			addr := "addr:" + clientFrom(r.Context()).IP
			if !a.streams.acquire(addr, streamsPerAddressFactor*a.limits.MaxStreams) {
				refuse()
				return
			}
			defer a.streams.release(addr)
		}
		if !a.streams.acquire(key, a.limits.MaxStreams) {
			refuse()
			return
		}
		defer a.streams.release(key)
		next.ServeHTTP(w, r)
	})
}

// streamsPerAddressFactor is how many times MaxStreams one address may
// hold open without signing in, over all its browsers.
const streamsPerAddressFactor = 8

// ClientCookie names an anonymous browser (QUARRY_AUTH=none), so that the
// cap on event streams counts per browser rather than per address (one
// office behind one NAT is many browsers). It carries no authority.
const ClientCookie = "quarry_client"

// streamKey is whom the cap on event streams counts: the login session,
// the proxy's user, or the browser's client cookie, else the address; and
// whether the key is the client's own choosing (anonymous).
func (s *Server) streamKey(r *http.Request) (string, bool) {
	if u := UserFrom(r.Context()); u != "" {
		if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
			sum := sha256.Sum256([]byte(c.Value))
			return "session:" + hex.EncodeToString(sum[:12]), false
		}
		return "user:" + u, false
	}
	if c, err := r.Cookie(ClientCookie); err == nil && validClientID(c.Value) {
		return "client:" + c.Value, true
	}
	return "ip:" + clientFrom(r.Context()).IP, false
}

// validClientID accepts what clientCookie mints: 22 base64url characters.
func validClientID(v string) bool {
	if len(v) != 22 {
		return false
	}
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// clientCookie gives an anonymous browser its ClientCookie on the pages it
// loads (QUARRY_AUTH=none only), so its event streams count as its own.
func (s *Server) clientCookie(next http.Handler) http.Handler {
	if s.opt.Auth.Mode != "" && s.opt.Auth.Mode != AuthNone {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && !anonymousPath(r.URL.Path) && !strings.HasPrefix(r.URL.Path, "/api/") {
			if c, err := r.Cookie(ClientCookie); err != nil || !validClientID(c.Value) {
				http.SetCookie(w, &http.Cookie{Name: ClientCookie, Value: randomToken(16), Path: s.base + "/",
					MaxAge: 365 * 24 * 3600, HttpOnly: true, SameSite: http.SameSiteLaxMode,
					Secure: strings.HasPrefix(s.opt.BaseURL, "https://") || clientFrom(r.Context()).HTTPS})
			}
		}
		next.ServeHTTP(w, r)
	})
}

// AdmissionOf is the run-admission rule (db.Admission) the limits
// describe; the server applies it to every run its routes create, and the
// scheduler is given the same.
func AdmissionOf(l Limits) db.Admission {
	return db.Admission{MaxActive: l.MaxActiveRuns, MaxQueued: l.MaxQueuedRuns}
}

// refuseAdmission answers a run refused by the admission rule: 429 for
// the user's own cap, 503 for a full queue, with the rule's message and
// Retry-After. It reports false when err is no such refusal.
func (s *Server) refuseAdmission(w http.ResponseWriter, r *http.Request, err error) bool {
	var refused *db.AdmissionError
	if !errors.As(err, &refused) {
		return false
	}
	s.access.limited.WithLabelValues(refused.Limit).Inc()
	status, wait := http.StatusTooManyRequests, 30*time.Second
	if refused.Limit == db.LimitQueue {
		status, wait = http.StatusServiceUnavailable, time.Minute
	}
	s.refuse(w, r, status, wait, refused.Error())
	return true
}

// refuse answers a request a limit turned away: JSON for the API, a page
// otherwise, with Retry-After.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, wait time.Duration, msg string) {
	w.Header().Set("Retry-After", fmt.Sprint(retrySeconds(wait)))
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeError(w, status, msg)
		return
	}
	s.errorPage(w, r, status, msg)
}

// refuseError answers when a limit could not be checked.
func (s *Server) refuseError(w http.ResponseWriter, r *http.Request, err error) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		s.apiFail(w, r, err)
		return
	}
	s.serverError(w, r, err)
}

// retrySeconds rounds a wait up to whole seconds, at least one.
func retrySeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// streamCounter counts open streams by client.
type streamCounter struct {
	mu   sync.Mutex
	open map[string]int
}

func (c *streamCounter) acquire(key string, max int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[key] >= max {
		return false
	}
	c.open[key]++
	return true
}

func (c *streamCounter) release(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[key]--; c.open[key] <= 0 {
		delete(c.open, key)
	}
}
