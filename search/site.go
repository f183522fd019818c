package search

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/quarryhq/quarry/browser"
)

// SiteSearch uses a web site's own search box: it opens pageURL, searches
// query there the way a person would (the form may only POST, the results
// may be written by scripts) and returns the results page as rendered.
// The site agent provides it (Options.Site), for the engine
// site:<URL of a page with a search box>.
type SiteSearch func(ctx context.Context, pageURL, query string) (*browser.Rendered, error)

// Pauser is an error of a site search that stopped to wait for the
// user (an action that needs approval): SearchAny returns it at once
// instead of trying the next engine.
type Pauser interface {
	error
	Pauses() bool
}

// sitePage returns the page of a site:<URL> engine name.
func sitePage(name string) (string, bool) {
	return strings.CutPrefix(name, "site:")
}

func validSite(name, page string) error {
	u, err := url.Parse(page)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("search engine %q: site: needs the http(s) URL of a page with a search box", name)
	}
	return nil
}

// searchSite asks the site agent to search the site, then harvests the
// results page it ended on with the generic harvester.
func (s *Searcher) searchSite(ctx context.Context, name, page string, out Results) (Results, error) {
	if s.opt.Site == nil {
		return out, errors.New("search " + name + ": the site agent is not available")
	}
	r, err := s.opt.Site(ctx, page, out.Query)
	if err != nil {
		return out, fmt.Errorf("search %s: %w", name, err)
	}
	out.URL = r.FinalURL
	results, err := Harvest(name, r.FinalURL, r.HTML)
	if err != nil {
		return out, err
	}
	out.Results = results
	return out, nil
}
