// Package fetch loads a page the cheapest way that gets its text: over
// HTTP with Go's client through the egress guard first, extracting from
// the served HTML with the same extractor a rendered page goes through, and
// in the browser only when the served HTML shows the page needs one (no
// main text, an application shell, content in <noscript> or in scripts) or
// the host is remembered to need it. What worked is remembered per host in
// a HostStore, for a while, and re-checked now and then. PDFs, plain text
// and Markdown are fetched over HTTP and turned into pages too.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/extract"
)

// Defaults of Options.
const (
	DefaultConcurrency = 16
	DefaultPerHost     = 4
	DefaultTimeout     = 20 * time.Second
	DefaultMaxBytes    = 5 << 20
	DefaultMaxPDFBytes = 30 << 20
	DefaultHostTTL     = 24 * time.Hour
	// DefaultRecheck is the share of pages of a host remembered to need a
	// browser that are tried over HTTP again, so a site that changes is
	// noticed before the decision expires.
	DefaultRecheck = 0.05
)

// Options configure a Fetcher.
type Options struct {
	// Guard checks every URL and every connection, redirects included.
	Guard *egress.Guard
	// Pool renders the pages that need a browser; nil never renders (the
	// served HTML is used whatever it holds).
	Pool *browser.Pool
	// Hosts remembers per host which way worked; nil keeps it in this
	// process (NewMemoryHosts).
	Hosts HostStore
	// Concurrency is how many HTTP fetches run at once (default 16),
	// independent of the browser's tabs.
	Concurrency int
	// PerHost is how many of them may go to one host (default 4).
	PerHost int
	// Timeout bounds one HTTP fetch, body included (default 20 s).
	Timeout time.Duration
	// MaxBytes caps a page's body after decompression (default 5 MiB);
	// MaxPDFBytes a PDF's (default 30 MiB).
	MaxBytes    int64
	MaxPDFBytes int64
	// HostTTL is how long a host's decision holds (default 24 h).
	HostTTL time.Duration
	// Recheck is the share of a render host's pages tried over HTTP first
	// (default 0.05; negative for none).
	Recheck float64
	// UserAgent sent over HTTP; default a desktop Chromium's.
	UserAgent string
	// PDFToText is the pdftotext binary (default: found on PATH).
	PDFToText string
	Logger    *slog.Logger
}

// Phases is where a page's time went. Connect is zero on a reused
// connection; Render is zero for a page accepted from HTTP.
type Phases struct {
	Connect   time.Duration `json:"connect"`
	FirstByte time.Duration `json:"first_byte"`
	Body      time.Duration `json:"body"`
	Extract   time.Duration `json:"extract"`
	Render    time.Duration `json:"render"`
}

// Result is a fetched page and how it was obtained.
type Result struct {
	Page     extract.Page
	Rendered bool   // the page came from the browser
	Reason   string // why it was rendered (Reason* constants), "" when not
	Kind     string // "html", "pdf", "text"
	Phases   Phases
}

// Fetcher fetches pages; it is safe for concurrent use.
type Fetcher struct {
	opt    Options
	client *http.Client
	sem    chan struct{}
	hosts  *hostLimiter
	local  *MemoryHosts // in front of opt.Hosts: decisions read recently
	log    *slog.Logger

	mu     sync.Mutex
	streak map[string]int // per host, pages in a row that needed the browser
}

// renderStreak is how many pages of a host in a row must need the
// browser before the host is remembered as needing it: one
// client-rendered page on a site of static pages must not send the whole
// site to the browser.
const renderStreak = 3

// localTTL is how long a decision read from a shared store is reused
// without asking it again.
const localTTL = time.Minute

