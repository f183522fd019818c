package handlers

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
	"github.com/quarryhq/quarry/web"
)

// historyPageSize is how many runs one history page lists.
const historyPageSize = 25

// historyPage is GET /runs: past runs, newest first, searchable over the
// question and report text and filterable by status.
func (s *Server) historyPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := web.HistoryFilter{Query: strings.TrimSpace(q.Get("q")), Status: q.Get("status"), Page: 1}
	f.Query = text.Clip(f.Query, 200)
	if !slices.Contains(web.HistoryStatuses, research.RunStatus(f.Status)) {
		f.Status = ""
	}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 1 && n < 10000 {
		f.Page = n
	}
	runs, err := s.store.ListRuns(r.Context(), s.listFilter(r, db.RunFilter{Query: f.Query, Status: research.RunStatus(f.Status),
		Limit: historyPageSize + 1, Offset: (f.Page - 1) * historyPageSize}))
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	if len(runs) > historyPageSize {
		f.More = true
		runs = runs[:historyPageSize]
	}
	if f.Total, err = s.store.CountRuns(r.Context(), s.listFilter(r, db.RunFilter{Query: f.Query, Status: research.RunStatus(f.Status)})); err != nil {
		s.serverError(w, r, err)
		return
	}
	f.Pages = (f.Total + historyPageSize - 1) / historyPageSize
	list := summaries(runs)
	if f.Query != "" {
		ids := make([]string, len(runs))
		for i, run := range runs {
			ids[i] = run.ID
		}
		snippets, err := s.store.ReportSnippets(r.Context(), ids, f.Query)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		for i := range list {
			list[i].Snippet = snippetParts(snippets[list[i].ID])
		}
	}
	p := s.page(r, "History")
	s.render(w, r, http.StatusOK, web.HistoryPage(p, f, list), web.HistoryBody(p, f, list))
}

// snippetNoise is Markdown a snippet need not show: heading marks and
// emphasis (citation markers go after, with research.StripCitations).
var snippetNoise = regexp.MustCompile(`(?m)^#+\s*|\*+|\s+`)

// snippetParts splits a search snippet at its match delimiters.
func snippetParts(s string) []web.SnippetPart {
	if s == "" {
		return nil
	}
	s = research.StripCitations(snippetNoise.ReplaceAllStringFunc(s, func(m string) string {
		if strings.TrimSpace(m) == "" {
			return " "
		}
		return ""
	}))
	var out []web.SnippetPart
	for s != "" {
		i := strings.Index(s, db.SnippetStart)
		if i < 0 {
			out = append(out, web.SnippetPart{Text: s})
			break
		}
		if i > 0 {
			out = append(out, web.SnippetPart{Text: s[:i]})
		}
		s = s[i+len(db.SnippetStart):]
		j := strings.Index(s, db.SnippetStop)
		if j < 0 {
			out = append(out, web.SnippetPart{Text: s, Match: true})
			break
		}
		out = append(out, web.SnippetPart{Text: s[:j], Match: true})
		s = s[j+len(db.SnippetStop):]
	}
	return out
}
