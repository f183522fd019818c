package agent

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/quarryhq/quarry/text"
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
				return expected(v, a, after)
			}
			return expected(Verdict{Undecided: true, Reason: "nothing on the page changed"}, a, after)
		}
		v.Progress = urlChanged || before.Summary != after.Summary || sim < similarityFloor
	case Scroll:
		if a.Element > 0 {
			// A container: its own position must move; new text in view
			// or new elements are progress.
			b, e := before.Element(a.Element), sameElement(before, after, a.Element)
			if b == nil || e == nil || len(b.Scroll) != 3 || len(e.Scroll) != 3 || b.Scroll[0] == e.Scroll[0] {
				v.OK, v.Reason = false, "the container did not scroll (at its end, or not scrollable?)"
				return expected(v, a, after)
			}
			v.Progress = before.viewText != after.viewText || sim < 1
			break
		}
		v.Progress = before.Summary != after.Summary || sim < 1
		if before.ScrollY == after.ScrollY && !v.Progress {
			v.OK, v.Reason = false, "the page did not scroll (at its end?)"
		}
	case Extract:
		v.Progress = true
	case WaitFor:
		v.Progress = changed
	}
	return expected(v, a, after)
}

// expected settles a verdict the other checks left open or passed by the
// step's expected outcome, when that names something the snapshot can
// show: an element (`role "name"`) or a text (`"text"`). Met — the
// element is visible, in the viewport and not covered, or the text is in
// the viewport's uncovered text — the step worked and the model is not
// asked; covered, it did not; absent or off screen, the model decides.
// An expectation in prose ("a results page") is left to the other checks.
func expected(v Verdict, a Action, after *Snapshot) Verdict {
	exp, ok := parseExpect(a.Expect)
	if !ok || !v.OK && !v.Undecided {
		return v
	}
	met, covered, why := exp.visibleIn(after)
	switch {
	case met:
		v.OK, v.Undecided, v.Progress, v.Reason = true, false, true, ""
		if !strings.HasPrefix(v.Replan, "the page moved to another site") {
			v.Replan = "" // the change was the one expected
		}
	case covered:
		v.OK, v.Undecided, v.Progress = false, false, false
		v.Reason = fmt.Sprintf("the expected %s is %s", exp, why)
		v.Replan = "something covers what the step expected to see"
	default:
		v.OK, v.Undecided, v.Progress = false, true, false
		v.Reason = fmt.Sprintf("the expected %s is %s", exp, why)
	}
	return v
}

// expectation is a checkable expected outcome: an element by role and
// (part of its) name, or a text.
type expectation struct {
	role, name, text string
}

func (x expectation) String() string {
	if x.role != "" {
		return fmt.Sprintf("%s %q", x.role, x.name)
	}
	return fmt.Sprintf("text %q", x.text)
}

// expectElement is `role "name"`; expectText is `"text"` (straight or
// typographic quotes), optionally after "text:".
var (
	expectElement = regexp.MustCompile(`^([a-z]+)\s*[:=]?\s*["“'](.+)["”']$`)
	expectText    = regexp.MustCompile(`^(?:text\s*:\s*)?["“](.+)["”]$`)
)

// parseExpect reads a checkable expectation; false for prose.
func parseExpect(s string) (expectation, bool) {
	s = strings.TrimSpace(s)
	if len(s) > maxActionText {
		return expectation{}, false
	}
	if m := expectElement.FindStringSubmatch(s); m != nil && (interactiveRoles[m[1]] || landmarkRoles[m[1]]) {
		return expectation{role: m[1], name: strings.TrimSpace(m[2])}, true
	}
	if m := expectText.FindStringSubmatch(s); m != nil && strings.TrimSpace(m[1]) != "" {
		return expectation{text: strings.TrimSpace(m[1])}, true
	}
	return expectation{}, false
}

// visibleIn reports whether the expectation shows in s, and if not, why
// ("not on the page", "off screen", "covered by another element"):
// covered only for an element the snapshot knows is under another.
func (x expectation) visibleIn(s *Snapshot) (met, covered bool, why string) {
	fold := func(hay, needle string) bool {
		return strings.Contains(strings.ToLower(text.OneLine(hay)), strings.ToLower(text.OneLine(needle)))
	}
	why = "not on the page"
	if x.role != "" {
		for _, e := range s.Elements {
			if e.Role != x.role || !fold(e.Name, x.name) {
				continue
			}
			switch {
			case e.Visible && e.InView && !e.Covered:
				return true, false, ""
			case e.Covered:
				covered, why = true, "covered by another element"
			case !covered:
				why = "off screen"
			}
		}
		return false, covered, why
	}
	if fold(s.viewText, x.text) {
		return true, false, ""
	}
	for _, e := range s.Elements {
		if e.Visible && e.InView && !e.Covered && (fold(e.Name, x.text) || fold(e.Value, x.text)) {
			return true, false, ""
		}
	}
	if fold(s.mainText, x.text) || fold(s.Summary, x.text) {
		why = "on the page but not in view (off screen, or under another element)"
	}
	return false, false, why
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
