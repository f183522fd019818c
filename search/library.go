package search

import (
	"context"
	"fmt"
	"strings"

	"github.com/quarryhq/quarry/extract"
)

// LibraryEngine names the document library as a search engine: "kb"
// searches every collection the run's owner may read, "kb:<collection>"
// one collection.
const LibraryEngine = "kb"

// LibraryCollection reports whether name is a library engine and which
// collection it names ("" for all).
func LibraryCollection(name string) (collection string, ok bool) {
	name = strings.TrimSpace(name)
	if strings.EqualFold(name, LibraryEngine) {
		return "", true
	}
	if len(name) > len(LibraryEngine)+1 && strings.EqualFold(name[:len(LibraryEngine)+1], LibraryEngine+":") {
		return name[len(LibraryEngine)+1:], true
	}
	return "", false
}

// Library answers the library engines: the best passages of the documents
// reader may read, each as a page of evidence (its text the passage, its
// URL opening the document at the passage's page).
type Library interface {
	SearchLibrary(ctx context.Context, reader, collection, query string, n int) ([]extract.Page, error)
}

// WithLibrary makes g answer the engines kb and kb:<collection> from lib.
func (g *Gatherer) WithLibrary(lib Library) *Gatherer {
	g.library = lib
	return g
}

// webEngines is the list without the library engines (the web searcher's
// part of an action's fallback order).
func webEngines(list []string) []string {
	var out []string
	for _, e := range list {
		if _, ok := LibraryCollection(e); !ok {
			out = append(out, e)
		}
	}
	return out
}

// searchLibrary runs a search action on the library: its passages are the
// results and the pages at once (there is nothing further to visit).
func (g *Gatherer) searchLibrary(ctx context.Context, a Action, engineName, collection string) (Outcome, error) {
	out := Outcome{Engine: engineName}
	if g.library == nil {
		return out, fmt.Errorf("search %s: no document library is configured", engineName)
	}
	n := a.Pages
	if n <= 0 {
		n = DefaultPages
	}
	pages, err := g.library.SearchLibrary(ctx, a.Reader, collection, a.Query, min(n, maxResults))
	if err != nil {
		return out, fmt.Errorf("search %s: %w", engineName, err)
	}
	for _, p := range pages {
		out.Results = append(out.Results, Result{URL: p.URL, Title: p.Title, Snippet: extract.Excerpt(p.Text, 200)})
		if a.Skip != nil && a.Skip(p.CanonicalURL) {
			continue
		}
		out.Pages = append(out.Pages, p)
	}
	web := webEngines(a.Engines)
	if len(web) == 0 {
		return out, nil
	}
	// The library and the web both (the ask form's "both"): the action's
	// web engines search too, and the outcome holds the pages of each.
	a.Engines = web
	w, err := g.Search(ctx, a)
	if len(pages) == 0 {
		return w, err
	}
	if err != nil {
		out.Errors = append(out.Errors, PageError{URL: strings.Join(web, ","), Err: err.Error()})
		return out, nil
	}
	out.Engine += "+" + w.Engine
	out.Blocked = w.Blocked
	out.Results = append(out.Results, w.Results...)
	out.Pages = append(out.Pages, w.Pages...)
	out.Errors = append(out.Errors, w.Errors...)
	return out, nil
}
