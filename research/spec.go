package research

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Routes an intake can choose for a message.
const (
	RouteChat     = "chat"
	RouteBrowse   = "browse"
	RouteResearch = "research"
)

// Action kinds.
const (
	ActionSearch   = "search"
	ActionNavigate = "navigate"
)

// Depth names.
const (
	DepthQuick    = "quick"
	DepthStandard = "standard"
	DepthDeep     = "deep"
)

// TaskSpec is the plan of a research run: what it must find out and how it
// starts looking. It is produced by intake, may be edited during plan review
// and is stored on the run as jsonb.
type TaskSpec struct {
	Route       string       `json:"route"`
	Goal        string       `json:"goal"`
	Criteria    []string     `json:"criteria"`
	Sections    []string     `json:"sections"`
	Actions     []ActionSpec `json:"actions"`
	Assumptions []string     `json:"assumptions,omitempty"`
	Clarity     float64      `json:"clarity"`
	Questions   []string     `json:"questions,omitempty"`
	URLs        []string     `json:"urls,omitempty"` // pages named by a browse message
	Budget      Budget       `json:"budget"`
}

// ActionSpec is one planned evidence-gathering step. Actions with the same
// priority run in parallel; lower priorities run first.
type ActionSpec struct {
	Kind     string `json:"kind"`             // search | navigate
	Engine   string `json:"engine,omitempty"` // search engine name, for search
	Query    string `json:"query,omitempty"`  // for search
	URL      string `json:"url,omitempty"`    // for navigate
	Priority int    `json:"priority"`
	Reason   string `json:"reason,omitempty"` // which criterion it serves
}

// Key identifies an action for de-duplication; it is the one definition of
// "the same action". A search is the same when its words are, whatever their
// case or spacing and whichever engine runs it (a search falls back to the
// other engines anyway); a visit is the same when its URL is, up to the case
// of scheme and host, a fragment and a trailing slash. No action runs twice
// in a run, and a follow-up does not repeat its parent's.
func (a ActionSpec) Key() string {
	if strings.EqualFold(strings.TrimSpace(a.Kind), ActionNavigate) {
		return ActionNavigate + " " + urlKey(a.URL)
	}
	return ActionSearch + " " + strings.ToLower(strings.Join(strings.Fields(a.Query), " "))
}

// urlKey is u in the form Key compares URLs in.
func urlKey(u string) string {
	u = strings.TrimSpace(u)
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return strings.TrimSuffix(strings.ToLower(u), "/")
	}
	p.Scheme = strings.ToLower(p.Scheme)
	p.Host = strings.ToLower(p.Host)
	p.Fragment, p.RawFragment = "", ""
	p.Path = strings.TrimSuffix(p.Path, "/")
	p.RawPath = strings.TrimSuffix(p.RawPath, "/")
	return p.String()
}

// Budget holds the hard limits of a run, from its depth preset.
type Budget struct {
	MaxActions     int      `json:"max_actions"`
	MaxBatches     int      `json:"max_batches"`
	MaxTime        Duration `json:"max_time"`
	PagesPerSearch int      `json:"pages_per_search"`
	RepairPasses   int      `json:"repair_passes"`
	ContextTokens  int      `json:"context_tokens"`
	MaxUSD         float64  `json:"max_usd,omitempty"` // 0 = no spend cap
}

// Presets returns the default budget of each depth (DESIGN.md, Depth presets).
func Presets() map[string]Budget {
	return map[string]Budget{
		DepthQuick:    {MaxActions: 4, MaxBatches: 1, MaxTime: Duration(30 * time.Second), PagesPerSearch: 3, RepairPasses: 0, ContextTokens: 8000},
		DepthStandard: {MaxActions: 10, MaxBatches: 3, MaxTime: Duration(60 * time.Second), PagesPerSearch: 3, RepairPasses: 1, ContextTokens: 24000},
		DepthDeep:     {MaxActions: 25, MaxBatches: 5, MaxTime: Duration(180 * time.Second), PagesPerSearch: 5, RepairPasses: 2, ContextTokens: 64000},
	}
}

// BudgetFor returns the preset of depth, or an error naming the accepted depths.
func BudgetFor(depth string) (Budget, error) {
	b, ok := Presets()[depth]
	if !ok {
		return Budget{}, fmt.Errorf("unknown depth %q (accepted: quick, standard, deep)", depth)
	}
	return b, nil
}

// Duration is a time.Duration that marshals to JSON as a Go duration string.
type Duration time.Duration

// MarshalJSON writes the duration as a string such as "30s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON accepts a duration string or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		*d = Duration(v)
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("duration: want a string like \"30s\": %w", err)
	}
	*d = Duration(n)
	return nil
}

// Undetermined is the sentence a report uses for a criterion the sources do
// not answer.
const Undetermined = "This could not be determined from the available sources."

// NotStatedLead opens the sentence an answer-first Summary uses for a part
// of the question that no source read states (NotStated).
const NotStatedLead = "None of the sources read states"

// NotStated is the sentence that says no source read answers part, a
// criterion in the question's words.
func NotStated(part string) string {
	return NotStatedLead + " an answer to “" + strings.TrimSpace(part) + "”."
}

// IsUndetermined reports whether a report sentence (plain text) declares a
// criterion unanswered, in either of the two forms above.
func IsUndetermined(plain string) bool {
	l := strings.ToLower(plain)
	return strings.Contains(l, "could not be determined") || strings.HasPrefix(l, strings.ToLower(NotStatedLead))
}
