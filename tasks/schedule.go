// Package tasks is scheduled research: schedules people write, the
// scheduler every replica runs, and the failure and budget policy of a
// task's runs. The SQL lives in package db; this package decides.
package tasks

import (
	"errors"
	"fmt"
	"time"
	_ "time/tzdata" // IANA zones even where the host has none

	"github.com/adhocore/gronx"
)

// Schedule kinds, as stored in tasks.schedule_kind.
const (
	KindCron     = "cron"
	KindInterval = "interval"
	KindOnce     = "once"
)

// Schedule is when a task runs: a 5-field cron expression read in a time
// zone, a fixed interval, or one time.
type Schedule struct {
	Kind     string
	Cron     string         // KindCron
	Zone     *time.Location // KindCron (and how times are shown)
	Interval time.Duration  // KindInterval
	At       time.Time      // KindOnce
	Text     string         // what the person wrote
}

// maxCronSteps bounds the ticks walked when looking for the latest missed
// slot; beyond it the slot is too old for any grace period anyway.
const maxCronSteps = 10000

// Next returns the first slot strictly after t, or the zero time when
// there is none (a one-shot whose time has passed).
//
// Cron is evaluated on the zone's wall clock, then placed on the zone: a
// wall time that happens twice (the fall-back hour) fires once, at its
// first occurrence, and one that does not exist (the spring-forward hour)
// fires at the instant the clocks jump to, e.g. 02:30 becomes 03:30.
func (s Schedule) Next(t time.Time) time.Time {
	switch s.Kind {
	case KindInterval:
		return t.Truncate(time.Second).Add(s.Interval)
	case KindOnce:
		if s.At.After(t) {
			return s.At
		}
		return time.Time{}
	case KindCron:
		return s.nextCron(t)
	}
	return time.Time{}
}

func (s Schedule) nextCron(t time.Time) time.Time {
	zone := s.Zone
	if zone == nil {
		zone = time.UTC
	}
	wall := floating(t.In(zone))
	for i := 0; i < 3; i++ {
		w, err := gronx.NextTickAfter(s.Cron, wall, false)
		if err != nil {
			return time.Time{}
		}
		at := onWall(w, zone)
		if at.After(t) {
			return at
		}
		// The wall time maps to an instant not after t: the second pass
		// through a repeated hour, whose slot has already fired.
		wall = w
	}
	return time.Time{}
}

// onWall places a wall-clock time (read as UTC) on zone. A wall time the
// clocks skip is read with the offset in force before the jump, which is
// the instant the clocks jump to (02:30 on a spring-forward day is 03:30).
func onWall(w time.Time, zone *time.Location) time.Time {
	at := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), 0, 0, zone)
	if at.Hour() == w.Hour() && at.Minute() == w.Minute() {
		return at
	}
	_, before := at.Add(-24 * time.Hour).In(zone).Zone()
	return w.Add(-time.Duration(before) * time.Second).In(zone)
}

// floating is t's wall clock read as UTC, a clock without daylight saving.
func floating(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}

// Upcoming returns the next n slots after t.
func (s Schedule) Upcoming(t time.Time, n int) []time.Time {
	var out []time.Time
	for len(out) < n {
		t = s.Next(t)
		if t.IsZero() {
			break
		}
		out = append(out, t)
	}
	return out
}

// Due is what the scheduler does with a task whose slot has come: run the
// latest slot that is due (when it is within grace of now) and move on to
// the first slot after now. Several missed slots never run several times.
type Due struct {
	Slot    time.Time   // the slot to run or record; zero when none
	Run     bool        // false: the latest slot is older than the grace period
	Next    time.Time   // the task's next slot; zero when it has none (a one-shot)
	Skipped int         // earlier missed slots passed over
	Passed  []time.Time // the latest of them (at most maxPassed), to record
}

// maxPassed bounds the passed-over slots recorded after a long downtime.
const maxPassed = 20

// Plan decides the task's due slot at now, given its stored next slot.
func (s Schedule) Plan(next, now time.Time, grace time.Duration) Due {
	slot := next
	var d Due
	switch s.Kind {
	case KindInterval:
		if s.Interval > 0 && now.Sub(slot) >= s.Interval {
			n := now.Sub(slot) / s.Interval
			slot = slot.Add(n * s.Interval)
			d.Skipped = int(n)
			for k := 1; k <= min(d.Skipped, maxPassed); k++ {
				d.Passed = append(d.Passed, slot.Add(-time.Duration(k)*s.Interval))
			}
		}
	case KindCron:
		for i := 0; i < maxCronSteps; i++ {
			after := s.Next(slot)
			if after.IsZero() || after.After(now) {
				break
			}
			d.Passed = append(d.Passed, slot)
			if len(d.Passed) > maxPassed {
				d.Passed = d.Passed[1:]
			}
			slot = after
			d.Skipped++
		}
	}
	d.Slot = slot
	d.Run = grace <= 0 || now.Sub(slot) <= grace
	d.Next = s.Next(slot)
	return d
}

// ErrTooFrequent is wrapped by MinGap errors.
var ErrTooFrequent = errors.New("runs too often")

// CheckMinInterval returns an error when two consecutive slots of s (over
// the next few) are closer than min.
func (s Schedule) CheckMinInterval(from time.Time, min time.Duration) error {
	switch s.Kind {
	case KindInterval:
		if s.Interval < min {
			return fmt.Errorf("%w: every %s is more often than the minimum interval of %s", ErrTooFrequent, s.Interval, min)
		}
	case KindCron:
		slots := s.Upcoming(from, 50)
		for i := 1; i < len(slots); i++ {
			if gap := slots[i].Sub(slots[i-1]); gap < min {
				return fmt.Errorf("%w: %q runs %s apart at %s, more often than the minimum interval of %s",
					ErrTooFrequent, s.Cron, gap, slots[i-1].Format("Mon 15:04"), min)
			}
		}
	}
	return nil
}

// Describe says the schedule in words for the task list.
func (s Schedule) Describe() string {
	switch s.Kind {
	case KindInterval:
		return "every " + humanDuration(s.Interval)
	case KindOnce:
		zone := s.Zone
		if zone == nil {
			zone = time.UTC
		}
		return "once, " + s.At.In(zone).Format("Mon 2 Jan 2006 15:04 MST")
	case KindCron:
		if s.Text != "" && s.Text != s.Cron {
			return s.Text
		}
		zone := "UTC"
		if s.Zone != nil {
			zone = s.Zone.String()
		}
		return "cron " + s.Cron + " (" + zone + ")"
	}
	return s.Text
}

func humanDuration(d time.Duration) string {
	units := []struct {
		d    time.Duration
		name string
	}{{7 * 24 * time.Hour, "week"}, {24 * time.Hour, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"}, {time.Second, "second"}}
	for _, u := range units {
		if d >= u.d && d%u.d == 0 {
			n := int64(d / u.d)
			if n == 1 {
				return u.name
			}
			return fmt.Sprintf("%d %ss", n, u.name)
		}
	}
	return d.String()
}
