package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
)

// Approval is a person's answer to a plan awaiting review.
type Approval struct {
	Spec          *research.TaskSpec `json:"spec,omitempty"`          // edited plan, optional
	Clarification string             `json:"clarification,omitempty"` // answers to clarifying questions
	Reply         string             `json:"reply,omitempty"`         // free text, parsed for intent
	// Intent, when set, is the choice a person picked among a decision's
	// Choices; it replaces reading the reply.
	Intent string `json:"intent,omitempty"`
	// Confirm carries out a destructive intent (cancel, new_question);
	// without it such a reply only returns the choice.
	Confirm bool `json:"confirm,omitempty"`
}

// ErrNotAwaiting is returned when approving a run that is not paused.
var ErrNotAwaiting = errors.New("the run is not awaiting approval")

// Decision is what an approval did, or, when NeedsConfirmation is set,
// the choice it asks for: nothing happened and the run is still paused.
type Decision struct {
	Intent   string `json:"intent"` // approve, amend, skip, cancel, new_question, unclear
	NewRunID string `json:"new_run_id,omitempty"`
	// Replanned: the reply or the answers added information, so the run
	// plans again with it before gathering.
	Replanned         bool     `json:"replanned,omitempty"`
	NeedsConfirmation bool     `json:"needs_confirmation,omitempty"`
	Message           string   `json:"message,omitempty"`
	Choices           []Choice `json:"choices,omitempty"`
}

// Choice is one option of a decision that needs confirmation: posting
// the same reply with this Intent and Confirm carries it out.
type Choice struct {
	Intent  string `json:"intent"`
	Label   string `json:"label"`
	Confirm bool   `json:"confirm,omitempty"`
}

// intents a person may pick explicitly.
var intents = []string{IntentApprove, IntentAmend, IntentSkip, IntentCancel, IntentNewQuestion}

// Approve answers a run paused for plan review. A reply is read for its
// intent (ParseReply); an intent that cannot be undone (cancel, a new
// question) is carried out only with Confirm, an unclear reply never: both
// return the choices instead, leaving the run paused. A reply or answers
// that add information re-plan the run before it gathers, unless the
// person edited the actions themselves. The run row is locked, so
// concurrent approvals apply once; the second gets ErrNotAwaiting.
func (r *Runner) Approve(ctx context.Context, runID string, a Approval) (Decision, error) {
	reply := strings.TrimSpace(a.Reply)
	if utf8.RuneCountInString(reply) > MaxQuestionRunes {
		return Decision{}, &ValidationError{"reply", fmt.Sprintf("the reply is longer than %d characters", MaxQuestionRunes)}
	}
	run, err := r.opt.Store.GetRun(ctx, runID)
	if err != nil {
		return Decision{}, err
	}
	// Checked again under the run's lock when the answer is written, so of
	// concurrent approvals only the first applies.
	awaiting := func(cur *db.Run) error {
		if cur.Status != research.StatusAwaitingApproval {
			return ErrNotAwaiting
		}
		return nil
	}
	if err := awaiting(run); err != nil {
		return Decision{}, err
	}
	st, err := LatestState(ctx, r.opt.Store, runID)
	if err != nil {
		return Decision{}, err
	}
	rep := Reply{Intent: IntentApprove}
	switch {
	case a.Intent != "":
		if !contains(intents, a.Intent) {
			return Decision{}, &ValidationError{"intent", fmt.Sprintf("unknown intent %q (accepted: %s)", a.Intent, strings.Join(intents, ", "))}
		}
		rep = Reply{Intent: a.Intent, Text: reply}
		if (a.Intent == IntentAmend || a.Intent == IntentNewQuestion) && reply == "" {
			return Decision{}, &ValidationError{"reply", "the " + a.Intent + " choice needs the reply's text"}
		}
	case reply != "":
		rep = r.readReply(ctx, run, st, reply)
	}
	gathered := len(st.Prior) > 0
	if rep.Intent == IntentSkip && !gathered && len(st.Gates) > 0 {
		// Paused at the gate after gathering: what the run has is enough.
		sources, err := r.opt.Store.Sources(ctx, runID)
		if err != nil {
			return Decision{}, err
		}
		gathered = len(sources) > 0
	}
	if dec, ok := r.needsChoice(rep, a, gathered); ok {
		return dec, nil
	}
	switch rep.Intent {
	case IntentCancel:
		return Decision{Intent: rep.Intent}, r.Cancel(ctx, runID)
	case IntentNewQuestion:
		return r.replace(ctx, run, rep.Text, awaiting)
	case IntentAmend:
		a.Clarification = strings.TrimSpace(a.Clarification + "\n" + rep.Text)
	}
	if len(st.Gates) > 0 && !st.Gates[0].Approved && rep.Intent != IntentSkip {
		return r.approveGate(ctx, run, st, rep.Intent, awaiting)
	}
	return r.resume(ctx, run, st, a, rep.Intent, awaiting)
}

