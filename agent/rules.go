package agent

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/search"
)

// PlanStep is one step of a plan with the outcome it should lead to.
type PlanStep struct {
	Do     string `json:"do"`
	Expect string `json:"expect"`
}

// Planner decides a run's steps. Plan is asked at the start and whenever
// the page is not what the plan expected; Refine turns the current step
// into atomic actions on elements of the current snapshot; Verify decides
// an action's outcome when the deterministic checks cannot. A planner
// holds the state of one run: NewPlanner makes one per run.
type Planner interface {
	Plan(ctx context.Context, v View) ([]PlanStep, error)
	Refine(ctx context.Context, v View) ([]Action, error)
	Verify(ctx context.Context, v View, a Action, before *Snapshot) (Verdict, error)
}

// Words the rules recognise in accessible names, in the languages pages
// most often declare. Structure (roles, input types, forms) comes first;
// these decide between candidates.
var (
	searchWords = regexp.MustCompile(`(?i)(^|[^\pL])(search|find|query|look ?up|suche|suchen|buscar|búsqueda|busca|recherche|rechercher|cerca|cercar|zoeken|pesquisar|pesquisa|sök|søg|haku|szukaj|hledat|ara|検索|搜索|搜尋|검색|поиск|найти|بحث|חיפוש|खोज)($|[^\pL])|^(q|s|k|kw|keywords?|term|terms|text)$`)
	moreWords   = regexp.MustCompile(`(?i)(^|[^\pL])(load more|show more|see more|more results|view more|next|next page|older|mehr (laden|anzeigen)|weitere|nächste|weiter|plus de|suivant|voir plus|más|cargar más|siguiente|altri|successiv[oa]|meer|volgende)($|[^\pL])|^\s*(›|»|→|>)\s*$`)
	rejectWords = regexp.MustCompile(`(?i)(reject|decline|deny|refuse|necessary|essential|required only|only required|continue without|continuer sans|weiter ohne|continuar sin|continua senza|ablehnen|nur (notwendige|erforderliche)|refuser|tout refuser|rechazar|rifiuta|weigeren|afwijzen)`)
	closeWords  = regexp.MustCompile(`(?i)^\s*(close|dismiss|no,? thanks|not now|later|skip|×|✕|x|schließen|fermer|cerrar|chiudi|sluiten)\s*$|(^|[^\pL])close($|[^\pL])`)
	acceptWords = regexp.MustCompile(`(?i)(accept|agree|allow|got it|^ok$|okay|understood|akzeptieren|zustimmen|accepter|j'accepte|aceptar|accetta|accepteren)`)
	signInWords = regexp.MustCompile(`(?i)(sign ?in|log ?in|anmelden|connexion|iniciar sesión|accedi|inloggen)`)
)

// RulePlanner is the planner without a model: deterministic plans for a
// site search (find the search box, type, submit, wait for results,
// "load more" a bounded number of times), consent walls and overlays
// (dismiss, preferring reject over accept) and reading a page (load more
// content while the text is short, then extract).
type RulePlanner struct {
	tried     map[string]bool // dismissal controls clicked
	submitted bool
	usedEnter bool
	more      int
	results   int
	extracted bool
}

// NewRulePlanner returns a rule planner for one run.
func NewRulePlanner() Planner { return &RulePlanner{tried: map[string]bool{}} }

const (
	maxMoreClicks  = 2
	shortTextRunes = 1500
	resultsWait    = 5 * time.Second
)

// Plan states the rule plan for the task.
func (p *RulePlanner) Plan(_ context.Context, v View) ([]PlanStep, error) {
	steps := []PlanStep{{Do: "dismiss consent dialogs and overlays", Expect: "no dialog covers the page"}}
	if v.Task.Query != "" {
		return append(steps,
			PlanStep{Do: "type the query into the site's search box", Expect: "the box holds the query"},
			PlanStep{Do: "submit the search", Expect: "a results page"},
			PlanStep{Do: "load more results while the site offers them", Expect: "more results"}), nil
	}
	return append(steps,
		PlanStep{Do: "load more content while the text is short", Expect: "longer text"},
		PlanStep{Do: "extract the page", Expect: "a source"}), nil
}

// Refine picks the next action by rule.
func (p *RulePlanner) Refine(ctx context.Context, v View) ([]Action, error) {
	s := v.Snap
	if d := p.dismissal(s); d != nil {
		p.tried[d.Role+d.Name] = true
		return []Action{{Kind: Click, Element: d.ID, Expect: "the overlay closes"}}, nil
	}
	if v.Task.Query != "" {
		return p.search(ctx, v), nil
	}
	return p.read(ctx, v), nil
}

// Verify settles what the checks left open: an action that changed
// nothing did not work.
func (p *RulePlanner) Verify(_ context.Context, _ View, _ Action, _ *Snapshot) (Verdict, error) {
	return Verdict{Reason: "nothing on the page changed"}, nil
}

func (p *RulePlanner) search(ctx context.Context, v View) []Action {
	s, q := v.Snap, v.Task.Query
	if !p.submitted {
		box := SearchBox(s)
		if box == nil {
			return []Action{{Kind: Fail, Reason: "no search box found on " + s.URL}}
		}
		if box.Value != clip(q) {
			return []Action{{Kind: Type, Element: box.ID, Text: q, Expect: "the box holds the query"}}
		}
		p.submitted, p.usedEnter = true, true
		return []Action{{Kind: Press, Element: box.ID, Key: "Enter", Expect: "a results page"}}
	}
	if v.Problem != "" && p.usedEnter {
		// Enter did nothing: use the form's button.
		p.usedEnter = false
		if box := SearchBox(s); box != nil {
			if b := submitButton(s, box); b != nil {
				return []Action{{Kind: Click, Element: b.ID, Expect: "a results page"}}
			}
		}
	}
	n := p.waitResults(ctx, v.Session, s.URL, p.results)
	if n == 0 {
		return []Action{{Kind: Fail, Reason: "the site's search gave no results"}}
	}
	grew := n > p.results
	p.results = n
	if grew && p.more < maxMoreClicks {
		if m := moreControl(s); m != nil {
			p.more++
			return []Action{{Kind: Click, Element: m.ID, Expect: "more results"}}
		}
	}
	return []Action{{Kind: Finish}}
}

