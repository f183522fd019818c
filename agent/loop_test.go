package agent

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// policyPlanner is a Planner answering from a function of the view, for
// the loop's limits.
type policyPlanner struct {
	refine func(v View) []Action
}

func (p policyPlanner) Plan(context.Context, View) ([]PlanStep, error) { return nil, nil }
func (p policyPlanner) Refine(_ context.Context, v View) ([]Action, error) {
	return p.refine(v), nil
}
func (p policyPlanner) Verify(context.Context, View, Action, *Snapshot) (Verdict, error) {
	return Verdict{Reason: "nothing changed"}, nil
}

func planner(f func(v View) []Action) func() Planner {
	return func() Planner { return policyPlanner{refine: f} }
}

// TestStepCap: a run that keeps acting stops at MaxSteps.
func TestStepCap(t *testing.T) {
	t.Parallel()
	n := 0
	res := runTask(t, Options{MaxSteps: 3, NewPlanner: planner(func(v View) []Action {
		n++
		box := find(v.Snap, "textbox", "archive")
		return []Action{{Kind: Type, Element: box.ID, Text: strings.Repeat("x", n)}}
	})}, Task{StartURL: testSite.url("/archive")})
	if res.Status != StatusStopped || len(res.Steps) != 3 || !strings.Contains(res.Reason, "step limit") {
		t.Fatalf("status %s (%s) after %d steps", res.Status, res.Reason, len(res.Steps))
	}
}

// TestNoProgressStops: five actions in a row that change nothing end the run.
func TestNoProgressStops(t *testing.T) {
	t.Parallel()
	res := runTask(t, Options{NewPlanner: planner(func(v View) []Action {
		return []Action{{Kind: Scroll, Up: true}} // already at the top
	})}, Task{StartURL: testSite.url("/archive")})
	if res.Status != StatusStopped || len(res.Steps) != noProgressLimit || !strings.Contains(res.Reason, "without progress") {
		t.Fatalf("status %s (%s) after %d steps", res.Status, res.Reason, len(res.Steps))
	}
}

// TestBudgetStops: the run's budget is asked before every step.
func TestBudgetStops(t *testing.T) {
	t.Parallel()
	calls := 0
	res := runTask(t, Options{
		Budget: func() error {
			calls++
			if calls > 1 {
				return errBudget
			}
			return nil
		},
		NewPlanner: planner(func(v View) []Action { return []Action{{Kind: Scroll}} }),
	}, Task{StartURL: testSite.url("/consent")})
	if res.Status != StatusStopped || res.Reason != errBudget.Error() || len(res.Steps) != 1 {
		t.Fatalf("status %s (%s) after %d steps", res.Status, res.Reason, len(res.Steps))
	}
}

type budgetError struct{}

func (budgetError) Error() string { return "run budget spent" }

var errBudget = budgetError{}

// recorder keeps the steps as a store would.
type recorder struct {
	mu    sync.Mutex
	steps []StepRecord
}

func (r *recorder) RecordStep(_ context.Context, s StepRecord) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.steps = append(r.steps, s)
	return nil
}

// TestStepsRecordedBeforeTheyRun: each action is recorded as running
// before it runs, then with its outcome and a screenshot.
func TestStepsRecordedBeforeTheyRun(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	res := runTask(t, Options{Recorder: rec}, Task{StartURL: testSite.url("/archive"), Query: "rainfall"})
	if res.Status != StatusDone {
		t.Fatalf("status %s", res.Status)
	}
	if len(rec.steps) != 2*len(res.Steps) {
		t.Fatalf("%d records for %d steps", len(rec.steps), len(res.Steps))
	}
	for i := 0; i < len(rec.steps); i += 2 {
		run, done := rec.steps[i], rec.steps[i+1]
		if run.Status != StepRunning || done.Status != StepSuccess || run.N != done.N || len(done.Screenshot) == 0 || done.ElementName == "" {
			t.Errorf("records %d: %s/%s n=%d/%d screenshot %d element %q", i, run.Status, done.Status, run.N, done.N, len(done.Screenshot), done.ElementName)
		}
	}
}

