// Package agent is the site agent: it uses a web site one verified atomic
// action at a time. It observes the page as a compact element tree built
// from Chromium's accessibility tree and DOM, plans (by rule, or through a
// model), refines each step into one action on one element, executes it
// in a browser session of its own, verifies the result and re-plans when
// the page is not what it expected. Safety rules (the sensitive-action
// gate, the domain allowlist, page text as data) are enforced here in
// code, whatever a planner proposes.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/quarryhq/quarry/text"
)

const (
	// maxElements bounds the element tree: controls first, then links.
	maxElements = 120
	// maxCandidates bounds the nodes of one frame whose DOM is read (one
	// CDP call each), so a page of thousands of links stays quick.
	maxCandidates = 600
	// maxNameRunes clips an accessible name or a value in the tree.
	maxNameRunes = 80
	// summaryRunes is the length of the main-text summary.
	summaryRunes = 300
)

// ErrStaleElement is returned for an element id that does not belong to
// the current snapshot or whose node has left the page: ids are never
// guessed across snapshots.
var ErrStaleElement = errors.New("stale element id")

// Element is one interactive or landmark element of a snapshot.
type Element struct {
	ID    int    `json:"id"`
	Role  string `json:"role"`
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
	// State lists what is true of the element: disabled, checked,
	// expanded, selected, focused, required, invalid.
	State   []string `json:"state,omitempty"`
	Frame   int      `json:"frame,omitempty"` // 0 is the main frame
	InView  bool     `json:"in_view"`
	Covered bool     `json:"covered,omitempty"`
	Level   int      `json:"level,omitempty"` // headings
	// Scroll is a scrollable container's position: [top, height, visible
	// height] in CSS pixels (nil when the element does not scroll).
	Scroll []int `json:"scroll,omitempty"`

	// From the DOM, for the rules (not shown to a model).
	Tag          string   `json:"-"`
	Type         string   `json:"-"` // input type
	NameAttr     string   `json:"-"`
	Placeholder  string   `json:"-"`
	Autocomplete string   `json:"-"`
	Form         int      `json:"-"` // form number in the snapshot, -1 outside a form
	FormMethod   string   `json:"-"` // get, post or dialog: the element's own formmethod, else its form's
	FormAction   string   `json:"-"` // the absolute URL the element's form submits to
	Options      []string `json:"-"` // a select's option labels
	InDialog     bool     `json:"-"`
	Visible      bool     `json:"-"`

	backend proto.DOMBackendNodeID
}

// Has reports whether the element is in state s.
func (e *Element) Has(s string) bool {
	for _, x := range e.State {
		if x == s {
			return true
		}
	}
	return false
}

// Snapshot is what the agent sees of a page at one moment.
type Snapshot struct {
	Seq      int64     `json:"seq"`
	URL      string    `json:"url"`
	Title    string    `json:"title"`
	Lang     string    `json:"lang,omitempty"`
	ScrollY  int       `json:"scroll_y"`
	Height   int       `json:"height"`   // document height
	Viewport int       `json:"viewport"` // viewport height
	Dialogs  []string  `json:"dialogs,omitempty"`
	Summary  string    `json:"summary"` // main text, untrusted
	Elements []Element `json:"elements"`
	// Omitted counts elements left out past maxElements.
	Omitted int `json:"omitted,omitempty"`

	// For the deterministic checks, not shown to a model: the main text
	// (up to 2,000 characters) and the text in the viewport that nothing
	// covers, same-origin frames included (up to 4,000).
	mainText, viewText string
}

// Element returns the element with id, or nil.
func (s *Snapshot) Element(id int) *Element {
	if s == nil || id < 1 || id > len(s.Elements) {
		return nil
	}
	return &s.Elements[id-1]
}

// snapshotSeq numbers snapshots process-wide, so an id from any earlier
// snapshot is recognisably stale.
var snapshotSeq atomic.Int64

