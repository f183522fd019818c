package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Published reports are resources: quarry://runs/{id}/report.md (the
// Markdown) and quarry://runs/{id}/report.json (the report as data), read
// through the API's export routes. The list is the caller's finished runs.
const (
	reportScheme = "quarry://runs/"
	mdSuffix     = "/report.md"
	jsonSuffix   = "/report.json"
	// listedReports bounds resources/list (the newest first).
	listedReports = 100
)

// registerResources adds the report templates and answers resources/list
// with the caller's published reports.
func (t *tools) registerResources(srv *mcp.Server) {
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		Name: "report-markdown", Title: "Research report (Markdown)", MIMEType: "text/markdown",
		URITemplate: reportScheme + "{id}" + mdSuffix,
		Description: "A published research report as Markdown: factual sentences cite [S1], [S2]…, the sources are listed at the end.",
	}, t.readReport)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		Name: "report-json", Title: "Research report (JSON)", MIMEType: "application/json",
		URITemplate: reportScheme + "{id}" + jsonSuffix,
		Description: "A published research report as JSON: the Markdown, sources, citations with their supporting passages, verification scores.",
	}, t.readReport)
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "resources/list" {
				return next(ctx, method, req)
			}
			return t.listResources(ctx)
		}
	})
}

// listResources lists the caller's finished runs' reports, two per run.
func (t *tools) listResources(ctx context.Context) (*mcp.ListResourcesResult, error) {
	var list ListResult
	if err := t.api.do(ctx, http.MethodGet, fmt.Sprintf("/api/runs?status=done&limit=%d", listedReports), nil, &list); err != nil {
		return nil, err
	}
	out := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	for _, r := range list.Runs {
		out.Resources = append(out.Resources,
			&mcp.Resource{URI: reportScheme + r.ID + mdSuffix, Name: r.ID + mdSuffix, Title: r.Question, MIMEType: "text/markdown"},
			&mcp.Resource{URI: reportScheme + r.ID + jsonSuffix, Name: r.ID + jsonSuffix, Title: r.Question + " (JSON)", MIMEType: "application/json"})
	}
	return out, nil
}

// readReport reads one report resource through the API.
func (t *tools) readReport(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	rest, ok := strings.CutPrefix(uri, reportScheme)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	id, suffix, mime := "", "", ""
	switch {
	case strings.HasSuffix(rest, mdSuffix):
		id, suffix, mime = strings.TrimSuffix(rest, mdSuffix), mdSuffix, "text/markdown"
	case strings.HasSuffix(rest, jsonSuffix):
		id, suffix, mime = strings.TrimSuffix(rest, jsonSuffix), jsonSuffix, "application/json"
	}
	if id == "" || strings.Contains(id, "/") {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var body string
	err := t.api.do(ctx, http.MethodGet, "/api/runs/"+url.PathEscape(id)+suffix, nil, &body)
	var apiErr *APIError
	if errors.As(err, &apiErr) && (apiErr.Status == http.StatusNotFound || apiErr.Status == http.StatusConflict) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: body}}}, nil
}
