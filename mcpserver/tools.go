package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/research"
)

// tools are one session's tools, calling the API as its caller.
type tools struct {
	srv *Server
	api *apiClient
}

// ResearchArgs are the arguments of research and start_research.
type ResearchArgs struct {
	Question string   `json:"question" jsonschema:"the question to research, in full (what to find out, about what, with any constraints)"`
	Depth    string   `json:"depth,omitempty" jsonschema:"how thorough: quick (about 30 s, a few pages), standard (about a minute) or deep (a few minutes, more sources); default: the server's"`
	Engines  []string `json:"engines,omitempty" jsonschema:"where to look (default: the server's web search engines): a search engine name such as duckduckgo, bing, wikipedia; kb for all of the user's documents; kb:<collection> for one collection; site:<URL> to use that site's own search box; url:<results-page URL with {query}>"`
	// WaitSeconds bounds how long research waits (research only).
	WaitSeconds int `json:"wait_seconds,omitempty" jsonschema:"research only: how long to wait for the report (default 600, at most 3600); a run still going then keeps going and get_research fetches it later"`
}

// GetArgs name a run.
type GetArgs struct {
	RunID string `json:"run_id" jsonschema:"the run's id, as returned by start_research, research or list_reports"`
}

// SearchArgs are the arguments of search_library.
type SearchArgs struct {
	Query      string `json:"query" jsonschema:"what to look for in the user's documents"`
	Collection string `json:"collection,omitempty" jsonschema:"only this collection (default: every collection the user may read)"`
	Limit      int    `json:"limit,omitempty" jsonschema:"how many passages (1 to 100, default 10)"`
}

