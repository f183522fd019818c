package main

import (
	"context"
	"fmt"
	"github.com/quarryhq/quarry/agent"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/quarryhq/quarry/auth"
	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine/llm"
	"github.com/quarryhq/quarry/fetch"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/notify"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
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
	// SMTP is the mail server task notifications are emailed through
	// (QUARRY_SMTP_URL); nil when email is off.
	SMTP *notify.SMTPConfig
	// AgentMaxSteps caps a site-agent run's actions (QUARRY_AGENT_MAX_STEPS).
	AgentMaxSteps int
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

	// Presets are the depth budgets: the defaults of research.Presets with
	// QUARRY_DEPTH_QUICK, QUARRY_DEPTH_STANDARD and QUARRY_DEPTH_DEEP
	// applied ("actions=12,batches=4,time=90s").
	Presets map[string]research.Budget
	// Verify are the verification thresholds (QUARRY_VERIFY_*).
	Verify report.VerifyOptions
	// Prices are model prices in dollars per million tokens, over the
	// built-in list (QUARRY_LLM_PRICES).
	Prices map[string]llm.Price
	// ClarifyBelow is the clarity under which review "auto" pauses a run
	// (QUARRY_CLARIFY_BELOW).
	ClarifyBelow float64
	// Tasks are the limits of scheduled research (QUARRY_TASK_*).
	Tasks TaskConfig
	// Library configures the document library (see library.go).
	Library LibraryConfig
	// NoPreliminary turns off the quick search of the question a model
	// engine's planner gets (QUARRY_PRELIMINARY_SEARCH=off).
	NoPreliminary bool
}

// TaskConfig is how scheduled research is bounded.
type TaskConfig struct {
	Concurrency    int           // scheduled runs at once, cluster-wide (QUARRY_TASK_CONCURRENCY)
	Grace          time.Duration // how late a missed slot still runs (QUARRY_TASK_GRACE)
	MinInterval    time.Duration // the shortest schedule allowed (QUARRY_TASK_MIN_INTERVAL)
	DailyBudgetUSD float64       // per user per UTC day, 0 = no cap (QUARRY_TASK_DAILY_BUDGET_USD)
	DailyRuns      int           // per user per UTC day, 0 = no cap (QUARRY_TASK_DAILY_RUNS)
	PerUser        int           // tasks a user may have, 0 = no cap (QUARRY_TASKS_PER_USER)
}

// loadTasks reads the QUARRY_TASK_* settings.
func (c *Config) loadTasks(getenv func(string) string) error {
	t := &c.Tasks
	var err error
	if t.Concurrency, err = intVar(getenv, "QUARRY_TASK_CONCURRENCY", 2, 0, 1000); err != nil {
		return err
	}
	if t.Grace, err = durationVar(getenv, "QUARRY_TASK_GRACE", time.Hour, time.Second); err != nil {
		return err
	}
	if t.MinInterval, err = durationVar(getenv, "QUARRY_TASK_MIN_INTERVAL", 5*time.Minute, time.Second); err != nil || (getenv("QUARRY_TASK_MIN_INTERVAL") != "" && t.MinInterval == 0) {
		return fmt.Errorf("QUARRY_TASK_MIN_INTERVAL: %q is not a duration of at least 1s such as 5m", getenv("QUARRY_TASK_MIN_INTERVAL"))
	}
	if t.DailyBudgetUSD, err = floatVar(getenv, "QUARRY_TASK_DAILY_BUDGET_USD", 0); err != nil {
		return err
	}
	if t.DailyRuns, err = intVar(getenv, "QUARRY_TASK_DAILY_RUNS", 200, 0, 1000000); err != nil {
		return err
	}
	if t.PerUser, err = intVar(getenv, "QUARRY_TASKS_PER_USER", 50, 0, 100000); err != nil {
		return err
	}
	return nil
}