// needsChoice returns the choices to offer instead of acting: for an
// unclear reply, a destructive one not yet confirmed, or a skip that
// would write a report from no sources at all.
func (r *Runner) needsChoice(rep Reply, a Approval, gathered bool) (Decision, bool) {
	approve := Choice{Intent: IntentApprove, Label: "Search as planned"}
	cancel := Choice{Intent: IntentCancel, Label: "Cancel the run", Confirm: true}
	amend := Choice{Intent: IntentAmend, Label: "Add my reply to the plan, then search"}
	var dec Decision
	switch {
	case rep.Intent == IntentUnclear:
		dec = Decision{Message: "Your reply could be read more than one way (" + rep.Why + "). Choose what to do:"}
		dec.Choices = []Choice{approve}
		if strings.TrimSpace(a.Reply) != "" && rep.Text != "" {
			dec.Choices = append(dec.Choices, amend)
		}
		dec.Choices = append(dec.Choices, cancel)
	case rep.Intent == IntentCancel && !a.Confirm:
		dec = Decision{Message: "Cancelling ends the run and cannot be undone. Cancel it?", Choices: []Choice{cancel, approve}}
		if rep.Text != "" {
			dec.Choices = append(dec.Choices, amend)
		}
	case rep.Intent == IntentNewQuestion && !a.Confirm:
		dec = Decision{Message: "This reads as a different question. Asking it cancels this plan and starts a new run.",
			Choices: []Choice{{Intent: IntentNewQuestion, Label: "Cancel this plan and research the new question", Confirm: true}, amend, approve}}
	case rep.Intent == IntentSkip && !gathered:
		dec = Decision{Message: "Nothing has been gathered yet, so a report written without searching would have no sources. Choose what to do:",
			Choices: []Choice{approve, cancel}}
	default:
		return Decision{}, false
	}
	dec.Intent = rep.Intent
	dec.NeedsConfirmation = true
	return dec, true
}

// replace cancels the paused run and submits question as a new run.
func (r *Runner) replace(ctx context.Context, run *db.Run, question string, awaiting func(*db.Run) error) (Decision, error) {
	status := research.StatusCancelled
	msg := "replaced by a new question"
	err := r.opt.Store.Transition(ctx, run.ID, "", db.Step{
		Check:  awaiting,
		Update: db.RunUpdate{Status: &status, Error: &msg},
		Events: []db.NewEvent{{Type: research.EventRunCancelled, Payload: research.FailedPayload{Status: status, Error: msg}}},
	})
	if err != nil {
		return Decision{}, err
	}
	dec := Decision{Intent: IntentNewQuestion}
	next, err := r.Submit(ctx, Request{Question: question, Depth: run.Depth, Owner: run.Owner})
	if err != nil {
		return dec, err
	}
	dec.NewRunID = next.ID
	return dec, nil
}

// resume applies an approval: the edited plan, the clarification, then
// gathering — or planning again first when the approval added
// information and left the actions as planned.
func (r *Runner) resume(ctx context.Context, run *db.Run, st *State, a Approval, intent string, awaiting func(*db.Run) error) (Decision, error) {
	stored := *st.Spec
	if a.Spec != nil {
		spec, err := SanitizeSpec(*a.Spec, st.Spec, st.Engines)
		if err != nil {
			return Decision{}, err
		}
		st.Spec = &spec
	}
	added := false
	if c := strings.TrimSpace(a.Clarification); c != "" {
		if utf8.RuneCountInString(c) > MaxQuestionRunes {
			return Decision{}, &ValidationError{"clarification", "too long"}
		}
		added = c != st.Clarification
		st.Clarification = c
	}
	st.Approved = true
	skipped := st.Gates
	st.Gates = nil // skipped: the paused action is not performed
	dec := Decision{Intent: intent}
	status := research.StatusGathering
	st.Stage = StageGather
	st.Pending = st.Spec.Actions
	events := []db.NewEvent{{Type: research.EventPlan, Payload: research.PlanPayload{Status: status, Spec: *st.Spec}}}
	switch {
	case intent == IntentSkip:
		st.SkipPrelim = true
		st.Stage, st.Pending, status = StageSynthesize, nil, research.StatusSynthesizing
		events[0].Payload = research.PlanPayload{Status: status, Spec: *st.Spec}
	case added && sameActions(st.Spec.Actions, stored.Actions):
		// The plan's searches were made for the unclarified question:
		// plan again with the answer, keeping what the person edited.
		st.Keep = editedParts(*st.Spec, stored)
		st.Stage, st.Pending, status = StageIntake, nil, research.StatusPlanning
		events = []db.NewEvent{{Type: research.EventStageStarted, Payload: research.StagePayload{Stage: StageIntake, Status: status}}}
		dec.Replanned = true
	}
	var rows []db.Action
	if len(skipped) > 0 {
		var err error
		if rows, err = r.opt.Store.Actions(ctx, run.ID); err != nil {
			return Decision{}, err
		}
	}
	err := r.opt.Store.Transition(ctx, run.ID, "", db.Step{
		Check:  awaiting,
		Stage:  st.Stage,
		State:  st,
		Update: db.RunUpdate{Status: &status, TaskSpec: mustJSON(st.Spec)},
		Apply: func(ctx context.Context, tx *db.Tx) error {
			return finishGated(ctx, tx, run.ID, rows, skipped)
		},
		Events: events,
	})
	if err != nil {
		return Decision{}, err
	}
	r.Wake()
	return dec, nil
}

