package pipeline

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// Limits on a plan's fields: whatever an engine or a person sends, the
// stored plan stays within them.
const (
	maxCriteria   = 6
	maxSections   = 8
	maxActions    = 5
	maxFieldRunes = 300
)

// FallbackSpec is the plan used when the engine's is unusable: one search
// of the question.
func FallbackSpec(question string, engines []string) research.TaskSpec {
	q := text.Clip(text.OneLine(question), maxFieldRunes)
	return research.TaskSpec{
		Route:    research.RouteResearch,
		Goal:     q,
		Criteria: []string{q},
		Sections: []string{"Answer"},
		Actions:  []research.ActionSpec{{Kind: research.ActionSearch, Engine: firstOr(engines, "duckduckgo"), Query: text.Clip(q, 200)}},
		Clarity:  0.5,
	}
}

// SanitizeSpec trims, bounds and checks a plan from an engine or an edit.
// prev (may be nil) supplies fields an edit left empty; engines are the
// configured search engines an action may name.
func SanitizeSpec(in research.TaskSpec, prev *research.TaskSpec, engines []string) (research.TaskSpec, error) {
	out := research.TaskSpec{Route: in.Route, Clarity: in.Clarity, Budget: in.Budget}
	if prev != nil {
		if out.Route == "" {
			out.Route = prev.Route
		}
		if out.Budget == (research.Budget{}) {
			out.Budget = prev.Budget
		}
	}
	switch out.Route {
	case research.RouteChat, research.RouteBrowse, research.RouteResearch:
	case "":
		out.Route = research.RouteResearch
	default:
		return research.TaskSpec{}, &ValidationError{"route", fmt.Sprintf("unknown route %q (accepted: chat, browse, research)", in.Route)}
	}
	out.Goal = text.Clip(text.OneLine(in.Goal), 500)
	if out.Goal == "" && prev != nil {
		out.Goal = prev.Goal
	}
	if out.Goal == "" {
		return research.TaskSpec{}, &ValidationError{"goal", "the plan has no goal"}
	}
	out.Criteria = cleanList(in.Criteria, maxCriteria)
	if len(out.Criteria) == 0 && prev != nil {
		out.Criteria = prev.Criteria
	}
	if len(out.Criteria) == 0 {
		out.Criteria = []string{out.Goal}
	}
	out.Sections = cleanList(in.Sections, maxSections)
	for i, s := range out.Sections {
		out.Sections[i] = strings.TrimLeft(s, "# ")
	}
	if len(out.Sections) == 0 && prev != nil {
		out.Sections = prev.Sections
	}
	if len(out.Sections) == 0 {
		out.Sections = []string{"Answer"}
	}
	out.Assumptions = cleanList(in.Assumptions, 6)
	out.Questions = cleanList(in.Questions, 4)
	if out.Clarity < 0 || out.Clarity > 1 {
		out.Clarity = 0.5
	}
	seen := map[string]bool{}
	for _, a := range in.Actions {
		a, err := SanitizeAction(a, engines)
		if err != nil {
			continue
		}
		if seen[a.Key()] {
			continue
		}
		seen[a.Key()] = true
		out.Actions = append(out.Actions, a)
		if len(out.Actions) == maxActions {
			break
		}
	}
	for _, u := range in.URLs {
		if pu, err := url.Parse(strings.TrimSpace(u)); err == nil && (pu.Scheme == "http" || pu.Scheme == "https") && pu.Host != "" {
			out.URLs = append(out.URLs, pu.String())
		}
	}
	if len(out.Actions) == 0 && prev != nil && in.Actions == nil {
		out.Actions = prev.Actions
	}
	if len(out.Actions) == 0 && out.Route != research.RouteChat {
		return research.TaskSpec{}, &ValidationError{"actions", "the plan has no usable search or navigate action"}
	}
	return out, nil
}

// SanitizeAction trims and bounds one action from an engine or an edit, or
// says why it is unusable: a search needs a query (an engine that is not
// configured becomes the first configured one), a visit an absolute http(s)
// URL. Whether it repeats another action is research.ActionSpec.Key's to say.
func SanitizeAction(a research.ActionSpec, engines []string) (research.ActionSpec, error) {
	a.Kind = strings.ToLower(strings.TrimSpace(a.Kind))
	a.Query = text.Clip(text.OneLine(a.Query), 200)
	a.Reason = text.Clip(text.OneLine(a.Reason), maxFieldRunes)
	a.URL = strings.TrimSpace(a.URL)
	if a.Priority < 0 || a.Priority > 10 {
		a.Priority = 0
	}
	switch a.Kind {
	case research.ActionSearch:
		if a.Query == "" {
			return research.ActionSpec{}, &ValidationError{"actions", "a search needs a query"}
		}
		a.URL = ""
		if a.Engine == "" || !contains(engines, a.Engine) {
			a.Engine = firstOr(engines, "duckduckgo")
		}
	case research.ActionNavigate:
		u, err := url.Parse(a.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(a.URL) > 2000 {
			return research.ActionSpec{}, &ValidationError{"actions", fmt.Sprintf("%q is not an absolute http(s) URL", text.Clip(a.URL, 100))}
		}
		a.Query, a.Engine = "", ""
	default:
		return research.ActionSpec{}, &ValidationError{"actions", fmt.Sprintf("unknown action kind %q (accepted: search, navigate)", a.Kind)}
	}
	return a, nil
}

func cleanList(in []string, max int) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		s = text.Clip(text.OneLine(s), maxFieldRunes)
		k := strings.ToLower(s)
		if s == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, s)
		if len(out) == max {
			break
		}
	}
	return out
}

func firstOr(list []string, def string) string {
	if len(list) > 0 {
		return list[0]
	}
	return def
}
