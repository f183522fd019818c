// Package llm implements engine.Engine on hosted or local language models:
// the OpenAI chat-completions API (and every server that speaks it: Ollama,
// vLLM, llama.cpp, LM Studio, OpenRouter) and the Anthropic messages API.
//
// Every call streams. Reasoning text (<think>…</think>) is stripped and never
// forwarded. Stage answers that must be JSON are taken from the text,
// validated against the stage's struct, retried once with the validation
// error, and replaced by a safe fallback when still unusable. Transient HTTP
// failures are retried with exponential backoff honouring Retry-After. Each
// call reports its tokens and cost as a engine.Usage.
package llm

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"text/template"
	"time"

	"github.com/quarryhq/quarry/engine"
)

// Provider names accepted by Options.Provider.
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
)

// Default models used when Options.Model is empty and the provider's own API
// is targeted (no BaseURL).
const (
	DefaultOpenAIModel    = "gpt-4.1-mini"
	DefaultAnthropicModel = "claude-sonnet-4-5"
)

// Defaults of the tunable options.
const (
	// DefaultContextWindow is assumed for a model this package does not know,
	// typically a local model behind Ollama or llama.cpp. It is deliberately
	// small: overflowing a local server's window silently truncates the
	// prompt (losing the instructions), while a small window only means
	// less evidence per call. Set Options.ContextWindow to the real size.
	DefaultContextWindow = 8192
	// DefaultMaxOutputTokens caps the answer of one call; it is further
	// capped to a quarter of the context window.
	DefaultMaxOutputTokens = 4096
	// DefaultMaxRetries is how many times a transient failure is retried.
	DefaultMaxRetries = 3
	// DefaultCallTimeout bounds one attempt of one call, streaming included.
	DefaultCallTimeout = 5 * time.Minute
)

// Price is what a model costs in US dollars per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// Options configures an Engine.
type Options struct {
	// Provider is "openai" (any OpenAI-compatible server) or "anthropic".
	Provider string
	// APIKey authenticates to the API. Required for the providers' own
	// APIs; optional with a BaseURL (local servers usually need none).
	APIKey string
	// BaseURL points the client at a compatible server, for instance
	// http://127.0.0.1:11434/v1 for Ollama. For Anthropic it is the host
	// without /v1. Empty means the provider's public API.
	BaseURL string
	// Model is the model name sent with every call. Required with a BaseURL.
	Model string
	// HTTPClient carries the requests; nil means a client without an
	// overall timeout (streams are bounded by CallTimeout instead).
	HTTPClient *http.Client
	// Prices overrides or extends DefaultPrices, by model name. A model
	// with no price costs 0 but its tokens are still counted.
	Prices map[string]Price
	// ContextWindow is the model's window in tokens; 0 means the known
	// window of the model, else DefaultContextWindow.
	ContextWindow int
	// MaxOutputTokens caps one answer; 0 means DefaultMaxOutputTokens.
	MaxOutputTokens int
	// MaxRetries is how many times a 429, a 5xx or a connection error is
	// retried; 0 means DefaultMaxRetries, negative means none.
	MaxRetries int
	// CallTimeout bounds one attempt; 0 means DefaultCallTimeout.
	CallTimeout time.Duration
	// Logger receives one debug line per call; nil means slog.Default().
	Logger *slog.Logger
	// Sleep waits between retries; nil means a real, cancellable wait.
	// Tests inject it to run instantly and observe the delays.
	Sleep func(time.Duration)
}

// Engine is a engine.Engine backed by a language model.
type Engine struct {
	provider    string
	model       string
	client      streamer
	prices      map[string]Price
	window      int
	maxOut      int
	maxRetries  int
	callTimeout time.Duration
	log         *slog.Logger
	sleep       func(time.Duration)
	prompts     *template.Template
}

var _ engine.Engine = (*Engine)(nil)