// interactive roles are elements an action can target; landmark roles
// orient the planner.
var (
	interactiveRoles = map[string]bool{
		"button": true, "link": true, "textbox": true, "searchbox": true, "combobox": true,
		"checkbox": true, "radio": true, "switch": true, "menuitem": true, "menuitemcheckbox": true,
		"menuitemradio": true, "tab": true, "slider": true, "spinbutton": true, "listbox": true,
		"option": true, "treeitem": true,
	}
	landmarkRoles = map[string]bool{
		"dialog": true, "alertdialog": true, "alert": true, "search": true, "form": true,
		"main": true, "navigation": true, "heading": true, "status": true,
	}
)

// Observe builds the snapshot of the session's current page: the
// accessibility tree of the main frame and of each same-origin frame
// (open shadow roots are part of it), joined with what only the DOM and
// the layout know (input types, forms, in-viewport, covered).
func Observe(ctx context.Context, page *rod.Page) (*Snapshot, error) {
	p := page.Context(ctx)
	snap := &Snapshot{Seq: snapshotSeq.Add(1)}
	if err := pageInfo(p, snap); err != nil {
		return nil, err
	}
	tree, err := proto.PageGetFrameTree{}.Call(p)
	if err != nil {
		return nil, fmt.Errorf("observe: frame tree: %w", err)
	}
	frames := []proto.PageFrameID{tree.FrameTree.Frame.ID}
	var walk func(ft *proto.PageFrameTree)
	walk = func(ft *proto.PageFrameTree) {
		for _, c := range ft.ChildFrames {
			frames = append(frames, c.Frame.ID)
			walk(c)
		}
	}
	walk(tree.FrameTree)

	var all []Element
	seen := map[proto.DOMBackendNodeID]bool{}
	formBase := 0
	for fi, fid := range frames {
		req := proto.AccessibilityGetFullAXTree{}
		if fi > 0 {
			req.FrameID = fid
		}
		res, err := req.Call(p)
		if err != nil {
			if fi == 0 {
				return nil, fmt.Errorf("observe: accessibility tree: %w", err)
			}
			continue // a cross-origin frame lives in another process
		}
		els := fromAXTree(res.Nodes, fi, seen)
		if len(els) == 0 {
			continue
		}
		if len(els) > maxCandidates {
			els = els[:maxCandidates]
		}
		if fi == 0 {
			els = append(els, scrollables(p, seen)...)
		}
		nForms, err := addDOMInfo(p, els, formBase)
		if err != nil {
			if fi == 0 {
				return nil, err
			}
			continue
		}
		formBase += nForms
		all = append(all, els...)
	}
	snap.Elements, snap.Omitted = choose(all)
	for i := range snap.Elements {
		e := &snap.Elements[i]
		e.ID = i + 1
		if (e.Role == "dialog" || e.Role == "alertdialog") && e.Visible {
			snap.Dialogs = append(snap.Dialogs, fmt.Sprintf("[%d] %s", e.ID, e.Name))
		}
	}
	return snap, nil
}