// TestResume: an interrupted run whose last action may have had an effect
// asks the user instead of repeating it; one whose last step completed
// goes back to that page and carries on.
func TestResume(t *testing.T) {
	t.Parallel()
	before := testSite.hitCount("/shop/buy")
	interrupted := []StepRecord{{N: 1, Action: Action{Kind: Click, Element: 3}, ElementName: "button Order", Status: StepRunning, URL: testSite.url("/shop"), At: time.Now()}}
	res := runTask(t, Options{}, Task{StartURL: testSite.url("/shop"), Prior: interrupted})
	if res.Status != StatusAwaitingApproval || !strings.Contains(res.Approval, "not repeated") {
		t.Fatalf("status %s, approval %q", res.Status, res.Approval)
	}
	if testSite.hitCount("/shop/buy") != before {
		t.Error("the resumed run submitted the order")
	}
	done := []StepRecord{{N: 1, Action: Action{Kind: Click, Element: 4}, Status: StepSuccess, URL: testSite.url("/doc/rain-north"), At: time.Now()}}
	res = runTask(t, Options{}, Task{StartURL: testSite.url("/consent"), Prior: done})
	if res.Status != StatusDone || len(res.Sources) != 1 || !strings.Contains(res.Sources[0].FinalURL, "/doc/rain-north") {
		t.Fatalf("status %s (%s), sources %d", res.Status, res.Reason, len(res.Sources))
	}
	if res.Steps[0].N != 1 || res.Steps[len(res.Steps)-1].N != 2 {
		t.Errorf("the resumed run's steps are not numbered on: %d..%d", res.Steps[0].N, res.Steps[len(res.Steps)-1].N)
	}
}

