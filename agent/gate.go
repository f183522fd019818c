package agent

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"github.com/mtibben/confusables"
	"github.com/quarryhq/quarry/browser"
	"golang.org/x/text/unicode/norm"
)

// The sensitive-action gate decides on what an action does, in two
// places. Before an action runs, sensitive reads the snapshot: an action
// that sets off its element (Activates) is held for approval when the
// element, the option chosen or the form it submits is named like a
// commitment, or when it submits a form holding a password, payment or
// personal data, or a form sent by POST that is not a search. While an
// action runs, the session's request policy (requestPolicy) stops every
// request that could change something on the site (any method but GET,
// HEAD and OPTIONS) that the gate did not expect, and every request that
// would leave the run's allowed sites, before it is sent: a stopped
// state-changing request pauses the run for approval.

// fold is the form names are compared in: NFKC, without format and other
// invisible characters (zero-width spaces and joiners, soft hyphens,
// variation selectors), each character folded to its Unicode TR39
// confusable skeleton (a Cyrillic е is an e), lower case, without
// combining marks, with spaces collapsed. Stems are folded the same way.
func fold(s string) string {
	s = norm.NFKC.String(s)
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r) || unicode.IsControl(r):
			return ' '
		case unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector):
			return -1
		}
		return r
	}, s)
	// Twice: a capital look-alike (I for l) folds before lower-casing, a
	// small one after it.
	s = strings.ToLower(confusables.Skeleton(strings.ToLower(confusables.Skeleton(s))))
	s = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// stems compiles words and phrases to one pattern over folded text that
// matches them as whole words; a trailing * lets any letters follow
// (delet* is delete, deleting, deleted).
func stems(words ...string) *regexp.Regexp {
	alts := make([]string, 0, len(words))
	for _, w := range words {
		alt := regexp.QuoteMeta(fold(strings.TrimSuffix(w, "*")))
		if strings.HasSuffix(w, "*") {
			alt += `\pL*`
		}
		alts = append(alts, alt)
	}
	return regexp.MustCompile(`(^|[^\pL\pN])(` + strings.Join(alts, "|") + `)($|[^\pL\pN])`)
}

// riskyVerbs name what commits the user to something (buy, pay, order,
// book, delete, remove, send, publish, subscribe, sign up, transfer), in
// the languages a page most often declares. They are the one word list
// of the gate; structure (forms, fields, methods, requests) decides the rest.
var riskyVerbs = stems(
	"buy*", "purchas*", "checkout", "check out", "pay", "payment*", "order now", "place order", "order", "book now", "book",
	"reserv*", "delet*", "remov*", "eras*", "destroy*", "deactivat*", "terminat*", "close account", "close my account",
	"send", "publish*", "subscri*", "unsubscri*", "sign up", "signup", "register*", "create account", "donat*",
	"add to cart", "add to basket", "add to bag", "transfer*", "upgrade*", "withdraw*",
	"kauf*", "bezahl*", "bestell*", "buchen", "lösch*", "entfern*", "kündig*", "senden", "veröffentlich*", "abonnier*", "registrier*",
	"acheter", "achat*", "payer", "commander", "réserver", "supprim*", "envoyer", "publier", "s'abonner", "s’abonner", "s'inscrire", "s’inscrire",
	"comprar", "pagar", "pedir", "reservar", "elimin*", "borrar", "enviar", "publicar", "suscrib*",
	"acquista", "paga", "ordina", "prenota", "invia", "pubblica", "iscriviti",
	"kopen", "betalen", "bestel*", "verwijder*", "verzenden",
)

// notRisky are phrases a risky word appears in without meaning it.
var notRisky = stems("order by", "sort*", "sortier*", "trier", "ordenar")

// risky reports whether a name, folded, names a commitment.
func risky(name string) bool {
	f := fold(name)
	return riskyVerbs.MatchString(f) && !notRisky.MatchString(f)
}

// personalAutocomplete are autocomplete tokens of payment and personal
// data fields (HTML's autofill field names).
var personalAutocomplete = regexp.MustCompile(`(^|\s)(cc-[a-z-]+|email|tel[a-z-]*|street-address|address-line\d|address-level\d|postal-code|bday[a-z-]*|name|given-name|family-name|new-password|current-password|one-time-code|username|sex|country)($|\s)`)

// paymentAttr are the words a payment field's name, id or label is made
// of when it declares no autocomplete token (card number, CVC, IBAN…).
var paymentAttr = stems("card*", "cc", "ccnum*", "cvc", "cvv", "cvn", "csc", "iban", "expir*", "kreditkart*", "kartennummer", "tarjeta", "carta", "carte")

