package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Forward connects to the MCP endpoint of a Quarry server (endpoint is the
// server's URL, with or without /mcp) with an API token and returns a
// server offering the same tools and resources, each call forwarded:
// `quarry mcp --url URL --token T`, for assistants that start a command
// but should use a shared server. Progress notifications and cancellation
// pass through. close ends the remote session.
func Forward(ctx context.Context, endpoint, token, version string, logger *slog.Logger) (srv *mcp.Server, close func() error, err error) {
	if logger == nil {
		logger = slog.Default()
	}
	u, err := url.Parse(strings.TrimRight(endpoint, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, fmt.Errorf("--url: %q is not an http(s) URL of a Quarry server", endpoint)
	}
	if !strings.HasSuffix(u.Path, "/mcp") {
		u.Path += "/mcp"
	}
	fw := &forwarder{calls: map[string]*mcp.CallToolRequest{}, log: logger}
	client := mcp.NewClient(&mcp.Implementation{Name: "quarry-mcp-forward", Version: version},
		&mcp.ClientOptions{ProgressNotificationHandler: fw.progress, Capabilities: &mcp.ClientCapabilities{}})
	httpClient := &http.Client{Transport: bearerTransport{token: token, next: http.DefaultTransport}}
	remote, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: u.String(), HTTPClient: httpClient}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %w", u, err)
	}
	fw.remote = remote
	init := remote.InitializeResult()
	srv = mcp.NewServer(&mcp.Implementation{Name: "quarry", Title: "Quarry deep research (via " + u.Host + ")", Version: version},
		&mcp.ServerOptions{Instructions: init.Instructions, Logger: logger, Capabilities: &mcp.ServerCapabilities{}})
	for tool, err := range remote.Tools(ctx, nil) {
		if err != nil {
			remote.Close()
			return nil, nil, fmt.Errorf("list the tools of %s: %w", u, err)
		}
		srv.AddTool(tool, fw.callTool)
	}
	for tmpl, err := range remote.ResourceTemplates(ctx, nil) {
		if err != nil {
			remote.Close()
			return nil, nil, fmt.Errorf("list the resource templates of %s: %w", u, err)
		}
		srv.AddResourceTemplate(tmpl, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return remote.ReadResource(ctx, &mcp.ReadResourceParams{URI: req.Params.URI})
		})
	}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "resources/list" {
				// Only the request itself is passed on: its _meta is about
				// the local session's protocol, not the remote one's.
				var cursor string
				if p, ok := req.GetParams().(*mcp.ListResourcesParams); ok && p != nil {
					cursor = p.Cursor
				}
				return remote.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			}
			return next(ctx, method, req)
		}
	})
	return srv, remote.Close, nil
}

// forwarder relays tool calls to the remote session, and the remote's
// progress notifications back to the local call they belong to.
type forwarder struct {
	remote *mcp.ClientSession
	log    *slog.Logger
	next   atomic.Int64
	mu     sync.Mutex
	calls  map[string]*mcp.CallToolRequest // by the progress token sent to the remote
	// lastProgress is when a progress notification was last relayed (unix
	// nanoseconds), so a call's result can wait for the notifications
	// still in flight behind it.
	lastProgress atomic.Int64
}

// progressSettle is how long a forwarded call's result waits for quiet
// after the remote's last progress notification: the SDK's client hands
// notifications to their handler concurrently with the response, so the
// remote's final "Report ready" can arrive just after its result.
const progressSettle = 150 * time.Millisecond

func (f *forwarder) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	params := &mcp.CallToolParams{Name: req.Params.Name, Arguments: json.RawMessage(req.Params.Arguments)}
	if len(req.Params.Arguments) == 0 {
		params.Arguments = map[string]any{}
	}
	if req.Params.GetProgressToken() != nil {
		token := "fwd-" + strconv.FormatInt(f.next.Add(1), 10)
		params.SetProgressToken(token)
		f.mu.Lock()
		f.calls[token] = req
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			delete(f.calls, token)
			f.mu.Unlock()
		}()
	}
	// Cancelling ctx makes the client send notifications/cancelled, so a
	// cancelled call cancels the run on the server.
	res, err := f.remote.CallTool(ctx, params)
	if req.Params.GetProgressToken() != nil {
		// Relay what is still in flight before answering: wait for
		// progressSettle of quiet after the result and after the last
		// notification, at most 1 s.
		answered := time.Now()
		quiet := func() time.Duration {
			last := time.Unix(0, f.lastProgress.Load())
			if last.Before(answered) {
				last = answered
			}
			return time.Since(last)
		}
		for deadline := answered.Add(time.Second); time.Now().Before(deadline) && quiet() < progressSettle; {
			time.Sleep(25 * time.Millisecond)
		}
	}
	return res, err
}

func (f *forwarder) progress(ctx context.Context, n *mcp.ProgressNotificationClientRequest) {
	token, _ := n.Params.ProgressToken.(string)
	f.mu.Lock()
	req := f.calls[token]
	f.mu.Unlock()
	if req == nil {
		return
	}
	f.lastProgress.Store(time.Now().UnixNano())
	p := *n.Params
	p.ProgressToken = req.Params.GetProgressToken()
	if err := req.Session.NotifyProgress(ctx, &p); err != nil {
		f.log.Debug("forward progress", "err", err)
	}
}

// bearerTransport adds the API token to every request.
type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (t bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.next.RoundTrip(r)
}