// TestGate: what needs approval, on snapshots built by hand.
func TestGate(t *testing.T) {
	snap := func(els ...Element) *Snapshot {
		for i := range els {
			els[i].ID = i + 1
		}
		return &Snapshot{Elements: els}
	}
	search := snap(Element{Role: "searchbox", Type: "search", Form: 0}, Element{Role: "button", Name: "Search", Form: 0})
	login := snap(Element{Role: "textbox", Name: "User", Form: 0}, Element{Role: "textbox", Type: "password", Form: 0}, Element{Role: "button", Name: "Go", Form: 0})
	contact := snap(Element{Role: "textbox", Autocomplete: "email", Form: 0}, Element{Role: "button", Name: "Continue", Form: 0})
	cases := []struct {
		name string
		s    *Snapshot
		a    Action
		want bool
	}{
		{"search form button", search, Action{Kind: Click, Element: 2}, false},
		{"enter in a search form", search, Action{Kind: Press, Key: "Enter", Element: 1}, false},
		{"typing into a password form", login, Action{Kind: Type, Element: 2, Text: "x"}, false},
		{"submitting a password form", login, Action{Kind: Click, Element: 3}, true},
		{"enter in a password form", login, Action{Kind: Press, Key: "Enter", Element: 1}, true},
		{"personal data form", contact, Action{Kind: Click, Element: 2}, true},
		{"buy now", snap(Element{Role: "button", Name: "Buy now", Form: -1}), Action{Kind: Click, Element: 1}, true},
		{"jetzt kaufen", snap(Element{Role: "link", Name: "Jetzt kaufen", Form: -1}), Action{Kind: Click, Element: 1}, true},
		{"subscribe", snap(Element{Role: "button", Name: "Subscribe to the newsletter", Form: -1}), Action{Kind: Click, Element: 1}, true},
		{"delete", snap(Element{Role: "button", Name: "Delete account", Form: -1}), Action{Kind: Click, Element: 1}, true},
		{"sort order", snap(Element{Role: "button", Name: "Order by date", Form: -1}), Action{Kind: Click, Element: 1}, false},
		{"books link", snap(Element{Role: "link", Name: "Books", Form: -1}), Action{Kind: Click, Element: 1}, false},
		{"next page", snap(Element{Role: "link", Name: "Next", Form: -1}), Action{Kind: Click, Element: 1}, false},
		{"space on buy", snap(Element{Role: "button", Name: "Buy now", Form: -1}), Action{Kind: Press, Key: "Space", Element: 1}, true},
		{"tab past buy", snap(Element{Role: "button", Name: "Buy now", Form: -1}), Action{Kind: Press, Key: "Tab", Element: 1}, false},
		{"enter on a delete link", snap(Element{Role: "link", Name: "Delete account", Form: -1}), Action{Kind: Press, Key: "Enter", Element: 1}, true},
		{"enter with nothing focused", snap(Element{Role: "link", Name: "Next", Form: -1}), Action{Kind: Press, Key: "Enter"}, true},
		{"enter on the focused buy button", snap(Element{Role: "button", Name: "Buy now", Form: -1, State: []string{"focused"}}), Action{Kind: Press, Key: "Enter"}, true},
		{"check subscribe", snap(Element{Role: "checkbox", Name: "Subscribe to the paid plan", Form: 0}), Action{Kind: Check, Element: 1}, true},
		{"check a filter", snap(Element{Role: "checkbox", Name: "Include archived records", Form: 0}), Action{Kind: Check, Element: 1}, false},
		{"select buy", snap(Element{Role: "combobox", Name: "Plan", Tag: "select", Options: []string{"Free", "Buy premium"}, Form: 0}), Action{Kind: Select, Element: 1, Text: "buy"}, true},
		{"select free", snap(Element{Role: "combobox", Name: "Plan", Tag: "select", Options: []string{"Free", "Buy premium"}, Form: 0}), Action{Kind: Select, Element: 1, Text: "Free"}, false},
		{"enter submits a form named delete", snap(Element{Role: "textbox", Name: "Reason", Form: 0}, Element{Role: "button", Name: "Delete", Form: 0}), Action{Kind: Press, Key: "Enter", Element: 1}, true},
		{"post form, harmless name", snap(Element{Role: "textbox", Name: "Comment", Form: 0, FormMethod: "post", FormAction: "http://h/c"}, Element{Role: "textbox", Name: "Title", Form: 0}, Element{Role: "button", Name: "Continue", Form: 0, FormMethod: "post", FormAction: "http://h/c"}), Action{Kind: Click, Element: 3}, true},
		{"card number by its attribute", snap(Element{Role: "textbox", NameAttr: "cardNumber", Form: 0}, Element{Role: "button", Name: "Continue", Form: 0}), Action{Kind: Click, Element: 2}, true},
	}
	for _, c := range cases {
		if got := sensitive(c.s, c.a) != ""; got != c.want {
			t.Errorf("%s: sensitive = %v, want %v", c.name, got, c.want)
		}
	}
	// A search form sent by POST runs, and its POST is the one expected.
	post := snap(Element{Role: "textbox", Form: 0, FormMethod: "post", FormAction: "http://h/results"}, Element{Role: "button", Name: "Go", Form: 0, FormMethod: "post", FormAction: "http://h/results"})
	if g := assess(post, Action{Kind: Press, Key: "Enter", Element: 1}); g.Why != "" || g.Post != "http://h/results" {
		t.Errorf("search form by POST: %+v", g)
	}
	// Choosing a quantity runs, but the page may not submit the buy form
	// on the change.
	buy := snap(Element{Role: "combobox", Name: "Quantity", Tag: "select", Options: []string{"1", "2"}, Form: 0}, Element{Role: "button", Name: "Buy now", Form: 0})
	if g := assess(buy, Action{Kind: Select, Element: 1, Text: "2"}); g.Why != "" || !strings.Contains(g.AutoSubmit, "Buy now") {
		t.Errorf("quantity in a buy form: %+v", g)
	}
	filter := snap(Element{Role: "checkbox", Name: "Include archived records", Form: 0}, Element{Role: "button", Name: "Continue", Form: 0})
	if g := assess(filter, Action{Kind: Check, Element: 1}); g != (gateCheck{}) {
		t.Errorf("checkbox in a filter form: %+v", g)
	}
}

func TestAllowlist(t *testing.T) {
	l := NewAllowlist("https://docs.example.org/start", "cdn.example.net")
	for u, want := range map[string]bool{
		"https://docs.example.org/x":     true,
		"https://api.docs.example.org/":  true,
		"https://cdn.example.net/a":      true,
		"https://example.org/":           false,
		"https://docs.example.org.evil/": false,
		"http://evil.invalid/":           false,
	} {
		if l.Allows(u) != want {
			t.Errorf("Allows(%s) = %v", u, !want)
		}
	}
}

func TestSplitAndValidate(t *testing.T) {
	got, err := Split([]Action{{Kind: Type, Element: 1, Text: "x"}, {Kind: Click, Element: 2}, {Kind: Finish}, {Kind: Click, Element: 3}})
	if err != nil || len(got) != 3 || got[2].Kind != Finish {
		t.Fatalf("Split = %v, %v", got, err)
	}
	for _, bad := range []Action{{Kind: "submit"}, {Kind: Click}, {Kind: Press, Key: "F5"}, {Kind: Navigate, URL: "javascript:alert(1)"}, {Kind: Select, Element: 1}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v validated", bad)
		}
	}
}

