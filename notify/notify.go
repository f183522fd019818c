// Package notify tells people what their tasks did: a notification row per
// message (the inbox, its unread badge and the live toast) and an outbox of
// deliveries to the task's channels — webhooks signed per Standard
// Webhooks and sent through the egress guard, and email over SMTP —
// delivered by whichever replica claims them first and retried with
// backoff.
package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/tasks"
	"github.com/quarryhq/quarry/text"
)

// Notice is one message about a task for its owner, as the scheduler
// writes it: the Outbox is the scheduler's tasks.Notifier.
type Notice = tasks.Notice

// Channels are where a notice goes besides the inbox.
type Channels = tasks.Channels

// Channel names of the outbox.
const (
	ChannelWebhook = "webhook"
	ChannelEmail   = "email"
)

// Data is what a notification carries to every channel: the webhook's
// "data", the email's facts, the inbox row's payload.
type Data struct {
	NotificationID string `json:"notification_id,omitempty"`
	Kind           string `json:"kind"`
	Title          string `json:"title"`
	Body           string `json:"body,omitempty"`
	TaskID         string `json:"task_id,omitempty"`
	RunID          string `json:"run_id,omitempty"`
	Status         string `json:"status,omitempty"`
	ReportURL      string `json:"report_url,omitempty"`
	Changes        string `json:"changes,omitempty"`
}

// Defaults of Options.
const (
	DefaultMaxAttempts = 8
	DefaultBaseDelay   = 30 * time.Second
	DefaultMaxDelay    = time.Hour
	DefaultPoll        = 2 * time.Second
	DefaultLease       = 2 * time.Minute
)

// Options configure an Outbox.
type Options struct {
	Store *db.Store
	// Guard refuses webhook URLs on private addresses unless allowed.
	Guard *egress.Guard
	// BaseURL is the public URL reports are linked under (QUARRY_BASE_URL).
	BaseURL string
	// SMTP is the mail server (QUARRY_SMTP_URL); nil turns email off and
	// email deliveries fail with a message saying so.
	SMTP   *SMTPConfig
	Logger *slog.Logger

	// MaxAttempts caps the tries of one delivery before it is given up.
	MaxAttempts int
	// BaseDelay is the wait after the first failure; it doubles with each
	// further one up to MaxDelay.
	BaseDelay, MaxDelay time.Duration
	// Poll is how often an idle worker looks for due deliveries.
	Poll time.Duration
	// Lease is how long a claimed delivery is this worker's before another
	// replica may take it again.
	Lease time.Duration
	// WebhookTimeout bounds one webhook request (default 15 s).
	WebhookTimeout time.Duration
}

// Outbox stores notifications and delivers them.
type Outbox struct {
	opt  Options
	log  *slog.Logger
	wake chan struct{}
}

// New returns an outbox; call Run to deliver.
func New(opt Options) *Outbox {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Guard == nil {
		opt.Guard = egress.NewGuard(nil)
	}
	if opt.MaxAttempts <= 0 {
		opt.MaxAttempts = DefaultMaxAttempts
	}
	if opt.BaseDelay <= 0 {
		opt.BaseDelay = DefaultBaseDelay
	}
	if opt.MaxDelay <= 0 {
		opt.MaxDelay = DefaultMaxDelay
	}
	if opt.Poll <= 0 {
		opt.Poll = DefaultPoll
	}
	if opt.Lease <= 0 {
		opt.Lease = DefaultLease
	}
	if opt.WebhookTimeout <= 0 {
		opt.WebhookTimeout = 15 * time.Second
	}
	opt.BaseURL = strings.TrimRight(opt.BaseURL, "/")
	return &Outbox{opt: opt, log: opt.Logger, wake: make(chan struct{}, 1)}
}

// Limits on what a notice may carry into the inbox and the outbox.
const (
	maxTitle   = 300
	maxBody    = 4000
	maxChanges = 8000
)

