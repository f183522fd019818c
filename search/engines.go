package search

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// DefaultEngines is the engine order used when QUARRY_SEARCH_ENGINES is unset.
var DefaultEngines = []string{"duckduckgo", "bing", "wikipedia"}

// engine describes one search engine: where its results page is, how to
// pick organic results out of it, and which links are its own.
type engine struct {
	name string
	// base is the default scheme://host; Options.BaseURLs overrides it.
	base string
	// path is appended to base with {query} replaced by the escaped query.
	path string
	// api engines answer JSON over Go's guarded HTTP client, not a tab.
	api bool
	// selectors are tried in order; the first that yields results wins.
	selectors []resultSelector
	// ownHosts are host suffixes whose links are the engine's own and are
	// dropped (navigation, settings, image search).
	ownHosts []string
	// keep, when set, decides which links on the engine's own hosts are
	// results (for engines whose results live on their own site).
	keep func(u *url.URL) bool
}

// resultSelector picks results out of a results page: each item, the link
// inside it, its title (default: the link's text) and snippet.
type resultSelector struct {
	item, link, title, snippet string
}

var (
	githubReserved = map[string]bool{
		"search": true, "topics": true, "features": true, "pricing": true, "login": true,
		"signup": true, "about": true, "orgs": true, "settings": true, "marketplace": true,
		"explore": true, "sponsors": true, "enterprise": true, "collections": true,
		"trending": true, "notifications": true, "new": true, "site": true, "apps": true,
		"customer-stories": true, "security": true, "readme": true, "team": true, "solutions": true,
		"resources": true, "codespaces": true, "issues": true, "pulls": true,
	}
	soQuestion = regexp.MustCompile(`^/questions/\d+(/|$)`)
)