// TestRulesOnSnapshots: the rule planner's choices on hand-built pages in
// several languages.
func TestRulesOnSnapshots(t *testing.T) {
	snap := func(els ...Element) *Snapshot {
		for i := range els {
			els[i].ID = i + 1
			els[i].Visible, els[i].InView = true, true
		}
		return &Snapshot{Elements: els}
	}
	boxes := []struct {
		name string
		s    *Snapshot
		want int // id, 0 for none
	}{
		{"searchbox role", snap(Element{Role: "textbox", Name: "Name", Form: 0}, Element{Role: "searchbox", Form: 1}), 2},
		{"german button", snap(Element{Role: "textbox", Name: "Begriff", Form: 0}, Element{Role: "button", Name: "Suchen", Form: 0}), 1},
		{"french placeholder", snap(Element{Role: "textbox", Placeholder: "Rechercher sur le site", Form: -1}), 1},
		{"query parameter name", snap(Element{Role: "textbox", NameAttr: "q", Form: 0}, Element{Role: "button", Name: "→", Form: 0}), 1},
		{"lone field of a form", snap(Element{Role: "textbox", Form: 0}, Element{Role: "button", Name: "Go", Form: 0}), 1},
		{"email field is no search box", snap(Element{Role: "textbox", Type: "email", Name: "Search alerts", Form: 0}), 0},
		{"login form", snap(Element{Role: "textbox", Name: "User", Form: 0}, Element{Role: "textbox", Type: "password", Form: 0}, Element{Role: "button", Name: "Sign in", Form: 0}), 0},
	}
	for _, c := range boxes {
		got := 0
		if b := SearchBox(c.s); b != nil {
			got = b.ID
		}
		if got != c.want {
			t.Errorf("search box on %s: %d, want %d", c.name, got, c.want)
		}
	}
	dialog := func(names ...string) *Snapshot {
		els := []Element{{Role: "dialog", Name: "Privacy"}}
		for _, n := range names {
			els = append(els, Element{Role: "button", Name: n, InDialog: true})
		}
		s := snap(els...)
		s.Dialogs = []string{"[1] Privacy"}
		return s
	}
	dismiss := []struct {
		s    *Snapshot
		want string
	}{
		{dialog("Accept all", "Reject all"), "Reject all"},
		{dialog("Alle akzeptieren", "Alle ablehnen"), "Alle ablehnen"},
		{dialog("Tout accepter", "Continuer sans accepter", "Fermer"), "Continuer sans accepter"},
		{dialog("Subscribe", "Sign in", "No thanks"), "No thanks"},
		{dialog("Accept", "Subscribe now"), "Accept"},
		{dialog("Subscribe", "Log in"), ""},
	}
	for _, c := range dismiss {
		got := ""
		if e := NewRulePlanner().(*RulePlanner).dismissal(c.s); e != nil {
			got = e.Name
		}
		if got != c.want {
			t.Errorf("dismissal among %v: %q, want %q", c.s.Elements[1:], got, c.want)
		}
	}
}

// TestFallbackNumbersOn: the model's attempt at a site search records its
// steps after those of the rules' attempt, not over them.
func TestFallbackNumbersOn(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	rec := &recorder{}
	second := planner(func(v View) []Action { return []Action{{Kind: Extract}, {Kind: Fail, Reason: "cannot either"}} })
	_, err := SiteSearch(Options{Pool: testPool, NewPlanner: planner(func(v View) []Action {
		return []Action{{Kind: Extract}, {Kind: Fail, Reason: "no search box"}}
	})}, second)(WithRecorder(ctx, rec), testSite.url("/doc/rain-north"), "rain")
	if err == nil || !strings.Contains(err.Error(), "cannot either") {
		t.Fatalf("err = %v", err)
	}
	var ns []int
	for _, s := range rec.steps {
		ns = append(ns, s.N)
	}
	if !slices.Equal(ns, []int{1, 1, 2, 2}) {
		t.Fatalf("recorded step numbers %v, want [1 1 2 2]", ns)
	}
}
