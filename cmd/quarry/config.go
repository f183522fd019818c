package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/quarryhq/quarry/auth"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/fetch"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/search"
)

// Config is Quarry's configuration, read once from the environment and
// validated; every error names the variable and what it accepts.
type Config struct {
	DatabaseURL    string
	Addr           string
	BaseURL        string
	Chromium       string
	BrowserURL     string
	PoolSize       int
	Workers        int
	SearchEngines  []string
	SearxngURL     string
	AllowHosts     []string
	LLM            string
	LLMModel       string
	OpenAIKey      string
	OpenAIBaseURL  string
	AnthropicKey   string
	Auth           string
	AuthExplicit   bool
	TrustedProxies []*net.IPNet
	Depth          string
	RunBudgetUSD   float64
	// AuthHeader names the user in QUARRY_AUTH=proxy (QUARRY_AUTH_HEADER).
	AuthHeader string
	// SessionTTL is how long a login lasts (QUARRY_SESSION_TTL).
	SessionTTL time.Duration
	// ShareTTL is how long a new share link works; 0 = until revoked
	// (QUARRY_SHARE_TTL).
	ShareTTL time.Duration
	// Limits are the abuse limits (QUARRY_RUNS_PER_MINUTE and friends).
	Limits handlers.Limits
	// LeaseTTL is how long a worker's claim on a run lasts unrenewed: how
	// soon another replica resumes the runs of one that died
	// (QUARRY_LEASE_TTL).
	LeaseTTL time.Duration

	// FetchConcurrency is how many HTTP page fetches run at once, beside
	// the pool's tabs (QUARRY_FETCH_CONCURRENCY); FetchPerHost how many of
	// them one host gets (QUARRY_FETCH_PER_HOST).
	FetchConcurrency int
	FetchPerHost     int

	// AllowedHosts are the further Host names the server answers to
	// (QUARRY_ALLOWED_HOSTS), against DNS rebinding.
	AllowedHosts []string

	// NoPreliminary turns off the quick search of the question a model
	// engine's planner gets (QUARRY_PRELIMINARY_SEARCH=off).
	NoPreliminary bool
}

