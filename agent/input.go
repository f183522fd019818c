package agent

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
)

// Input is sent as plain CDP calls on the page bound to the action's
// context, so the per-action timeout bounds every call (and nothing waits
// on a context of the tab's creation).

// node is an element of the page by its backend node id.
type node struct {
	page *rod.Page
	id   proto.DOMBackendNodeID
}

// object resolves the node to a JavaScript object of its frame.
func (n node) object() (proto.RuntimeRemoteObjectID, error) {
	res, err := proto.DOMResolveNode{BackendNodeID: n.id}.Call(n.page)
	if err != nil || res.Object == nil || res.Object.ObjectID == "" {
		return "", fmt.Errorf("%w: the node has left the page", ErrStaleElement)
	}
	return res.Object.ObjectID, nil
}

// call runs fn (a function declaration using this) on the node and
// decodes its JSON result into out (when out is not nil).
func (n node) call(fn string, out any, args ...any) error {
	obj, err := n.object()
	if err != nil {
		return err
	}
	var cargs []*proto.RuntimeCallArgument
	for _, a := range args {
		cargs = append(cargs, &proto.RuntimeCallArgument{Value: gson.New(a)})
	}
	res, err := proto.RuntimeCallFunctionOn{FunctionDeclaration: fn, ObjectID: obj, Arguments: cargs, ReturnByValue: true, AwaitPromise: true, UserGesture: true}.Call(n.page)
	if err != nil {
		return err
	}
	return decodeResult(res.Result, res.ExceptionDetails, out)
}

// decodeResult turns a script's result into out (when not nil), or its
// exception into an error.
func decodeResult(result *proto.RuntimeRemoteObject, exc *proto.RuntimeExceptionDetails, out any) error {
	if exc != nil {
		return errors.New(exc.Text)
	}
	if out != nil {
		return json.Unmarshal([]byte(result.Value.JSON("", "")), out)
	}
	return nil
}

// center scrolls the node into view and returns the centre of its first
// box, in the main frame's viewport.
func (n node) center() (float64, float64, error) {
	_ = proto.DOMScrollIntoViewIfNeeded{BackendNodeID: n.id}.Call(n.page)
	q, err := proto.DOMGetContentQuads{BackendNodeID: n.id}.Call(n.page)
	if err != nil || len(q.Quads) == 0 || len(q.Quads[0]) < 8 {
		return 0, 0, errors.New("the element has no box on screen")
	}
	quad := q.Quads[0]
	x := (quad[0] + quad[2] + quad[4] + quad[6]) / 4
	y := (quad[1] + quad[3] + quad[5] + quad[7]) / 4
	return x, y, nil
}

func (n node) hover() error {
	x, y, err := n.center()
	if err != nil {
		return err
	}
	return proto.InputDispatchMouseEvent{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: x, Y: y}.Call(n.page)
}

func (n node) click() error {
	x, y, err := n.center()
	if err != nil {
		return err
	}
	for _, t := range []proto.InputDispatchMouseEventType{proto.InputDispatchMouseEventTypeMouseMoved, proto.InputDispatchMouseEventTypeMousePressed, proto.InputDispatchMouseEventTypeMouseReleased} {
		ev := proto.InputDispatchMouseEvent{Type: t, X: x, Y: y}
		if t != proto.InputDispatchMouseEventTypeMouseMoved {
			ev.Button, ev.ClickCount = proto.InputMouseButtonLeft, 1
		}
		if err := ev.Call(n.page); err != nil {
			return err
		}
	}
	return nil
}

func (n node) focus() error {
	_ = proto.DOMScrollIntoViewIfNeeded{BackendNodeID: n.id}.Call(n.page)
	return proto.DOMFocus{BackendNodeID: n.id}.Call(n.page)
}

// replaceText focuses the field, selects what it holds and inserts text
// as typing would, then fires change.
func (n node) replaceText(text string) error {
	if err := n.focus(); err != nil {
		return err
	}
	if err := n.call(`function() { if (this.select) this.select(); else { const r = document.createRange(); r.selectNodeContents(this); const s = getSelection(); s.removeAllRanges(); s.addRange(r); } }`, nil); err != nil {
		return err
	}
	if text == "" {
		return pressKey(n.page, input.Backspace)
	}
	if err := (proto.InputInsertText{Text: text}).Call(n.page); err != nil {
		return err
	}
	return n.call(`function() { this.dispatchEvent(new Event('change', {bubbles: true})); }`, nil)
}

// pressKey presses and releases k on the focused element.
func pressKey(p *rod.Page, k input.Key) error {
	if err := k.Encode(proto.InputDispatchKeyEventTypeKeyDown, 0).Call(p); err != nil {
		return err
	}
	return k.Encode(proto.InputDispatchKeyEventTypeKeyUp, 0).Call(p)
}

// eval evaluates a JavaScript expression in the page's main frame.
func eval(p *rod.Page, expr string, out any) error {
	res, err := proto.RuntimeEvaluate{Expression: expr, ReturnByValue: true, AwaitPromise: true}.Call(p)
	if err != nil {
		return err
	}
	return decodeResult(res.Result, res.ExceptionDetails, out)
}

// back goes one entry back in the tab's history.
func back(p *rod.Page) error {
	h, err := proto.PageGetNavigationHistory{}.Call(p)
	if err != nil {
		return err
	}
	if h.CurrentIndex < 1 {
		return errors.New("no page to go back to")
	}
	return proto.PageNavigateToHistoryEntry{EntryID: h.Entries[h.CurrentIndex-1].ID}.Call(p)
}
