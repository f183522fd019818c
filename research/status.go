package research

// RunStatus is where a run is in its lifecycle (DESIGN.md, Run lifecycle).
type RunStatus string

// Run statuses, in lifecycle order.
const (
	StatusQueued           RunStatus = "queued"
	StatusPlanning         RunStatus = "planning"
	StatusAwaitingApproval RunStatus = "awaiting_approval"
	StatusGathering        RunStatus = "gathering"
	StatusSynthesizing     RunStatus = "synthesizing"
	StatusVerifying        RunStatus = "verifying"
	StatusDone             RunStatus = "done"
	StatusFailed           RunStatus = "failed"
	StatusCancelled        RunStatus = "cancelled"
)

// RunStatuses are all run statuses in lifecycle order.
var RunStatuses = []RunStatus{StatusQueued, StatusPlanning, StatusAwaitingApproval, StatusGathering,
	StatusSynthesizing, StatusVerifying, StatusDone, StatusFailed, StatusCancelled}

// ActiveStatuses are the statuses in which a worker holds the run.
var ActiveStatuses = []RunStatus{StatusQueued, StatusPlanning, StatusGathering, StatusSynthesizing, StatusVerifying}

// Terminal reports whether the status is final: done, failed or cancelled.
func (s RunStatus) Terminal() bool {
	return s == StatusDone || s == StatusFailed || s == StatusCancelled
}

// Active reports whether a worker holds a run in this status (a paused run,
// awaiting approval, is neither active nor terminal).
func (s RunStatus) Active() bool {
	for _, a := range ActiveStatuses {
		if s == a {
			return true
		}
	}
	return false
}

// ActionStatus is where one gather action is.
type ActionStatus string

// Action statuses.
const (
	ActionPending ActionStatus = "pending"
	ActionRunning ActionStatus = "running"
	ActionSuccess ActionStatus = "success"
	ActionError   ActionStatus = "error"
)

// Finished reports whether the action has run, well or not.
func (s ActionStatus) Finished() bool { return s == ActionSuccess || s == ActionError }
