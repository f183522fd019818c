package agent

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// sensitiveWords name controls whose click commits the user to something
// (buy, pay, order, book, delete, send, publish, subscribe, sign up), in
// the languages a page most often declares. A control named like this is
// never clicked without the user's approval.
var sensitiveWords = regexp.MustCompile(`(?i)(^|[^\pL])(buy|purchase|checkout|check out|pay|payment|order now|place order|order|book now|book|reserve|delete|send|publish|subscribe|sign up|signup|register|create account|donate|add to (cart|basket|bag)|kaufen|bezahlen|bestellen|buchen|löschen|senden|veröffentlichen|abonnieren|registrieren|acheter|payer|commander|réserver|supprimer|envoyer|publier|s'abonner|s’abonner|s'inscrire|comprar|pagar|pedir|reservar|eliminar|borrar|enviar|publicar|suscribir(se)?|acquista|paga|ordina|prenota|elimina|invia|pubblica|iscriviti|kopen|betalen|bestel|verwijderen|verzenden)($|[^\pL])`)

// notSensitive are phrases a sensitive word appears in without meaning it.
var notSensitive = regexp.MustCompile(`(?i)(order by|sort|sortieren|trier|ordenar)`)

// personalAutocomplete are autocomplete tokens of payment and personal
// data fields (HTML's autofill field names).
var personalAutocomplete = regexp.MustCompile(`(^|\s)(cc-[a-z-]+|email|tel[a-z-]*|street-address|address-line\d|address-level\d|postal-code|bday[a-z-]*|name|given-name|family-name|new-password|current-password|one-time-code|username|sex|country)($|\s)`)

// sensitive reports what would happen if a ran, when that needs the
// user's approval: a control named like a commitment, or the submission
// (click in, or Enter on, a form) of a form with a password, payment or
// personal-data field. Search forms are not sensitive. "" means it may run.
func sensitive(snap *Snapshot, a Action) string {
	e := snap.Element(a.Element)
	if e == nil {
		return ""
	}
	submits := a.Kind == Click || a.Kind == Press && a.Key == "Enter"
	if !submits {
		return ""
	}
	if a.Kind == Click && sensitiveWords.MatchString(e.Name) && !notSensitive.MatchString(e.Name) {
		return fmt.Sprintf("click %s %q, which may commit you to something (buy, pay, order, book, delete, send, publish, subscribe or sign up)", e.Role, e.Name)
	}
	if e.Form < 0 {
		return ""
	}
	if a.Kind == Click && e.Role != "button" && e.Type != "submit" && e.Type != "image" {
		return "" // a checkbox or a link in a form submits nothing
	}
	var fields []string
	for i := range snap.Elements {
		f := &snap.Elements[i]
		if f.Form != e.Form || f.Frame != e.Frame {
			continue
		}
		switch {
		case f.Type == "password":
			fields = append(fields, "a password")
		case f.Autocomplete != "" && personalAutocomplete.MatchString(f.Autocomplete):
			fields = append(fields, fmt.Sprintf("personal or payment data (%s)", f.Autocomplete))
		case f.Type == "email" || f.Type == "tel":
			fields = append(fields, "personal data ("+f.Type+")")
		}
	}
	if len(fields) == 0 {
		return ""
	}
	return fmt.Sprintf("submit a form that holds %s (%s %q)", strings.Join(dedupe(fields), ", "), e.Role, e.Name)
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
