package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// apiClient calls Quarry's JSON API in process, through the same router,
// middleware and handlers a program reaching /api/ over HTTP gets, as the
// MCP session's caller (their API token, address and host). So a tool
// that starts a run goes through the API's admission, rights, rate limits
// and validation, and tells the model the very message the API would.
type apiClient struct {
	api http.Handler
	// header, remoteAddr and host are the caller's, copied from the HTTP
	// request that opened the MCP session (none over stdio).
	header     http.Header
	remoteAddr string
	host       string
}

// APIError is an answer of the JSON API other than a success: its status
// and its message ({"error": …, "field": …}).
type APIError struct {
	Status  int
	Message string
	Field   string
}

func (e *APIError) Error() string { return e.Message }

// callerHeaders are the request headers an in-process API call keeps from
// the request that opened the session: who is calling and from where, not
// how the MCP transport talks.
func callerHeaders(h http.Header) http.Header {
	out := http.Header{}
	for k, v := range h {
		switch {
		case strings.HasPrefix(k, "Content-"), strings.HasPrefix(k, "Accept"), strings.HasPrefix(k, "Mcp-"),
			k == "Last-Event-Id", k == "Connection", k == "Upgrade":
			continue
		}
		out[k] = v
	}
	return out
}

// do calls method path with body (JSON, nil for none) and decodes a 2xx
// answer into out (nil to ignore it); any other answer is an *APIError.
func (c *apiClient) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	// The call is a request of its own: it keeps the tool call's
	// cancellation but none of the values of the MCP request it came from
	// (the router's state, its request id, its user).
	own, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	req, err := http.NewRequestWithContext(own, method, "http://"+c.host+path, rd)
	if err != nil {
		return fmt.Errorf("call %s %s: %w", method, path, err)
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	req.Host = c.host
	req.RemoteAddr = c.remoteAddr
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	rec := newRecorder()
	c.api.ServeHTTP(rec, req)
	if rec.status < 200 || rec.status > 299 {
		var e struct {
			Error string `json:"error"`
			Field string `json:"field"`
		}
		if json.Unmarshal(rec.body.Bytes(), &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(rec.body.String())
		}
		return &APIError{Status: rec.status, Message: e.Error, Field: e.Field}
	}
	if out == nil {
		return nil
	}
	if s, ok := out.(*string); ok {
		*s = rec.body.String()
		return nil
	}
	if err := json.Unmarshal(rec.body.Bytes(), out); err != nil {
		return fmt.Errorf("read the answer of %s %s: %w", method, path, err)
	}
	return nil
}

// recorder is the in-process response of an API call. The API's JSON
// answers are small and whole, so buffering them is all it needs.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder { return &recorder{header: http.Header{}} }

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}
