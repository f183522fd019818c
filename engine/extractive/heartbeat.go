package extractive

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// maxHeartbeatActions is the most new actions one heartbeat may propose.
const maxHeartbeatActions = 3

// Heartbeat decides after a gather batch whether the sources cover every
// criterion, as the pipeline reports it or, without a report, as
// Coverage finds it (the one rule both use). Otherwise it proposes up to MaxNew targeted searches for the
// uncovered criteria, never a query already run.
func (e *Engine) Heartbeat(ctx context.Context, req engine.HeartbeatRequest) (engine.HeartbeatDecision, engine.Usage, error) {
	if err := ctx.Err(); err != nil {
		return engine.HeartbeatDecision{}, engine.Usage{}, fmt.Errorf("heartbeat: %w", err)
	}
	spec := req.Spec
	cov := req.Coverage
	if len(cov) == 0 {
		cov = Coverage(spec, req.Sources)
	}
	goal := text.Tokens(spec.Goal)
	var uncovered []string
	var missing []criterion
	for _, c := range cov {
		if !c.Covered() {
			uncovered = append(uncovered, c.Criterion)
			missing = append(missing, newCriterion(c.Criterion, heading(c.Criterion), goal, nil))
		}
	}
	status := fmt.Sprintf("%d of %d criteria covered", len(cov)-len(uncovered), len(cov))
	if len(uncovered) == 0 {
		return engine.HeartbeatDecision{Done: true, Reason: status + "; the evidence suffices."}, engine.Usage{}, nil
	}
	room := req.MaxNew
	if room <= 0 || room > maxHeartbeatActions {
		room = maxHeartbeatActions
	}
	if b := req.Budget; b.MaxActions > 0 {
		room = min(room, b.MaxActions-len(req.Done))
	}
	if b := req.Budget; b.MaxBatches > 0 && req.Batch >= b.MaxBatches {
		room = 0
	}
	if room <= 0 {
		return engine.HeartbeatDecision{Done: true, Reason: status + "; the budget allows no more searches."}, engine.Usage{}, nil
	}
	actions := unreadFor(missing, req, room)
	actions = append(actions, followUps(spec, uncovered, req, room-len(actions))...)
	if len(actions) == 0 {
		return engine.HeartbeatDecision{Done: true, Reason: status + "; every useful search has been tried."}, engine.Usage{}, nil
	}
	var targets []string
	for _, a := range actions {
		if a.Kind == research.ActionNavigate {
			targets = append(targets, "reading "+a.URL)
		} else {
			targets = append(targets, a.Query)
		}
	}
	return engine.HeartbeatDecision{
		Reason:  status + "; searching for: " + strings.Join(targets, "; "),
		Actions: actions,
	}, engine.Usage{}, nil
}

// followUps builds up to room searches for the uncovered criteria: first
// one per criterion, then further variants, skipping any query already run
// or planned (on any engine).
func followUps(spec research.TaskSpec, uncovered []string, req engine.HeartbeatRequest, room int) []research.ActionSpec {
	engines := req.Engines
	if len(engines) == 0 {
		for _, a := range spec.Actions {
			if a.Kind == research.ActionSearch && a.Engine != "" {
				engines = appendUnique(engines, a.Engine)
			}
		}
	}
	if len(engines) == 0 {
		engines = []string{defaultEngine}
	}
	done := map[string]bool{}
	for _, a := range req.Done {
		if a.Kind == research.ActionSearch {
			done[queryKey(a.Query)] = true
		}
	}
	for _, a := range spec.Actions {
		if a.Kind == research.ActionSearch {
			done[queryKey(a.Query)] = true
		}
	}
	goal := analyse(spec.Goal)
	var unmatched map[string]bool // the words every empty search held
	if len(req.Empty) >= 2 {
		unmatched = sharedWords(req.Empty)
	}
	variants := make([][]string, len(uncovered))
	for i, c := range uncovered {
		variants[i] = queryVariants(c, goal)
		if len(req.Empty) > 0 {
			// A search already listed nothing: this engine wants every
			// word found, so the short queries go first, after the
			// query without the words every empty search had (a word the
			// index does not hold, or cannot match as written).
			slices.SortStableFunc(variants[i], func(a, b string) int {
				return len(strings.Fields(a)) - len(strings.Fields(b))
			})
			if q := withoutWords(variants[i], unmatched); q != "" {
				variants[i] = append([]string{q}, variants[i]...)
			}
		}
	}
	var out []research.ActionSpec
	for len(out) < room {
		progress := false
		for i, c := range uncovered {
			if len(out) >= room {
				break
			}
			for len(variants[i]) > 0 {
				q := variants[i][0]
				variants[i] = variants[i][1:]
				k := queryKey(q)
				if done[k] {
					continue
				}
				done[k] = true
				out = append(out, research.ActionSpec{Kind: research.ActionSearch, Engine: engines[0], Query: q, Priority: req.Batch, Reason: c})
				progress = true
				break
			}
		}
		if !progress {
			break
		}
	}
	return out
}