// New validates opt and returns an Engine. It does not contact the API.
func New(opt Options) (*Engine, error) {
	provider := strings.ToLower(strings.TrimSpace(opt.Provider))
	if provider != ProviderOpenAI && provider != ProviderAnthropic {
		return nil, fmt.Errorf("llm: unknown provider %q (accepted: openai, anthropic)", opt.Provider)
	}
	baseURL := strings.TrimSpace(opt.BaseURL)
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("llm: base URL %q: want an absolute http(s) URL", opt.BaseURL)
		}
	}
	if baseURL == "" && strings.TrimSpace(opt.APIKey) == "" {
		return nil, fmt.Errorf("llm: %s: an API key is required for the public API (or set a base URL)", provider)
	}
	model := strings.TrimSpace(opt.Model)
	if model == "" {
		if baseURL != "" {
			return nil, fmt.Errorf("llm: %s: a model name is required with a custom base URL", provider)
		}
		model = DefaultOpenAIModel
		if provider == ProviderAnthropic {
			model = DefaultAnthropicModel
		}
	}
	if opt.ContextWindow < 0 || opt.MaxOutputTokens < 0 || opt.CallTimeout < 0 {
		return nil, errors.New("llm: context window, max output tokens and call timeout must not be negative")
	}
	for name, p := range opt.Prices {
		if p.Input < 0 || p.Output < 0 {
			return nil, fmt.Errorf("llm: price of %q must not be negative", name)
		}
	}

	window := opt.ContextWindow
	if window == 0 {
		window = knownWindow(model)
	}
	if window < minWindow {
		return nil, fmt.Errorf("llm: context window %d is too small (minimum %d tokens)", window, minWindow)
	}
	maxOut := opt.MaxOutputTokens
	if maxOut == 0 {
		maxOut = DefaultMaxOutputTokens
	}
	maxOut = min(maxOut, window/4)
	retries := opt.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	timeout := opt.CallTimeout
	if timeout == 0 {
		timeout = DefaultCallTimeout
	}
	logger := opt.Logger
	if logger == nil {
		logger = slog.Default()
	}
	httpClient := opt.HTTPClient
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	prices := DefaultPrices()
	for name, p := range opt.Prices {
		prices[name] = p
	}
	prompts, err := loadPrompts()
	if err != nil {
		return nil, err
	}

	e := &Engine{
		provider:    provider,
		model:       model,
		prices:      prices,
		window:      window,
		maxOut:      maxOut,
		maxRetries:  retries,
		callTimeout: timeout,
		log:         logger.With("engine", provider, "model", model),
		sleep:       opt.Sleep,
		prompts:     prompts,
	}
	if provider == ProviderOpenAI {
		e.client = newOpenAIStreamer(opt.APIKey, baseURL, model, httpClient)
	} else {
		e.client = newAnthropicStreamer(opt.APIKey, baseURL, model, httpClient)
	}
	return e, nil
}

// Name returns the provider name: openai or anthropic.
func (e *Engine) Name() string { return e.provider }

// Model returns the model every call uses.
func (e *Engine) Model() string { return e.model }

// ContextWindow returns the window, in tokens, the engine keeps calls inside.
func (e *Engine) ContextWindow() int { return e.window }

// MaxOutputTokens returns the largest answer, in tokens, a call may ask for.
// With EstimateCost it bounds what the next call can cost.
func (e *Engine) MaxOutputTokens() int { return e.maxOut }

// EstimateCost returns what a call with these token counts would cost in US
// dollars at the model's price (0 for a model without a price).
func (e *Engine) EstimateCost(inputTokens, outputTokens int) float64 {
	p, ok := lookupPrice(e.prices, e.model)
	if !ok {
		return 0
	}
	return (float64(inputTokens)*p.Input + float64(outputTokens)*p.Output) / 1e6
}

// usage turns the token counts of one completed call into a engine.Usage.
func (e *Engine) usage(in, out int) engine.Usage {
	return engine.Usage{Calls: 1, InputTokens: in, OutputTokens: out, USD: e.EstimateCost(in, out)}
}
