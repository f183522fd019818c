package tasks

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestParsePhrases(t *testing.T) {
	ny := zone(t, "America/New_York")
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, ny) // a Tuesday
	cases := []struct {
		phrase   string
		kind     string
		cron     string
		interval time.Duration
		at       time.Time
	}{
		{"every weekday at 8am", KindCron, "0 8 * * 1-5", 0, time.Time{}},
		{"Every 6 hours", KindInterval, "", 6 * time.Hour, time.Time{}},
		{"every Monday and Thursday at 17:30", KindCron, "30 17 * * 1,4", 0, time.Time{}},
		{"daily at noon", KindCron, "0 12 * * *", 0, time.Time{}},
		{"every day at 5:15pm", KindCron, "15 17 * * *", 0, time.Time{}},
		{"every morning", KindCron, "0 8 * * *", 0, time.Time{}},
		{"weekly on friday at 9 am", KindCron, "0 9 * * 5", 0, time.Time{}},
		{"every 10 seconds", KindInterval, "", 10 * time.Second, time.Time{}},
		{"hourly", KindInterval, "", time.Hour, time.Time{}},
		{"0 8 * * 1-5", KindCron, "0 8 * * 1-5", 0, time.Time{}},
		{"tomorrow at 9", KindOnce, "", 0, time.Date(2026, 11, 25, 9, 0, 0, 0, ny)},
		{"in 2 hours", KindOnce, "", 0, time.Date(2026, 11, 24, 12, 0, 0, 0, ny)},
		{"at 9", KindOnce, "", 0, time.Date(2026, 11, 25, 9, 0, 0, 0, ny)},
		{"2026-12-01 09:00", KindOnce, "", 0, time.Date(2026, 12, 1, 9, 0, 0, 0, ny)},
	}
	for _, c := range cases {
		s, err := Parse(c.phrase, ny, now)
		if err != nil {
			t.Errorf("%q: %v", c.phrase, err)
			continue
		}
		if s.Kind != c.kind || s.Cron != c.cron || s.Interval != c.interval || !s.At.Equal(c.at) {
			t.Errorf("%q = %+v, want kind %s cron %q interval %s at %s", c.phrase, s, c.kind, c.cron, c.interval, c.at)
		}
	}
}

func TestParseErrorsSayWhatWasUnderstood(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	_, err := Parse("every monday at quarter past", time.UTC, now)
	var pe *PhraseError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a PhraseError", err)
	}
	if !strings.Contains(err.Error(), "days 1") || !strings.Contains(err.Error(), `"quarter past"`) {
		t.Errorf("error does not say what was understood and what not: %v", err)
	}
	for _, bad := range []string{"", "blursday", "61 * * * *", "every 0 hours", "every monday at 25:00"} {
		if _, err := Parse(bad, time.UTC, now); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// A daily 01:30 task fires once on the day the clocks fall back (01:30
// happens twice in New York on 2026-11-01).
func TestCronFallBackFiresOnce(t *testing.T) {
	ny := zone(t, "America/New_York")
	s := Schedule{Kind: KindCron, Cron: "30 1 * * *", Zone: ny}
	from := time.Date(2026, 10, 31, 12, 0, 0, 0, ny)
	slots := s.Upcoming(from, 3)
	want := []time.Time{
		time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC), // 01:30 EDT, the first pass
		time.Date(2026, 11, 2, 6, 30, 0, 0, time.UTC), // 01:30 EST next day
		time.Date(2026, 11, 3, 6, 30, 0, 0, time.UTC),
	}
	for i := range want {
		if !slots[i].Equal(want[i]) {
			t.Fatalf("slot %d = %s, want %s (all: %v)", i, slots[i].UTC(), want[i], slots)
		}
	}
	// Asked from inside the repeated hour, after the slot fired: not again.
	secondPass := time.Date(2026, 11, 1, 6, 10, 0, 0, time.UTC) // 01:10 EST
	if next := s.Next(secondPass); !next.Equal(want[1]) {
		t.Errorf("next after the second 01:10 = %s, want %s", next.UTC(), want[1])
	}
}

// 02:30 does not exist on the day the clocks spring forward (New York,
// 2026-03-08): the task fires at the instant the clocks jump to, 03:30 EDT.
func TestCronSpringForwardShifts(t *testing.T) {
	ny := zone(t, "America/New_York")
	s := Schedule{Kind: KindCron, Cron: "30 2 * * *", Zone: ny}
	slots := s.Upcoming(time.Date(2026, 3, 7, 12, 0, 0, 0, ny), 2)
	if want := time.Date(2026, 3, 8, 7, 30, 0, 0, time.UTC); !slots[0].Equal(want) {
		t.Errorf("spring-forward slot = %s (%s), want %s (03:30 EDT)", slots[0].UTC(), slots[0].In(ny), want)
	}
	if want := time.Date(2026, 3, 9, 6, 30, 0, 0, time.UTC); !slots[1].Equal(want) {
		t.Errorf("day after = %s, want %s", slots[1].UTC(), want)
	}
}

func TestPlanGrace(t *testing.T) {
	s := Schedule{Kind: KindInterval, Interval: time.Hour}
	next := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Down for 3.5 hours: the latest slot (03:00) is 30 m old, within a 1 h grace.
	d := s.Plan(next, next.Add(210*time.Minute), time.Hour)
	if !d.Run || !d.Slot.Equal(next.Add(3*time.Hour)) || !d.Next.Equal(next.Add(4*time.Hour)) || d.Skipped != 3 {
		t.Errorf("plan = %+v", d)
	}
	// The latest slot 30 m old with a 10 m grace: not run, moved on.
	d = s.Plan(next, next.Add(210*time.Minute), 10*time.Minute)
	if d.Run || !d.Next.Equal(next.Add(4*time.Hour)) {
		t.Errorf("plan beyond grace = %+v", d)
	}
	c := Schedule{Kind: KindCron, Cron: "0 9 * * *", Zone: time.UTC}
	d = c.Plan(next.Add(9*time.Hour), next.Add(3*24*time.Hour+9*time.Hour+5*time.Minute), time.Hour)
	if !d.Run || !d.Slot.Equal(next.Add(3*24*time.Hour+9*time.Hour)) || d.Skipped != 3 {
		t.Errorf("cron plan = %+v", d)
	}
	o := Schedule{Kind: KindOnce, At: next}
	d = o.Plan(next, next.Add(time.Minute), time.Hour)
	if !d.Run || !d.Next.IsZero() {
		t.Errorf("once plan = %+v", d)
	}
}

func TestMinInterval(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := (Schedule{Kind: KindInterval, Interval: time.Minute}).CheckMinInterval(now, 5*time.Minute); !errors.Is(err, ErrTooFrequent) {
		t.Errorf("1m interval: %v", err)
	}
	if err := (Schedule{Kind: KindCron, Cron: "*/2 * * * *", Zone: time.UTC}).CheckMinInterval(now, 5*time.Minute); !errors.Is(err, ErrTooFrequent) {
		t.Errorf("*/2 cron: %v", err)
	}
	if err := (Schedule{Kind: KindCron, Cron: "0 8 * * 1-5", Zone: time.UTC}).CheckMinInterval(now, 5*time.Minute); err != nil {
		t.Errorf("weekday cron: %v", err)
	}
}
