package agent

import (
	"strings"
	"testing"
)

// TestScrollContainer: a list that scrolls inside the page (overflow:
// auto, not the page) is in the element tree as a scrollable; scrolling
// it by its height moves it, not the page, and brings in the entries it
// adds only when scrolled; the page scroll would not.
func TestScrollContainer(t *testing.T) {
	t.Parallel()
	_, snap := open(t, "/scrollbox")
	var box *Element
	for i := range snap.Elements {
		if e := &snap.Elements[i]; e.Role == "scrollable" {
			box = e
		}
	}
	if box == nil || len(box.Scroll) != 3 || box.Scroll[0] != 0 || !strings.Contains(box.Name, "Entry 1") {
		t.Fatalf("no scrollable list in\n%s", snap.Text())
	}
	if !strings.Contains(snap.Text(), "scroll=0/") {
		t.Errorf("the tree does not show the list's scroll position:\n%s", snap.Text())
	}
	if strings.Contains(snap.mainText, "Entry 25") {
		t.Fatal("entry 25 is on the page before any scroll")
	}
	res := runTask(t, Options{MaxSteps: 12, NewPlanner: planner(func(v View) []Action {
		if strings.Contains(v.Snap.viewText, "Entry 25") {
			return []Action{{Kind: Finish, Answer: "entry 25 found"}}
		}
		for _, e := range v.Snap.Elements {
			if e.Role == "scrollable" {
				return []Action{{Kind: Scroll, Element: e.ID}}
			}
		}
		return []Action{{Kind: Fail, Reason: "no scrollable container"}}
	})}, Task{StartURL: testSite.url("/scrollbox"), Goal: "find entry 25"})
	if res.Status != StatusDone {
		t.Fatalf("status %s (%s) after %d steps", res.Status, res.Reason, len(res.Steps))
	}
	for _, s := range res.Steps {
		if s.Action.Kind != Scroll || s.Status != StepSuccess {
			t.Errorf("step %d: %s %s (%s)", s.N, s.Action, s.Status, s.Error)
		}
	}
	if n := len(res.Steps); n < 3 || n > 8 {
		t.Errorf("%d scrolls to reach entry 25 (30 px each, a 200 px box)", n)
	}
	t.Logf("steps: %d", len(res.Steps))

	// The page itself does not scroll: scrolling it changes nothing.
	page := runTask(t, Options{MaxSteps: 3, NewPlanner: planner(func(v View) []Action {
		return []Action{{Kind: Scroll}}
	})}, Task{StartURL: testSite.url("/scrollbox"), Goal: "find entry 25"})
	for _, s := range page.Steps {
		if s.Status == StepSuccess {
			t.Errorf("a page scroll on a page that does not scroll succeeded: step %d", s.N)
		}
	}
}
