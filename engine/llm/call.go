package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"syscall"
	"time"
)

// Backoff between retries: baseBackoff doubled per attempt, at most
// maxBackoff, plus up to a quarter of jitter. A server asking for more than
// maxRetryAfter (a spent quota, not a burst) fails the call instead.
const (
	baseBackoff   = time.Second
	maxBackoff    = 30 * time.Second
	maxRetryAfter = 60 * time.Second
)

// complete runs one call with retries. Raw text deltas go to sink (nil for
// stages whose answer is not shown). A failed attempt is retried on a
// retryable error only while nothing has been shown, so a retry never
// repeats streamed text.
func (e *Engine) complete(ctx context.Context, stage string, req request, sink *textSink) (reply, error) {
	if req.MaxBytes == 0 {
		req.MaxBytes = req.MaxTokens*16 + 64<<10
	}
	for attempt := 0; ; attempt++ {
		if sink != nil {
			sink.reset()
		}
		start := time.Now()
		actx, cancel := context.WithTimeout(ctx, e.callTimeout)
		r, err := e.client.stream(actx, req, sink.write)
		cancel()
		if err == nil {
			sink.close()
			if !r.UsageReported {
				r.InputTokens = estimateTokens(req.System) + messagesTokens(req.Messages)
				r.OutputTokens = estimateTokens(r.Text)
			}
			e.log.DebugContext(ctx, "llm call", "stage", stage, "attempt", attempt+1,
				"input_tokens", r.InputTokens, "output_tokens", r.OutputTokens,
				"usage_reported", r.UsageReported, "truncated", r.Truncated,
				"usd", e.EstimateCost(r.InputTokens, r.OutputTokens),
				"ms", time.Since(start).Milliseconds())
			return r, nil
		}
		if ctx.Err() != nil {
			return r, fmt.Errorf("%s: %s call: %w", e.provider, stage, ctx.Err())
		}
		delay, retry := e.retryDelay(err, attempt)
		if !retry || attempt >= e.maxRetries || (sink != nil && sink.emitted) {
			return r, fmt.Errorf("%s: %s call (attempt %d): %w", e.provider, stage, attempt+1, err)
		}
		e.log.WarnContext(ctx, "llm call failed, retrying", "stage", stage, "attempt", attempt+1,
			"delay", delay, "err", err)
		if err := e.wait(ctx, delay); err != nil {
			return r, fmt.Errorf("%s: %s call: %w", e.provider, stage, err)
		}
	}
}

// retryDelay says whether err is worth retrying and after how long: the
// server's Retry-After when given, else exponential backoff.
func (e *Engine) retryDelay(err error, attempt int) (time.Duration, bool) {
	var ae *apiError
	if !errors.As(err, &ae) || !ae.Retryable {
		return 0, false
	}
	if ae.RetryAfter > 0 {
		if ae.RetryAfter > maxRetryAfter {
			return 0, false
		}
		return ae.RetryAfter, true
	}
	d := min(baseBackoff<<attempt, maxBackoff)
	return d + rand.N(d/4+1), true
}

// wait sleeps d, through the injected Sleep when there is one.
func (e *Engine) wait(ctx context.Context, d time.Duration) error {
	if e.sleep != nil {
		e.sleep(d)
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// classifyTransport marks connection failures (refused, reset, cut short)
// as retryable; anything else, including a timed-out attempt, is not.
func classifyTransport(err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	var opErr *net.OpError
	retryable := errors.As(err, &opErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE)
	return &apiError{Retryable: retryable, Err: err}
}