// dataFields describes what the fields of form (in frame) hold that makes
// sending it sensitive: a password, payment or personal data.
func dataFields(snap *Snapshot, form, frame int) []string {
	var out []string
	for i := range snap.Elements {
		f := &snap.Elements[i]
		if f.Form != form || f.Frame != frame {
			continue
		}
		field := f.Role == "textbox" || f.Role == "spinbutton" || f.Role == "combobox"
		switch {
		case f.Type == "password":
			out = append(out, "a password")
		case strings.HasPrefix(f.Autocomplete, "cc-") || strings.Contains(f.Autocomplete, " cc-"),
			field && f.Type != "search" && (paymentAttr.MatchString(splitWords(f.NameAttr)) || paymentAttr.MatchString(fold(f.Name)) || paymentAttr.MatchString(fold(f.Placeholder))):
			out = append(out, "payment data")
		case f.Autocomplete != "" && personalAutocomplete.MatchString(f.Autocomplete):
			out = append(out, fmt.Sprintf("personal or payment data (%s)", f.Autocomplete))
		case f.Type == "email" || f.Type == "tel":
			out = append(out, "personal data ("+f.Type+")")
		}
	}
	return dedupe(out)
}

// splitWords folds an attribute value written as card_number, card-number
// or cardNumber into words.
func splitWords(attr string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range attr {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			b.WriteByte(' ')
		}
		if r == '_' || r == '-' || r == '.' || r == '[' || r == ']' {
			r = ' '
		}
		b.WriteRune(r)
		prev = r
	}
	return fold(b.String())
}

// Activates reports whether a sets off what its element does: a click, a
// key that presses a control, submits a form or changes a control's value
// (Enter, Space, the arrows), a check or a selection. Such an action may
// submit a form or change something on the site.
func (a Action) Activates() bool {
	switch a.Kind {
	case Click, Check, Uncheck, Select:
		return true
	case Press:
		return a.Key != "Tab" && a.Key != "Escape" && a.Key != "PageUp" && a.Key != "PageDown"
	}
	return false
}

// gateCheck is the gate's reading of one action before it runs.
type gateCheck struct {
	// Why describes what the action would do when that needs approval.
	Why string
	// Post is the URL of a search form the action submits by POST: the
	// one state-changing request the action is expected to send.
	Post string
	// AutoSubmit is set when the action changes a control's value in a
	// form whose submission needs approval: why it does. A page that
	// submits the form on the change is stopped before the request.
	AutoSubmit string
}

// commits is what a name like a commitment means, in the gate's reasons.
const commits = "which may commit you to something (buy, pay, order, book, delete, remove, send, publish, subscribe or sign up)"

// sensitive reports what would happen if a ran, when that needs the
// user's approval; "" means it may run.
func sensitive(snap *Snapshot, a Action) string { return assess(snap, a).Why }

// assess reads what a would do on snap.
func assess(snap *Snapshot, a Action) gateCheck {
	if !a.Activates() {
		return gateCheck{}
	}
	e := snap.Element(a.Element)
	if a.Kind == Press && a.Element == 0 {
		e = focused(snap)
	}
	if e == nil {
		return gateCheck{Why: fmt.Sprintf("press %s where the page has no focused element it names: what it would set off is unknown", a.Key)}
	}
	what := actionWords(snap, a)
	if risky(e.Name) {
		return gateCheck{Why: what + ", " + commits}
	}
	if a.Kind == Select {
		if opt := chosenOption(e, a.Text); risky(opt) && opt == a.Text {
			return gateCheck{Why: what + ", " + commits}
		} else if risky(opt) {
			return gateCheck{Why: fmt.Sprintf("%s picks %q, %s", what, opt, commits)}
		}
	}
	if btn, ok := submits(snap, a, e); ok {
		why, post := formNeeds(snap, e, btn)
		if why != "" {
			return gateCheck{Why: what + " submits " + why}
		}
		return gateCheck{Post: post}
	}
	if e.Form >= 0 && valueControls[e.Role] {
		if why, _ := formNeeds(snap, e, submitButton(snap, e)); why != "" {
			return gateCheck{AutoSubmit: why}
		}
	}
	return gateCheck{}
}

// valueControls are the roles whose value an activation changes (and a
// page may submit the form on the change).
var valueControls = map[string]bool{
	"checkbox": true, "radio": true, "switch": true, "combobox": true, "listbox": true, "option": true,
	"slider": true, "spinbutton": true, "menuitemcheckbox": true, "menuitemradio": true,
}

// formNeeds is why submitting the form of e through its button btn (nil
// when the snapshot lists none) needs approval, "" when it does not; and
// for a search form sent by POST, the URL it is sent to.
func formNeeds(snap *Snapshot, e, btn *Element) (why, post string) {
	if btn != nil && btn != e && risky(btn.Name) {
		return fmt.Sprintf("the form of %q, %s", btn.Name, commits), ""
	}
	if fields := dataFields(snap, e.Form, e.Frame); len(fields) > 0 {
		return "a form that holds " + strings.Join(fields, ", "), ""
	}
	method, action := e.FormMethod, e.FormAction
	if btn != nil {
		method, action = btn.FormMethod, btn.FormAction
	}
	if method != "post" {
		return "", ""
	}
	if !searchForm(snap, e.Form, e.Frame) {
		return fmt.Sprintf("a form sent by POST to %s, which may change something on the site", pathOf(action)), ""
	}
	return "", action
}

