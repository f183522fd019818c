package tasks

import "context"

// Notifier delivers what happened to a task to its owner: the inbox and the
// task's channels. The notify package implements it with an outbox; the
// scheduler and the failure policy only call it.
type Notifier interface {
	Notify(ctx context.Context, n Notice) error
}

// Notice kinds.
const (
	KindRunFinished = "run_finished"  // a task's run ended (done or failed), per the notify policy
	KindAutoPaused  = "task_paused"   // max_failures consecutive failures paused the task
	KindBudget      = "budget_paused" // the owner's daily budget paused their tasks
	KindRefused     = "run_refused"   // a due slot was skipped: its run was refused admission (db.Admission)
)

// Notice is one message about a task for its owner.
type Notice struct {
	Owner      string
	Kind       string
	Title      string
	Body       string
	TaskID     string
	RunID      string
	Status     string // the run's status (done, failed…) or the task's (paused)
	ReportPath string // site-relative path of the report, e.g. /runs/{id}; the notifier makes it absolute
	Changes    string // the run's "Changes since…" summary, empty when nothing changed
	Channels   Channels
}

// Channels are where a task's notices go besides the inbox; stored as
// tasks.channels jsonb.
type Channels struct {
	WebhookURL    string `json:"webhook_url,omitempty"`
	WebhookSecret string `json:"webhook_secret,omitempty"`
	Email         string `json:"email,omitempty"`
}

// NopNotifier drops every notice (no notifier configured).
type NopNotifier struct{}

// Notify does nothing.
func (NopNotifier) Notify(context.Context, Notice) error { return nil }
