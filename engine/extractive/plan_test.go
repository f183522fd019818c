package extractive

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// templateRe matches the criteria the planner once added to every
// question whether or not it asked them.
var templateRe = regexp.MustCompile(`(?i)trade-offs|counter-arguments|caveats|related details|conditions, exceptions|key dates|known for`)

// A question's criteria are its parts, in its words: one part, one
// criterion.
func TestPlanCriteriaAreTheQuestionsParts(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"Why did Alibaba list its shares in Hong Kong?":              {"Why did Alibaba list its shares in Hong Kong?"},
		"What is the maximum length of an identifier in PostgreSQL?": {"What is the maximum length of an identifier in PostgreSQL?"},
		"kubernetes": {"What is Kubernetes?", "What are the key facts about Kubernetes?"},
	}
	for q, want := range tests {
		spec, _, err := New().Plan(context.Background(), engine.PlanRequest{Question: q})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(spec.Criteria, "|") != strings.Join(want, "|") {
			t.Errorf("%q: criteria %q, want %q", q, spec.Criteria, want)
		}
	}
}

func TestPlanResearchSpecShape(t *testing.T) {
	t.Parallel()
	questions := []string{
		"What is the default port of EmberDB and how do I change it?",
		"How do I set up replication in EmberDB?",
		"What is EmberDB?",
		"How large is Titan and what covers its surface?",
		"Compare PostgreSQL and MySQL for analytics workloads",
		"Why did Alibaba list its shares in Hong Kong?",
		"When will the Europa Clipper mission reach Europa?",
		"Who leads the Titan mapping research at JPL?",
		"Is WSL 2 required to run EmberDB on Windows?",
		"History of the Hong Kong stock exchange, its market share and biggest listings since 2010",
		"kubernetes",
	}
	budget := research.Presets()[research.DepthStandard]
	for _, q := range questions {
		t.Run(q, func(t *testing.T) {
			spec, usage, err := New().Plan(context.Background(), engine.PlanRequest{Question: q, Depth: research.DepthStandard, Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			if usage != (engine.Usage{}) {
				t.Errorf("usage = %+v, want zero", usage)
			}
			if spec.Route != research.RouteResearch {
				t.Fatalf("route = %q", spec.Route)
			}
			if n := len(spec.Criteria); n < 1 || n > 6 {
				t.Errorf("%d criteria %q, want 1–6", n, spec.Criteria)
			}
			for _, c := range spec.Criteria {
				if templateRe.MatchString(c) {
					t.Errorf("criterion %q is a template, not a part of the question", c)
				}
			}
			if len(spec.Sections) != len(spec.Criteria)+1 || spec.Sections[0] != "Summary" {
				t.Errorf("sections %q for criteria %q: want Summary then one per criterion", spec.Sections, spec.Criteria)
			}
			if n := len(spec.Actions); n < 2 || n > 5 {
				t.Errorf("%d actions, want 2–5: %+v", n, spec.Actions)
			}
			seen := map[string]bool{}
			for _, a := range spec.Actions {
				if a.Kind != research.ActionSearch || a.Engine != "duckduckgo" || a.Priority != 0 || strings.TrimSpace(a.Query) == "" {
					t.Errorf("bad action %+v", a)
				}
				if seen[queryKey(a.Query)] {
					t.Errorf("duplicate query %q", a.Query)
				}
				seen[queryKey(a.Query)] = true
			}
			if spec.Budget != budget {
				t.Errorf("budget = %+v, want %+v", spec.Budget, budget)
			}
			if spec.Clarity < 0 || spec.Clarity > 1 {
				t.Errorf("clarity %v out of range", spec.Clarity)
			}
			if spec.Goal == "" {
				t.Error("empty goal")
			}
		})
	}
}

func TestPlanCriteriaFollowClauses(t *testing.T) {
	t.Parallel()
	spec, _, _ := New().Plan(context.Background(), engine.PlanRequest{Question: "what is the default port of EmberDB and how do I change it"})
	want := []string{"What is the default port of EmberDB?", "How do I change the default port of EmberDB?"}
	for i, w := range want {
		if spec.Criteria[i] != w {
			t.Errorf("criterion %d = %q, want %q", i, spec.Criteria[i], w)
		}
	}
	if spec.Goal != "What is the default port of EmberDB and how do I change it?" {
		t.Errorf("goal = %q", spec.Goal)
	}
	if spec.Sections[1] != "Default port of EmberDB" || spec.Sections[2] != "How to change the default port of EmberDB" {
		t.Errorf("sections = %q", spec.Sections)
	}
	var hasEmber bool
	for _, a := range spec.Actions {
		hasEmber = hasEmber || strings.Contains(a.Query, "EmberDB")
	}
	if !hasEmber {
		t.Errorf("no query names the entity: %+v", spec.Actions)
	}
}

func TestPlanSeparatesContextFromQuestions(t *testing.T) {
	t.Parallel()
	spec, _, _ := New().Plan(context.Background(), engine.PlanRequest{Question: "I run EmberDB 4.2 on a Debian server behind a firewall. How do I change the port it listens on?"})
	if !strings.HasPrefix(spec.Criteria[0], "How do I change the port") {
		t.Errorf("criteria %q: the first must be the question, not the context", spec.Criteria)
	}
	if !strings.Contains(strings.Join(spec.Assumptions, " "), "Debian server behind a firewall") {
		t.Errorf("assumptions %q lack the context", spec.Assumptions)
	}
	if !strings.Contains(spec.Actions[0].Query, "EmberDB") {
		t.Errorf("first query %q lacks the product named in the context", spec.Actions[0].Query)
	}
}

// A sentence that opens with a question word but states a scene ("When I
// …, Tally warns …") is context, not a part of the question; a message it
// quotes keeps its brackets; and the question's "it" is the subject of the
// statement just before.
func TestPlanStatementOpeningWithWhenIsContext(t *testing.T) {
	t.Parallel()
	spec, _, _ := New().Plan(context.Background(), engine.PlanRequest{Question: "When I load my file, Tally warns \"Unused keys: [rest]\". The key is meant to be read only once. How do I write it so the warning goes away?"})
	if len(spec.Criteria) != 1 || spec.Criteria[0] != "How do I write the key so the warning goes away?" {
		t.Errorf("criteria %q, want only the question, its \"it\" the key", spec.Criteria)
	}
	queries := ""
	for _, a := range spec.Actions {
		queries += a.Query + "\n"
	}
	if !strings.Contains(queries, "Unused keys: [rest]") {
		t.Errorf("no query quotes the warning whole:\n%s", queries)
	}
	for _, q := range []string{"When does Tally warn?", "When does Tally warn about unused keys.", "How many keys can a table hold."} {
		spec, _, _ := New().Plan(context.Background(), engine.PlanRequest{Question: "I run Tally 2. " + q})
		if len(spec.Criteria) == 0 || !strings.HasPrefix(spec.Criteria[0], strings.TrimRight(q, "?.")) {
			t.Errorf("%q: criteria %q, want the question", q, spec.Criteria)
		}
	}
}

func TestPlanComparison(t *testing.T) {
	t.Parallel()
	spec, _, _ := New().Plan(context.Background(), engine.PlanRequest{Question: "PostgreSQL vs MySQL for analytics"})
	joined := strings.Join(spec.Criteria, " | ")
	if joined != "How do PostgreSQL and MySQL differ for analytics?" {
		t.Errorf("criteria %q, want the comparison the question asks", spec.Criteria)
	}
}

func TestPlanClarity(t *testing.T) {
	t.Parallel()
	vague, _, _ := New().Plan(context.Background(), engine.PlanRequest{Question: "how does it work?"})
	if vague.Clarity >= 0.5 || len(vague.Questions) == 0 {
		t.Errorf("vague question: clarity %v questions %q, want < 0.5 with questions", vague.Clarity, vague.Questions)
	}
	clear, _, _ := New().Plan(context.Background(), engine.PlanRequest{Question: "What is the default port of the EmberDB server?"})
	if clear.Clarity < 0.8 || len(clear.Questions) != 0 {
		t.Errorf("clear question: clarity %v questions %q", clear.Clarity, clear.Questions)
	}
}

func TestPlanUsesEnginesClarificationAndParent(t *testing.T) {
	t.Parallel()
	req := engine.PlanRequest{
		Question:      "Python?",
		Engines:       []string{"searxng", "bing"},
		Clarification: "the latest stable release and its date",
	}
	spec, _, _ := New().Plan(context.Background(), req)
	for _, a := range spec.Actions {
		if a.Engine != "searxng" {
			t.Errorf("engine %q, want the first configured", a.Engine)
		}
	}
	if !strings.Contains(spec.Actions[0].Query, "release") {
		t.Errorf("clarification not in the first query %q", spec.Actions[0].Query)
	}

	parent := &engine.ParentContext{Goal: "What is EmberDB?", Queries: []string{"EmberDB licence", "EmberDB license terms"}}
	follow, _, _ := New().Plan(context.Background(), engine.PlanRequest{Question: "what is its license?", Parent: parent})
	for _, a := range follow.Actions {
		if queryKey(a.Query) == queryKey("EmberDB licence") || queryKey(a.Query) == queryKey("EmberDB license terms") {
			t.Errorf("follow-up repeats the parent's query %q", a.Query)
		}
		if !strings.Contains(a.Query, "EmberDB") {
			t.Errorf("follow-up query %q lost the parent's topic", a.Query)
		}
	}
	if len(follow.Actions) < 2 {
		t.Errorf("follow-up has %d actions", len(follow.Actions))
	}
}

func TestPlanBrowseAndChat(t *testing.T) {
	t.Parallel()
	spec, _, _ := New().Plan(context.Background(), engine.PlanRequest{Question: "Summarize https://example.org/post and https://example.com/b"})
	if spec.Route != research.RouteBrowse || len(spec.Actions) != 2 {
		t.Fatalf("browse spec: %+v", spec)
	}
	for i, u := range []string{"https://example.org/post", "https://example.com/b"} {
		if a := spec.Actions[i]; a.Kind != research.ActionNavigate || a.URL != u {
			t.Errorf("action %d = %+v, want navigate %s", i, a, u)
		}
	}
	chat, _, _ := New().Plan(context.Background(), engine.PlanRequest{Question: "thanks!"})
	if chat.Route != research.RouteChat || len(chat.Actions) != 0 {
		t.Errorf("chat spec: %+v", chat)
	}
}

// A condition written before the question word as a prepositional
// phrase ("With X switched on, how many …") qualifies the question, as a
// subordinate clause does; it is no part of its own.
func TestFrontedPrepositionalPhraseIsNoPart(t *testing.T) {
	t.Parallel()
	for _, q := range []string{
		"With unity builds switched on, how many source files go into each combined file?",
		"Under heavy load from many clients at once, how many workers does the pool start?",
	} {
		qa := analyse(q)
		if len(qa.clauses) != 1 {
			t.Errorf("%q: clauses %q, want one", q, qa.clauses)
		}
	}
	if qa := analyse("With which compiler, and how, do I build it?"); len(qa.clauses) == 1 && strings.HasPrefix(qa.ask, "And how") {
		t.Errorf("a phrase holding a question word was taken for a condition: %q", qa.ask)
	}
	// A short setting may stand before the condition ("In a domain XML,
	// if I give …"): both qualify the question.
	if qa := analyse("In a tally domain XML, if I give the guest's memory size without a unit attribute, what unit is the number read in?"); len(qa.clauses) != 1 || !strings.HasPrefix(qa.clauses[0], "What unit") {
		t.Errorf("clauses %q, want the question asked under its setting and condition", qa.clauses)
	}
	// A condition may hold commas of its own: the question word follows
	// its last one, and every part is asked under all of it.
	qa := analyse("If I run tally -g without naming a file, in a directory that already has a configuration file, which file does it write and what happens to the one that was there?")
	if len(qa.clauses) != 2 {
		t.Fatalf("clauses %q, want two", qa.clauses)
	}
	for _, c := range qa.clauses {
		if !strings.HasSuffix(c, ", if I run tally -g without naming a file, in a directory that already has a configuration file") {
			t.Errorf("part %q is not asked under the whole condition", c)
		}
	}
}

// An "and" between two noun phrases while an auxiliary still waits for
// its verb joins two subjects of one question ("can the clocks of a
// client and the server drift"); after the verb it may join two asks
// ("does the server use and the maximum connections").
func TestAndBetweenSubjectsIsNoSplit(t *testing.T) {
	t.Parallel()
	if qa := analyse("How far apart can the clocks of a desktop client and the key server drift before messages are rejected?"); len(qa.clauses) != 1 {
		t.Errorf("clauses %q, want one", qa.clauses)
	}
	if qa := analyse("What port does the mail server use and the maximum message size?"); len(qa.clauses) != 2 {
		t.Errorf("clauses %q, want two", qa.clauses)
	}
	// Two phrases of one head noun after the verb are its objects.
	if qa := analyse("Does tally document private class members and static file members by default, and which settings change that?"); len(qa.clauses) != 2 ||
		!strings.HasSuffix(qa.clauses[0], "static file members by default") {
		t.Errorf("clauses %q, want the members asked together, then the settings", qa.clauses)
	}
}

// An "and" inside a phrase set off by a comma joins that phrase's
// objects ("…, with its type and default value"); an "and" before
// another such phrase ("…, for a null value and for an index out of
// range") or after the phrase's closing comma joins two asks.
func TestAndInsideACommaPhraseIsNoSplit(t *testing.T) {
	t.Parallel()
	if qa := analyse("How do I document each key my options hash accepts, with its type and default value?"); len(qa.clauses) != 1 {
		t.Errorf("clauses %q, want one", qa.clauses)
	}
	if qa := analyse("Which errors does Tally's checker raise for a null value, for an otherwise invalid value and for an index out of range?"); len(qa.clauses) < 2 {
		t.Errorf("clauses %q, want the cases asked apart", qa.clauses)
	}
	if qa := analyse("How can I keep a log of my Tally session, everything I type and everything it prints, in a file, and stop logging later?"); len(qa.clauses) != 2 {
		t.Errorf("clauses %q, want the log and stopping it asked apart", qa.clauses)
	}
}

// A question that asks little of its own after a statement of the
// asker's situation carries the statement as context: its evidence must
// name some of it. One that asks enough of its own does not.
func TestQuestionLeansOnTheAskersSituation(t *testing.T) {
	t.Parallel()
	spec, _, err := New().Plan(context.Background(), engine.PlanRequest{Question: "I want a smaller release binary and don't need the stack cleaned up when the program panics. What do I put in Crate.toml?", Budget: research.Presets()[research.DepthStandard]})
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Criteria) == 0 {
		t.Fatal("no criteria")
	}
	if c := newCriterion(spec.Criteria[0], "", nil, nil); !slices.Contains(c.ctx, text.Stem("binary")) || !slices.Contains(c.ctx, text.Stem("panics")) {
		t.Errorf("criterion %q: context %v lacks the asker's situation", spec.Criteria[0], c.ctx)
	}
	spec, _, err = New().Plan(context.Background(), engine.PlanRequest{Question: "My source files are spread over nested folders. Which setting makes the scanner look in the subdirectories too?", Budget: research.Presets()[research.DepthStandard]})
	if err != nil {
		t.Fatal(err)
	}
	if c := newCriterion(spec.Criteria[0], "", nil, nil); len(c.ctx) > 0 {
		t.Errorf("criterion %q leans on the situation: %v", spec.Criteria[0], c.ctx)
	}
}

// The parts of a question as a reader means them: a later part that
// opens on a verb asks "how do I" of a second action; a bare "Why," after
// a statement asks the reason for the statement; "I" after a name is the
// asker, not part of the name; "on its own" is the clause's own subject;
// a fronted "Besides X and Y" names what the answer leaves out; a
// statement that says what a name is tells what "it" stands for.
func TestCriteriaReadTheQuestionsParts(t *testing.T) {
	t.Parallel()
	criteria := func(q string) []string {
		c, _ := criteriaFor(analyse(q))
		return c
	}
	if c := criteria("How do I call Tally from a Python script and get the results back?"); len(c) != 2 || !strings.HasPrefix(c[1], "How do I get the results back") {
		t.Errorf("criteria %q, want the second action asked with \"How do I\"", c)
	}
	c := criteria("In Tally I wrote b := a; for a list a, changed an entry of b, and a changed as well. Why, and how do I get a copy I can change on its own?")
	if len(c) != 2 || c[0] != "Why?" {
		t.Fatalf("criteria %q, want the bare reason first", c)
	}
	if strings.Contains(c[1], "Tally I") || strings.Contains(c[1], "Tally's own") || strings.Contains(c[1], "(why") {
		t.Errorf("criterion %q names the asker, replaces \"its own\" or leans on the bare why", c[1])
	}
	if c := criteria("Besides Row and Table, which container types does Tally's core library provide?"); len(c) != 1 || strings.Contains(c[0], "Row") || strings.Contains(c[0], "What about") {
		t.Errorf("criteria %q, want one part without the excluded names", c)
	}
	if c := criteria("Whole is a fixed-size type in Tally. What range of values is it guaranteed to cover at minimum?"); len(c) != 1 || !strings.Contains(c[0], "is Whole guaranteed") {
		t.Errorf("criteria %q, want \"it\" read as the name the statement defines", c)
	}
}

// Where a question's parts begin and end: a period after "i.e." ends no
// part, and the question after it restates the first; a lower-case letter
// before a period ends the statement it closes; "When does …," opens a
// question, not a condition; an auxiliary inside an "if" clause or a
// negative one ("won't") shares no predicate; a part that asks about "that
// point" leans on the statement before it.
func TestCriteriaFindTheQuestionsParts(t *testing.T) {
	t.Parallel()
	criteria := func(q string) []string {
		c, _ := criteriaFor(analyse(q))
		return c
	}
	if c := criteria("What is the least value TALLY_MAX may have, i.e. what range can I count on from tally_rand?"); len(c) != 1 || c[0] != "What is the least value TALLY_MAX may have?" {
		t.Errorf("criteria %q, want the first wording alone", c)
	}
	c := criteria("I call grow() on a Row with some number n. When does it actually allocate new storage, what happens to my cursors then, and what happens if n is more than the Row can ever hold?")
	if len(c) != 3 || !strings.HasPrefix(c[0], "When does grow() actually allocate new storage") ||
		!strings.HasPrefix(c[1], "What happens to my cursors then") || !strings.HasPrefix(c[2], "What happens if n is more") {
		t.Errorf("criteria %q, want the three questions after the statement, each its own", c)
	}
	c = criteria("Why won't my code build when I use get() on a frozen Table, and what should I use instead?")
	if len(c) != 2 || strings.Contains(c[0], "should I use") {
		t.Errorf("criteria %q, want the why without the second part's predicate", c)
	}
	c = criteria("My Tally program aborts when a worker is dropped while it is still running. What does the runtime call at that point?")
	if len(c) != 1 || !strings.Contains(c[0], "(My Tally program aborts") {
		t.Errorf("criteria %q, want the part to lean on the statement", c)
	}
	if cr := newCriterion("When does grow() allocate new storage?", "", nil, nil); cr.needsNum || cr.style != styleValue {
		t.Errorf("%q asks a condition, which a figure may state: needsNum %v, style %v", cr.text, cr.needsNum, cr.style)
	}
	if cr := newCriterion("When was Tally 2 released?", "", nil, nil); !cr.needsNum {
		t.Errorf("%q asks a date", cr.text)
	}
}

// The alternative a question sets its ask against ("rather than …",
// "instead of …") is what the answer is not: its words are no part of
// the criterion's core.
func TestContrastIsNoPartOfTheCore(t *testing.T) {
	t.Parallel()
	for _, q := range []string{
		"Up to what size of number can I trust Tally's isPrime as a real primality test rather than a probable-prime check?",
		"How can I turn a string into a whole number so that bad input gives me an empty value instead of crashing the program?",
	} {
		c := newCriterion(q, "", nil, nil)
		for _, bad := range []string{"probabl", "check", "crash"} {
			if slices.Contains(c.core, text.Stem(bad)) {
				t.Errorf("%q: core %v holds %q of the alternative", q, c.core, bad)
			}
		}
	}
}

// The "a" of "a * b" is a name, not an article: a side of a comparison
// keeps it.
func TestComparisonOfOperatorsKeepsTheOperands(t *testing.T) {
	t.Parallel()
	if sides, _ := comparison("What is the difference between a * b and a &* b"); !slices.Equal(sides, []string{"a * b", "a &* b"}) {
		t.Errorf("sides %q", sides)
	}
	if sides, _ := comparison("What is the difference between a list and a tuple"); !slices.Equal(sides, []string{"list", "tuple"}) {
		t.Errorf("sides %q", sides)
	}
}