// waitResults polls the page until the harvester finds more than had
// results and their number holds for one reading, for at most resultsWait.
func (p *RulePlanner) waitResults(ctx context.Context, sess *browser.Session, pageURL string, had int) int {
	deadline := time.Now().Add(resultsWait)
	last := -1
	for {
		n := 0
		if r, err := sess.Capture(ctx); err == nil {
			res, _ := search.Harvest("site:"+pageURL, r.FinalURL, r.HTML)
			n = len(res)
		}
		if n > had && n == last || time.Now().After(deadline) || ctx.Err() != nil {
			return max(n, last)
		}
		last = n
		time.Sleep(250 * time.Millisecond)
	}
}

func (p *RulePlanner) read(ctx context.Context, v View) []Action {
	if p.extracted || v.Sources > 0 {
		return []Action{{Kind: Finish}}
	}
	if r, err := v.Session.Capture(ctx); err == nil && p.more < maxMoreClicks {
		page, err := extract.Rendered(r.FinalURL, r.FinalURL, r.Title, r.HTML)
		if err == nil && len([]rune(page.Text)) < shortTextRunes {
			if m := moreControl(v.Snap); m != nil {
				p.more++
				return []Action{{Kind: Click, Element: m.ID, Expect: "more content"}}
			}
		}
	}
	p.extracted = true
	return []Action{{Kind: Extract}}
}

// dismissal is the control that closes a consent dialog or an overlay
// covering the page: reject or "necessary only" before close before
// accept; never a control that signs in, subscribes or buys. Nil when no
// overlay is open.
func (p *RulePlanner) dismissal(s *Snapshot) *Element {
	covered := 0
	for i := range s.Elements {
		if s.Elements[i].Covered {
			covered++
		}
	}
	// Without a dialog, an overlay shows as several covered elements (one
	// or two may sit under a sticky header).
	if len(s.Dialogs) == 0 && covered < 3 {
		return nil
	}
	var best *Element
	bestRank := 99
	for i := range s.Elements {
		e := &s.Elements[i]
		if e.Role != "button" && e.Role != "link" || e.Covered || !e.Visible || !e.InView || p.tried[e.Role+e.Name] {
			continue
		}
		if len(s.Dialogs) > 0 && !e.InDialog {
			continue
		}
		if risky(e.Name) || signInWords.MatchString(e.Name) {
			continue
		}
		rank := 99
		switch {
		case rejectWords.MatchString(e.Name):
			rank = 0
		case closeWords.MatchString(e.Name):
			rank = 1
		case acceptWords.MatchString(e.Name):
			rank = 2
		}
		if rank < bestRank {
			best, bestRank = e, rank
		}
	}
	return best
}

// SearchBox finds the page's search box by structure first (role
// searchbox, input type search), then by the names of the field, its
// placeholder and its form's button. Nil when the page has none.
func SearchBox(s *Snapshot) *Element {
	var best *Element
	bestScore := 0
	for i := range s.Elements {
		e := &s.Elements[i]
		score := searchScore(s, e)
		if score > 0 && e.InView {
			score++
		}
		if score > bestScore {
			best, bestScore = e, score
		}
	}
	return best
}

// searchScore is how much e looks like a search box (0: not at all).
func searchScore(s *Snapshot, e *Element) int {
	if e.Role != "searchbox" && e.Role != "textbox" && e.Role != "combobox" || e.Has("disabled") {
		return 0
	}
	if e.Tag == "select" || e.Type == "password" || e.Type == "email" || e.Type == "tel" || e.Type == "number" || e.Type == "date" {
		return 0
	}
	score := 0
	switch {
	case e.Role == "searchbox" || e.Type == "search":
		score = 10
	case searchWords.MatchString(e.Name) || searchWords.MatchString(e.Placeholder) || searchWords.MatchString(e.NameAttr):
		score = 6
	}
	if b := submitButton(s, e); b != nil {
		if searchWords.MatchString(b.Name) {
			score += 5
		} else if score == 0 && textFields(s, e.Form) == 1 {
			score = 2
		}
	}
	if e.Autocomplete != "" && personalAutocomplete.MatchString(e.Autocomplete) {
		score = 0
	}
	return score
}

// submitButton is the button of field's form, if it is in one.
func submitButton(s *Snapshot, field *Element) *Element {
	if field.Form < 0 {
		return nil
	}
	for i := range s.Elements {
		e := &s.Elements[i]
		if e.Form == field.Form && e.Frame == field.Frame && e.Role == "button" {
			return e
		}
	}
	return nil
}

func textFields(s *Snapshot, form int) int {
	n := 0
	for i := range s.Elements {
		e := &s.Elements[i]
		if e.Form == form && (e.Role == "textbox" || e.Role == "searchbox") {
			n++
		}
	}
	return n
}

// moreControl is a "load more", "show more" or "next" control.
func moreControl(s *Snapshot) *Element {
	for i := range s.Elements {
		e := &s.Elements[i]
		if (e.Role == "button" || e.Role == "link") && !e.Has("disabled") && !e.Covered && moreWords.MatchString(strings.TrimSpace(e.Name)) {
			return e
		}
	}
	return nil
}
