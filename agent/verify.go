package agent

import (
	"errors"
	"fmt"
	"net/url"
)

// Verdict is the outcome of one action's verification.
type Verdict struct {
	OK bool
	// Progress is true when the action brought the run closer to its goal
	// (a new page, new content, a source, a field now holding its value).
	Progress bool
	// Reason says what went wrong when !OK.
	Reason string
	// Replan says why the page is not what the plan expected.
	Replan string
	// Undecided asks the planner (a model) to decide.
	Undecided bool
}

// similarityFloor is the element-signature similarity under which a page
// counts as structurally different (re-plan).
const similarityFloor = 0.7

// check verifies an action by deterministic rules: the value is set, the
// state flipped, the URL or the DOM changed, no error appeared.
func check(a Action, before, after *Snapshot, err error) Verdict {
	if err != nil {
		v := Verdict{Reason: err.Error()}
		if errors.Is(err, ErrStaleElement) {
			v.Replan = "an element the plan relied on is gone"
		}
		return v
	}
	v := Verdict{OK: true}
	sim := similarity(before, after)
	urlChanged := before.URL != after.URL
	switch {
	case urlChanged && !sameSite(before.URL, after.URL):
		v.Replan = "the page moved to another site: " + after.URL
	case sim < similarityFloor:
		v.Replan = fmt.Sprintf("the page changed structurally (similarity %.2f)", sim)
	case len(after.Dialogs) > len(before.Dialogs):
		v.Replan = "a dialog opened"
	}
	if alert := newAlert(before, after); alert != "" {
		v.Reason, v.Replan = "the page reports an error: "+alert, "an error message appeared"
		v.OK = false
		return v
	}
	changed := urlChanged || sim < 1 || before.Summary != after.Summary || before.ScrollY != after.ScrollY
	switch a.Kind {
	case Type:
		e := sameElement(before, after, a.Element)
		if e == nil || e.Value != clip(a.Text) && a.Text != "" {
			v.OK, v.Reason = false, fmt.Sprintf("the field does not hold %q after typing", a.Text)
			return v
		}
		v.Progress = true
	case Select:
		e := sameElement(before, after, a.Element)
		v.Progress = e != nil && e.Value != ""
	case Check, Uncheck:
		e := sameElement(before, after, a.Element)
		if e == nil || e.Has("checked") != (a.Kind == Check) {
			v.OK, v.Reason = false, "the box did not change state"
			return v
		}
		v.Progress = true
	case Click, Press, Navigate, Back:
		if !changed {
			if a.Kind == Press && a.Key != "Enter" {
				return v
			}
			return Verdict{Undecided: true, Reason: "nothing on the page changed"}
		}
		v.Progress = urlChanged || before.Summary != after.Summary || sim < similarityFloor
	case Scroll:
		v.Progress = before.Summary != after.Summary || sim < 1
		if before.ScrollY == after.ScrollY && !v.Progress {
			v.OK, v.Reason = false, "the page did not scroll (at its end?)"
		}
	case Extract:
		v.Progress = true
	case WaitFor:
		v.Progress = changed
	}
	return v
}

// sameElement finds the element of before's id in after by role and name.
func sameElement(before, after *Snapshot, id int) *Element {
	b := before.Element(id)
	if b == nil {
		return nil
	}
	for i := range after.Elements {
		if e := &after.Elements[i]; e.backend == b.backend {
			return e
		}
	}
	return nil
}

// newAlert is the message of an alert, or else the name of an invalid
// field, that appeared with the action.
func newAlert(before, after *Snapshot) string {
	had := map[string]bool{}
	for _, e := range before.Elements {
		if e.Role == "alert" || e.Has("invalid") {
			had[e.Role+e.Name] = true
		}
	}
	field := ""
	for _, e := range after.Elements {
		if had[e.Role+e.Name] || !e.Visible {
			continue
		}
		switch {
		case e.Role == "alert" && e.Name != "":
			return e.Name
		case e.Role == "alert" || e.Has("invalid"):
			if field == "" {
				field = e.Role + " " + e.Name
			}
		}
	}
	return field
}

// similarity is the Jaccard similarity of the two snapshots' element
// signatures (role and name).
func similarity(a, b *Snapshot) float64 {
	sa, sb := signatures(a), signatures(b)
	if len(sa) == 0 && len(sb) == 0 {
		return 1
	}
	inter := 0
	for k := range sa {
		if sb[k] {
			inter++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}

func signatures(s *Snapshot) map[string]bool {
	out := map[string]bool{}
	for _, e := range s.Elements {
		out[e.Role+"\x00"+e.Name] = true
	}
	return out
}

func sameSite(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Host == ub.Host
}