// Notify stores the notice in its owner's inbox and queues a delivery per
// configured channel, in one transaction; the owner's live streams on
// every replica hear of it through NOTIFY. A channel that fails
// CheckChannels is not queued: the inbox row says so instead.
func (o *Outbox) Notify(ctx context.Context, n Notice) error {
	if strings.TrimSpace(n.Title) == "" {
		return errors.New("notify: a notice needs a title")
	}
	d := Data{Kind: n.Kind, Title: clip(n.Title, maxTitle), Body: clip(n.Body, maxBody), TaskID: n.TaskID, RunID: n.RunID,
		Status: n.Status, ReportURL: o.absolute(n.ReportPath), Changes: clip(n.Changes, maxChanges)}
	var deliveries []db.Delivery
	if n.Channels.WebhookURL != "" {
		if err := checkWebhook(n.Channels.WebhookURL, n.Channels.WebhookSecret); err != nil {
			d.Body = strings.TrimSpace(d.Body + "\n\nNot sent to the webhook: " + err.Error())
		} else {
			deliveries = append(deliveries, db.Delivery{Channel: ChannelWebhook, Target: n.Channels.WebhookURL, Secret: n.Channels.WebhookSecret})
		}
	}
	if n.Channels.Email != "" {
		if err := checkEmail(n.Channels.Email); err != nil {
			d.Body = strings.TrimSpace(d.Body + "\n\nNot sent by email: " + err.Error())
		} else {
			deliveries = append(deliveries, db.Delivery{Channel: ChannelEmail, Target: n.Channels.Email})
		}
	}
	payload, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("notify: encode payload: %w", err)
	}
	if _, err := o.opt.Store.AddNotification(ctx, db.NewNotification{Owner: n.Owner, Kind: n.Kind, Title: d.Title, Body: d.Body,
		URL: n.ReportPath, TaskID: n.TaskID, RunID: n.RunID, Payload: payload, Deliveries: deliveries}); err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	if len(deliveries) > 0 {
		select {
		case o.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// absolute makes a site-relative report path a URL under the base URL.
func (o *Outbox) absolute(path string) string {
	if path == "" {
		return ""
	}
	if u, err := url.Parse(path); err == nil && u.IsAbs() {
		return path
	}
	return o.opt.BaseURL + "/" + strings.TrimLeft(path, "/")
}

// CheckChannels validates a task's channels as a form or the API receives
// them, naming the field at fault: the webhook URL must be http(s) and
// allowed by the egress guard (no private address unless allowed), its
// secret a Standard Webhooks "whsec_…" key, the email an address.
func CheckChannels(ctx context.Context, guard *egress.Guard, ch Channels) error {
	if ch.WebhookURL != "" {
		if err := checkWebhook(ch.WebhookURL, ch.WebhookSecret); err != nil {
			return err
		}
		if guard != nil {
			if err := guard.Check(ctx, ch.WebhookURL); err != nil {
				return fmt.Errorf("webhook_url: %w", err)
			}
		}
	} else if ch.WebhookSecret != "" {
		return errors.New("webhook_secret: given without a webhook_url")
	}
	if ch.Email != "" {
		return checkEmail(ch.Email)
	}
	return nil
}

func checkWebhook(raw, secret string) error {
	if len(raw) > 2048 {
		return errors.New("webhook_url: longer than 2048 characters")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("webhook_url: %q is not an absolute http(s) URL", clip(raw, 100))
	}
	if u.User != nil {
		return errors.New("webhook_url: must not carry a user name or password")
	}
	if err := checkWebhookHost(u.Hostname()); err != nil {
		return fmt.Errorf("webhook_url: %w", err)
	}
	if _, err := newSigner(secret); err != nil {
		return err
	}
	return nil
}

// checkWebhookHost refuses host forms that a browser or a resolver reads
// as an address but that are not written as one: a name ending in a number
// (2130706433, 0x7f000001, 0177.0.0.1, 127.1 — the WHATWG URL rule for
// IPv4) must be a dotted quad in its canonical form, and a name may not
// end in a dot. Such forms either slip past a reader's idea of the address
// or fail at every delivery, so they are refused when saved.
func checkWebhookHost(host string) error {
	if host == "" {
		return errors.New("has no host")
	}
	if strings.HasSuffix(host, ".") {
		return fmt.Errorf("host %q ends in a dot; write it without the trailing dot", clip(host, 100))
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Is4() && ip.String() != host {
			return fmt.Errorf("host %q is not an IPv4 address in its usual form (four decimal numbers)", clip(host, 100))
		}
		return nil
	}
	labels := strings.Split(host, ".")
	last := strings.ToLower(labels[len(labels)-1])
	numeric := last != "" && strings.Trim(last, "0123456789") == ""
	hex := strings.HasPrefix(last, "0x") && strings.Trim(last[2:], "0123456789abcdef") == ""
	if numeric || hex {
		return fmt.Errorf("host %q reads as a number but is not an IPv4 address in its usual form (four decimal numbers such as 203.0.113.7)", clip(host, 100))
	}
	for _, l := range labels {
		if l == "" {
			return fmt.Errorf("host %q has an empty label", clip(host, 100))
		}
	}
	return nil
}

func checkEmail(addr string) error {
	if len(addr) > 254 {
		return errors.New("email: longer than 254 characters")
	}
	a, err := mail.ParseAddress(addr)
	if err != nil || a.Name != "" || !strings.Contains(a.Address, "@") || strings.ContainsAny(addr, "\r\n") {
		return fmt.Errorf("email: %q is not an email address such as someone@example.com", clip(addr, 100))
	}
	return nil
}

// clip cuts s to at most n characters, marking the cut.
func clip(s string, n int) string { return text.Shorten(s, n) }
