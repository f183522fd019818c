package agent

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/quarryhq/quarry/text"
)

// Kind is an atomic action's name.
type Kind string

// The atomic actions: one per step, each on at most one element.
const (
	Navigate Kind = "navigate"
	Back     Kind = "back"
	Click    Kind = "click"
	Type     Kind = "type"
	Select   Kind = "select"
	Check    Kind = "check"
	Uncheck  Kind = "uncheck"
	Press    Kind = "press"
	Scroll   Kind = "scroll"
	Hover    Kind = "hover"
	WaitFor  Kind = "wait_for"
	Extract  Kind = "extract"
	Finish   Kind = "finish"
	Fail     Kind = "fail"
)

// kinds lists the actions and whether each needs an element.
var kinds = map[Kind]bool{
	Navigate: false, Back: false, Click: true, Type: true, Select: true, Check: true, Uncheck: true,
	Press: false, Scroll: false, Hover: true, WaitFor: false, Extract: false, Finish: false, Fail: false,
}

// keys are the keys press accepts.
var keys = map[string]input.Key{
	"Enter": input.Enter, "Tab": input.Tab, "Escape": input.Escape, "ArrowDown": input.ArrowDown,
	"ArrowUp": input.ArrowUp, "ArrowLeft": input.ArrowLeft, "ArrowRight": input.ArrowRight,
	"PageDown": input.PageDown, "PageUp": input.PageUp, "Space": input.Space,
}