// fromAXTree keeps the interactive and landmark nodes of one frame's tree.
func fromAXTree(nodes []*proto.AccessibilityAXNode, frame int, seen map[proto.DOMBackendNodeID]bool) []Element {
	byID := map[proto.AccessibilityAXNodeID]*proto.AccessibilityAXNode{}
	for _, n := range nodes {
		byID[n.NodeID] = n
	}
	// A dialog's descendants are marked, so that the rules can tell a
	// consent dialog's buttons from the page's.
	inDialog := func(n *proto.AccessibilityAXNode) bool {
		for p := byID[n.ParentID]; p != nil; p = byID[p.ParentID] {
			if r := axString(p.Role); r == "dialog" || r == "alertdialog" {
				return true
			}
		}
		return false
	}
	var out []Element
	for _, n := range nodes {
		if n.Ignored || n.BackendDOMNodeID == 0 || seen[n.BackendDOMNodeID] {
			continue
		}
		role := axString(n.Role)
		if role == "option" {
			if p := byID[n.ParentID]; p != nil && axString(p.Role) == "MenuListPopup" {
				continue // a <select>'s options are listed on the select
			}
		}
		if !interactiveRoles[role] && !landmarkRoles[role] {
			continue
		}
		e := Element{Role: role, Name: clip(axString(n.Name)), Frame: frame, backend: n.BackendDOMNodeID, Form: -1}
		if role == "heading" || role == "main" || role == "navigation" || role == "form" || role == "status" {
			// Unnamed structure says little; named, it orients.
			if e.Name == "" && role != "main" {
				continue
			}
		}
		if v := axString(n.Value); v != "" && role != "link" {
			e.Value = clip(v)
		}
		for _, prop := range n.Properties {
			switch prop.Name {
			case "disabled", "expanded", "selected", "focused", "required", "invalid", "checked", "pressed":
				v := prop.Value.Value.String()
				if v == "true" || v == "mixed" || prop.Name == "invalid" && v != "false" && v != "" {
					e.State = append(e.State, string(prop.Name))
				}
			case "level":
				e.Level = prop.Value.Value.Int()
			}
		}
		e.InDialog = inDialog(n)
		seen[n.BackendDOMNodeID] = true
		out = append(out, e)
	}
	return out
}

// domInfoJS reads what the accessibility tree does not tell: the tag,
// input type and attributes, the form, and the layout (visible, in the
// viewport, covered by another element at its centre).
const domInfoJS = `function(...els) {
  const forms = new Map();
  const out = [];
  for (const el of els) {
    if (!el || el.nodeType !== 1) { out.push(null); continue; }
    const d = el.ownerDocument, w = d.defaultView;
    const r = el.getBoundingClientRect();
    const vw = w.innerWidth, vh = w.innerHeight;
    const cs = w.getComputedStyle(el);
    const visible = r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none';
    const inView = visible && r.bottom > 0 && r.right > 0 && r.top < vh && r.left < vw;
    let covered = false;
    if (inView) {
      const cx = Math.min(Math.max(r.left + r.width / 2, 0), vw - 1);
      const cy = Math.min(Math.max(r.top + r.height / 2, 0), vh - 1);
      const root = el.getRootNode();
      const top = (root.elementFromPoint ? root : d).elementFromPoint(cx, cy);
      covered = !!top && top !== el && !el.contains(top) && !(top.shadowRoot && top.contains(el));
      if (covered && el.labels) for (const l of el.labels) if (l === top || l.contains(top)) covered = false;
      if (covered && top.contains(el) && getComputedStyle(el).pointerEvents !== 'none') covered = false;
    }
    const f = el.form || (el.closest ? el.closest('form') : null);
    let fi = -1;
    if (f) { if (!forms.has(f)) forms.set(f, forms.size); fi = forms.get(f); }
    const opts = el.tagName === 'SELECT' ? Array.from(el.options).slice(0, 12).map(o => o.label || o.text) : [];
    const role = el.getAttribute('role') || '';
    const scrolls = el.scrollHeight > el.clientHeight + 4 && el.clientHeight >= 40 && /(auto|scroll|overlay)/.test(cs.overflowY) && el !== d.scrollingElement && el !== d.body;
    const scroll = scrolls ? [Math.round(el.scrollTop), el.scrollHeight, el.clientHeight] : null;
    let txt = (role === 'alert' || role === 'status' || role === 'dialog' || role === 'alertdialog') ? (el.innerText || '').replace(/\s+/g, ' ').trim().slice(0, 200) : '';
    if (scrolls && !txt) txt = el.getAttribute('aria-label') || el.getAttribute('title') || (el.innerText || '').replace(/\s+/g, ' ').trim().slice(0, 60);
    out.push({txt, tag: el.tagName.toLowerCase(), type: (el.getAttribute('type') || '').toLowerCase(),
      name: el.getAttribute('name') || '', ph: el.getAttribute('placeholder') || '',
      ac: (el.getAttribute('autocomplete') || '').toLowerCase(), form: fi,
      method: f ? formMethod(f, el) : '', action: f ? formAction(f, el) : '', opts, visible, inView, covered, scroll});
  }
  return {out, forms: forms.size};
  // A submit button's formmethod and formaction override its form's.
  function formMethod(f, el) {
    const m = (el.hasAttribute('formmethod') ? el.getAttribute('formmethod') : f.getAttribute('method')) || 'get';
    return m.toLowerCase() === 'post' ? 'post' : m.toLowerCase() === 'dialog' ? 'dialog' : 'get';
  }
  function formAction(f, el) {
    const a = el.hasAttribute('formaction') ? el.getAttribute('formaction') : (f.getAttribute('action') || '');
    try { return new URL(a, f.ownerDocument.baseURI).href; } catch (e) { return ''; }
  }
}`

