package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/egress"
)

// Approval modes and notify policies, as stored.
const (
	ApprovalAuto   = "auto"
	ApprovalFirst  = "first"
	ApprovalAlways = "always"

	NotifyAlways  = "always"
	NotifyChange  = "change"
	NotifyFailure = "failure"
	NotifyNever   = "never"
)

// Input bounds.
const (
	MaxNameRunes      = 200
	MaxSecretLen      = 200
	MaxURLLen         = 2000
	DefaultMaxFailure = 3
)

// Input is a task as a person writes it (form or API). Question, depth and
// engines are checked by the caller's run validation (the same rules as a
// one-off run); Prepare checks the rest.
type Input struct {
	Name          string   `json:"name"`
	Question      string   `json:"question"`
	Depth         string   `json:"depth"`
	Engines       []string `json:"engines"`
	Schedule      string   `json:"schedule"`
	Timezone      string   `json:"timezone"`
	Approval      string   `json:"approval"`
	NotifyOn      string   `json:"notify_on"`
	WebhookURL    string   `json:"webhook_url"`
	WebhookSecret string   `json:"webhook_secret"`
	Email         string   `json:"email"`
	MaxFailures   int      `json:"max_failures"`
}

// FieldError is bad input naming the field it is about.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// URLChecker refuses URLs the server may not call (egress.Guard.Check).
type URLChecker func(ctx context.Context, rawURL string) error

// Rules are the limits a task must respect.
type Rules struct {
	MinInterval time.Duration
	CheckURL    URLChecker // nil: any http(s) URL
}

