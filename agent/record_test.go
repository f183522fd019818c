package agent

import "testing"

// TestFoundVia: only successful steps are told, in order, a step repeated
// right after itself once, finish and extract left out.
func TestFoundVia(t *testing.T) {
	steps := []StepRecord{
		{N: 1, Status: StepSuccess, ElementName: "searchbox Search", Action: Action{Kind: Type, Element: 3, Text: "rainfall"}},
		{N: 2, Status: StepPaused, ElementName: "searchbox Search", Action: Action{Kind: Press, Element: 3, Key: "Enter"}},
		{N: 3, Status: StepSuccess, ElementName: "searchbox Search", Action: Action{Kind: Type, Element: 2, Text: "rainfall"}},
		{N: 4, Status: StepSuccess, ElementName: "searchbox Search", Action: Action{Kind: Press, Element: 2, Key: "Enter"}},
		{N: 5, Status: StepError, ElementName: "link More", Action: Action{Kind: Click, Element: 9}},
		{N: 6, Status: StepSuccess, ElementName: "button More results", Action: Action{Kind: Click, Element: 8}},
		{N: 7, Status: StepSuccess, Action: Action{Kind: Finish, Answer: "done"}},
	}
	want := `typed "rainfall" into searchbox Search, pressed Enter, clicked button More results`
	if got := FoundVia(steps); got != want {
		t.Errorf("FoundVia = %q, want %q", got, want)
	}
}
