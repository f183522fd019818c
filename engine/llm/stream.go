package llm

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// message is one turn of the conversation sent with a call.
type message struct {
	Role    string // roleUser or roleAssistant
	Content string
}

const (
	roleUser      = "user"
	roleAssistant = "assistant"
)

// request is one model call, independent of the provider.
type request struct {
	System      string
	Messages    []message
	MaxTokens   int
	Temperature float64
	// MaxBytes stops reading a stream that produces more text than this,
	// so a misbehaving server cannot exhaust memory.
	MaxBytes int
}

// reply is what one streamed call returned.
type reply struct {
	Text          string // raw text, reasoning included
	InputTokens   int
	OutputTokens  int
	UsageReported bool // the API reported usage (else it is estimated)
	Truncated     bool // the stream was cut at MaxBytes
}

// streamer sends a request to one provider and streams the answer, calling
// onText with each raw text delta as it arrives.
type streamer interface {
	stream(ctx context.Context, req request, onText func(string)) (reply, error)
}

// apiError is a failed call as the retry loop needs to see it: the HTTP
// status (0 when the request never got an answer) and the server's
// Retry-After, if any.
type apiError struct {
	Status     int
	RetryAfter time.Duration // 0 when the server gave none
	Retryable  bool
	Err        error
}

func (e *apiError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("HTTP %d: %v", e.Status, e.Err)
	}
	return e.Err.Error()
}

func (e *apiError) Unwrap() error { return e.Err }

// retryableStatus reports whether an HTTP status is worth retrying: request
// timeout, conflict (lock timeouts), rate limit, server errors and
// Anthropic's 529 overloaded.
func retryableStatus(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// retryAfter reads the server's requested delay from a response: the
// Retry-After-Ms header (OpenAI), else Retry-After in seconds or as an HTTP
// date. It returns 0 when there is none or it cannot be read.
func retryAfter(resp *http.Response, now time.Time) time.Duration {
	if resp == nil {
		return 0
	}
	if v := strings.TrimSpace(resp.Header.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e9 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < 1e6 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