// Prepare checks in and returns the fields to store with the schedule they
// describe, read in the task's zone relative to now. An error is a
// *FieldError naming the field.
func Prepare(ctx context.Context, in Input, rules Rules, now time.Time) (db.TaskFields, Schedule, error) {
	var f db.TaskFields
	bad := func(field, format string, args ...any) (db.TaskFields, Schedule, error) {
		return db.TaskFields{}, Schedule{}, &FieldError{field, fmt.Sprintf(format, args...)}
	}
	f.Name = strings.TrimSpace(in.Name)
	if f.Name == "" {
		f.Name = firstWords(in.Question, 8)
	}
	if !utf8.ValidString(f.Name) || utf8.RuneCountInString(f.Name) > MaxNameRunes {
		return bad("name", "must be valid text of at most %d characters", MaxNameRunes)
	}
	f.Question, f.Depth, f.Engines = in.Question, in.Depth, in.Engines

	zoneName := strings.TrimSpace(in.Timezone)
	if zoneName == "" {
		zoneName = "UTC"
	}
	zone, err := loadZone(zoneName)
	if err != nil {
		return bad("timezone", "unknown time zone %q (an IANA name such as Europe/Berlin or America/New_York)", zoneName)
	}
	f.TimeZone = zone.String()
	if strings.TrimSpace(in.Schedule) == "" {
		return bad("schedule", "please say when the task runs, e.g. \"every weekday at 8am\"")
	}
	sched, err := Parse(in.Schedule, zone, now)
	if err != nil {
		return bad("schedule", "%s", err.Error())
	}
	if err := sched.CheckMinInterval(now, rules.MinInterval); err != nil {
		return bad("schedule", "%s", err.Error())
	}
	first := sched.Next(now)
	if sched.Kind == KindOnce && !sched.At.After(now) {
		return bad("schedule", "%s is in the past", sched.At.In(zone).Format("2006-01-02 15:04 MST"))
	}
	if first.IsZero() {
		return bad("schedule", "%q never runs", in.Schedule)
	}
	f.ScheduleText = strings.TrimSpace(in.Schedule)
	f.ScheduleKind = sched.Kind
	f.ScheduleExpr = sched.Cron
	f.IntervalSeconds = int64(sched.Interval / time.Second)
	f.RunAt = sched.At
	f.NextRunAt = first

	f.Approval = orDefault(strings.ToLower(strings.TrimSpace(in.Approval)), ApprovalAuto)
	if !oneOfWord(f.Approval, ApprovalAuto, ApprovalFirst, ApprovalAlways) {
		return bad("approval", "unknown approval mode %q (accepted: auto, first, always)", in.Approval)
	}
	f.NotifyOn = orDefault(strings.ToLower(strings.TrimSpace(in.NotifyOn)), NotifyChange)
	if !oneOfWord(f.NotifyOn, NotifyAlways, NotifyChange, NotifyFailure, NotifyNever) {
		return bad("notify.on", "unknown notify policy %q (accepted: always, change, failure, never)", in.NotifyOn)
	}
	f.MaxFailures = in.MaxFailures
	if f.MaxFailures == 0 {
		f.MaxFailures = DefaultMaxFailure
	}
	if f.MaxFailures < 1 || f.MaxFailures > 100 {
		return bad("max_failures", "must be from 1 to 100")
	}

	var ch Channels
	if u := strings.TrimSpace(in.WebhookURL); u != "" {
		if len(u) > MaxURLLen {
			return bad("notify.webhook_url", "is longer than %d characters", MaxURLLen)
		}
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return bad("notify.webhook_url", "%q is not an absolute http(s) URL", u)
		}
		if rules.CheckURL != nil {
			checkCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := rules.CheckURL(checkCtx, u)
			cancel()
			// A refusal (a private address, say) is bad input; a name that
			// does not resolve now may later, and delivery checks again.
			if errors.Is(err, egress.ErrRefused) {
				return bad("notify.webhook_url", "%s", err.Error())
			}
		}
		ch.WebhookURL = u
	}
	if s := strings.TrimSpace(in.WebhookSecret); s != "" {
		if ch.WebhookURL == "" {
			return bad("notify.webhook_secret", "is set without notify.webhook_url")
		}
		if !strings.HasPrefix(s, "whsec_") || len(s) > MaxSecretLen {
			return bad("notify.webhook_secret", "must be a Standard Webhooks secret: whsec_ followed by base64")
		}
		ch.WebhookSecret = s
	}
	if e := strings.TrimSpace(in.Email); e != "" {
		addr, err := mail.ParseAddress(e)
		if err != nil || !strings.Contains(e, "@") || len(e) > 320 || addr.Address != e {
			return bad("notify.email", "%q is not an email address such as name@example.com", e)
		}
		ch.Email = e
	}
	f.Channels, _ = json.Marshal(ch)
	return f, sched, nil
}

func loadZone(name string) (*time.Location, error) {
	if len(name) > 64 || strings.Contains(name, "..") {
		return nil, errors.New("bad zone name")
	}
	if strings.EqualFold(name, "utc") {
		return time.UTC, nil
	}
	return time.LoadLocation(name)
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func firstWords(s string, n int) string {
	words := strings.Fields(s)
	if len(words) > n {
		words = append(words[:n], "…")
	}
	out := strings.Join(words, " ")
	if utf8.RuneCountInString(out) > MaxNameRunes {
		out = string([]rune(out)[:MaxNameRunes-1]) + "…"
	}
	return out
}

// ScheduleOf is the schedule a stored task runs on.
func ScheduleOf(t *db.Task) Schedule {
	zone, err := loadZone(t.TimeZone)
	if err != nil {
		zone = time.UTC
	}
	s := Schedule{Kind: t.ScheduleKind, Cron: t.ScheduleExpr, Zone: zone, Interval: time.Duration(t.IntervalSeconds) * time.Second, Text: t.ScheduleText}
	if t.RunAt.Valid {
		s.At = t.RunAt.Time
	}
	return s
}

// ChannelsOf decodes a stored task's channels.
func ChannelsOf(t *db.Task) Channels {
	var ch Channels
	_ = json.Unmarshal(t.Channels, &ch)
	return ch
}