// ListArgs are the arguments of list_reports.
type ListArgs struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"how many runs (1 to 100, default 20)"`
	Status string `json:"status,omitempty" jsonschema:"only runs in this status: queued, planning, awaiting_approval, gathering, synthesizing, verifying, done, failed or cancelled"`
	Query  string `json:"query,omitempty" jsonschema:"only runs whose question or report matches these words"`
}

// Source is a source a report cites.
type Source struct {
	ID    string `json:"id" jsonschema:"the label the report cites it by: S1, S2, …"`
	URL   string `json:"url"`
	Title string `json:"title"`
}

// Progress is how far a run has got.
type Progress struct {
	Stage        string `json:"stage" jsonschema:"the run's status"`
	ActionsDone  int    `json:"actions_done"`
	ActionsTotal int    `json:"actions_total"`
	Sources      int    `json:"sources"`
}

// RunResult is what research and get_research return.
type RunResult struct {
	RunID  string `json:"run_id"`
	Status string `json:"status" jsonschema:"done when the report is ready; failed or cancelled when it ended without one; any other status: still running"`
	URL    string `json:"url" jsonschema:"the run's page"`
	// Message says what to do next when there is no report.
	Message        string         `json:"message,omitempty"`
	Error          string         `json:"error,omitempty"`
	ReportMarkdown string         `json:"report_markdown,omitempty" jsonschema:"the report: Markdown whose factual sentences cite sources as [S1], [S2]…"`
	Sources        []Source       `json:"sources,omitempty"`
	Verification   map[string]any `json:"verification,omitempty" jsonschema:"the citation checks: validity, coverage, support, grounding, criteria coverage (shares from 0 to 1) and whether each passed"`
	ShareURL       string         `json:"share_url,omitempty"`
	Progress       *Progress      `json:"progress,omitempty"`
}

// StartResult is what start_research returns.
type StartResult struct {
	RunID  string `json:"run_id"`
	URL    string `json:"url" jsonschema:"the run's page"`
	Status string `json:"status"`
}

// SearchResult is what search_library returns.
type SearchResult struct {
	Passages []handlers.PassageJSON `json:"passages"`
}

// ListResult is what list_reports returns.
type ListResult struct {
	Runs []handlers.RunSummaryJSON `json:"runs"`
}

// register adds the tools and resources to srv.
func (t *tools) register(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "research",
		Title: "Research a question",
		Description: "Research a question on the web (or in the user's documents) and return a report whose factual sentences cite their sources as [S1], [S2]…, " +
			"with the sources and the citation verification scores. Takes from about 30 seconds (quick) to a few minutes (deep) and sends progress notifications " +
			"as stages and page visits complete. Cancelling the call cancels the run. If the run outlasts wait_seconds it keeps going: fetch it later with get_research.",
		InputSchema: researchSchema(true),
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)},
	}, t.research)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "start_research",
		Title: "Start researching a question",
		Description: "Start researching a question and return at once with the run's id and URL, for clients that poll: " +
			"call get_research with the id to see its progress and, when its status is done, the report. Same question, depth and engines as research.",
		InputSchema: researchSchema(false),
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)},
	}, t.startResearch)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "get_research",
		Title: "Get a research run",
		Description: "Get a research run by id: its status and progress, and when it is done the report (Markdown citing [S1], [S2]…), " +
			"its sources and verification scores.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, t.getResearch)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "search_library",
		Title: "Search the user's documents",
		Description: "Search the documents the user uploaded to Quarry's library and return the best matching passages, " +
			"each with its document, collection, page and relevance score.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, t.searchLibrary)
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "list_reports",
		Title:       "List research runs",
		Description: "List the user's recent research runs, newest first: id, question, status, date, and the share URL when the report is published with a link.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, t.listReports)
	t.registerResources(srv)
}

func ptr[T any](v T) *T { return &v }

// researchSchema is ResearchArgs' schema (without wait_seconds for
// start_research). Depth's choices are in its description rather than an
// enum: the API checks them and says what is accepted, in the same words
// a program calling the API gets.
func researchSchema(wait bool) *jsonschema.Schema {
	s, err := jsonschema.For[ResearchArgs](nil)
	if err != nil {
		panic(err) // a fixed type: fails the first test if ever
	}
	if !wait {
		delete(s.Properties, "wait_seconds")
	}
	return s
}

// create starts a run through POST /api/runs, as the caller.
func (t *tools) create(ctx context.Context, in ResearchArgs) (handlers.CreateRunResponse, error) {
	var out handlers.CreateRunResponse
	err := t.api.do(ctx, http.MethodPost, "/api/runs", handlers.CreateRunRequest{
		Question: in.Question, Depth: in.Depth, Engines: in.Engines, Review: research.ReviewNever}, &out)
	return out, err
}

func (t *tools) startResearch(ctx context.Context, _ *mcp.CallToolRequest, in ResearchArgs) (*mcp.CallToolResult, StartResult, error) {
	if in.WaitSeconds != 0 {
		return nil, StartResult{}, fmt.Errorf("wait_seconds: start_research does not wait; use research to wait for the report")
	}
	created, err := t.create(ctx, in)
	if err != nil {
		return nil, StartResult{}, err
	}
	out := StartResult{RunID: created.ID, URL: t.link(created.URL), Status: string(research.StatusQueued)}
	return text(fmt.Sprintf("Started run %s (%s). Call get_research with run_id %q to follow it.", out.RunID, out.URL, out.RunID)), out, nil
}

func (t *tools) getResearch(ctx context.Context, _ *mcp.CallToolRequest, in GetArgs) (*mcp.CallToolResult, RunResult, error) {
	if strings.TrimSpace(in.RunID) == "" {
		return nil, RunResult{}, fmt.Errorf("run_id: say which run")
	}
	out, err := t.result(ctx, in.RunID)
	if err != nil {
		return nil, RunResult{}, err
	}
	return resultContent(out), out, nil
}

// result reads a run through GET /api/runs/{id} as a RunResult.
func (t *tools) result(ctx context.Context, id string) (RunResult, error) {
	var run handlers.RunResponse
	if err := t.api.do(ctx, http.MethodGet, "/api/runs/"+url.PathEscape(id), nil, &run); err != nil {
		return RunResult{}, err
	}
	out := RunResult{RunID: run.ID, Status: string(run.Status), URL: t.link("/runs/" + run.ID), Error: run.Error, ShareURL: run.ShareURL}
	p := &Progress{Stage: string(run.Status), ActionsTotal: len(run.Actions), Sources: len(run.Sources)}
	for _, a := range run.Actions {
		if a.Status.Finished() {
			p.ActionsDone++
		}
	}
	out.Progress = p
	if run.Report != nil {
		out.ReportMarkdown = run.Report.Markdown
		json.Unmarshal(run.Report.Verification, &out.Verification)
		cited := map[string]bool{}
		for _, id := range research.Citations(run.Report.Markdown) {
			cited[id] = true
		}
		for _, s := range run.Sources {
			if cited[s.ID] {
				out.Sources = append(out.Sources, Source{ID: s.ID, URL: s.URL, Title: s.Title})
			}
		}
	}
	switch {
	case run.Status == research.StatusAwaitingApproval:
		out.Message = "The run is waiting for approval on its page: " + out.URL
	case !run.Status.Terminal():
		out.Message = "The run is still going; call get_research again in a little while."
	case run.Status != research.StatusDone:
		out.Message = "The run ended without a report: " + string(run.Status)
	}
	return out, nil
}

// resultContent is a RunResult as text for the model: the report with its
// scores, or where the run stands.
func resultContent(r RunResult) *mcp.CallToolResult {
	var b strings.Builder
	if r.ReportMarkdown != "" {
		b.WriteString(r.ReportMarkdown)
		b.WriteString("\n\n---\n")
		if len(r.Verification) > 0 {
			v, _ := json.Marshal(r.Verification)
			fmt.Fprintf(&b, "Verification: %s\n", v)
		}
	}
	fmt.Fprintf(&b, "Run %s: %s (%s)", r.RunID, r.Status, r.URL)
	if r.Error != "" {
		fmt.Fprintf(&b, "; %s", r.Error)
	}
	if r.Message != "" {
		fmt.Fprintf(&b, "\n%s", r.Message)
	}
	return text(b.String())
}

func (t *tools) searchLibrary(ctx context.Context, _ *mcp.CallToolRequest, in SearchArgs) (*mcp.CallToolResult, SearchResult, error) {
	q := url.Values{"q": {in.Query}}
	if in.Collection != "" {
		q.Set("collection", in.Collection)
	}
	if in.Limit != 0 {
		q.Set("limit", fmt.Sprint(in.Limit))
	}
	var out SearchResult
	if err := t.api.do(ctx, http.MethodGet, "/api/library/search?"+q.Encode(), nil, &out); err != nil {
		return nil, SearchResult{}, err
	}
	var b strings.Builder
	if len(out.Passages) == 0 {
		b.WriteString("No passage of the library matches.")
	}
	for i, p := range out.Passages {
		fmt.Fprintf(&b, "%d. %s", i+1, p.Document)
		if p.Page > 0 {
			fmt.Fprintf(&b, ", page %d", p.Page)
		}
		fmt.Fprintf(&b, " (%s, score %.3f)\n%s\n\n", p.Collection, p.Score, p.Text)
	}
	return text(strings.TrimSpace(b.String())), out, nil
}

func (t *tools) listReports(ctx context.Context, _ *mcp.CallToolRequest, in ListArgs) (*mcp.CallToolResult, ListResult, error) {
	q := url.Values{}
	if in.Limit != 0 {
		q.Set("limit", fmt.Sprint(in.Limit))
	}
	if in.Status != "" {
		q.Set("status", in.Status)
	}
	if in.Query != "" {
		q.Set("q", in.Query)
	}
	var out ListResult
	if err := t.api.do(ctx, http.MethodGet, "/api/runs?"+q.Encode(), nil, &out); err != nil {
		return nil, ListResult{}, err
	}
	var b strings.Builder
	if len(out.Runs) == 0 {
		b.WriteString("No runs yet.")
	}
	for i := range out.Runs {
		r := &out.Runs[i]
		r.URL = t.link(r.URL)
		fmt.Fprintf(&b, "- %s [%s, %s] %s", r.ID, r.Status, r.CreatedAt.UTC().Format("2006-01-02 15:04"), r.Question)
		if r.ShareURL != "" {
			fmt.Fprintf(&b, " (shared: %s)", r.ShareURL)
		}
		b.WriteString("\n")
	}
	return text(strings.TrimSpace(b.String())), out, nil
}

// link makes a path absolute under the public URL when one is configured.
func (t *tools) link(path string) string {
	if t.srv.opt.BaseURL == "" || strings.Contains(path, "://") {
		return path
	}
	base := strings.TrimRight(t.srv.opt.BaseURL, "/")
	if u, err := url.Parse(base); err == nil && u.Path != "" && strings.HasPrefix(path, u.Path+"/") {
		path = strings.TrimPrefix(path, u.Path)
	}
	return base + path
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
