package agent

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// otherHost is a second loopback site on another host name (127.0.0.2):
// off every run's allowed sites, but passed by the test pool's egress
// guard, so nothing but the run's own policy keeps requests from it.
var otherHost *countingServer

type countingServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func newOtherHost() *countingServer {
	s := &countingServer{}
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		panic("listen on 127.0.0.2: " + err.Error())
	}
	s.Server = &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, r.Method+" "+r.URL.String())
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page("Collected", "<p>Thank you.</p>")))
	})}}
	s.Start()
	return s
}

func (s *countingServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hits...)
}

// actionHits counts the requests of any method that reached the hostile
// pages' endpoints, each of which would change something on the site.
func actionHits() int {
	testSite.mu.Lock()
	defer testSite.mu.Unlock()
	n := 0
	for p, c := range testSite.hits {
		if strings.HasPrefix(p, "/hostile/do/") {
			n += c
		}
	}
	return n
}

// serveHostile adds the hostile pages: controls whose names hide what they
// do, keys that submit, controls that submit on change, scripts that send,
// and ways off the site.
func serveHostile(serve func(string, func(http.ResponseWriter, *http.Request) string)) {
	pages := map[string]string{
		"/hostile/delete": `<main><h1>Your account</h1><form method="post" action="/hostile/do/delete"><button>Delete account</button></form></main>`,
		"/hostile/buy":    `<main><h1>Gauge</h1><p><a href="/hostile/do/buy?item=gauge">Buy now</a></p></main>`,
		"/hostile/login": `<main><h1>Members</h1><form method="post" action="/hostile/do/login">
<label>User <input name="user" value="ann"></label><label>Password <input type="password" name="pw" value="secret"></label><button>Sign in</button></form></main>`,
		"/hostile/lookalike": `<main><h1>Your account</h1><form method="post" action="/hostile/do/delete"><button>D` + "\u0435" + `lete account</button></form></main>`,
		"/hostile/zerowidth": `<main><h1>Gauge</h1><form method="post" action="/hostile/do/buy"><button>B` + "\u200b" + `uy now</button></form></main>`,
		"/hostile/remove":    `<main><h1>Your account</h1><form method="post" action="/hostile/do/remove"><button>Remove account permanently</button></form></main>`,
		"/hostile/plan": `<main><h1>Plans</h1><form method="get" action="/hostile/do/subscribe">
<label><input type="checkbox" name="paid" value="1" onchange="this.form.submit()"> Subscribe to the paid plan</label></form></main>`,
		"/hostile/premium": `<main><h1>Plans</h1><form method="get" action="/hostile/do/plan">
<label>Plan <select name="plan" onchange="this.form.submit()"><option value="free">Free</option><option value="premium">Buy premium</option></select></label></form></main>`,
		// Harmless names, state-changing effects: only what the action
		// does tells.
		"/hostile/script": `<main><h1>Draft</h1><button id="go">Continue</button></main>
<script>document.getElementById('go').onclick = () => fetch('/hostile/do/save', {method: 'POST', body: 'draft'});</script>`,
		"/hostile/quantity": `<main><h1>Gauge</h1><form method="get" action="/hostile/do/checkout">
<label>Quantity <select name="qty" onchange="this.form.submit()"><option>1</option><option>2</option></select></label><button>Buy now</button></form></main>`,
		"/hostile/autosubmit": `<main><h1>Records</h1><form method="post" action="/hostile/do/archive">
<label><input type="checkbox" name="archived" value="1" onchange="this.form.submit()"> Show archived</label></form></main>`,
	}
	for path, body := range pages {
		serve(path, func(http.ResponseWriter, *http.Request) string { return page("Hostile", body) })
	}
	serve("/hostile/do/{what}", func(http.ResponseWriter, *http.Request) string { return page("Done", "<p>Done.</p>") })
	// Ways off the site: a link, a script's request and a form, each
	// carrying what the page knows.
	serve("/hostile/leave", func(http.ResponseWriter, *http.Request) string {
		other := otherHost.URL
		return page("Sources", `<main><h1>Sources</h1><p><a href="`+other+`/collect?q=link">Read more</a></p>
<button id="s">Show sources</button>
<form action="`+other+`/collect"><input name="q" value="form" aria-label="Term"><button>Look it up</button></form></main>
<script>document.getElementById('s').onclick = () => { fetch('`+other+`/collect?q=script'); document.getElementById('s').textContent = 'Sources shown'; };</script>`)
	})
}

