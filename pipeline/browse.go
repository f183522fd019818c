package pipeline

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"github.com/quarryhq/quarry/research"
)

var (
	// urlInText is a URL or bare host name written in a message.
	urlInText = regexp.MustCompile(`(?i)\b(https?://\S+|[a-z0-9-]+(\.[a-z0-9-]+)+\.[a-z]{2,}\S*)`)
	// browseClauseBreak splits a message into clauses.
	browseClauseBreak = regexp.MustCompile(`[,;:\n]+`)
)

// browseSearches are the site searches of a browse run that names a
// site (its home page, not a page on it) and asks for something there:
// besides reading the home page, the site agent searches the site with
// its own search box (site:<URL>) for what the message asks. The query
// is the longest clause of the message that names no URL.
func browseSearches(spec research.TaskSpec, question string) []research.ActionSpec {
	if spec.Route != research.RouteBrowse {
		return nil
	}
	query := browseQuery(question)
	if query == "" {
		return nil
	}
	var out []research.ActionSpec
	for _, a := range spec.Actions {
		u, err := url.Parse(a.URL)
		if a.Kind != research.ActionNavigate || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			continue
		}
		out = append(out, research.ActionSpec{Kind: research.ActionSearch, Engine: "site:" + a.URL, Query: query,
			Priority: a.Priority, Reason: "search the named site for what the message asks"})
	}
	return out
}

// browseQuery is the longest clause of question without a URL, trimmed
// of punctuation; "" when it has fewer than two words.
func browseQuery(question string) string {
	best := ""
	for _, c := range browseClauseBreak.Split(question, -1) {
		if urlInText.MatchString(c) {
			continue
		}
		c = strings.TrimFunc(c, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		if len(c) > len(best) {
			best = c
		}
	}
	if len(strings.Fields(best)) < 2 {
		return ""
	}
	return best
}

// addBrowseSearches adds the site searches to a browse run about to
// gather for the first time.
func addBrowseSearches(question string, st *State) {
	if st.Batch > 0 || len(st.Done) > 0 || st.Spec == nil {
		return
	}
	for _, s := range browseSearches(*st.Spec, question) {
		if !hasAction(st.Pending, s) {
			st.Pending = append(st.Pending, s)
		}
	}
}

func hasAction(list []research.ActionSpec, a research.ActionSpec) bool {
	for _, x := range list {
		if x.Key() == a.Key() {
			return true
		}
	}
	return false
}

// browseOnly reports whether a search of a browse run may use only its own
// engine: the site search of a named site never falls back to searching
// the web, which a browse run does not do.
func browseOnly(st *State, engine string) bool {
	return st.Spec != nil && st.Spec.Route == research.RouteBrowse && strings.HasPrefix(engine, "site:")
}
