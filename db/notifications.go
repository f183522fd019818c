package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// InboxChannel is the Postgres channel that tells every replica a user has
// a new notification. The payload is {"owner"} only; a stream reads the
// notifications themselves from the table.
const InboxChannel = "quarry_inbox"

// Notification is one message in a user's inbox.
type Notification struct {
	ID        string          `db:"id" json:"id"`
	Owner     string          `db:"owner" json:"-"`
	Kind      string          `db:"kind" json:"kind"`
	Title     string          `db:"title" json:"title"`
	Body      string          `db:"body" json:"body"`
	URL       string          `db:"url" json:"url"`
	TaskID    sql.NullString  `db:"task_id" json:"-"`
	RunID     sql.NullString  `db:"run_id" json:"-"`
	Payload   json.RawMessage `db:"payload" json:"payload"`
	ReadAt    sql.NullTime    `db:"read_at" json:"-"`
	CreatedAt time.Time       `db:"created_at" json:"created_at"`
}

const notificationColumns = `id, owner, kind, title, body, url, task_id, run_id, payload, read_at, created_at`

// Delivery is one channel a notification goes out to through the outbox.
type Delivery struct {
	Channel string // "webhook" or "email"
	Target  string // the webhook URL or the email address
	Secret  string // the webhook's signing secret
}

// NewNotification is what AddNotification stores.
type NewNotification struct {
	Owner, Kind, Title, Body, URL string
	TaskID, RunID                 string // "" when none
	Payload                       json.RawMessage
	Deliveries                    []Delivery
}