type domInfo struct {
	Txt     string   `json:"txt"`
	Tag     string   `json:"tag"`
	Type    string   `json:"type"`
	Name    string   `json:"name"`
	PH      string   `json:"ph"`
	AC      string   `json:"ac"`
	Form    int      `json:"form"`
	Method  string   `json:"method"`
	Action  string   `json:"action"`
	Opts    []string `json:"opts"`
	Visible bool     `json:"visible"`
	InView  bool     `json:"inView"`
	Covered bool     `json:"covered"`
	Scroll  []int    `json:"scroll"`
}

// addDOMInfo fills the DOM fields of one frame's elements in one script
// call; elements whose node cannot be resolved are marked invisible.
// Form numbers start at formBase; it returns how many forms it saw.
func addDOMInfo(p *rod.Page, els []Element, formBase int) (int, error) {
	args := make([]*proto.RuntimeCallArgument, 0, len(els))
	idx := make([]int, 0, len(els))
	for i := range els {
		obj, err := proto.DOMResolveNode{BackendNodeID: els[i].backend}.Call(p)
		if err != nil || obj.Object == nil || obj.Object.ObjectID == "" {
			continue
		}
		args = append(args, &proto.RuntimeCallArgument{ObjectID: obj.Object.ObjectID})
		idx = append(idx, i)
	}
	if len(args) == 0 {
		return 0, nil
	}
	res, err := proto.RuntimeCallFunctionOn{
		FunctionDeclaration: domInfoJS,
		ObjectID:            args[0].ObjectID,
		Arguments:           args,
		ReturnByValue:       true,
	}.Call(p)
	if err != nil {
		return 0, fmt.Errorf("observe: read the DOM: %w", err)
	}
	if res.ExceptionDetails != nil {
		return 0, fmt.Errorf("observe: read the DOM: %s", res.ExceptionDetails.Text)
	}
	var v struct {
		Out   []*domInfo `json:"out"`
		Forms int        `json:"forms"`
	}
	if err := json.Unmarshal([]byte(res.Result.Value.JSON("", "")), &v); err != nil {
		return 0, fmt.Errorf("observe: decode the DOM: %w", err)
	}
	for k, i := range idx {
		if k >= len(v.Out) || v.Out[k] == nil {
			continue
		}
		d, e := v.Out[k], &els[i]
		e.Tag, e.Type, e.NameAttr, e.Placeholder, e.Autocomplete = d.Tag, d.Type, d.Name, clip(d.PH), d.AC
		e.FormMethod, e.FormAction, e.Options = d.Method, d.Action, d.Opts
		if d.Form >= 0 {
			e.Form = formBase + d.Form
		}
		e.Visible, e.InView, e.Covered = d.Visible, d.InView, d.Covered
		if len(d.Scroll) == 3 {
			e.Scroll = d.Scroll
		}
		if e.Name == "" && d.Txt != "" {
			e.Name = clip(d.Txt) // an alert's or a dialog's message
		}
	}
	return v.Forms, nil
}