// LoadConfig reads the configuration from getenv (os.Getenv in production).
func LoadConfig(getenv func(string) string) (*Config, error) {
	c := &Config{
		DatabaseURL:   getenv("DATABASE_URL"),
		Addr:          orDefault(getenv("QUARRY_ADDR"), "127.0.0.1:8080"),
		BaseURL:       strings.TrimRight(getenv("QUARRY_BASE_URL"), "/"),
		Chromium:      getenv("QUARRY_CHROMIUM"),
		BrowserURL:    getenv("QUARRY_BROWSER_URL"),
		SearxngURL:    getenv("QUARRY_SEARXNG_URL"),
		LLMModel:      getenv("QUARRY_LLM_MODEL"),
		OpenAIKey:     getenv("OPENAI_API_KEY"),
		OpenAIBaseURL: getenv("OPENAI_BASE_URL"),
		AnthropicKey:  getenv("ANTHROPIC_API_KEY"),
		Depth:         orDefault(getenv("QUARRY_DEPTH"), "standard"),
	}
	var err error
	if c.PoolSize, err = intVar(getenv, "QUARRY_POOL_SIZE", 4, 1, 64); err != nil {
		return nil, err
	}
	if c.Workers, err = intVar(getenv, "QUARRY_WORKERS", 2, 1, 64); err != nil {
		return nil, err
	}
	if c.FetchConcurrency, err = intVar(getenv, "QUARRY_FETCH_CONCURRENCY", fetch.DefaultConcurrency, 1, 256); err != nil {
		return nil, err
	}
	if c.FetchPerHost, err = intVar(getenv, "QUARRY_FETCH_PER_HOST", fetch.DefaultPerHost, 1, 64); err != nil {
		return nil, err
	}
	if c.FetchPerHost > c.FetchConcurrency {
		return nil, fmt.Errorf("QUARRY_FETCH_PER_HOST: %d is more than QUARRY_FETCH_CONCURRENCY (%d)", c.FetchPerHost, c.FetchConcurrency)
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return nil, fmt.Errorf("QUARRY_ADDR: %q is not host:port (e.g. 127.0.0.1:8080)", c.Addr)
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("QUARRY_BASE_URL: %q must be an absolute http(s) URL such as https://research.example.com/quarry", c.BaseURL)
		}
	}
	if c.DatabaseURL != "" {
		if u, err := url.Parse(c.DatabaseURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			return nil, fmt.Errorf("DATABASE_URL: must be a postgres:// URL")
		}
	}
	for _, name := range []string{"QUARRY_BROWSER_URL", "QUARRY_SEARXNG_URL", "OPENAI_BASE_URL"} {
		if v := getenv(name); v != "" {
			u, err := url.Parse(v)
			if err != nil || u.Host == "" || !oneOf(u.Scheme, "http", "https", "ws", "wss") {
				return nil, fmt.Errorf("%s: %q must be an absolute URL (http, https, ws or wss)", name, v)
			}
		}
	}
	engines, err := search.ParseEngines(getenv("QUARRY_SEARCH_ENGINES"))
	if err != nil {
		return nil, fmt.Errorf("QUARRY_SEARCH_ENGINES: %w", err)
	}
	for _, e := range engines {
		if e == "searxng" && c.SearxngURL == "" {
			return nil, fmt.Errorf("QUARRY_SEARCH_ENGINES: searxng needs QUARRY_SEARXNG_URL")
		}
	}
	c.SearchEngines = engines
	c.AllowHosts = splitList(getenv("QUARRY_ALLOW_HOSTS"))

	c.LLM = getenv("QUARRY_LLM")
	switch c.LLM {
	case "":
		switch {
		case c.AnthropicKey != "":
			c.LLM = "anthropic"
		case c.OpenAIKey != "" || c.OpenAIBaseURL != "":
			c.LLM = "openai"
		default:
			c.LLM = "extractive"
		}
	case "extractive":
	case "openai":
		if c.OpenAIKey == "" && c.OpenAIBaseURL == "" {
			return nil, fmt.Errorf("QUARRY_LLM: openai needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)")
		}
	case "anthropic":
		if c.AnthropicKey == "" {
			return nil, fmt.Errorf("QUARRY_LLM: anthropic needs ANTHROPIC_API_KEY")
		}
	default:
		return nil, fmt.Errorf("QUARRY_LLM: unknown engine %q (accepted: extractive, openai, anthropic)", c.LLM)
	}

	c.Auth = getenv("QUARRY_AUTH")
	c.AuthExplicit = c.Auth != ""
	if c.Auth == "" {
		c.Auth = "none"
	}
	if !oneOf(c.Auth, "none", "password", "proxy") {
		return nil, fmt.Errorf("QUARRY_AUTH: unknown mode %q (accepted: none, password, proxy)", c.Auth)
	}
	for _, cidr := range splitList(getenv("QUARRY_TRUSTED_PROXIES")) {
		if !strings.Contains(cidr, "/") {
			if ip := net.ParseIP(cidr); ip != nil && ip.To4() != nil {
				cidr += "/32"
			} else {
				cidr += "/128"
			}
		}
		_, n, err := net.ParseCIDR(cidr)
		if err != nil {
			return nil, fmt.Errorf("QUARRY_TRUSTED_PROXIES: %q is not an IP or CIDR", cidr)
		}
		c.TrustedProxies = append(c.TrustedProxies, n)
	}
	if c.Auth == "proxy" && len(c.TrustedProxies) == 0 {
		return nil, fmt.Errorf("QUARRY_TRUSTED_PROXIES: QUARRY_AUTH=proxy needs the proxies' addresses")
	}
	if err := c.loadAccess(getenv); err != nil {
		return nil, err
	}
	if !oneOf(c.Depth, "quick", "standard", "deep") {
		return nil, fmt.Errorf("QUARRY_DEPTH: unknown depth %q (accepted: quick, standard, deep)", c.Depth)
	}
	if v := getenv("QUARRY_RUN_BUDGET_USD"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			return nil, fmt.Errorf("QUARRY_RUN_BUDGET_USD: %q is not a non-negative number of dollars", v)
		}
		c.RunBudgetUSD = f
	}
	switch v := strings.ToLower(getenv("QUARRY_PRELIMINARY_SEARCH")); v {
	case "", "on":
	case "off":
		c.NoPreliminary = true
	default:
		return nil, fmt.Errorf("QUARRY_PRELIMINARY_SEARCH: %q is neither on nor off", v)
	}
	return c, nil
}

func intVar(getenv func(string) string, name string, def, min, max int) (int, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > max {
		return 0, fmt.Errorf("%s: %q is not a whole number from %d to %d", name, v, min, max)
	}
	return n, nil
}