// New returns a Fetcher. Guard is required.
func New(opt Options) *Fetcher {
	if opt.Concurrency <= 0 {
		opt.Concurrency = DefaultConcurrency
	}
	if opt.PerHost <= 0 {
		opt.PerHost = DefaultPerHost
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	if opt.MaxPDFBytes <= 0 {
		opt.MaxPDFBytes = DefaultMaxPDFBytes
	}
	if opt.HostTTL <= 0 {
		opt.HostTTL = DefaultHostTTL
	}
	if opt.Recheck == 0 {
		opt.Recheck = DefaultRecheck
	}
	if opt.UserAgent == "" {
		opt.UserAgent = chromeUA
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Hosts == nil {
		opt.Hosts = NewMemoryHosts(0)
	}
	return &Fetcher{
		opt:    opt,
		client: opt.Guard.HTTPClient(opt.Timeout),
		sem:    make(chan struct{}, opt.Concurrency),
		hosts:  newHostLimiter(opt.PerHost),
		local:  NewMemoryHosts(0),
		log:    opt.Logger,
		streak: map[string]int{},
	}
}

// Guard is the guard the fetcher checks URLs with.
func (f *Fetcher) Guard() *egress.Guard { return f.opt.Guard }

// Fetch loads rawURL and extracts its page. A page that answers with an
// error status is a *StatusError.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (Result, error) {
	start := time.Now()
	if err := f.opt.Guard.Check(ctx, rawURL); err != nil {
		return Result{}, err
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return Result{}, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	host := strings.ToLower(u.Hostname())
	mode := f.mode(ctx, host)
	if mode == ModeRender && f.opt.Pool != nil && rand.Float64() >= f.opt.Recheck {
		res, err := f.render(ctx, rawURL, ReasonHost, Phases{})
		if err == nil {
			res.Page.LoadTime = time.Since(start)
		}
		return res, err
	}

	resp, err := f.httpGet(ctx, rawURL, host)
	if err != nil {
		var ee *egress.Error
		var tooLarge *browser.PageTooLargeError
		var dnsErr *net.DNSError
		var timeout interface{ Timeout() bool }
		if f.opt.Pool == nil || ctx.Err() != nil || errors.As(err, &ee) || errors.As(err, &tooLarge) || errors.Is(err, browser.ErrDownloadRefused) ||
			errors.As(err, &dnsErr) || (errors.As(err, &timeout) && timeout.Timeout()) {
			// A refusal, an unknown name or a host that does not answer in
			// time would fail in the browser too, only later.
			return Result{}, err
		}
		// The server may refuse plain clients in ways a browser gets past
		// (a TLS or protocol quirk); the browser is the fallback.
		f.log.Debug("http fetch failed; rendering", "url", rawURL, "err", err)
		res, rerr := f.render(ctx, rawURL, ReasonHTTPError, Phases{})
		if rerr != nil {
			return Result{}, err
		}
		res.Page.LoadTime = time.Since(start)
		return res, nil
	}
	ph := Phases{Connect: resp.connect, FirstByte: resp.firstByte, Body: resp.bodyTime}
	if resp.status >= 400 {
		if f.opt.Pool != nil && (resp.status == http.StatusForbidden || resp.status == http.StatusTooManyRequests || resp.status >= 500) {
			res, err := f.render(ctx, rawURL, ReasonStatus, ph)
			if err == nil {
				res.Page.LoadTime = time.Since(start)
			}
			return res, err
		}
		return Result{}, &StatusError{URL: resp.finalURL, Status: resp.status}
	}

	var res Result
	switch {
	case resp.mediaType == "application/pdf":
		res, err = f.pdf(ctx, rawURL, resp, ph)
	case resp.attachment:
		return Result{}, fmt.Errorf("%w: %s is an attachment", browser.ErrDownloadRefused, rawURL)
	case resp.mediaType == "text/plain" || resp.mediaType == "text/markdown" || resp.mediaType == "text/x-markdown":
		t := time.Now()
		markdown := resp.mediaType != "text/plain" || strings.HasSuffix(strings.ToLower(u.Path), ".md")
		var page extract.Page
		page, err = textPage(rawURL, resp.finalURL, resp.body, markdown)
		ph.Extract = time.Since(t)
		res = Result{Page: page, Kind: "text", Phases: ph}
	case isHTML(resp.mediaType) || resp.mediaType == "application/xml" || strings.HasSuffix(resp.mediaType, "+xml"):
		res, err = f.html(ctx, rawURL, host, mode, resp, ph)
	default:
		return Result{}, fmt.Errorf("%w: %s has content type %s, not a page", browser.ErrDownloadRefused, rawURL, resp.mediaType)
	}
	if err != nil {
		return Result{}, err
	}
	res.Page.FetchedAt = time.Now().UTC()
	res.Page.LoadTime = time.Since(start)
	return res, nil
}

// httpGet holds a slot of the fetcher and one of the host for the
// duration of the request.
func (f *Fetcher) httpGet(ctx context.Context, rawURL, host string) (*response, error) {
	select {
	case f.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-f.sem }()
	release, err := f.hosts.acquire(ctx, host)
	if err != nil {
		return nil, err
	}
	defer release()
	limit := f.opt.MaxBytes
	if f.opt.MaxPDFBytes > limit {
		// The type is known only from the answer; a page is held to its
		// own cap after the fact.
		limit = f.opt.MaxPDFBytes
	}
	resp, err := f.get(ctx, rawURL, limit)
	if err != nil {
		return nil, err
	}
	if resp.mediaType != "application/pdf" && int64(len(resp.body)) > f.opt.MaxBytes {
		return nil, &browser.PageTooLargeError{URL: rawURL, Limit: f.opt.MaxBytes}
	}
	return resp, nil
}

// html extracts the served HTML and renders the page instead when it
// shows a need for a browser.
func (f *Fetcher) html(ctx context.Context, rawURL, host, mode string, resp *response, ph Phases) (Result, error) {
	t := time.Now()
	page, err := extract.Rendered(rawURL, resp.finalURL, "", string(resp.body))
	ph.Extract = time.Since(t)
	reason := ""
	if err == nil {
		reason = needsBrowser(resp.body, page.Text)
	} else {
		reason = ReasonNoText
	}
	if reason == "" || f.opt.Pool == nil {
		if err != nil {
			return Result{}, err
		}
		f.needed(host, false)
		if mode != ModeHTTP {
			f.remember(ctx, host, ModeHTTP)
		}
		return Result{Page: page, Kind: "html", Phases: ph}, nil
	}
	res, rerr := f.render(ctx, rawURL, reason, ph)
	if rerr == nil && utf8.RuneCountInString(res.Page.Text) < minMainText {
		// The capture may have beaten a script's late request (the
		// browser's settle wait is bounded); one more render gives the
		// page its chance.
		if again, err := f.render(ctx, rawURL, reason, ph); err == nil && len(again.Page.Text) > len(res.Page.Text) {
			again.Phases.Render += res.Phases.Render
			res = again
		}
	}
	if rerr != nil {
		var status *StatusError
		if err == nil && strings.TrimSpace(page.Text) != "" && !errors.As(rerr, &status) {
			// The browser failed; the served text is better than nothing.
			f.log.Info("render failed; keeping the served text", "url", rawURL, "err", rerr)
			return Result{Page: page, Kind: "html", Phases: ph}, nil
		}
		return Result{}, rerr
	}
	// The host needs a browser when rendering found clearly more text.
	served := utf8.RuneCountInString(page.Text)
	rendered := utf8.RuneCountInString(res.Page.Text)
	if rendered > served+served/4+minMainText {
		if f.needed(host, true) >= renderStreak {
			f.remember(ctx, host, ModeRender)
		}
	} else if f.needed(host, false); mode != ModeHTTP {
		f.remember(ctx, host, ModeHTTP)
	}
	return res, nil
}

// render loads rawURL in the browser and extracts the rendered DOM.
func (f *Fetcher) render(ctx context.Context, rawURL, reason string, ph Phases) (Result, error) {
	t := time.Now()
	r, err := f.opt.Pool.Render(ctx, rawURL)
	ph.Render = time.Since(t)
	if err != nil {
		return Result{}, fmt.Errorf("visit %s: %w", rawURL, err)
	}
	if r.Status >= 400 {
		return Result{}, fmt.Errorf("visit %s: %w", rawURL, &StatusError{URL: r.FinalURL, Status: r.Status})
	}
	t = time.Now()
	page, err := extract.Rendered(rawURL, r.FinalURL, r.Title, r.HTML)
	ph.Extract += time.Since(t)
	if err != nil {
		return Result{}, err
	}
	page.FetchedAt = time.Now().UTC()
	page.LoadTime = r.LoadTime
	return Result{Page: page, Rendered: true, Reason: reason, Kind: "html", Phases: ph}, nil
}

func (f *Fetcher) pdf(ctx context.Context, rawURL string, resp *response, ph Phases) (Result, error) {
	t := time.Now()
	page, err := pdfPage(ctx, pdfLimits{bin: f.opt.PDFToText, timeout: 30 * time.Second, memBytes: 1 << 30}, rawURL, resp.finalURL, resp.body)
	ph.Extract = time.Since(t)
	if err != nil {
		return Result{}, err
	}
	return Result{Page: page, Kind: "pdf", Phases: ph}, nil
}

// needed counts a page of host that needed the browser (or resets the
// count) and returns the streak.
func (f *Fetcher) needed(host string, yes bool) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !yes {
		delete(f.streak, host)
		return 0
	}
	if len(f.streak) >= 10000 {
		clear(f.streak)
	}
	f.streak[host]++
	return f.streak[host]
}

// mode returns the host's remembered way, from the local cache or the
// shared store. A store that fails is logged and treated as knowing
// nothing: fetching works without it.
func (f *Fetcher) mode(ctx context.Context, host string) string {
	if m, _ := f.local.FetchMode(ctx, host); m != "" {
		return m
	}
	m, err := f.opt.Hosts.FetchMode(ctx, host)
	if err != nil {
		f.log.Warn("read host fetch mode", "host", host, "err", err)
		return ""
	}
	if m != "" {
		_ = f.local.SetFetchMode(ctx, host, m, time.Now().Add(localTTL))
	}
	return m
}

// remember records mode for host locally and in the shared store.
func (f *Fetcher) remember(ctx context.Context, host, mode string) {
	expires := time.Now().Add(f.opt.HostTTL)
	_ = f.local.SetFetchMode(ctx, host, mode, time.Now().Add(min(f.opt.HostTTL, localTTL)))
	if err := f.opt.Hosts.SetFetchMode(context.WithoutCancel(ctx), host, mode, expires); err != nil {
		f.log.Warn("record host fetch mode", "host", host, "mode", mode, "err", err)
	}
}
