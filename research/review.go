package research

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ReviewMode says when a run pauses for plan review: always, never, or
// auto (only when the question is unclear: its clarity is below the
// configured threshold and the plan asks clarifying questions).
type ReviewMode string

// Review modes.
const (
	ReviewNever  ReviewMode = "never"
	ReviewAlways ReviewMode = "always"
	ReviewAuto   ReviewMode = "auto"
)

// ReviewWhen is always when pause is set, else never: a run whose caller
// has already decided (a task's approval policy) pauses or does not.
func ReviewWhen(pause bool) ReviewMode {
	if pause {
		return ReviewAlways
	}
	return ReviewNever
}

// ParseReviewMode reads a review mode from text: always, never or auto,
// and the boolean spellings of a checkbox or flag (true, on, 1, yes mean
// always; false, off, 0, no and "" mean never).
func ParseReviewMode(s string) (ReviewMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "never", "false", "off", "0", "no":
		return ReviewNever, nil
	case "always", "true", "on", "1", "yes":
		return ReviewAlways, nil
	case "auto":
		return ReviewAuto, nil
	}
	return "", fmt.Errorf("unknown review mode %q (accepted: always, never, auto, true, false)", s)
}

// UnmarshalJSON accepts a boolean (true = always, false = never), null
// (never) or one of the mode names, so stored options and API clients that
// send "review": true keep their meaning.
func (m *ReviewMode) UnmarshalJSON(b []byte) error {
	var flag bool
	if err := json.Unmarshal(b, &flag); err == nil {
		*m = ReviewNever
		if flag {
			*m = ReviewAlways
		}
		return nil
	}
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf(`field "review": want true, false, "always", "never" or "auto"`)
	}
	if s == nil {
		*m = ReviewNever
		return nil
	}
	v, err := ParseReviewMode(*s)
	if err != nil {
		return fmt.Errorf(`field "review": %w`, err)
	}
	*m = v
	return nil
}

// Pauses reports whether a run in this mode stops for review of a plan
// of the given clarity, with or without clarifying questions, when the
// threshold is below.
func (m ReviewMode) Pauses(clarity, below float64, hasQuestions bool) bool {
	switch m {
	case ReviewAlways:
		return true
	case ReviewAuto:
		return hasQuestions && clarity < below
	}
	return false
}
