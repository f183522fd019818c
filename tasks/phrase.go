package tasks

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/adhocore/gronx"
	dateparser "github.com/markusmobius/go-dateparser"
)

// MaxPhraseLen bounds a schedule phrase.
const MaxPhraseLen = 200

// PhraseError is a schedule phrase that could not be read; it says what
// was understood and what was not.
type PhraseError struct {
	Phrase     string
	Understood []string
	Rest       string
}

func (e *PhraseError) Error() string {
	msg := fmt.Sprintf("could not read %q as a schedule", e.Phrase)
	if len(e.Understood) > 0 {
		msg += "; understood " + strings.Join(e.Understood, ", ")
	}
	if e.Rest != "" {
		msg += fmt.Sprintf("; did not understand %q", e.Rest)
	}
	return msg + ` (try "every weekday at 8am", "every 6 hours", "every Monday and Thursday at 17:30", "daily at noon", "tomorrow at 9", "in 2 hours" or a cron expression such as "0 8 * * 1-5")`
}

// Parse reads a schedule phrase as a person writes it, in zone, relative
// to now: a recurrence ("every weekday at 8am", "every 6 hours", "every
// Monday and Thursday at 17:30", "daily at noon"), one time ("tomorrow at
// 9", "in 2 hours", "2026-12-01 09:00") or a 5-field cron expression.
func Parse(phrase string, zone *time.Location, now time.Time) (Schedule, error) {
	if zone == nil {
		zone = time.UTC
	}
	text := strings.Join(strings.Fields(strings.ToLower(phrase)), " ")
	if text == "" {
		return Schedule{}, &PhraseError{Phrase: phrase}
	}
	if len(text) > MaxPhraseLen {
		return Schedule{}, fmt.Errorf("the schedule is %d characters; the limit is %d", len(text), MaxPhraseLen)
	}
	if isCronShape(text) {
		if !gronx.IsValid(text) {
			return Schedule{}, fmt.Errorf("%q is not a valid cron expression (minute hour day-of-month month day-of-week)", text)
		}
		return Schedule{Kind: KindCron, Cron: text, Zone: zone, Text: phrase}, nil
	}
	if s, ok, err := parseRecurrence(text, zone); ok || err != nil {
		s.Text = strings.TrimSpace(phrase)
		return s, err
	}
	at, err := parseOnce(text, zone, now)
	if err != nil {
		return Schedule{}, err
	}
	return Schedule{Kind: KindOnce, At: at, Zone: zone, Text: strings.TrimSpace(phrase)}, nil
}

var cronField = regexp.MustCompile(`^[0-9*/,\-a-z?]+$`)

// isCronShape: five fields, the first two made of digits and cron marks.
func isCronShape(text string) bool {
	f := strings.Fields(text)
	if len(f) != 5 {
		return false
	}
	for i, x := range f {
		if !cronField.MatchString(x) || (i < 2 && strings.ContainsAny(x, "abcdefghijklmnopqrstuvwxyz")) {
			return false
		}
	}
	return true
}

var weekdays = map[string]int{
	"sunday": 0, "sun": 0, "monday": 1, "mon": 1, "tuesday": 2, "tue": 2, "tues": 2, "wednesday": 3, "wed": 3,
	"thursday": 4, "thu": 4, "thur": 4, "thurs": 4, "friday": 5, "fri": 5, "saturday": 6, "sat": 6,
}

var units = map[string]time.Duration{
	"second": time.Second, "sec": time.Second, "minute": time.Minute, "min": time.Minute,
	"hour": time.Hour, "hr": time.Hour, "day": 24 * time.Hour, "week": 7 * 24 * time.Hour,
}

// Named times of day.
var namedTimes = map[string][2]int{"noon": {12, 0}, "midday": {12, 0}, "midnight": {0, 0}, "morning": {8, 0}, "evening": {18, 0}}