// AddNotification stores a notification, its outbox deliveries and the
// NOTIFY that wakes the owner's live streams, in one transaction: a
// delivery never exists without its inbox row, nor a toast without either.
func (s *Store) AddNotification(ctx context.Context, n NewNotification) (*Notification, error) {
	payload := n.Payload
	if len(payload) == 0 {
		payload = json.RawMessage(`{}`)
	}
	var out Notification
	err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.tx.GetContext(ctx, &out, `INSERT INTO notifications (owner, kind, title, body, url, task_id, run_id, payload)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING `+notificationColumns,
			n.Owner, n.Kind, n.Title, n.Body, n.URL, nullable(n.TaskID), nullable(n.RunID), []byte(payload)); err != nil {
			return fmt.Errorf("insert notification: %w", err)
		}
		for _, d := range n.Deliveries {
			if _, err := tx.tx.ExecContext(ctx, `INSERT INTO outbox (notification_id, channel, target, secret) VALUES ($1, $2, $3, $4)`,
				out.ID, d.Channel, d.Target, d.Secret); err != nil {
				return fmt.Errorf("queue %s delivery: %w", d.Channel, err)
			}
		}
		note, _ := json.Marshal(map[string]string{"owner": n.Owner})
		if _, err := tx.tx.ExecContext(ctx, `SELECT pg_notify($1, $2)`, InboxChannel, string(note)); err != nil {
			return fmt.Errorf("notify inbox: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("add notification for %q: %w", n.Owner, err)
	}
	return &out, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Notifications returns the owner's newest notifications, at most limit.
func (s *Store) Notifications(ctx context.Context, owner string, limit int) ([]Notification, error) {
	var out []Notification
	if err := s.db.SelectContext(ctx, &out, `SELECT `+notificationColumns+` FROM notifications
		WHERE owner = $1 ORDER BY created_at DESC, id LIMIT $2`, owner, limit); err != nil {
		return nil, fmt.Errorf("notifications of %q: %w", owner, err)
	}
	return out, nil
}

// NotificationsSince returns the owner's notifications created after since,
// oldest first, at most limit: what a live stream has not shown yet.
func (s *Store) NotificationsSince(ctx context.Context, owner string, since time.Time, limit int) ([]Notification, error) {
	var out []Notification
	if err := s.db.SelectContext(ctx, &out, `SELECT `+notificationColumns+` FROM notifications
		WHERE owner = $1 AND created_at > $2 ORDER BY created_at, id LIMIT $3`, owner, since, limit); err != nil {
		return nil, fmt.Errorf("new notifications of %q: %w", owner, err)
	}
	return out, nil
}

// UnreadNotifications counts the owner's unread notifications.
func (s *Store) UnreadNotifications(ctx context.Context, owner string) (int, error) {
	var n int
	if err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM notifications WHERE owner = $1 AND read_at IS NULL`, owner); err != nil {
		return 0, fmt.Errorf("unread notifications of %q: %w", owner, err)
	}
	return n, nil
}

// DBNow returns the database's clock, which stamps notifications: a live
// stream starts from it so it shows only what arrives after it opened.
func (s *Store) DBNow(ctx context.Context) (time.Time, error) {
	var t time.Time
	if err := s.db.GetContext(ctx, &t, `SELECT now()`); err != nil {
		return time.Time{}, fmt.Errorf("database clock: %w", err)
	}
	return t, nil
}

// MarkNotificationRead marks one of the owner's notifications read;
// ErrNotFound when the owner has no such notification (someone else's is
// not found either).
func (s *Store) MarkNotificationRead(ctx context.Context, owner, id string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE notifications SET read_at = COALESCE(read_at, now())
		WHERE id::text = $1 AND owner = $2`, id, owner)
	if err != nil {
		return fmt.Errorf("mark notification %s read: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// MarkAllNotificationsRead marks every notification of the owner read.
func (s *Store) MarkAllNotificationsRead(ctx context.Context, owner string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE notifications SET read_at = now() WHERE owner = $1 AND read_at IS NULL`, owner); err != nil {
		return fmt.Errorf("mark notifications of %q read: %w", owner, err)
	}
	return nil
}

// OutboxItem is a claimed delivery with what it delivers.
type OutboxItem struct {
	ID             int64           `db:"id"`
	NotificationID string          `db:"notification_id"`
	Channel        string          `db:"channel"`
	Target         string          `db:"target"`
	Secret         string          `db:"secret"`
	Attempts       int             `db:"attempts"` // including this one
	Title          string          `db:"title"`
	Body           string          `db:"body"`
	URL            string          `db:"url"`
	Payload        json.RawMessage `db:"payload"`
	CreatedAt      time.Time       `db:"created_at"` // of the notification
}

// ClaimOutbox takes up to limit due deliveries for this worker. Rows are
// picked with SKIP LOCKED, so replicas never take the same one, and their
// next attempt is pushed lease ahead: a worker that dies mid-delivery
// leaves the row to be claimed again when the lease runs out.
func (s *Store) ClaimOutbox(ctx context.Context, limit int, lease time.Duration) ([]OutboxItem, error) {
	var out []OutboxItem
	err := s.db.SelectContext(ctx, &out, `WITH due AS (
			SELECT id FROM outbox WHERE status = 'pending' AND next_attempt_at <= now()
			ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
		), claimed AS (
			UPDATE outbox o SET attempts = o.attempts + 1, next_attempt_at = now() + make_interval(secs => $2)
			FROM due WHERE o.id = due.id
			RETURNING o.id, o.notification_id, o.channel, o.target, o.secret, o.attempts
		)
		SELECT c.id, c.notification_id, c.channel, c.target, c.secret, c.attempts,
			n.title, n.body, n.url, n.payload, n.created_at
		FROM claimed c JOIN notifications n ON n.id = c.notification_id ORDER BY c.id`, limit, lease.Seconds())
	if err != nil {
		return nil, fmt.Errorf("claim outbox: %w", err)
	}
	return out, nil
}

// OutboxDelivered records a successful delivery.
func (s *Store) OutboxDelivered(ctx context.Context, id int64) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE outbox SET status = 'delivered', delivered_at = now(), last_error = ''
		WHERE id = $1 AND status = 'pending'`, id); err != nil {
		return fmt.Errorf("mark delivery %d delivered: %w", id, err)
	}
	return nil
}

// OutboxRetry records a failed attempt and when to try again.
func (s *Store) OutboxRetry(ctx context.Context, id int64, after time.Duration, lastErr string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE outbox SET next_attempt_at = now() + make_interval(secs => $2), last_error = $3
		WHERE id = $1 AND status = 'pending'`, id, after.Seconds(), lastErr); err != nil {
		return fmt.Errorf("schedule retry of delivery %d: %w", id, err)
	}
	return nil
}

// OutboxFailed gives a delivery up with its last error.
func (s *Store) OutboxFailed(ctx context.Context, id int64, lastErr string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE outbox SET status = 'failed', last_error = $2
		WHERE id = $1 AND status = 'pending'`, id, lastErr); err != nil {
		return fmt.Errorf("give up delivery %d: %w", id, err)
	}
	return nil
}

// OutboxRow is a delivery as the settings and tests see it.
type OutboxRow struct {
	ID          int64        `db:"id"`
	Channel     string       `db:"channel"`
	Target      string       `db:"target"`
	Status      string       `db:"status"`
	Attempts    int          `db:"attempts"`
	LastError   string       `db:"last_error"`
	DeliveredAt sql.NullTime `db:"delivered_at"`
}

// Deliveries returns the outbox rows of a notification.
func (s *Store) Deliveries(ctx context.Context, notificationID string) ([]OutboxRow, error) {
	var out []OutboxRow
	if err := s.db.SelectContext(ctx, &out, `SELECT id, channel, target, status, attempts, last_error, delivered_at
		FROM outbox WHERE notification_id = $1 ORDER BY id`, notificationID); err != nil {
		return nil, fmt.Errorf("deliveries of notification %s: %w", notificationID, err)
	}
	return out, nil
}

// GetNotification returns one of the owner's notifications, or ErrNotFound.
func (s *Store) GetNotification(ctx context.Context, owner, id string) (*Notification, error) {
	var n Notification
	err := s.db.GetContext(ctx, &n, `SELECT `+notificationColumns+` FROM notifications WHERE id::text = $1 AND owner = $2`, id, owner)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("notification %s: %w", id, err)
	}
	return &n, nil
}