// scripted is a planner that proposes the given actions, one per step, on
// the elements named, then fails.
func scripted(steps ...func(*Snapshot) Action) func() Planner {
	return func() Planner {
		i := 0
		return policyPlanner{refine: func(v View) []Action {
			if i >= len(steps) {
				return []Action{{Kind: Fail, Reason: "script done"}}
			}
			i++
			return []Action{steps[i-1](v.Snap)}
		}}
	}
}

// on is an action on the first element of role whose name contains name
// (element 9999, which no snapshot has, when there is none).
func on(role, name string, a Action) func(*Snapshot) Action {
	return func(s *Snapshot) Action {
		a.Element = 9999
		if e := find(s, role, name); e != nil {
			a.Element = e.ID
		}
		return a
	}
}

// TestGateHostile: on hostile pages in real Chromium, a scripted planner
// presses, clicks, checks and selects controls that change something on
// the site; each run pauses for approval, and no request reached the
// site's endpoints or the other host.
func TestGateHostile(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, path string
		step       func(*Snapshot) Action
	}{
		{"enter on a button", "/hostile/delete", on("button", "Delete account", Action{Kind: Press, Key: "Enter"})},
		{"space on a button", "/hostile/delete", on("button", "Delete account", Action{Kind: Press, Key: "Space"})},
		{"enter on a link", "/hostile/buy", on("link", "Buy now", Action{Kind: Press, Key: "Enter"})},
		{"space on a link", "/hostile/buy", on("link", "Buy now", Action{Kind: Press, Key: "Space"})},
		{"enter in a password form's field", "/hostile/login", on("textbox", "Password", Action{Kind: Press, Key: "Enter"})},
		{"enter in a password form's user field", "/hostile/login", on("textbox", "User", Action{Kind: Press, Key: "Enter"})},
		{"space on a password form's button", "/hostile/login", on("button", "Sign in", Action{Kind: Press, Key: "Space"})},
		{"cyrillic look-alike", "/hostile/lookalike", on("button", "lete account", Action{Kind: Click})},
		{"zero-width inside a word", "/hostile/zerowidth", on("button", "uy now", Action{Kind: Click})},
		{"remove permanently", "/hostile/remove", on("button", "Remove account", Action{Kind: Click})},
		{"check that submits", "/hostile/plan", on("checkbox", "paid plan", Action{Kind: Check})},
		{"select that submits", "/hostile/premium", on("combobox", "Plan", Action{Kind: Select, Text: "Buy premium"})},
		{"script that posts", "/hostile/script", on("button", "Continue", Action{Kind: Click})},
		{"check that posts its form", "/hostile/autosubmit", on("checkbox", "Show archived", Action{Kind: Check})},
		{"select that submits a buy form", "/hostile/quantity", on("combobox", "Quantity", Action{Kind: Select, Text: "2"})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The cases run side by side: each wants no request at all,
			// so one that lets a request through fails, whichever made it.
			t.Parallel()
			before, beforeOther := actionHits(), len(otherHost.seen())
			res := runTask(t, Options{NewPlanner: scripted(c.step)}, Task{Goal: "look around", StartURL: testSite.url(c.path)})
			if res.Status != StatusAwaitingApproval || res.Approval == "" {
				t.Errorf("status %s (%s), want awaiting approval", res.Status, res.Reason)
			}
			if n := actionHits() - before; n != 0 {
				t.Errorf("%d requests reached the site's endpoints before approval", n)
			}
			if n := len(otherHost.seen()) - beforeOther; n != 0 {
				t.Errorf("%d requests reached the other host", n)
			}
		})
	}
}