// parseRecurrence reads the recurring phrases; ok is false when the phrase
// is not one (it may be a one-time phrase).
func parseRecurrence(text string, zone *time.Location) (Schedule, bool, error) {
	words := strings.Fields(strings.NewReplacer(",", " , ").Replace(text))
	var understood []string
	i := 0
	recurring := false
	switch words[0] {
	case "every", "each":
		recurring = true
		i = 1
	case "daily", "weekly", "hourly", "weekdays", "weekends":
		recurring = true
	}
	if !recurring {
		return Schedule{}, false, nil
	}
	understood = append(understood, "a recurrence")
	fail := func() (Schedule, bool, error) {
		return Schedule{}, true, &PhraseError{Phrase: text, Understood: understood, Rest: strings.Join(words[i:], " ")}
	}

	// "every 6 hours", "every hour", "hourly"
	if i < len(words) {
		n := 1
		j := i
		if v, err := strconv.Atoi(words[j]); err == nil {
			n, j = v, j+1
		}
		if j < len(words) {
			u, ok := units[strings.TrimSuffix(words[j], "s")]
			if ok && (j+1 == len(words)) && !(u == 24*time.Hour && n == 1) && !(u == 7*24*time.Hour && n == 1) {
				if n <= 0 {
					return Schedule{}, true, fmt.Errorf("the interval must be positive, not %d", n)
				}
				return Schedule{Kind: KindInterval, Interval: time.Duration(n) * u, Zone: zone}, true, nil
			}
		}
	}
	if words[0] == "hourly" && len(words) == 1 {
		return Schedule{Kind: KindInterval, Interval: time.Hour, Zone: zone}, true, nil
	}

	// Days: "day", "daily", "weekday(s)", "weekend", "monday and thursday".
	dow := ""
	var days []int
days:
	for ; i < len(words); i++ {
		w := strings.TrimSuffix(words[i], "s")
		switch {
		case w == "day" || w == "daily":
			dow = "*"
		case w == "weekday":
			dow = "1-5"
		case w == "weekend":
			dow = "0,6"
		case w == "weekly" || w == "on" || w == "and" || w == "," || w == "every":
		case w == "morning" || w == "evening":
			// "every morning": daily, at the time the word names
			if dow == "" && len(days) == 0 {
				dow = "*"
			}
			break days
		default:
			d, ok := weekdays[words[i]]
			if !ok {
				d, ok = weekdays[w]
			}
			if !ok {
				break days
			}
			days = append(days, d)
		}
	}
	if len(days) > 0 {
		parts := make([]string, len(days))
		for k, d := range days {
			parts[k] = strconv.Itoa(d)
		}
		dow = strings.Join(parts, ",")
	}
	if dow == "" {
		return fail()
	}
	understood = append(understood, "days "+dow)
	hour, minute := 0, 0
	if i < len(words) {
		if words[i] == "at" {
			i++
		}
		h, m, n, ok := readTime(words[i:])
		if !ok {
			return fail()
		}
		hour, minute = h, m
		i += n
	}
	if i < len(words) {
		return fail()
	}
	return Schedule{Kind: KindCron, Cron: fmt.Sprintf("%d %d * * %s", minute, hour, dow), Zone: zone}, true, nil
}

var clockRe = regexp.MustCompile(`^(\d{1,2})(?::(\d{2}))?(am|pm|a\.m\.|p\.m\.)?$`)

// readTime reads a time of day at the start of words: "8am", "8 am",
// "17:30", "5:30pm", "noon", "9", "9 o'clock". n is how many words it took.
func readTime(words []string) (hour, minute, n int, ok bool) {
	if len(words) == 0 {
		return 0, 0, 0, false
	}
	if t, found := namedTimes[words[0]]; found {
		return t[0], t[1], 1, true
	}
	m := clockRe.FindStringSubmatch(words[0])
	if m == nil {
		return 0, 0, 0, false
	}
	n = 1
	hour, _ = strconv.Atoi(m[1])
	if m[2] != "" {
		minute, _ = strconv.Atoi(m[2])
	}
	suffix := m[3]
	if suffix == "" && len(words) > 1 && oneOfWord(words[1], "am", "pm", "a.m.", "p.m.", "o'clock") {
		suffix = words[1]
		n = 2
	}
	switch strings.ReplaceAll(suffix, ".", "") {
	case "am":
		if hour < 1 || hour > 12 {
			return 0, 0, 0, false
		}
		if hour == 12 {
			hour = 0
		}
	case "pm":
		if hour < 1 || hour > 12 {
			return 0, 0, 0, false
		}
		if hour != 12 {
			hour += 12
		}
	}
	if hour > 23 || minute > 59 {
		return 0, 0, 0, false
	}
	return hour, minute, n, true
}

func oneOfWord(w string, options ...string) bool {
	for _, o := range options {
		if w == o {
			return true
		}
	}
	return false
}

// parseOnce reads one time: a date or relative phrase (read by
// go-dateparser) with an optional "at <time of day>" that this grammar
// reads, since the library keeps the current time of day for "tomorrow at
// 9".
func parseOnce(text string, zone *time.Location, now time.Time) (time.Time, error) {
	now = now.In(zone)
	datePart, clock := text, ""
	if k := strings.LastIndex(text, " at "); k >= 0 {
		datePart, clock = text[:k], text[k+4:]
	} else if strings.HasPrefix(text, "at ") {
		datePart, clock = "", text[3:]
	}
	var understood []string
	hour, minute, hasClock := 0, 0, false
	if clock != "" {
		words := strings.Fields(clock)
		h, m, n, ok := readTime(words)
		if !ok || n != len(words) {
			return time.Time{}, &PhraseError{Phrase: text, Rest: clock}
		}
		hour, minute, hasClock = h, m, true
		understood = append(understood, fmt.Sprintf("the time %02d:%02d", h, m))
	}
	var day time.Time
	if strings.TrimSpace(datePart) == "" || datePart == "today" {
		day = now
	} else {
		cfg := &dateparser.Configuration{CurrentTime: now, DefaultTimezone: zone, PreferredDateSource: dateparser.Future, Languages: []string{"en"}}
		d, err := dateparser.Parse(cfg, datePart)
		if err != nil || d.Time.IsZero() {
			return time.Time{}, &PhraseError{Phrase: text, Understood: understood, Rest: datePart}
		}
		day = d.Time.In(zone)
	}
	at := day
	if hasClock {
		at = time.Date(day.Year(), day.Month(), day.Day(), hour, minute, 0, 0, zone)
		if datePart == "" && !at.After(now) {
			at = at.AddDate(0, 0, 1) // "at 9" after nine: tomorrow
		}
	}
	return at.Truncate(time.Second), nil
}
