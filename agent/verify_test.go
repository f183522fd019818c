package agent

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestParseExpect(t *testing.T) {
	cases := []struct {
		in   string
		want expectation
		ok   bool
	}{
		{`heading "Results"`, expectation{role: "heading", name: "Results"}, true},
		{`button: “Load more”`, expectation{role: "button", name: "Load more"}, true},
		{`"412 mm"`, expectation{text: "412 mm"}, true},
		{`text: "Thank you"`, expectation{text: "Thank you"}, true},
		{`a results page`, expectation{}, false},
		{`more results`, expectation{}, false},
		{`picture "x"`, expectation{}, false}, // not a role the tree knows
		{`""`, expectation{}, false},
	}
	for _, c := range cases {
		got, ok := parseExpect(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("parseExpect(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestCheckExpected: the expected outcome decides a verdict on the
// after-snapshot alone when it names an element or a text.
func TestCheckExpected(t *testing.T) {
	snap := func(view string, els ...Element) *Snapshot {
		for i := range els {
			els[i].ID = i + 1
			els[i].backend = 0
		}
		return &Snapshot{URL: "http://a.test/", Elements: els, viewText: view, mainText: view + " The footer says 412 mm."}
	}
	btn := Element{Role: "button", Name: "Show details", Visible: true, InView: true}
	before := snap("Inner report", btn)
	cases := []struct {
		name      string
		after     *Snapshot
		expect    string
		ok, undec bool
		reason    string
	}{
		// The page looks the same to the element tree: without an
		// expectation the model would be asked.
		{"no expectation", snap("Inner report", btn), "", false, true, "nothing on the page changed"},
		{"prose expectation", snap("Inner report", btn), "the details show", false, true, "nothing on the page changed"},
		{"text in view", snap("Inner report Details: the gauge read 412 mm.", btn), `"412 mm"`, true, false, ""},
		{"text off screen", snap("Inner report", btn), `"412 mm"`, false, true, "not in view"},
		{"text absent", snap("Inner report", btn), `"999 mm"`, false, true, "not on the page"},
		{"element visible", snap("x", btn, Element{Role: "heading", Name: "Details", Visible: true, InView: true}), `heading "Details"`, true, false, ""},
		{"element covered", snap("x", btn, Element{Role: "heading", Name: "Details", Visible: true, InView: true, Covered: true}), `heading "Details"`, false, false, "covered"},
		{"element off screen", snap("x", btn, Element{Role: "heading", Name: "Details", Visible: true}), `heading "Details"`, false, true, "off screen"},
	}
	for _, c := range cases {
		a := Action{Kind: Click, Element: 1, Expect: c.expect}
		v := check(a, before, c.after, nil)
		if v.OK != c.ok || v.Undecided != c.undec || !strings.Contains(v.Reason, c.reason) {
			t.Errorf("%s: verdict %+v, want ok=%v undecided=%v reason ~%q", c.name, v, c.ok, c.undec, c.reason)
		}
		if v.OK && !v.Progress {
			t.Errorf("%s: the expected outcome was met but counts as no progress", c.name)
		}
	}
	// An error the page reports outranks a met expectation.
	alert := snap("Saved 412 mm", btn, Element{Role: "alert", Name: "Year must be four digits", Visible: true, InView: true})
	if v := check(Action{Kind: Click, Element: 1, Expect: `"412 mm"`}, before, alert, nil); v.OK {
		t.Errorf("an alert with the expected text met: %+v", v)
	}
}

// TestCheckExpectedInChromium: the expected element or text is checked on
// real pages: a text that appears inside an iframe settles a click the
// element tree cannot tell from a no-op; a heading under a consent
// overlay is covered until the overlay is dismissed.
func TestCheckExpectedInChromium(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	step := func(r *Run, a Action) Verdict {
		t.Helper()
		before := r.snap
		err := r.execute(ctx, a)
		if oerr := r.observe(ctx); oerr != nil {
			t.Fatal(oerr)
		}
		return check(a, before, r.snap, err)
	}

	sess, snap := open(t, "/framed")
	r := &Run{sess: sess, snap: snap, opt: Options{ActionTimeout: 10 * time.Second}}
	show := find(snap, "button", "Show details")
	if show == nil {
		t.Fatalf("no Show details button in\n%s", snap.Text())
	}
	if v := check(Action{Kind: Click, Element: show.ID, Expect: `"412 mm"`}, snap, snap, nil); v.OK {
		t.Fatalf("the text is met before the click: %+v", v)
	}
	v := step(r, Action{Kind: Click, Element: show.ID, Expect: `"412 mm"`})
	if !v.OK || v.Undecided || !v.Progress {
		t.Errorf("the click that showed the expected text in the frame: %+v", v)
	}

	sess, snap = open(t, "/consent")
	r = &Run{sess: sess, snap: snap, opt: Options{ActionTimeout: 10 * time.Second}}
	reject := find(snap, "button", "Reject all")
	v = step(r, Action{Kind: Hover, Element: reject.ID, Expect: `heading "Station report"`})
	if v.OK || v.Undecided || !strings.Contains(v.Reason, "covered") {
		t.Errorf("the heading under the overlay: %+v, want covered", v)
	}
	v = step(r, Action{Kind: Hover, Element: find(r.snap, "button", "Reject all").ID, Expect: `"measured rainfall of each valley"`})
	if v.OK || !v.Undecided {
		t.Errorf("the article's text under the overlay: %+v, want not in view", v)
	}
	v = step(r, Action{Kind: Click, Element: find(r.snap, "button", "Reject all").ID, Expect: `heading "Station report"`})
	if !v.OK || !v.Progress {
		t.Errorf("after dismissing the overlay: %+v", v)
	}
	if met, _, why := (expectation{text: "measured rainfall of each valley"}).visibleIn(r.snap); !met {
		t.Errorf("the article's text is not in view once the overlay is gone: %s", why)
	}
}