// Action is one atomic browser action. Element is an id of the snapshot
// the action was refined on.
type Action struct {
	Kind    Kind   `json:"kind"`
	Element int    `json:"element,omitempty"`
	Text    string `json:"text,omitempty"` // type: the text; select: the option; wait_for: the text awaited
	URL     string `json:"url,omitempty"`  // navigate
	Key     string `json:"key,omitempty"`  // press
	Up      bool   `json:"up,omitempty"`   // scroll up instead of down
	Answer  string `json:"answer,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Expect is what the step should lead to, in words (for the record
	// and a model's verification).
	Expect string `json:"expect,omitempty"`
}

const maxActionText = 500

// Validate checks an action's fields, naming the field at fault.
func (a Action) Validate() error {
	needsEl, ok := kinds[a.Kind]
	if !ok {
		return fmt.Errorf("action kind %q is not one of navigate, back, click, type, select, check, uncheck, press, scroll, hover, wait_for, extract, finish, fail", a.Kind)
	}
	if needsEl && a.Element <= 0 {
		return fmt.Errorf("action %s: element is required", a.Kind)
	}
	if len(a.Text) > maxActionText || len(a.Answer) > 20*maxActionText || len(a.Reason) > maxActionText {
		return fmt.Errorf("action %s: text too long", a.Kind)
	}
	switch a.Kind {
	case Navigate:
		u, err := url.Parse(a.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("action navigate: url %q is not an http(s) URL", a.URL)
		}
	case Press:
		if _, ok := keys[a.Key]; !ok {
			return fmt.Errorf("action press: key %q is not one of Enter, Tab, Escape, arrows, PageUp/PageDown, Space", a.Key)
		}
	case Select, WaitFor:
		if strings.TrimSpace(a.Text) == "" {
			return fmt.Errorf("action %s: text is required", a.Kind)
		}
	}
	return nil
}

// SideEffect reports whether running a twice could change something on
// the site twice (a submission, a click): a resumed run never repeats
// such an action unasked.
func (a Action) SideEffect() bool { return a.Activates() }

// String is the action in a few words, for the record.
func (a Action) String() string {
	var b strings.Builder
	b.WriteString(string(a.Kind))
	if a.Element > 0 {
		fmt.Fprintf(&b, " [%d]", a.Element)
	}
	switch {
	case a.URL != "":
		b.WriteString(" " + a.URL)
	case a.Key != "":
		b.WriteString(" " + a.Key)
	case a.Text != "":
		fmt.Fprintf(&b, " %q", text.Clip(a.Text, 60))
	case a.Reason != "":
		b.WriteString(": " + text.Clip(a.Reason, 80))
	}
	return b.String()
}

// Split turns what a model proposed as one step ("fill X and click Y")
// into atomic actions, in order, dropping anything after a terminal one.
// Each is validated; the first invalid one ends the list with its error.
func Split(proposed []Action) ([]Action, error) {
	var out []Action
	for _, a := range proposed {
		if err := a.Validate(); err != nil {
			return out, err
		}
		out = append(out, a)
		if a.Kind == Finish || a.Kind == Fail {
			break
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no action proposed")
	}
	return out, nil
}

// element resolves id in the latest snapshot: an id of an older
// snapshot, or one whose node has left the page, is refused.
func (r *Run) element(page *rod.Page, id int) (node, *Element, error) {
	e := r.snap.Element(id)
	if e == nil {
		return node{}, nil, fmt.Errorf("%w: %d is not in snapshot %d", ErrStaleElement, id, r.snap.Seq)
	}
	n := node{page: page, id: e.backend}
	if _, err := n.object(); err != nil {
		return node{}, nil, fmt.Errorf("%w: [%d] %s %q has left the page", ErrStaleElement, id, e.Role, e.Name)
	}
	return n, e, nil
}

// waitForMax bounds wait_for.
const waitForMax = 10 * time.Second

// execute runs one validated action within the per-action timeout. It
// does not verify; the loop does.
func (r *Run) execute(ctx context.Context, a Action) error {
	ctx, cancel := context.WithTimeout(ctx, r.opt.ActionTimeout)
	defer cancel()
	page := r.sess.Page(ctx)
	switch a.Kind {
	case Navigate:
		if err := r.allowed(a.URL); err != nil {
			return err
		}
		_, err := r.sess.Navigate(ctx, a.URL)
		return err
	case Back:
		if err := back(page); err != nil {
			return fmt.Errorf("back: %w", err)
		}
		r.sess.Settle(ctx, settleAfter)
		return nil
	case Extract, Finish, Fail:
		return nil // the loop handles them
	case WaitFor:
		return r.waitFor(ctx, a.Text)
	case Scroll:
		sign := 1
		if a.Up {
			sign = -1
		}
		if a.Element > 0 {
			n, _, err := r.element(page, a.Element)
			if err != nil {
				return err
			}
			if err := n.call(`function(s) { this.scrollBy({top: s * Math.max(this.clientHeight * 0.9, 100), behavior: 'instant'}); }`, nil, sign); err != nil {
				return err
			}
		} else if err := eval(page, fmt.Sprintf("window.scrollBy({top: %d * window.innerHeight * 0.9, behavior: 'instant'})", sign), nil); err != nil {
			return err
		}
		r.sess.Settle(ctx, settleAfter) // content loaded on scroll
		return nil
	case Press:
		if a.Element > 0 {
			n, _, err := r.element(page, a.Element)
			if err != nil {
				return err
			}
			if err := n.focus(); err != nil {
				return fmt.Errorf("press: focus: %w", err)
			}
		}
		if err := pressKey(page, keys[a.Key]); err != nil {
			return fmt.Errorf("press %s: %w", a.Key, err)
		}
		r.sess.Settle(ctx, settleAfter)
		return nil
	}

	n, e, err := r.element(page, a.Element)
	if err != nil {
		return err
	}
	switch a.Kind {
	case Click, Check, Uncheck:
		if a.Kind == Check && e.Has("checked") || a.Kind == Uncheck && !e.Has("checked") {
			return nil
		}
		if e.Covered {
			return fmt.Errorf("click [%d] %q: it is covered by another element", e.ID, e.Name)
		}
		if e.Has("disabled") {
			return fmt.Errorf("click [%d] %q: it is disabled", e.ID, e.Name)
		}
		if err := n.click(); err != nil {
			return fmt.Errorf("click [%d] %q: %w", e.ID, e.Name, err)
		}
		r.sess.Settle(ctx, settleAfter)
	case Type:
		if err := n.replaceText(a.Text); err != nil {
			return fmt.Errorf("type into [%d] %q: %w", e.ID, e.Name, err)
		}
	case Select:
		var ok bool
		if err := n.call(selectJS, &ok, a.Text); err != nil {
			return fmt.Errorf("select in [%d] %q: %w", e.ID, e.Name, err)
		}
		if !ok {
			return fmt.Errorf("select in [%d] %q: no option %q", e.ID, e.Name, a.Text)
		}
		r.sess.Settle(ctx, settleAfter)
	case Hover:
		if err := n.hover(); err != nil {
			return fmt.Errorf("hover [%d] %q: %w", e.ID, e.Name, err)
		}
	}
	return nil
}

// settleAfter bounds the wait for the page after an input that may have
// started a navigation or a request.
const settleAfter = 5 * time.Second

// selectJS picks an option of a <select> by label or value (exact first,
// then a case-insensitive prefix) and fires the events a page listens to.
const selectJS = `function(want) {
  if (this.tagName !== 'SELECT') return false;
  const w = want.trim().toLowerCase();
  const opts = Array.from(this.options);
  const o = opts.find(o => o.label.trim().toLowerCase() === w || o.value.toLowerCase() === w) ||
            opts.find(o => o.label.trim().toLowerCase().startsWith(w));
  if (!o) return false;
  this.value = o.value;
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return true;
}`

// waitFor polls the page's text, including same-origin frames, for want.
func (r *Run) waitFor(ctx context.Context, want string) error {
	ctx, cancel := context.WithTimeout(ctx, waitForMax)
	defer cancel()
	want = strings.ToLower(strings.TrimSpace(want))
	for {
		var body string
		err := eval(r.sess.Page(ctx), `(() => {
  let t = document.body ? document.body.innerText : '';
  for (const f of document.querySelectorAll('iframe')) { try { t += '\n' + f.contentDocument.body.innerText; } catch (e) {} }
  return t.toLowerCase();
})()`, &body)
		if err == nil && strings.Contains(body, want) {
			return nil
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return fmt.Errorf("wait_for %q: not on the page within %s", want, waitForMax)
		}
	}
}
