// Package mcpserver is Quarry as a Model Context Protocol server: tools to
// research a question (waiting with progress notifications, or start and
// poll), search the document library and list past runs, and published
// reports as resources. It is served over Streamable HTTP at /mcp by
// `quarry serve` and over stdio by `quarry mcp`. Every tool is a client
// of the JSON API, called in process as the session's caller, so rights,
// limits and error messages are the API's own.
package mcpserver

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/handlers"
)

// Options configure the MCP server.
type Options struct {
	// Store is where run events are read from (with its broker, live).
	Store *db.Store
	// BaseURL is the public URL (QUARRY_BASE_URL) that run links are
	// made absolute with; "" leaves them as paths.
	BaseURL string
	// Version is reported to clients.
	Version string
	// DefaultWait is how long the research tool waits for a run before
	// answering that it is still going (default 10 minutes).
	DefaultWait time.Duration
	Logger      *slog.Logger
}

// DefaultWait is Options.DefaultWait's default.
const DefaultWait = 10 * time.Minute

// sessionTimeout closes MCP sessions idle this long.
const sessionTimeout = time.Hour

// Server builds an MCP server for each session, bound to its caller.
type Server struct {
	opt Options
	log *slog.Logger
}

// New returns the MCP server.
func New(opt Options) *Server {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.DefaultWait <= 0 {
		opt.DefaultWait = DefaultWait
	}
	if opt.Version == "" {
		opt.Version = "dev"
	}
	return &Server{opt: opt, log: opt.Logger}
}

// HTTPHandler serves MCP over Streamable HTTP behind the handlers'
// middleware (it is handlers.Options.MCP): each session gets a server
// acting as the caller whose request opened it. A session opened with an
// API token is pinned to that token, so no other credential can use it.
// The SDK's own localhost rebinding check is off because the handlers'
// Host check already applies to /mcp, with the configured host names.
func (s *Server) HTTPHandler(api *handlers.Server) http.Handler {
	stream := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		return s.session(&apiClient{api: api, header: callerHeaders(r.Header), remoteAddr: r.RemoteAddr, host: r.Host})
	}, &mcp.StreamableHTTPOptions{Logger: s.log, SessionTimeout: sessionTimeout, DisableLocalhostProtection: true})
	pinned := mcpauth.RequireBearerToken(func(ctx context.Context, _ string, r *http.Request) (*mcpauth.TokenInfo, error) {
		t, _ := handlers.TokenFrom(r.Context())
		return &mcpauth.TokenInfo{UserID: "token:" + strconv.FormatInt(t.ID, 10)}, nil
	}, &mcpauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(stream)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := handlers.TokenFrom(r.Context()); ok {
			pinned.ServeHTTP(w, r)
			return
		}
		if handlers.UserFrom(r.Context()) != "" {
			// A browser's session (or a proxy's header) is not how programs
			// sign in here: an MCP session must belong to one token.
			w.Header().Set("WWW-Authenticate", "Bearer")
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"The MCP endpoint takes an API token: Authorization: Bearer <token> (create one on the settings page)."}`+"\n")
			return
		}
		stream.ServeHTTP(w, r) // QUARRY_AUTH=none
	})
}

// Local returns a server acting with no credentials on api (which must
// then be served with QUARRY_AUTH=none semantics), for `quarry mcp` over
// stdio in the process that runs the research.
func (s *Server) Local(api http.Handler) *mcp.Server {
	return s.session(&apiClient{api: api, header: http.Header{}, remoteAddr: "127.0.0.1:0", host: "localhost"})
}

// session builds the MCP server of one session.
func (s *Server) session(api *apiClient) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "quarry", Title: "Quarry deep research", Version: s.opt.Version},
		&mcp.ServerOptions{
			Instructions: instructions,
			Logger:       s.log,
			Capabilities: &mcp.ServerCapabilities{},
		})
	t := &tools{srv: s, api: api}
	t.register(srv)
	return srv
}

// instructions tell a client's model what the server is for.
const instructions = `Quarry researches questions on the web (and in the user's own document library) and writes a report in which every factual sentence cites its source as [S1], [S2]…, with the citations verified against the fetched text. Use "research" to get a report (it waits, sending progress); "start_research" and "get_research" to start a run and poll it; "search_library" for passages of the user's documents; "list_reports" for earlier runs. Published reports are also resources: quarry://runs/{id}/report.md and .json.`