// DefaultRunBudgetUSD caps a run's model spend when QUARRY_RUN_BUDGET_USD
// is not set and a hosted model is configured: a deep run of a mid-priced
// model stays well under it, a runaway loop does not.
const DefaultRunBudgetUSD = 1.0

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
	if c.AgentMaxSteps, err = intVar(getenv, "QUARRY_AGENT_MAX_STEPS", agent.DefaultMaxSteps, 1, 200); err != nil {
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
	if c.Library, err = loadLibraryConfig(getenv); err != nil {
		return nil, err
	}
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
	if err := c.loadTasks(getenv); err != nil {
		return nil, err
	}
	if !oneOf(c.Depth, "quick", "standard", "deep") {
		return nil, fmt.Errorf("QUARRY_DEPTH: unknown depth %q (accepted: quick, standard, deep)", c.Depth)
	}
	if c.LLM != "extractive" {
		c.RunBudgetUSD = DefaultRunBudgetUSD
	}
	if v := getenv("QUARRY_RUN_BUDGET_USD"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			return nil, fmt.Errorf("QUARRY_RUN_BUDGET_USD: %q is not a non-negative number of dollars (0 for no cap)", v)
		}
		c.RunBudgetUSD = f
	}
	if v := getenv("QUARRY_SMTP_URL"); v != "" {
		if c.SMTP, err = notify.ParseSMTPURL(v); err != nil {
			return nil, fmt.Errorf("QUARRY_SMTP_URL: %w", err)
		}
	}
	if err := c.loadTuning(getenv); err != nil {
		return nil, err
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

// PublicURL is where people reach this server, for links sent out of it
// (notifications): QUARRY_BASE_URL, else the listening address.
func (c *Config) PublicURL() string {
	if c.BaseURL != "" {
		return c.BaseURL
	}
	host, port, _ := net.SplitHostPort(c.Addr)
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// loadTuning reads what operators tune about research: depth presets,
// verification thresholds, model prices and when review auto pauses.
func (c *Config) loadTuning(getenv func(string) string) error {
	c.Presets = research.Presets()
	for _, d := range []string{research.DepthQuick, research.DepthStandard, research.DepthDeep} {
		name := "QUARRY_DEPTH_" + strings.ToUpper(d)
		b, err := research.ParseBudget(c.Presets[d], getenv(name))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		c.Presets[d] = b
	}
	c.Verify = report.DefaultVerifyOptions()
	for _, t := range []struct {
		name string
		v    *float64
	}{
		{"QUARRY_VERIFY_MIN_VALIDITY", &c.Verify.MinValidity},
		{"QUARRY_VERIFY_MIN_COVERAGE", &c.Verify.MinCoverage},
		{"QUARRY_VERIFY_MIN_SUPPORT", &c.Verify.MinSupport},
		{"QUARRY_VERIFY_SUPPORT_THRESHOLD", &c.Verify.SupportThreshold},
		{"QUARRY_VERIFY_MIN_GROUNDING", &c.Verify.MinGrounding},
		{"QUARRY_VERIFY_MIN_CRITERIA", &c.Verify.MinCriteria},
	} {
		f, set, err := shareVar(getenv, t.name)
		if err != nil {
			return err
		}
		if set {
			// 0 turns the check off; report.VerifyOptions says so with a
			// negative value (its zero means "the default").
			*t.v = f
			if f == 0 {
				*t.v = -1
			}
		}
	}
	prices, err := parsePrices(getenv("QUARRY_LLM_PRICES"))
	if err != nil {
		return fmt.Errorf("QUARRY_LLM_PRICES: %w", err)
	}
	c.Prices = prices
	f, set, err := shareVar(getenv, "QUARRY_CLARIFY_BELOW")
	if err != nil {
		return err
	}
	c.ClarifyBelow = pipeline.DefaultClarifyBelow
	switch {
	case set && f == 0:
		c.ClarifyBelow = -1 // never: pipeline.Options reads 0 as "the default"
	case set:
		c.ClarifyBelow = f
	}
	return nil
}

// shareVar reads a number from 0 to 1; set is false when the variable is
// empty.
func shareVar(getenv func(string) string, name string) (f float64, set bool, err error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return 0, false, nil
	}
	f, err = strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 1 {
		return 0, false, fmt.Errorf("%s: %q is not a number from 0 to 1 such as 0.6", name, v)
	}
	return f, true, nil
}

// parsePrices reads "model=input/output,…", dollars per million tokens
// of input and of output ("gpt-4o=2.5/10,my-local-model=0/0").
func parsePrices(v string) (map[string]llm.Price, error) {
	out := map[string]llm.Price{}
	for _, item := range splitList(v) {
		model, price, ok := strings.Cut(item, "=")
		model = strings.TrimSpace(model)
		in, outp, ok2 := strings.Cut(price, "/")
		if !ok || !ok2 || model == "" {
			return nil, fmt.Errorf("%q is not model=input/output such as gpt-4o=2.5/10 (dollars per million tokens)", item)
		}
		pi, err1 := strconv.ParseFloat(strings.TrimSpace(in), 64)
		po, err2 := strconv.ParseFloat(strings.TrimSpace(outp), 64)
		if err1 != nil || err2 != nil || pi < 0 || po < 0 || pi > 10000 || po > 10000 {
			return nil, fmt.Errorf("%q: prices must be numbers of dollars per million tokens from 0 to 10000", item)
		}
		out[model] = llm.Price{Input: pi, Output: po}
	}
	return out, nil
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
	if l.Uploads, err = intVar(getenv, "QUARRY_UPLOADS", d.Uploads, 0, 10000); err != nil {
		return err
	}
	if l.UploadsPerUser, err = intVar(getenv, "QUARRY_UPLOADS_PER_USER", d.UploadsPerUser, 0, 10000); err != nil {
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
