package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/quarryhq/quarry/research"
)

// TestDescribe: completed steps are told, steps under way are not, and the
// wait ends on the run's end or its pause for approval.
func TestDescribe(t *testing.T) {
	js := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	for _, c := range []struct {
		typ     string
		payload any
		msg     string
		end     bool
	}{
		{research.EventStageStarted, research.StagePayload{Stage: "gather"}, "Stage started: gather", false},
		{research.EventAction, research.ActionPayload{Idx: 0, Kind: research.ActionSearch, Engine: "wikipedia", Query: "tides", Status: research.ActionRunning}, "", false},
		{research.EventAction, research.ActionPayload{Idx: 0, Kind: research.ActionSearch, Engine: "wikipedia", Query: "tides", Status: research.ActionSuccess}, `Action 1 done: search "tides" on wikipedia`, false},
		{research.EventAction, research.ActionPayload{Idx: 1, Kind: "navigate", URL: "https://example.org/a", Status: research.ActionError, Error: "timeout"}, "Action 2 failed: https://example.org/a: timeout", false},
		{research.EventVerification, research.VerificationPayload{Pass: 1, Scores: research.Scores{Support: 0.95, Coverage: 1}}, "Citations verified (pass 1): support 95%, coverage 100%", false},
		{research.EventAwaitingApproval, research.PlanPayload{}, "The run is waiting for approval on its page", true},
		{research.EventRunFailed, research.FailedPayload{Error: "budget exceeded"}, "Run failed: budget exceeded", true},
		{research.EventRunCompleted, research.CompletedPayload{}, "Report ready", true},
		{research.EventCheckpoint, research.CheckpointPayload{}, "", false},
	} {
		msg, end := describe(c.typ, js(c.payload))
		if msg != c.msg || end != c.end {
			t.Errorf("%s %+v: %q %v, want %q %v", c.typ, c.payload, msg, end, c.msg, c.end)
		}
	}
}

// TestLink: run paths become absolute under the public URL, once.
func TestLink(t *testing.T) {
	for _, c := range []struct{ base, path, want string }{
		{"", "/runs/1", "/runs/1"},
		{"https://q.example", "/runs/1", "https://q.example/runs/1"},
		{"https://q.example/quarry/", "/quarry/runs/1", "https://q.example/quarry/runs/1"},
		{"https://q.example/quarry", "https://elsewhere/runs/1", "https://elsewhere/runs/1"},
	} {
		tl := &tools{srv: New(Options{BaseURL: c.base})}
		if got := tl.link(c.path); got != c.want {
			t.Errorf("link(%q) under %q = %q, want %q", c.path, c.base, got, c.want)
		}
	}
}
