package web

//go:generate go run zones_gen.go

import (
	"time"

	"github.com/quarryhq/quarry/research"
)

// TaskRow is one line of the task list.
type TaskRow struct {
	ID           string
	Name         string
	Schedule     string // in words
	Status       string
	PausedReason string
	NextRun      *time.Time
	LastStatus   research.RunStatus // "" before the first run
	LastRunID    string
}

// TaskForm is the state of the task form (kept on a validation error).
type TaskForm struct {
	ID         string // set when editing
	Name       string
	Question   string
	Depth      string
	Schedule   string
	Timezone   string
	Approval   string
	NotifyOn   string
	WebhookURL string
	// WebhookSecretSet says the task has a webhook secret; the form never
	// carries the secret itself (an empty field keeps it, a value replaces it).
	WebhookSecretSet bool
	Email            string
	MaxFailures      int
	// EngineChoices are the configured search engines; the form offers a
	// choice only when there are several. Engines are the chosen ones
	// (none = all, as on the ask form).
	EngineChoices []string
	Engines       []string
	Error         string
	ErrorField    string
	// BrowserZone marks a zone the server chose (no one picked it): the
	// page script replaces it with the browser's own.
	BrowserZone bool
	// Preview lists the next run times the schedule gives, shown before
	// saving; PreviewWords says the schedule as understood.
	Preview      []string
	PreviewWords string
}

// Err is the form's error as a FieldError.
func (f TaskForm) Err() FieldError { return FieldError{Field: f.ErrorField, Msg: f.Error} }

// EngineChosen reports whether the form ticks e (all are ticked when
// none was chosen).
func (f TaskForm) EngineChosen(e string) bool {
	return AskForm{Engines: f.Engines}.EngineChosen(e)
}

// TaskView is a task's page.
type TaskView struct {
	ID           string
	Name         string
	Question     string
	Depth        string
	Schedule     string
	Timezone     string
	Status       string
	PausedReason string
	Approval     string
	NotifyOn     string
	NextRun      *time.Time
	Failures     int
	MaxFailures  int
	Runs         []TaskRunRow
	Skips        []TaskSkipRow
	CanEdit      bool
}

// TaskRunRow is one run in a task's history.
type TaskRunRow struct {
	ID           string
	Status       research.RunStatus
	Trigger      string
	ScheduledFor *time.Time
	CreatedAt    time.Time
	Changes      string
	Error        string
}

// TaskSkipRow is a slot that did not run.
type TaskSkipRow struct {
	ScheduledFor time.Time
	Reason       string
}

// ApprovalRow is a task's run waiting for its owner.
type ApprovalRow struct {
	RunID        string
	TaskID       string
	TaskName     string
	Question     string
	ScheduledFor *time.Time
	ExpiresAt    *time.Time
}

// TaskWish is the ask page's proposal to make a question a task.
type TaskWish struct {
	Question string
	Schedule string
	Said     string
}

func whenText(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return DateTime(*t)
}

func taskStatusLabel(status string) string {
	switch status {
	case "active":
		return "active"
	case "paused":
		return "paused"
	case "completed":
		return "completed"
	}
	return status
}
