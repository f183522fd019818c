// Package web holds Quarry's templ components: full pages and the fragments
// the live run page receives over SSE. Components take plain view structs;
// they never query anything.
package web

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/static"
)

// Page is what every full page needs from the request.
type Page struct {
	Title string
	Base  string // path prefix when served under a sub-path, "" at the root
	Nonce string // CSP nonce for script tags
	CSRF  string // token for forms, when the server uses one
	User  string // signed-in user, if any
	// Public marks a page for people without an account (a shared
	// report): the header links nowhere into the app.
	Public bool
	// Inbox shows the notifications link, its unread badge and the live
	// toasts: the viewer is signed in, or accounts are off.
	Inbox bool
}

// URL joins the base path and p.
func (p Page) URL(path string) string { return p.Base + path }

// Static returns the URL of a static file.
func (p Page) Static(name string) string { return p.Base + "/static/" + static.Versioned(name) }

// AskForm is the state of the ask form (kept on a validation error).
type AskForm struct {
	Question string
	Depth    string
	// Review is when the run pauses for plan review; "" shows auto.
	Review   research.ReviewMode
	Error    string
	ParentID string
	// EngineChoices are the configured search engines; the form offers a
	// choice only when there are several.
	EngineChoices []string
	// Engines are the chosen ones (none chosen = all, in configured order).
	Engines []string
	// FollowUp renders the form as the follow-up box of a report (its own
	// ids and test ids, so it never collides with the ask page's).
	FollowUp bool
	// Wish, when set, proposes a scheduled task instead of a one-off run.
	Wish *TaskWish
}

// ReviewMode is the review choice the form shows: auto unless set.
func (f AskForm) ReviewMode() research.ReviewMode {
	if f.Review == "" {
		return research.ReviewAuto
	}
	return f.Review
}

// EngineChosen reports whether the form has engine e ticked: every engine
// is ticked while none was chosen.
func (f AskForm) EngineChosen(e string) bool {
	if len(f.Engines) == 0 {
		return true
	}
	for _, x := range f.Engines {
		if x == e {
			return true
		}
	}
	return false
}

// EngineLabel names a search engine for people: a `url:` template by the
// host it queries.
func EngineLabel(e string) string {
	if e == "kb" {
		return "my library"
	}
	if coll, ok := strings.CutPrefix(e, "kb:"); ok {
		return "library: " + coll
	}
	rest, ok := strings.CutPrefix(e, "url:")
	if !ok {
		return e
	}
	if u, err := url.Parse(strings.ReplaceAll(rest, "{query}", "q")); err == nil && u.Host != "" {
		return u.Host + u.Path
	}
	return "URL template"
}

// RunSummary is one line of a runs list.
type RunSummary struct {
	ID        string
	Question  string
	Status    research.RunStatus
	Depth     string
	Owner     string
	CreatedAt time.Time
	// Snippet is the report text around a search match, if any.
	Snippet []SnippetPart
}

// SnippetPart is a piece of a search snippet, matched or not.
type SnippetPart struct {
	Text  string
	Match bool
}

// ActionView is one action on the run page.
type ActionView struct {
	Idx     int
	Kind    string
	Engine  string
	Query   string
	URL     string
	Status  research.ActionStatus
	Preview string
	Error   string
	// Steps are the site agent's steps inside the action (a site: search).
	Steps []AgentStepView
}

// AgentStepView is one step of the site agent: the action with the
// element's name, its outcome and, when stored, a screenshot after it.
type AgentStepView struct {
	RunID     string
	ActionIdx int
	N         int
	Action    string
	Element   string
	Status    string
	Error     string
	Shot      bool
}

// ShotURL is where the step's screenshot is served.
func (s AgentStepView) ShotURL() string {
	return fmt.Sprintf("/runs/%s/agent/%d/%d.jpg", url.PathEscape(s.RunID), s.ActionIdx, s.N)
}

// Label is the action's one-line description.
func (a ActionView) Label() string {
	if a.Kind == research.ActionNavigate {
		return "Read " + a.URL
	}
	if a.Engine != "" {
		return fmt.Sprintf("Search %s for “%s”", EngineLabel(a.Engine), a.Query)
	}
	return fmt.Sprintf("Search for “%s”", a.Query)
}

// DecisionView is one heartbeat decision.
type DecisionView struct {
	Batch      int
	Done       bool
	Reason     string
	NewActions []string // labels of the actions it added
	// Coverage is what the checkpoint before the decision found, if any.
	Coverage *CoverageView
}

// CoverageView is what a checkpoint found for each success criterion.
type CoverageView struct {
	Batch    int
	Covered  int
	Criteria []research.CriterionCoverage
}

// ActionStopped is shown for an action its run's end interrupted: it
// never finishes, so the page stops calling it pending or running.
const ActionStopped research.ActionStatus = "stopped"

// ActionStatusLabel is an action status in words.
func ActionStatusLabel(s research.ActionStatus) string {
	switch s {
	case research.ActionSuccess:
		return "done"
	case research.ActionError:
		return "failed"
	}
	return string(s)
}

// limitText renders "3 of 10", or just "3" when there is no limit.
func limitText(v string, max int, maxText string) string {
	if max <= 0 {
		return v
	}
	return v + " of " + maxText
}

