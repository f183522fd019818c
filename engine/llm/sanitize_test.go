package llm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
)

func TestParsePlanStrict(t *testing.T) {
	req := planRequest()
	cases := []struct {
		name, json, want string
	}{
		{"unknown route", `{"route":"dig","goal":"g"}`, `route "dig"`},
		{"empty goal", strings.Replace(goodPlan, `"goal":"Find when the Golden Gate Bridge opened and how long it is"`, `"goal":"  "`, 1), "goal must not be empty"},
		{"bad kind", strings.Replace(goodPlan, `"kind":"search","engine":"wikipedia"`, `"kind":"crawl","engine":"wikipedia"`, 1), `kind "crawl"`},
		{"too many criteria", strings.Replace(goodPlan, `"criteria":[`, `"criteria":["a","b","c","d",`, 1), "criteria: got 7"},
		{"unknown engine", strings.Replace(goodPlan, `"engine":"wikipedia"`, `"engine":"altavista"`, 1), `engine "altavista" is not available`},
		{"javascript url", strings.Replace(goodPlan, `{"kind":"search","engine":"wikipedia","query":"Golden Gate Bridge length main span","priority":1}`,
			`{"kind":"navigate","url":"javascript:alert(1)","priority":1}`, 1), "not an absolute http(s) URL"},
		{"priority as string", strings.Replace(goodPlan, `"priority":1,"reason"`, `"priority":"1","reason"`, 1), "does not match the plan format"},
		{"clarity out of range", strings.Replace(goodPlan, `"clarity":0.95`, `"clarity":7`, 1), "clarity 7"},
		{"browse without url", `{"route":"browse","goal":"read it","criteria":["a","b","c"],"sections":["A"],"actions":[{"kind":"search","query":"x y"}]}`, "browse plan needs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parsePlan(tc.json, req, false)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSanitizePlanOnFinalAttempt(t *testing.T) {
	req := planRequest()
	req.Parent = &engine.ParentContext{Goal: "earlier", Queries: []string{"Golden Gate Bridge history"}, URLs: []string{"https://example.org/seen/"}}
	long := strings.Repeat("very long criterion ", 50)
	in := fmt.Sprintf(`{"route":" Research ","goal":"  Bridge\n\tfacts ","criteria":["a","A"," ","b","c","d","e","f","g","%s"],
	"sections":["Overview","Sources","overview","History"],
	"actions":[
	 {"kind":"navigate","url":"javascript:alert(1)"},
	 {"kind":"navigate","url":"file:///etc/passwd"},
	 {"kind":"navigate","url":"https://example.org/seen"},
	 {"kind":"navigate","url":"HTTPS://Example.org/new#frag","priority":-4},
	 {"kind":"search","engine":"altavista","query":"golden gate bridge HISTORY"},
	 {"kind":"search","engine":"WIKIPEDIA","query":"  Golden  Gate   span ","priority":42},
	 {"kind":"search","engine":"duckduckgo","query":"golden gate span"},
	 {"kind":"Search","query":"bridge paint colour"},
	 {"kind":"search","query":"a1"},{"kind":"search","query":"a2"},{"kind":"search","query":"a3"}],
	"clarity":1.5,"questions":["q1","q2","q3","q4"]}`, long)
	spec, err := parsePlan(in, req, true)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Route != research.RouteResearch || spec.Goal != "Bridge facts" || spec.Clarity != 1 {
		t.Errorf("route/goal/clarity = %q %q %v", spec.Route, spec.Goal, spec.Clarity)
	}
	if len(spec.Criteria) != maxCriteria || spec.Criteria[0] != "a" || spec.Criteria[1] != "b" {
		t.Errorf("criteria = %q", spec.Criteria)
	}
	if strings.Join(spec.Sections, "|") != "Overview|History" {
		t.Errorf("sections = %q", spec.Sections)
	}
	want := []research.ActionSpec{
		{Kind: "navigate", URL: "https://example.org/new", Priority: 0},
		{Kind: "search", Engine: "wikipedia", Query: "Golden Gate span", Priority: maxPriority},
		{Kind: "search", Engine: "duckduckgo", Query: "bridge paint colour"},
		{Kind: "search", Engine: "duckduckgo", Query: "a1"},
		{Kind: "search", Engine: "duckduckgo", Query: "a2"},
	}
	if fmt.Sprint(spec.Actions) != fmt.Sprint(want) {
		t.Errorf("actions =\n%v\nwant\n%v", spec.Actions, want)
	}
	if len(spec.Questions) != maxQuestions || spec.Budget != req.Budget {
		t.Errorf("questions %q budget %+v", spec.Questions, spec.Budget)
	}
	long2 := cleanText(long, maxItemLen)
	if len([]rune(long2)) > maxItemLen {
		t.Errorf("criterion not capped: %d", len(long2))
	}

	// A browse plan keeps its URLs; a chat plan keeps no defaults.
	browse, err := parsePlan(`{"route":"browse","goal":"read","actions":[{"kind":"navigate","url":"https://go.dev/doc"}]}`, req, true)
	if err != nil || browse.Route != research.RouteBrowse || len(browse.URLs) != 1 || browse.URLs[0] != "https://go.dev/doc" || browse.Sections[0] != "Answer" {
		t.Errorf("browse = %+v, %v", browse, err)
	}
	chat, err := parsePlan(`{"route":"chat","goal":"greet"}`, req, false)
	if err != nil || chat.Route != research.RouteChat || len(chat.Actions) != 0 {
		t.Errorf("chat = %+v, %v", chat, err)
	}
	// On the final attempt an unknown route is still refused.
	if _, err := parsePlan(`{"route":"dig","goal":"g"}`, req, true); err == nil {
		t.Error("final attempt accepted an unknown route")
	}
}

func TestExcerptKeepsRelevantPassages(t *testing.T) {
	body := strings.Repeat("Filler about gardens and soil.\n", 50) + "The bridge main span is 1,280 metres.\n" + strings.Repeat("More filler on tomatoes.\n", 50)
	got := excerpt(body, relevanceQuery("How long is the bridge main span?"), 300)
	if !strings.Contains(got, "1,280 metres") || len(got) > 300 {
		t.Errorf("excerpt = %q (%d bytes)", got, len(got))
	}
	pack, ids := packSources(testSources, relevanceQuery("main span length"), 2000)
	if len(ids) != 2 || ids[0] != "S2" || !strings.HasPrefix(pack, "[S2] Bridge facts") || len(pack) > 2000 {
		t.Errorf("pack ids %v:\n%s", ids, pack)
	}
	if _, ids := packSources(testSources, relevanceQuery("x"), 100); ids != nil {
		t.Errorf("a budget below one source included %v", ids)
	}
}
