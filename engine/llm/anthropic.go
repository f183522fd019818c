package llm

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// anthropicStreamer calls the Anthropic messages API.
type anthropicStreamer struct {
	client anthropic.Client
	model  string
}

func newAnthropicStreamer(apiKey, baseURL, model string, hc *http.Client) *anthropicStreamer {
	opts := []option.RequestOption{
		// Configuration comes from Quarry's own settings, never from the
		// SDK's environment variables or profile files.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(apiKey),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // the engine retries, observably
	}
	if baseURL != "" {
		opts = append(opts, option.WithBaseURL(baseURL))
	}
	return &anthropicStreamer{client: anthropic.NewClient(opts...), model: model}
}

func (s *anthropicStreamer) stream(ctx context.Context, req request, onText func(string)) (reply, error) {
	msgs := make([]anthropic.MessageParam, 0, len(req.Messages))
	for _, m := range req.Messages {
		block := anthropic.NewTextBlock(m.Content)
		if m.Role == roleAssistant {
			msgs = append(msgs, anthropic.NewAssistantMessage(block))
		} else {
			msgs = append(msgs, anthropic.NewUserMessage(block))
		}
	}
	params := anthropic.MessageNewParams{
		Model:       s.model,
		MaxTokens:   int64(req.MaxTokens),
		System:      []anthropic.TextBlockParam{{Text: req.System}},
		Messages:    msgs,
		Temperature: anthropic.Float(req.Temperature),
	}

	st := s.client.Messages.NewStreaming(ctx, params)
	defer st.Close()
	var r reply
	var text []byte
	for st.Next() {
		ev := st.Current()
		switch ev.Type {
		case "message_start":
			u := ev.Message.Usage
			r.InputTokens = int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
			r.OutputTokens = int(u.OutputTokens)
			r.UsageReported = true
		case "message_delta":
			// Counts here are cumulative totals for the whole message.
			r.OutputTokens = int(ev.Usage.OutputTokens)
			if ev.Usage.JSON.InputTokens.Valid() && ev.Usage.InputTokens > 0 {
				r.InputTokens = int(ev.Usage.InputTokens + ev.Usage.CacheCreationInputTokens + ev.Usage.CacheReadInputTokens)
			}
			r.UsageReported = true
		case "content_block_delta":
			// thinking_delta and signature_delta are reasoning: never read.
			if ev.Delta.Type == "text_delta" && ev.Delta.Text != "" {
				text = append(text, ev.Delta.Text...)
				onText(ev.Delta.Text)
			}
		}
		if req.MaxBytes > 0 && len(text) > req.MaxBytes {
			r.Truncated = true
			break
		}
	}
	r.Text = string(text)
	if err := st.Err(); err != nil {
		return r, classifyAnthropic(err)
	}
	return r, nil
}

// classifyAnthropic turns an SDK error into an apiError. An error event in
// the stream (overloaded_error, api_error) carries no HTTP status but is
// transient all the same.
func classifyAnthropic(err error) error {
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		retryable := retryableStatus(apiErr.StatusCode)
		if apiErr.StatusCode == 0 {
			switch apiErr.Type() {
			case "overloaded_error", "api_error", "rate_limit_error", "timeout_error":
				retryable = true
			}
		}
		return &apiError{
			Status:     apiErr.StatusCode,
			RetryAfter: retryAfter(apiErr.Response, time.Now()),
			Retryable:  retryable,
			Err:        err,
		}
	}
	return classifyTransport(err)
}