// seconds renders milliseconds as seconds.
func seconds(ms int64) string {
	if ms < 10000 {
		return fmt.Sprintf("%.1f s", float64(ms)/1000)
	}
	return fmt.Sprintf("%d s", ms/1000)
}

// formatCost renders a spend in dollars, with cents of cents when small.
func formatCost(v float64) string {
	if v > 0 && v < 0.1 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// RunView is everything the run page shows.
type RunView struct {
	ID         string
	Question   string
	Depth      string
	Status     research.RunStatus
	StopReason string
	Error      string
	CreatedAt  time.Time
	Spec       *research.TaskSpec
	Actions    []ActionView
	Decisions  []DecisionView
	Budget     BudgetView
	Passes     []PassView // verification passes, oldest first
	Draft      string     // report text streamed so far (the current pass)
	DraftPass  int
	Report     *ReportView // the published report, once there is one
	// ReadOnly hides what the viewer may not do: stop the run, review its
	// plan, manage its share link (they are neither its owner nor an admin).
	ReadOnly bool
	// Private marks a run that read a private library collection: only
	// its owner and admins can open it.
	Private   bool
	LastSeq   int64
	EventsURL string
	// ParentID and ParentQuestion name the run this one follows up.
	ParentID       string
	ParentQuestion string
	// Engines are the search engines a plan edit may choose from.
	Engines []string
	// Review is the state of the plan review form after a rejected edit:
	// the edited plan and the message; nil shows the plan as stored.
	Review *ReviewForm
	// ReviewReason says why the run paused for review.
	ReviewReason string
	// Gate is the site-agent step the run paused on for approval (its
	// screenshot shows the page), nil for a plan review.
	Gate *AgentStepView
	// ApprovedBy and CancelledBy are who approved the run's plan and who
	// cancelled it ("" without accounts, or when the pipeline did).
	ApprovedBy  string
	CancelledBy string
	// Coverage is the newest checkpoint's coverage of the criteria.
	Coverage *CoverageView
	// Preliminary is the preliminary search the planner saw, if any.
	Preliminary *research.PreliminaryPayload
}

// ReviewForm is the plan review form as a person last submitted it.
type ReviewForm struct {
	Spec    research.TaskSpec
	Answers []string
	Error   string
	// Reply is the free-text reply as submitted; Message and Choices ask
	// what it meant when it was unclear or would cancel the run.
	Reply   string
	Message string
	Choices []ReviewChoice
}

// ReviewChoice is one option offered for a reply: a button that carries
// the intent out.
type ReviewChoice struct {
	Intent string
	Label  string
}

// BudgetView is the run's spend against its limits, from the latest
// budget event (or the plan's limits before the first one).
type BudgetView struct {
	Known      bool // a budget event or a plan gave the limits
	Actions    int
	MaxActions int
	Batches    int
	MaxBatches int
	ElapsedMS  int64
	MaxTimeMS  int64
	Tokens     int
	USD        float64
	MaxUSD     float64
	StopReason string
	// Stages is the model spend per stage.
	Stages []research.StageSpend
}

// PassView is one verification pass of the report, and the repair it led
// to, if any.
type PassView struct {
	Pass     int
	Scores   Scores
	Repair   bool     // a repair pass followed
	Failures []string // what the repair was asked to fix
}

// statusNote is the status in words when that says more than the word.
func statusNote(s research.RunStatus) string {
	if l := StatusLabel(s); !strings.EqualFold(l, string(s)) {
		return l
	}
	return ""
}

// StatusLabel turns a status into words for people.
func StatusLabel(s research.RunStatus) string {
	switch s {
	case research.StatusQueued:
		return "Queued"
	case research.StatusPlanning:
		return "Planning"
	case research.StatusAwaitingApproval:
		return "Awaiting your approval"
	case research.StatusGathering:
		return "Gathering evidence"
	case research.StatusSynthesizing:
		return "Writing"
	case research.StatusVerifying:
		return "Verifying citations"
	case research.StatusDone:
		return "Done"
	case research.StatusFailed:
		return "Failed"
	case research.StatusCancelled:
		return "Cancelled"
	}
	return string(s)
}

// Ago renders a time as a short age.
func Ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return t.Format("2 Jan 2006")
}

// Phases are the steps of the timeline on the run page.
var Phases = []struct {
	Status research.RunStatus
	Label  string
}{
	{research.StatusPlanning, "Planning"}, {research.StatusGathering, "Gathering"}, {research.StatusSynthesizing, "Writing"},
	{research.StatusVerifying, "Verifying"}, {research.StatusDone, "Done"},
}

// PhaseState says whether a phase is done, current or to come for status.
func PhaseState(phase, status research.RunStatus) string {
	order := map[research.RunStatus]int{research.StatusQueued: 0, research.StatusPlanning: 1, research.StatusAwaitingApproval: 1,
		research.StatusGathering: 2, research.StatusSynthesizing: 3, research.StatusVerifying: 4, research.StatusDone: 5}
	cur, ok := order[status]
	if !ok {
		return "todo"
	}
	p := order[phase]
	switch {
	case p < cur || status == research.StatusDone:
		return "done"
	case p == cur:
		return "current"
	}
	return "todo"
}

// Static file names used by the layout.
const (
	StyleFile   = static.Style
	HTMXFile    = static.HTMX
	HTMXSSEFile = static.HTMXSSE
	AppFile     = static.App
)
