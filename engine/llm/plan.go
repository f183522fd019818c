package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// maxQuestionChars bounds how much of a message the plan prompt quotes.
const maxQuestionChars = 8000

// maxPreliminaryHits bounds the preliminary search results the plan
// prompt shows.
const maxPreliminaryHits = 8

// Plan asks the model for a TaskSpec. An answer that is still invalid after
// one retry is replaced by the fallback plan: one search of the question.
// The error is non-nil only when the API itself failed.
func (e *Engine) Plan(ctx context.Context, req engine.PlanRequest) (research.TaskSpec, engine.Usage, error) {
	if strings.TrimSpace(req.Question) == "" {
		return research.TaskSpec{}, engine.Usage{}, errors.New("plan: empty question")
	}
	engines, first := engineList(req.Engines)
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	system, err := e.render("plan", promptData{Today: now.Format("2006-01-02"), Engines: engines, FirstEngine: first})
	if err != nil {
		return research.TaskSpec{}, engine.Usage{}, err
	}
	var spec research.TaskSpec
	usage, err := e.askJSON(ctx, "plan", system, e.planMessage(req), func(text string, final bool) error {
		s, err := parsePlan(text, req, final)
		if err == nil {
			spec = s
		}
		return err
	})
	var invalid *invalidAnswer
	if errors.As(err, &invalid) {
		e.log.WarnContext(ctx, "plan fell back to a search of the question", "err", invalid.err)
		return fallbackPlan(req), usage, nil
	}
	if err != nil {
		return research.TaskSpec{}, usage, err
	}
	return spec, usage, nil
}

// planMessage is the user turn of the plan call.
func (e *Engine) planMessage(req engine.PlanRequest) string {
	var b strings.Builder
	limit := min(maxQuestionChars, e.inputBudget()*2)
	fmt.Fprintf(&b, "Message:\n%s\n\n", text.ClipBytes(strings.TrimSpace(req.Question), limit))
	if req.Depth != "" {
		fmt.Fprintf(&b, "Depth: %s", req.Depth)
		if req.Budget.MaxActions > 0 {
			fmt.Fprintf(&b, " (at most %d actions in the whole run)", req.Budget.MaxActions)
		}
		b.WriteString("\n")
	}
	if c := strings.TrimSpace(req.Clarification); c != "" {
		fmt.Fprintf(&b, "The user clarified: %s\n", text.ClipBytes(c, 2000))
	}
	if len(req.Preliminary) > 0 {
		b.WriteString("\nA quick search of the message listed these results (titles and snippets only; use them to name the right entities, versions and terms in your criteria and queries; they are not evidence):\n")
		for i, h := range req.Preliminary {
			if i == maxPreliminaryHits {
				break
			}
			fmt.Fprintf(&b, "- %s (%s)", text.ClipBytes(text.OneLine(h.Title), 200), text.ClipBytes(text.OneLine(h.URL), 200))
			if sn := text.OneLine(h.Snippet); sn != "" {
				fmt.Fprintf(&b, ": %s", text.ClipBytes(sn, 300))
			}
			b.WriteString("\n")
		}
	}
	if p := req.Parent; p != nil {
		b.WriteString("\nThis is a follow-up to earlier research. Do not repeat its queries or pages.\n")
		fmt.Fprintf(&b, "Earlier goal: %s\n", text.ClipBytes(text.OneLine(p.Goal), maxGoalLen))
		writeCapped(&b, "Earlier queries:", p.Queries, 30)
		writeCapped(&b, "Pages already read:", p.URLs, 30)
		var headings []string
		for _, s := range p.Sections {
			headings = append(headings, s.ID+" "+s.Heading)
		}
		writeCapped(&b, "Earlier report sections:", headings, 20)
	}
	return b.String()
}

// writeCapped writes a titled bullet list of at most n items.
func writeCapped(b *strings.Builder, title string, items []string, n int) {
	if len(items) == 0 {
		return
	}
	b.WriteString(title + "\n")
	for i, it := range items {
		if i == n {
			fmt.Fprintf(b, "- … and %d more\n", len(items)-n)
			break
		}
		fmt.Fprintf(b, "- %s\n", text.ClipBytes(text.OneLine(it), 300))
	}
}

// parsePlan decodes and validates a plan. Strictly, any problem refuses it;
// on the final attempt a plan with a valid route is kept after sanitizing.
func parsePlan(text string, req engine.PlanRequest, final bool) (research.TaskSpec, error) {
	obj, err := extractJSON(text)
	if err != nil {
		return research.TaskSpec{}, err
	}
	s := research.TaskSpec{Clarity: -1} // -1 marks a missing clarity
	if err := json.Unmarshal(obj, &s); err != nil {
		return research.TaskSpec{}, fmt.Errorf("the JSON does not match the plan format: %v", err)
	}
	problems := validatePlan(s, req)
	if len(problems) > 0 && !(final && validRoute(s.Route)) {
		return research.TaskSpec{}, problemList(problems)
	}
	return sanitizePlan(s, req), nil
}

func validRoute(r string) bool {
	switch strings.ToLower(strings.TrimSpace(r)) {
	case research.RouteChat, research.RouteBrowse, research.RouteResearch:
		return true
	}
	return false
}