// maxScrollables bounds the scrollable containers a snapshot lists.
const maxScrollables = 8

// scrollablesJS finds the main document's scrollable containers (not the
// page itself) that are rendered, walking a bounded number of elements.
const scrollablesJS = `() => {
  const out = [], d = document;
  const all = d.body ? d.body.getElementsByTagName('*') : [];
  for (let i = 0; i < all.length && i < 20000 && out.length < 8; i++) {
    const el = all[i];
    if (el.scrollHeight <= el.clientHeight + 4 || el.clientHeight < 40 || el === d.scrollingElement) continue;
    if (!/(auto|scroll|overlay)/.test(getComputedStyle(el).overflowY)) continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) out.push(el);
  }
  return out;
}`

// scrollables are the scrollable containers of the main frame that the
// accessibility tree does not list (a plain div with overflow: auto), as
// elements of role "scrollable", so that a scroll can target one.
func scrollables(p *rod.Page, seen map[proto.DOMBackendNodeID]bool) []Element {
	res, err := proto.RuntimeEvaluate{Expression: "(" + scrollablesJS + ")()"}.Call(p)
	if err != nil || res.ExceptionDetails != nil || res.Result.ObjectID == "" {
		return nil
	}
	defer func() { _ = proto.RuntimeReleaseObject{ObjectID: res.Result.ObjectID}.Call(p) }()
	props, err := proto.RuntimeGetProperties{ObjectID: res.Result.ObjectID, OwnProperties: true}.Call(p)
	if err != nil {
		return nil
	}
	var out []Element
	for _, pr := range props.Result {
		if pr.Value == nil || pr.Value.ObjectID == "" || pr.Value.Subtype != proto.RuntimeRemoteObjectSubtypeNode || len(out) >= maxScrollables {
			continue
		}
		n, err := proto.DOMDescribeNode{ObjectID: pr.Value.ObjectID}.Call(p)
		if err != nil || n.Node == nil || seen[n.Node.BackendNodeID] {
			continue
		}
		seen[n.Node.BackendNodeID] = true
		out = append(out, Element{Role: "scrollable", backend: n.Node.BackendNodeID, Form: -1})
	}
	return out
}

// choose keeps the visible elements, controls before links and
// structure when there are more than maxElements, in page order.
func choose(all []Element) ([]Element, int) {
	var vis []Element
	for _, e := range all {
		if e.Visible || e.Role == "dialog" || e.Role == "alertdialog" {
			vis = append(vis, e)
		}
	}
	if len(vis) <= maxElements {
		return vis, len(all) - len(vis)
	}
	rank := func(e *Element) int {
		switch {
		case e.Role == "link" && !e.InView:
			return 3
		case e.Role == "link" || e.Role == "heading":
			return 2
		case landmarkRoles[e.Role] && e.Role != "dialog" && e.Role != "alertdialog" && e.Role != "alert":
			return 1
		}
		return 0
	}
	keep := make([]bool, len(vis))
	n := 0
	for r := 0; r <= 3 && n < maxElements; r++ {
		for i := range vis {
			if n < maxElements && !keep[i] && rank(&vis[i]) == r {
				keep[i] = true
				n++
			}
		}
	}
	out := make([]Element, 0, maxElements)
	for i, e := range vis {
		if keep[i] {
			out = append(out, e)
		}
	}
	return out, len(all) - len(out)
}