// approveGate lets the site agent perform the actions it paused on: the
// run goes back to gathering, the paused batch runs again and the
// agent, resuming from its recorded steps, passes that one step.
func (r *Runner) approveGate(ctx context.Context, run *db.Run, st *State, intent string, awaiting func(*db.Run) error) (Decision, error) {
	for i := range st.Gates {
		st.Gates[i].Approved = true
	}
	st.Stage, st.ReviewReason = StageGather, ""
	status := research.StatusGathering
	err := r.opt.Store.Transition(ctx, run.ID, "", db.Step{
		Check:  awaiting,
		Stage:  st.Stage,
		State:  st,
		Update: db.RunUpdate{Status: &status},
		Events: []db.NewEvent{{Type: research.EventStageStarted, Payload: research.StagePayload{Stage: StageGather, Status: status}}},
	})
	if err != nil {
		return Decision{}, err
	}
	r.Wake()
	return Decision{Intent: intent}, nil
}

// sameActions reports whether two action lists run the same actions.
func sameActions(a, b []research.ActionSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key() != b[i].Key() {
			return false
		}
	}
	return true
}

// editedParts is what a person changed of the plan's goal, criteria and
// sections (nil when nothing): a re-plan keeps those.
func editedParts(edited, stored research.TaskSpec) *research.TaskSpec {
	var keep research.TaskSpec
	changed := false
	if edited.Goal != stored.Goal {
		keep.Goal, changed = edited.Goal, true
	}
	if !equalList(edited.Criteria, stored.Criteria) {
		keep.Criteria, changed = edited.Criteria, true
	}
	if !equalList(edited.Sections, stored.Sections) {
		keep.Sections, changed = edited.Sections, true
	}
	if !changed {
		return nil
	}
	return &keep
}

func equalList(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00")
}

// ReplyReader is an engine whose model can read a reply to a plan
// (llm.Engine): the intent (approve, amend, skip, cancel, new_question,
// unclear) and, for amend, the words it adds.
type ReplyReader interface {
	ReadReply(ctx context.Context, spec research.TaskSpec, reply string) (intent, text string, usage engine.Usage, err error)
}

// replyReadTimeout bounds the model's reading of a reply: a person waits.
const replyReadTimeout = 20 * time.Second

// readReply reads a reply's intent. The rules of ParseReply decide when
// the reply says what to do in words they know; a reply they read only as
// a statement or a question (any language, any phrasing) is read by the
// engine's model when it has one. The model's reading is checked (a known
// intent; a new question is the reply itself, never the model's words),
// and Approve's safety rules apply to it as to any reading: cancel and a
// new question are confirmed first, unclear gets the options.
func (r *Runner) readReply(ctx context.Context, run *db.Run, st *State, reply string) Reply {
	rep := ParseReply(reply)
	rr, ok := r.opt.Engine.(ReplyReader)
	if !ok || rep.Recognised || (rep.Intent != IntentAmend && rep.Intent != IntentNewQuestion) || st.Spec == nil {
		return rep
	}
	if r.checkSpend(st, st.Spec.Budget) != nil {
		return rep
	}
	ctx, cancel := context.WithTimeout(ctx, replyReadTimeout)
	defer cancel()
	intent, added, usage, err := rr.ReadReply(ctx, *st.Spec, reply)
	st.addUsage(SpendReview, usage)
	r.saveSpend(run, st)
	if err != nil {
		r.log.Warn("the model could not read the reply; reading it by rule", "run_id", run.ID, "err", err)
		return rep
	}
	switch intent {
	case IntentApprove, IntentSkip, IntentCancel:
		return Reply{Intent: intent, Recognised: true}
	case IntentAmend:
		if strings.TrimSpace(added) == "" {
			added = reply
		}
		return Reply{Intent: intent, Text: added, Recognised: true}
	case IntentNewQuestion:
		return Reply{Intent: intent, Text: reply, Recognised: true}
	case IntentUnclear:
		return Reply{Intent: intent, Text: reply, Why: "the reply could mean several things", Recognised: true}
	}
	return rep
}

// saveSpend records the model's spend on reading a reply at once, so it
// is counted even when the reply changes nothing else.
func (r *Runner) saveSpend(run *db.Run, st *State) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := r.opt.Store.Transition(ctx, run.ID, "", db.Step{
		Check: func(cur *db.Run) error {
			if cur.Status != research.StatusAwaitingApproval {
				return ErrNotAwaiting
			}
			return nil
		},
		Stage:  st.Stage,
		State:  st,
		Update: db.RunUpdate{Spend: mustJSON(st.Spend())},
	})
	if err != nil {
		r.log.Warn("record the spend of reading a reply", "run_id", run.ID, "err", err)
	}
}