// sharedWords returns the words, lower case and unquoted, that every one
// of queries holds.
func sharedWords(queries []string) map[string]bool {
	var shared map[string]bool
	for _, q := range queries {
		have := map[string]bool{}
		for _, w := range strings.Fields(q) {
			if w = strings.ToLower(strings.Trim(w, `"`)); w != "" && (shared == nil || shared[w]) {
				have[w] = true
			}
		}
		shared = have
	}
	return shared
}

// withoutWords returns the longest of variants with the words of drop
// removed, when that leaves two words or more; "" otherwise.
func withoutWords(variants []string, drop map[string]bool) string {
	if len(drop) == 0 {
		return ""
	}
	best := ""
	for _, v := range variants {
		var kept []string
		for _, w := range strings.Fields(v) {
			if !drop[strings.ToLower(strings.Trim(w, `"`))] {
				kept = append(kept, strings.Trim(w, `"`))
			}
		}
		if q := strings.Join(kept, " "); len(kept) >= 2 && len(kept) < len(strings.Fields(v)) && len(q) > len(best) {
			best = q
		}
	}
	return best
}

// queryVariants are the searches that could find evidence for criterion c,
// best first: its words with the goal's names, its specific words only,
// the criterion's specific words with the goal's keywords, and the first
// one aimed at documentation.
func queryVariants(c string, goal question) []string {
	body := stripTopicParen(c)
	full := mergeWords(keywords(body), goal.entities)
	hard := mergeWords(hardKeywords(body, goal.entities), goal.entities)
	narrowed := mergeWords(hardKeywords(body, goal.entities), keywords(goal.text))
	// Shorter queries last: a site's own search often requires every
	// word, and a long query then finds nothing.
	named := entities(body)
	if len(named) == 0 {
		named = goal.entities
	}
	specific := hardKeywords(body, named)
	var short [][]string
	if len(named) > 0 {
		for _, w := range specific[:min(2, len(specific))] {
			short = append(short, mergeWords(named[:min(2, len(named))], []string{w}))
		}
		short = append(short, named[:min(2, len(named))])
	} else if hard := hardKeywords(goal.ask, nil); len(hard) >= 2 {
		// No names: the question's own strongest words, three then two.
		short = append(short, hard[:min(3, len(hard))], hard[:2])
	}
	var out []string
	for _, words := range append([][]string{full, hard, narrowed, append(full, "documentation")}, short...) {
		if len(words) > maxQueryLen {
			words = words[:maxQueryLen]
		}
		if len(words) > 0 {
			out = append(out, searchQuery(words))
		}
	}
	return out
}

// unreadFor sends the run, for each uncovered criterion, to the unread
// result that names it best — one a results page listed below the pages
// read — when its title or address names what the criterion asks about.
// It returns at most room navigate actions, never to a page already
// planned.
func unreadFor(missing []criterion, req engine.HeartbeatRequest, room int) []research.ActionSpec {
	if room <= 0 || len(req.Unread) == 0 {
		return nil
	}
	// Each hit's words, once: what its title and address name, and what
	// its snippet says. Words in most titles are the site's, not the
	// page's subject.
	named := make([]text.Set, len(req.Unread))
	said := make([]text.Set, len(req.Unread))
	df := map[string]int{}
	for i, h := range req.Unread {
		for _, t := range text.Unique(text.Tokens(h.Title)) {
			df[t]++
		}
		named[i] = text.NewSet(text.Tokens(h.Title + " " + text.URLWords(h.URL)))
		said[i] = text.NewSet(text.Tokens(h.Snippet))
	}
	common := func(t string) bool { return len(req.Unread) >= 4 && 2*df[t] >= len(req.Unread) }
	taken := map[string]bool{}
	for _, a := range append(append([]research.ActionSpec(nil), req.Done...), req.Spec.Actions...) {
		if a.Kind == research.ActionNavigate {
			taken[a.URL] = true
		}
	}
	var out []research.ActionSpec
	for _, c := range missing {
		if len(out) >= room {
			break
		}
		var core []string
		for _, t := range c.core {
			if !common(t) {
				core = append(core, t)
			}
		}
		if len(core) == 0 {
			continue
		}
		best, bestScore := -1, 0.0
		for i, h := range req.Unread {
			if taken[h.URL] {
				continue
			}
			n, s := text.Containment(core, named[i]), text.Containment(core, said[i])
			if n < 0.5 && (n == 0 || s < 0.6) {
				continue
			}
			if sc := 2*n + s; sc > bestScore {
				best, bestScore = i, sc
			}
		}
		if best >= 0 {
			taken[req.Unread[best].URL] = true
			out = append(out, research.ActionSpec{Kind: research.ActionNavigate, URL: req.Unread[best].URL, Priority: req.Batch, Reason: c.text})
		}
	}
	return out
}