// pageInfoJS reads the page-level facts and the main-text summary.
const pageInfoJS = `() => {
  const d = document, se = d.scrollingElement || d.documentElement;
  const main = d.querySelector('main, [role=main], article') || d.body;
  const t = main ? (main.innerText || '') : '';
  return {url: location.href, title: d.title, lang: (d.documentElement.lang || ''),
    scrollY: Math.round(window.scrollY), height: se ? se.scrollHeight : 0, viewport: window.innerHeight,
    text: t.replace(/\s+/g, ' ').trim().slice(0, 2000), view: viewText(d, 0)};
  // viewText is the text a user sees: text nodes inside the viewport whose
  // centre no other element covers, with same-origin frames in view, bounded.
  function viewText(doc, depth) {
    const w = doc.defaultView, vw = w.innerWidth, vh = w.innerHeight, out = [];
    let len = 0, walked = 0;
    const tw = doc.createTreeWalker(doc.body || doc.documentElement, NodeFilter.SHOW_TEXT);
    const rg = doc.createRange();
    for (let n = tw.nextNode(); n && walked < 20000 && len < 4000; n = tw.nextNode()) {
      walked++;
      const s = n.nodeValue.replace(/\s+/g, ' ').trim();
      const par = n.parentElement;
      if (!s || !par || /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/.test(par.tagName)) continue;
      rg.selectNodeContents(n);
      const r = rg.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0 || r.bottom <= 0 || r.right <= 0 || r.top >= vh || r.left >= vw) continue;
      const cs = w.getComputedStyle(par);
      if (cs.visibility === 'hidden' || cs.opacity === '0') continue;
      const cx = Math.min(Math.max((Math.max(r.left, 0) + Math.min(r.right, vw)) / 2, 0), vw - 1);
      const cy = Math.min(Math.max((Math.max(r.top, 0) + Math.min(r.bottom, vh)) / 2, 0), vh - 1);
      const top = doc.elementFromPoint(cx, cy);
      if (top && top !== par && !par.contains(top) && !top.contains(par)) continue;
      out.push(s); len += s.length + 1;
    }
    if (depth < 2) for (const f of doc.querySelectorAll('iframe')) {
      let fd = null;
      try { fd = f.contentDocument; } catch (e) {}
      if (!fd || len >= 4000) continue;
      const r = f.getBoundingClientRect();
      if (r.bottom <= 0 || r.right <= 0 || r.top >= vh || r.left >= vw) continue;
      const top = doc.elementFromPoint(Math.min(Math.max(r.left + r.width / 2, 0), vw - 1), Math.min(Math.max(r.top + r.height / 2, 0), vh - 1));
      if (top && top !== f) continue;
      const t = viewText(fd, depth + 1);
      out.push(t); len += t.length + 1;
    }
    return out.join(' ').slice(0, 4000);
  }
}`

func pageInfo(p *rod.Page, snap *Snapshot) error {
	res, err := proto.RuntimeEvaluate{Expression: "(" + pageInfoJS + ")()", ReturnByValue: true}.Call(p)
	if err != nil {
		return fmt.Errorf("observe: page: %w", err)
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("observe: page: %s", res.ExceptionDetails.Text)
	}
	var v struct {
		URL      string `json:"url"`
		Title    string `json:"title"`
		Lang     string `json:"lang"`
		ScrollY  int    `json:"scrollY"`
		Height   int    `json:"height"`
		Viewport int    `json:"viewport"`
		Text     string `json:"text"`
		View     string `json:"view"`
	}
	if err := json.Unmarshal([]byte(res.Result.Value.JSON("", "")), &v); err != nil {
		return fmt.Errorf("observe: decode page: %w", err)
	}
	snap.URL, snap.Title, snap.Lang = v.URL, clip(v.Title), strings.ToLower(v.Lang)
	snap.ScrollY, snap.Height, snap.Viewport = v.ScrollY, v.Height, v.Viewport
	snap.Summary = text.Clip(v.Text, summaryRunes)
	snap.mainText, snap.viewText = v.Text, v.View
	return nil
}

func axString(v *proto.AccessibilityAXValue) string {
	if v == nil {
		return ""
	}
	return strings.TrimSpace(v.Value.Str())
}

func clip(s string) string {
	return text.Clip(text.OneLine(s), maxNameRunes)
}
