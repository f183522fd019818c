package research

// Event types appended to run_events (DESIGN.md, Events and SSE). Every
// payload that changes the run's status carries "status".
const (
	EventRunCreated        = "run_created"
	EventStageStarted      = "stage_started"
	EventStageCompleted    = "stage_completed"
	EventPlan              = "plan"
	EventAwaitingApproval  = "awaiting_approval"
	EventAction            = "action"
	EventCheckpoint        = "checkpoint"
	EventHeartbeatDecision = "heartbeat_decision"
	EventBudget            = "budget"
	EventSynthesisDelta    = "synthesis_delta"
	EventVerification      = "verification"
	EventRepairStarted     = "repair_started"
	EventRunCompleted      = "run_completed"
	EventRunFailed         = "run_failed"
	EventRunCancelled      = "run_cancelled"
	EventAnswer            = "answer"
)

// StagePayload is the payload of stage_started and stage_completed.
type StagePayload struct {
	Stage  string    `json:"stage"`
	Status RunStatus `json:"status"`
}

// PlanPayload carries the task spec (plan and awaiting_approval events).
type PlanPayload struct {
	Status RunStatus `json:"status,omitempty"`
	Spec   TaskSpec  `json:"spec"`
	// Reason says why the run pauses for review (awaiting approval only).
	Reason string `json:"reason,omitempty"`
	// GateAction and GateStep name the site-agent step waiting for
	// approval (GateStep > 0 only then); its screenshot shows the page.
	GateAction int `json:"gate_action,omitempty"`
	GateStep   int `json:"gate_step,omitempty"`
}

// ActionPayload is one action's state change.
type ActionPayload struct {
	Idx     int          `json:"idx"`
	Batch   int          `json:"batch"`
	Kind    string       `json:"kind"`
	Engine  string       `json:"engine,omitempty"`
	Query   string       `json:"query,omitempty"`
	URL     string       `json:"url,omitempty"`
	Status  ActionStatus `json:"status"`
	Preview string       `json:"preview,omitempty"`
	Error   string       `json:"error,omitempty"`
	Sources []string     `json:"sources,omitempty"` // S# ids it produced
}

// DecisionPayload is a heartbeat decision.
type DecisionPayload struct {
	Batch   int          `json:"batch"`
	Done    bool         `json:"done"`
	Reason  string       `json:"reason"`
	Actions []ActionSpec `json:"actions,omitempty"`
}

// BudgetPayload reports spend against the run's limits.
type BudgetPayload struct {
	Actions    int     `json:"actions"`
	MaxActions int     `json:"max_actions"`
	Batches    int     `json:"batches"`
	MaxBatches int     `json:"max_batches"`
	ElapsedMS  int64   `json:"elapsed_ms"`
	MaxTimeMS  int64   `json:"max_time_ms"`
	Tokens     int     `json:"tokens"`
	USD        float64 `json:"usd"`
	MaxUSD     float64 `json:"max_usd,omitempty"`
	StopReason string  `json:"stop_reason,omitempty"`
	// Stages is the model spend per stage, in the order the run spent it.
	Stages []StageSpend `json:"stages,omitempty"`
}

// StageSpend is the model spend of one stage of a run: plan, heartbeat,
// synthesize, repair, chat.
type StageSpend struct {
	Stage        string  `json:"stage"`
	Calls        int     `json:"calls"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	USD          float64 `json:"usd"`
}

// DeltaPayload is a piece of report text as it is written.
type DeltaPayload struct {
	Pass int    `json:"pass"`
	Text string `json:"text"`
}

// Scores are the figures of one verification pass (DESIGN.md, Verify):
// shares in [0,1], and whether every one met its threshold.
type Scores struct {
	Validity         float64 `json:"validity"`          // citations naming a source of the run
	Coverage         float64 `json:"coverage"`          // factual sentences that cite
	Support          float64 `json:"support"`           // cited sentences their source supports
	Grounding        float64 `json:"grounding"`         // numbers, dates and names found in the cited source
	CriteriaCoverage float64 `json:"criteria_coverage"` // success criteria answered or declared undetermined
	Passed           bool    `json:"passed"`
}

// VerificationPayload summarises a verification pass.
type VerificationPayload struct {
	Pass int `json:"pass"`
	Scores
	Warning string `json:"warning,omitempty"`
}

// RepairPayload starts a repair pass.
type RepairPayload struct {
	Pass     int      `json:"pass"`
	Failures []string `json:"failures"`
}

// CompletedPayload is enough for a page that missed every earlier event to
// show the finished report.
type CompletedPayload struct {
	Status       RunStatus           `json:"status"`
	Markdown     string              `json:"markdown"`
	HTML         string              `json:"html"`
	ShareURL     string              `json:"share_url,omitempty"`
	Verification VerificationPayload `json:"verification"`
	Sources      []Source            `json:"sources,omitempty"` // without text
	Warning      string              `json:"warning,omitempty"`
	Engine       string              `json:"engine,omitempty"` // the engine (and model) that wrote the report
}

// FailedPayload ends a run that failed or was cancelled.
type FailedPayload struct {
	Status RunStatus `json:"status"`
	Error  string    `json:"error"`
}

// EventAgentStep is one step of the site agent inside an action.
const EventAgentStep = "agent_step"

// AgentStepPayload is a site-agent step's state: recorded as running
// before the browser acts, then with its outcome. Shot tells that a
// screenshot of the page after the step is stored.
type AgentStepPayload struct {
	ActionIdx int    `json:"action_idx"`
	N         int    `json:"n"`
	Kind      string `json:"kind"`
	Action    string `json:"action"` // the action in a few words
	Element   string `json:"element,omitempty"`
	// Status is the step's (running, success, error, paused), named apart
	// from "status", which in a payload is always the run's.
	Status string `json:"step_status"`
	Error  string `json:"step_error,omitempty"`
	URL    string `json:"url,omitempty"`
	Shot   bool   `json:"shot,omitempty"`
}
