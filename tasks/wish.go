package tasks

import (
	"strings"
	"time"
)

// Wish is a question that reads like a wish for research that repeats:
// "every morning, …", "keep an eye on …", "alert me when …".
type Wish struct {
	Question string // the question without the schedule words
	Schedule string // a schedule phrase Parse reads
	Said     string // the words that made it read so
}

// DefaultWatchSchedule is proposed for a watch without a stated rhythm.
const DefaultWatchSchedule = "every 6 hours"

// watchOpeners start a wish to be told of something when it happens.
var watchOpeners = []string{"keep an eye on", "keep track of", "alert me when", "alert me if", "let me know when",
	"let me know if", "notify me when", "notify me if", "tell me when", "watch for", "monitor"}

// RecurringWish reads whether question asks for research that repeats. It
// finds a recurrence the schedule grammar reads ("every weekday at 8am",
// "daily") at the start or the end of the question, or an opening that
// asks to be kept informed; ok is false for an ordinary question.
func RecurringWish(question string) (Wish, bool) {
	words := strings.Fields(question)
	if len(words) == 0 {
		return Wish{}, false
	}
	now := time.Now()
	// Longest recurrence at the start ("Every morning, what …").
	for n := min(len(words), 8); n >= 1; n-- {
		phrase := strings.Trim(strings.Join(words[:n], " "), ",:;.")
		if !startsRecurrence(phrase) {
			continue
		}
		if s, err := Parse(phrase, time.UTC, now); err == nil && s.Kind != KindOnce {
			return Wish{Question: tidy(strings.Join(words[n:], " ")), Schedule: phrase, Said: phrase}, true
		}
	}
	// …or at the end ("What changed in the release notes, every weekday at 8am?").
	for n := min(len(words), 8); n >= 1; n-- {
		phrase := strings.Trim(strings.Join(words[len(words)-n:], " "), ",:;.?!")
		if !startsRecurrence(phrase) {
			continue
		}
		if s, err := Parse(phrase, time.UTC, now); err == nil && s.Kind != KindOnce {
			return Wish{Question: tidy(strings.Join(words[:len(words)-n], " ")), Schedule: phrase, Said: phrase}, true
		}
	}
	lower := strings.ToLower(strings.Join(words, " "))
	for _, o := range watchOpeners {
		if strings.HasPrefix(lower, o+" ") {
			return Wish{Question: strings.Join(words, " "), Schedule: DefaultWatchSchedule, Said: o}, true
		}
	}
	return Wish{}, false
}

// startsRecurrence: the recurring grammar's first words, so an ordinary
// question is never read as a cron expression or a date.
func startsRecurrence(phrase string) bool {
	first, _, _ := strings.Cut(strings.ToLower(phrase), " ")
	switch first {
	case "every", "each", "daily", "weekly", "hourly", "weekdays":
		return true
	}
	return false
}

func tidy(q string) string {
	q = strings.TrimSpace(strings.Trim(q, ",;: "))
	if q == "" {
		return q
	}
	return strings.ToUpper(q[:1]) + q[1:]
}