// submits reports whether a may submit e's form, and the control that
// submits it (nil when the form has none the snapshot lists): a click,
// Enter or Space on one of its buttons, Enter in one of its fields.
func submits(snap *Snapshot, a Action, e *Element) (*Element, bool) {
	if e.Form < 0 {
		return nil, false
	}
	button := e.Role == "button" && e.Type != "reset"
	switch {
	case button && (a.Kind == Click || a.Kind == Press && (a.Key == "Enter" || a.Key == "Space")):
		return e, true
	case a.Kind == Press && a.Key == "Enter" && e.Role != "link":
		return submitButton(snap, e), true
	}
	return nil, false
}

// searchForm reports whether form is a search: one of its fields is a
// search box by SearchBox's reading.
func searchForm(snap *Snapshot, form, frame int) bool {
	for i := range snap.Elements {
		f := &snap.Elements[i]
		if f.Form == form && f.Frame == frame && searchScore(snap, f) > 0 {
			return true
		}
	}
	return false
}

// focused is the element the snapshot marks focused, or nil.
func focused(snap *Snapshot) *Element {
	for i := range snap.Elements {
		if snap.Elements[i].Has("focused") {
			return &snap.Elements[i]
		}
	}
	return nil
}

// chosenOption is the label of the option of select e that want picks,
// as selectJS picks it (exact label or value first, then a prefix).
func chosenOption(e *Element, want string) string {
	w := strings.ToLower(strings.TrimSpace(want))
	for _, o := range e.Options {
		if strings.ToLower(strings.TrimSpace(o)) == w {
			return o
		}
	}
	for _, o := range e.Options {
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(o)), w) {
			return o
		}
	}
	return want
}

func pathOf(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil && u.Path != "" {
		return u.Path
	}
	return rawURL
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// Errors of the run's request policy.
var (
	// errOffSite stops a request to a host off the run's allowed sites.
	errOffSite = errors.New("not on this run's allowed sites")
	// errStateChange stops a request that could change something on the
	// site and that no approved or expected step sends.
	errStateChange = errors.New("could change something on the site and was not approved")
	// errAutoSubmit stops a document a step that only changes a value
	// loads: the page submitting a form that needs approval.
	errAutoSubmit = errors.New("submits a form that needs approval")
)

// readMethods are the methods that by HTTP's rules change nothing.
var readMethods = map[string]bool{"GET": true, "HEAD": true, "OPTIONS": true}

// stepGate is what the request policy lets the running step send.
type stepGate struct {
	open       bool   // the step was approved: it may change things on the site
	post       string // the search form the step submits by POST
	autoSubmit string // the step changes a value in a form that must not be submitted unapproved: why
}

// requestPolicy is the run's rule for every request its page sends,
// applied before the request leaves the browser: a host off the allowed
// sites gets only a GET of a script or a stylesheet (a page's assets on
// another host), never a document, a form or a script's request; a
// method that could change something is sent only during an approved
// step, or to the search form the step was expected to submit; a step
// that changes a value in a form whose submission needs approval loads
// no document (the page submitting the form on the change).
func (r *Run) requestPolicy(req browser.Request) error {
	if !r.allow.Allows(req.URL) {
		if req.Method == "GET" && !req.Frame && (req.Type == "Script" || req.Type == "Stylesheet") {
			return nil
		}
		return errOffSite
	}
	r.mu.Lock()
	g := r.gate
	r.mu.Unlock()
	if g.open {
		return nil
	}
	if g.autoSubmit != "" && req.Frame {
		return errAutoSubmit
	}
	if readMethods[req.Method] || g.post != "" && req.Method == "POST" && sameURL(req.URL, g.post) {
		return nil
	}
	return errStateChange
}

// setGate sets what the running step may send, until set again.
func (r *Run) setGate(g stepGate) {
	r.mu.Lock()
	r.gate = g
	r.mu.Unlock()
}

// sameURL compares two URLs without their fragments.
func sameURL(a, b string) bool {
	a, _, _ = strings.Cut(a, "#")
	b, _, _ = strings.Cut(b, "#")
	return a == b
}

// Allowlist is the set of hosts a run may navigate to: the start site by
// default. A host matches itself and its subdomains. The egress guard
// still checks every request on top of it.
type Allowlist []string

// NewAllowlist allows the host of startURL and the extra hosts.
func NewAllowlist(startURL string, extra ...string) Allowlist {
	var out Allowlist
	if u, err := url.Parse(startURL); err == nil && u.Hostname() != "" {
		out = append(out, strings.ToLower(u.Hostname()))
	}
	for _, h := range extra {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// Allows reports whether rawURL's host is on the list.
func (l Allowlist) Allows(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	if u.Scheme == "about" {
		return true
	}
	host := strings.ToLower(u.Hostname())
	for _, h := range l {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	return false
}