func orDefault(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return strings.TrimSpace(v)
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func oneOf(v string, options ...string) bool {
	for _, o := range options {
		if v == o {
			return true
		}
	}
	return false
}

// dbURL returns the configured database URL or an error telling how to set it.
func (c *Config) dbURL() (string, error) {
	if c.DatabaseURL == "" {
		if v := os.Getenv("DATABASE_URL"); v != "" {
			return v, nil
		}
		return "", fmt.Errorf("DATABASE_URL: not set (e.g. postgres://postgres@127.0.0.1:5432/quarry?sslmode=disable; `make run` sets it up)")
	}
	return c.DatabaseURL, nil
}

// openDB connects to the configured database and applies the migrations
// (replicas may do so at once: goose holds a session lock). It returns the
// migration files it applied.
func (c *Config) openDB(ctx context.Context) (*sqlx.DB, []string, error) {
	dbURL, err := c.dbURL()
	if err != nil {
		return nil, nil, err
	}
	conn, err := db.Open(ctx, dbURL)
	if err != nil {
		return nil, nil, err
	}
	applied, err := db.Migrate(ctx, conn.DB)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return conn, applied, nil
}

// loadAccess reads the settings of authentication and abuse limits.
func (c *Config) loadAccess(getenv func(string) string) error {
	c.AuthHeader = orDefault(getenv("QUARRY_AUTH_HEADER"), handlers.DefaultAuthHeader)
	for _, h := range splitList(getenv("QUARRY_ALLOWED_HOSTS")) {
		name := strings.TrimPrefix(h, "*.")
		if strings.Contains(h, "/") || !validHostName(name) {
			return fmt.Errorf("QUARRY_ALLOWED_HOSTS: %q is not a host name (a name such as research.example.com, *.example.com, optionally with :port)", h)
		}
		c.AllowedHosts = append(c.AllowedHosts, h)
	}
	for _, ch := range c.AuthHeader {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-') {
			return fmt.Errorf("QUARRY_AUTH_HEADER: %q is not a header name (letters, digits and '-')", c.AuthHeader)
		}
	}
	var err error
	if c.SessionTTL, err = durationVar(getenv, "QUARRY_SESSION_TTL", auth.DefaultSessionTTL, time.Minute); err != nil {
		return err
	}
	if c.ShareTTL, err = durationVar(getenv, "QUARRY_SHARE_TTL", 0, time.Minute); err != nil {
		return err
	}
	if c.LeaseTTL, err = durationVar(getenv, "QUARRY_LEASE_TTL", 15*time.Second, 3*time.Second); err != nil || c.LeaseTTL == 0 {
		return fmt.Errorf("QUARRY_LEASE_TTL: %q is not a duration of at least 3s such as 15s", getenv("QUARRY_LEASE_TTL"))
	}
	d := handlers.DefaultLimits
	l := &c.Limits
	if l.RunsPerMinute, err = floatVar(getenv, "QUARRY_RUNS_PER_MINUTE", d.RunsPerMinute); err != nil {
		return err
	}
	if l.RunsPerMinutePerIP, err = floatVar(getenv, "QUARRY_RUNS_PER_MINUTE_PER_IP", d.RunsPerMinutePerIP); err != nil {
		return err
	}
	if l.RunBurst, err = intVar(getenv, "QUARRY_RUN_BURST", d.RunBurst, 1, 10000); err != nil {
		return err
	}
	if l.MaxActiveRuns, err = intVar(getenv, "QUARRY_MAX_ACTIVE_RUNS", d.MaxActiveRuns, 0, 1000000); err != nil {
		return err
	}
	if l.MaxQueuedRuns, err = intVar(getenv, "QUARRY_MAX_QUEUED_RUNS", d.MaxQueuedRuns, 0, 1000000); err != nil {
		return err
	}
	if l.MaxStreams, err = intVar(getenv, "QUARRY_MAX_STREAMS", d.MaxStreams, 0, 1000000); err != nil {
		return err
	}
	if l.LoginsPerMinute, err = floatVar(getenv, "QUARRY_LOGINS_PER_MINUTE", d.LoginsPerMinute); err != nil {
		return err
	}
	return nil
}

// validHostName accepts a DNS name, optionally with a port.
func validHostName(h string) bool {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	if h == "" || len(h) > 253 {
		return false
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// durationVar reads a Go duration ("36h", "90m"); 0 is allowed and means
// "none" where the variable says so, otherwise at least min.
func durationVar(getenv func(string) string, name string, def, min time.Duration) (time.Duration, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || (d > 0 && d < min) {
		return 0, fmt.Errorf("%s: %q is not a duration of at least %s such as 24h or 90m (0 for none)", name, v, min)
	}
	return d, nil
}

// floatVar reads a non-negative number; 0 turns the limit off.
func floatVar(getenv func(string) string, name string, def float64) (float64, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 1e6 {
		return 0, fmt.Errorf("%s: %q is not a number from 0 (no limit) to 1000000", name, v)
	}
	return f, nil
}