var engines = map[string]*engine{
	"duckduckgo": {
		name: "duckduckgo",
		base: "https://html.duckduckgo.com",
		path: "/html/?q={query}",
		selectors: []resultSelector{
			{item: "#links .result.web-result:not(.result--ad)", link: "a.result__a", snippet: ".result__snippet"},
			{item: "#links .result:not(.result--ad)", link: "a.result__a", snippet: ".result__snippet"},
			{item: "table tr", link: "a.result-link", snippet: "td.result-snippet"},
		},
		ownHosts: []string{"duckduckgo.com"},
	},
	"bing": {
		name: "bing",
		base: "https://www.bing.com",
		path: "/search?q={query}&setlang=en",
		selectors: []resultSelector{
			{item: "#b_results > li.b_algo", link: "h2 a", snippet: ".b_caption p, p.b_lineclamp2, p.b_lineclamp3, p.b_lineclamp4, p.b_algoSlug, .b_algoSlug"},
		},
		ownHosts: []string{"bing.com", "go.microsoft.com", "bing.net"},
	},
	"google": {
		name: "google",
		base: "https://www.google.com",
		path: "/search?q={query}&hl=en&num=10",
		selectors: []resultSelector{
			{item: "#rso div.g, #search div.g", link: "a:has(h3)", title: "h3", snippet: "div.VwiC3b, span.aCOpRe, div[data-sncf], div.IsZvec"},
			{item: "#rso div.MjjYud, #rso > div", link: "a:has(h3)", title: "h3", snippet: "div.VwiC3b, div[data-sncf]"},
			// The page served without JavaScript.
			{item: "#main div.Gx5Zad", link: "a[href^='/url?']", title: "h3, div.vvjwJb", snippet: "div.BNeawe.s3v9rd"},
		},
		ownHosts: []string{"google.com", "googleusercontent.com", "gstatic.com", "googleadservices.com", "google.co.uk", "google.de", "google.fr", "google.ca", "google.com.au", "google.co.in", "google.es", "google.it", "google.nl", "google.co.jp", "google.com.br"},
	},
	"brave": {
		name: "brave",
		base: "https://search.brave.com",
		path: "/search?q={query}&source=web",
		selectors: []resultSelector{
			{item: "#results .snippet[data-type='web']", link: "a[href^='http']", title: ".title", snippet: ".snippet-description, .generic-snippet .content, .snippet-content .content, .description"},
			{item: "#results .snippet", link: "a.heading-serpresult, a[href^='http']", title: ".snippet-title, .title", snippet: ".snippet-description, .snippet-content"},
		},
		ownHosts: []string{"search.brave.com", "imgs.search.brave.com", "tiles.search.brave.com", "cdn.search.brave.com"},
	},
	"wikipedia": {
		name: "wikipedia",
		base: "https://en.wikipedia.org",
		path: "/w/index.php?search={query}&title=Special%3ASearch&profile=advanced&fulltext=1&ns0=1",
		selectors: []resultSelector{
			{item: "ul.mw-search-results > li.mw-search-result", link: ".mw-search-result-heading a", snippet: ".searchresult"},
		},
		ownHosts: []string{"wikipedia.org", "wikimedia.org", "wikidata.org", "mediawiki.org"},
		keep: func(u *url.URL) bool {
			if !strings.HasSuffix(u.Hostname(), "wikipedia.org") || !strings.HasPrefix(u.Path, "/wiki/") {
				return false
			}
			title := strings.TrimPrefix(u.Path, "/wiki/")
			return title != "" && !strings.Contains(title, ":") && u.RawQuery == ""
		},
	},
	"github": {
		name: "github",
		base: "https://github.com",
		path: "/search?q={query}&type=repositories",
		selectors: []resultSelector{
			{item: "[data-testid='results-list'] > div", link: ".search-title a", snippet: ".search-match, [data-testid='results-list'] p"},
			{item: "ul.repo-list > li", link: "a.v-align-middle, .f4 a", snippet: "p.mb-1, p.col-9"},
		},
		ownHosts: []string{"github.com", "githubassets.com", "githubusercontent.com", "github.blog"},
		keep: func(u *url.URL) bool {
			if u.Hostname() != "github.com" {
				return false
			}
			parts := strings.Split(strings.Trim(u.Path, "/"), "/")
			return len(parts) == 2 && parts[0] != "" && parts[1] != "" && !githubReserved[parts[0]]
		},
	},
	"stackoverflow": {
		name: "stackoverflow",
		base: "https://stackoverflow.com",
		path: "/search?q={query}",
		selectors: []resultSelector{
			{item: ".js-search-results .s-post-summary, #questions .s-post-summary", link: ".s-post-summary--content-title a", snippet: ".s-post-summary--content-excerpt"},
			{item: ".search-results .question-summary, .search-result", link: ".result-link a, h3 a", snippet: ".excerpt"},
		},
		ownHosts: []string{"stackoverflow.com", "stackexchange.com", "sstatic.net", "stackoverflowteams.com"},
		keep: func(u *url.URL) bool {
			return strings.HasSuffix(u.Hostname(), "stackoverflow.com") && soQuestion.MatchString(u.Path)
		},
	},
	// hackernews uses the Algolia HN search JSON API (the hn.algolia.com page
	// is a JavaScript front end for the same API).
	"hackernews": {
		name:     "hackernews",
		base:     "https://hn.algolia.com",
		path:     "/api/v1/search?query={query}&tags=story&hitsPerPage=10",
		api:      true,
		ownHosts: []string{"hn.algolia.com"},
	},
	"searxng": {
		name: "searxng",
		path: "/search?q={query}&format=json&language=en",
		api:  true,
	},
}

// EngineNames lists the engines Search knows, besides url:<template>.
func EngineNames() []string {
	return []string{"duckduckgo", "bing", "google", "brave", "wikipedia", "github", "stackoverflow", "hackernews", "searxng"}
}

// ParseEngines validates an ordered, comma-separated engine list such as
// QUARRY_SEARCH_ENGINES; empty means DefaultEngines.
func ParseEngines(list string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if err := validEngine(name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return append([]string(nil), DefaultEngines...), nil
	}
	return out, nil
}

func validEngine(name string) error {
	if page, ok := sitePage(name); ok {
		return validSite(name, page)
	}
	if coll, ok := LibraryCollection(name); ok {
		if coll == "" && !strings.EqualFold(name, LibraryEngine) || strings.ContainsAny(coll, " ,/\\") {
			return fmt.Errorf("search engine %q: a library collection is kb:<name>", name)
		}
		return nil
	}
	if tmpl, ok := strings.CutPrefix(name, "url:"); ok {
		if !strings.Contains(tmpl, "{query}") {
			return fmt.Errorf("search engine %q: the template has no {query}", name)
		}
		u, err := url.Parse(strings.ReplaceAll(tmpl, "{query}", "q"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("search engine %q: the template is not an http(s) URL", name)
		}
		return nil
	}
	if engines[strings.ToLower(name)] == nil {
		return fmt.Errorf("unknown search engine %q (known: %s, url:<template with {query}>, site:<URL of a page with a search box>, kb, kb:<collection>)", name, strings.Join(EngineNames(), ", "))
	}
	return nil
}