// validatePlan lists every way s departs from the plan format.
func validatePlan(s research.TaskSpec, req engine.PlanRequest) []string {
	var p []string
	route := strings.ToLower(strings.TrimSpace(s.Route))
	if !validRoute(route) {
		p = append(p, fmt.Sprintf("route %q must be \"research\", \"browse\" or \"chat\"", s.Route))
	}
	if cleanText(s.Goal, maxGoalLen) == "" {
		p = append(p, "goal must not be empty")
	}
	if s.Clarity != -1 && (s.Clarity < 0 || s.Clarity > 1) {
		p = append(p, fmt.Sprintf("clarity %v must be between 0 and 1", s.Clarity))
	}
	if route == research.RouteChat {
		return p
	}
	if n := len(s.Criteria); n < 3 || n > maxCriteria {
		p = append(p, fmt.Sprintf("criteria: got %d, want 3 to %d", n, maxCriteria))
	}
	if n := len(s.Sections); n < 1 || n > maxSections {
		p = append(p, fmt.Sprintf("sections: got %d, want 1 to %d", n, maxSections))
	}
	for i, c := range s.Criteria {
		if cleanText(c, maxItemLen) == "" {
			p = append(p, fmt.Sprintf("criteria[%d] is empty", i))
		}
	}
	for i, sec := range s.Sections {
		if cleanText(sec, maxSectionLen) == "" {
			p = append(p, fmt.Sprintf("sections[%d] is empty", i))
		}
	}
	least := 2
	if route == research.RouteBrowse {
		least = 1
	}
	if n := len(s.Actions); n < least || n > maxPlanActions {
		p = append(p, fmt.Sprintf("actions: got %d, want %d to %d", n, least, maxPlanActions))
	}
	f := parentFilter(req)
	navigate := 0
	for i, a := range s.Actions {
		if why := f.problem(a); why != "" {
			p = append(p, fmt.Sprintf("actions[%d]: %s", i, why))
			continue
		}
		if a2, _ := f.accept(a); a2.Kind == research.ActionNavigate {
			navigate++
		}
	}
	if route == research.RouteBrowse && navigate == 0 {
		p = append(p, "a browse plan needs at least one navigate action with the page's URL")
	}
	return p
}

// parentFilter refuses actions that repeat the parent run's queries or URLs.
func parentFilter(req engine.PlanRequest) *actionFilter {
	var queries, urls []string
	if req.Parent != nil {
		queries, urls = req.Parent.Queries, req.Parent.URLs
	}
	return newActionFilter(req.Engines, nil, queries, urls)
}

// sanitizePlan trims, caps and de-duplicates every field, drops unusable or
// repeated actions and fills what a usable plan must have.
func sanitizePlan(s research.TaskSpec, req engine.PlanRequest) research.TaskSpec {
	out := research.TaskSpec{
		Route:       strings.ToLower(strings.TrimSpace(s.Route)),
		Goal:        cleanText(s.Goal, maxGoalLen),
		Criteria:    cleanList(s.Criteria, maxItemLen, maxCriteria),
		Assumptions: cleanList(s.Assumptions, maxItemLen, maxAssumptions),
		Questions:   cleanList(s.Questions, maxItemLen, maxQuestions),
		Clarity:     s.Clarity,
		Budget:      req.Budget,
	}
	if !validRoute(out.Route) {
		out.Route = research.RouteResearch
	}
	if out.Goal == "" {
		out.Goal = cleanText(req.Question, maxGoalLen)
	}
	if s.Clarity == -1 {
		out.Clarity = 1
	}
	out.Clarity = min(max(out.Clarity, 0), 1)
	for _, sec := range cleanList(s.Sections, maxSectionLen, maxSections+1) {
		if !sourcesHeading.MatchString("## "+sec) && len(out.Sections) < maxSections {
			out.Sections = append(out.Sections, sec)
		}
	}
	f := parentFilter(req)
	for _, a := range s.Actions {
		if a2, ok := f.accept(a); ok && len(out.Actions) < maxPlanActions {
			out.Actions = append(out.Actions, a2)
			if a2.Kind == research.ActionNavigate {
				out.URLs = append(out.URLs, a2.URL)
			}
		}
	}
	if out.Route == research.RouteBrowse && len(out.URLs) == 0 {
		out.Route = research.RouteResearch
	}
	if out.Route == research.RouteChat {
		return out
	}
	if len(out.Criteria) == 0 {
		out.Criteria = []string{cleanText(req.Question, maxItemLen)}
	}
	if len(out.Sections) == 0 {
		out.Sections = []string{"Answer"}
	}
	if len(out.Actions) == 0 {
		out.Actions = []research.ActionSpec{questionSearch(req)}
	}
	return out
}

// fallbackPlan is the plan used when the model's plan is unusable: research
// the question with one search.
func fallbackPlan(req engine.PlanRequest) research.TaskSpec {
	return research.TaskSpec{
		Route:    research.RouteResearch,
		Goal:     cleanText(req.Question, maxGoalLen),
		Criteria: []string{cleanText(req.Question, maxItemLen)},
		Sections: []string{"Answer"},
		Actions:  []research.ActionSpec{questionSearch(req)},
		Clarity:  1,
		Budget:   req.Budget,
	}
}

// questionSearch is a search of the question itself on the first engine.
func questionSearch(req engine.PlanRequest) research.ActionSpec {
	a := research.ActionSpec{Kind: research.ActionSearch, Query: cleanText(req.Question, maxQueryLen),
		Priority: 1, Reason: "search the question as asked"}
	if len(req.Engines) > 0 {
		a.Engine = req.Engines[0]
	}
	return a
}