// TestGateApproved: the step a run paused on runs once approved, and its
// request then reaches the site, once.
func TestGateApproved(t *testing.T) {
	for _, c := range []struct {
		path, endpoint string
		step           func(*Snapshot) Action
	}{
		{"/hostile/delete", "/hostile/do/delete", on("button", "Delete account", Action{Kind: Press, Key: "Enter"})},
		{"/hostile/script", "/hostile/do/save", on("button", "Continue", Action{Kind: Click})},
	} {
		before := testSite.hitCount(c.endpoint)
		opt := Options{NewPlanner: scripted(c.step, func(*Snapshot) Action { return Action{Kind: Finish, Answer: "done"} })}
		res := runTask(t, opt, Task{Goal: "do it", StartURL: testSite.url(c.path)})
		if res.Status != StatusAwaitingApproval || testSite.hitCount(c.endpoint) != before {
			t.Fatalf("%s: status %s, %d requests before approval", c.path, res.Status, testSite.hitCount(c.endpoint)-before)
		}
		res = runTask(t, opt, Task{Goal: "do it", StartURL: testSite.url(c.path), Prior: res.Steps, Approved: true})
		if res.Status != StatusDone {
			t.Errorf("%s: approved run %s (%s)", c.path, res.Status, res.Reason)
		}
		if n := testSite.hitCount(c.endpoint) - before; n != 1 {
			t.Errorf("%s: %d requests after approval, want 1", c.path, n)
		}
	}
}

// TestLeaveStoppedBeforeSent: a link, a script's request and a form to
// another host are stopped before anything is sent; the link and the form
// fail their steps, saying so.
func TestLeaveStoppedBeforeSent(t *testing.T) {
	t.Parallel()
	before := len(otherHost.seen())
	res := runTask(t, Options{NewPlanner: scripted(
		on("link", "Read more", Action{Kind: Click}),
		on("button", "Show sources", Action{Kind: Click}),
		on("button", "Look it up", Action{Kind: Click}),
		on("link", "Read more", Action{Kind: Press, Key: "Enter"}),
	)}, Task{Goal: "read the sources", StartURL: testSite.url("/hostile/leave")})
	if seen := otherHost.seen()[before:]; len(seen) != 0 {
		t.Fatalf("the other host got %v", seen)
	}
	if len(res.Steps) != 4 {
		t.Fatalf("%d steps, want 4 (%s: %s)", len(res.Steps), res.Status, res.Reason)
	}
	for _, i := range []int{0, 2, 3} {
		s := res.Steps[i]
		if s.Status != StepError || !strings.Contains(s.Error, "stopped before it was sent") {
			t.Errorf("step %d %s: %s %q", s.N, s.Action, s.Status, s.Error)
		}
	}
	if !strings.Contains(res.Steps[3].URL, "/hostile/leave") {
		t.Errorf("the run left the page: %s", res.Steps[3].URL)
	}
}

// TestFold: names are compared after NFKC, without invisible characters
// and with look-alike letters folded.
func TestFold(t *testing.T) {
	for _, name := range []string{
		"D\u0435lete account",    // Cyrillic е
		"B\u200buy now",          // zero-width space
		"Bu\u00ady now",          // soft hyphen
		"\uff22\uff55\uff59 now", // fullwidth
		"DeIete account",         // capital I for l
		"De1ete account",         // digit one for l
		"Su\u0431scribe",         // Cyrillic б is no b: not folded
		"Remove account permanently",
		"Ｓｕｂｓｃｒｉｂｅ to the paid plan",
		"Dèlete",
	} {
		want := !strings.Contains(name, "\u0431")
		if got := risky(name); got != want {
			t.Errorf("risky(%q) = %v (folded %q)", name, got, fold(name))
		}
	}
	for _, name := range []string{"Books", "Next", "Order by date", "Sort order", "Search", "Reject all", "Bookmarks"} {
		if risky(name) {
			t.Errorf("risky(%q) (folded %q)", name, fold(name))
		}
	}
}
