package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/egress"
)

// secretPrefix opens a Standard Webhooks signing secret.
const secretPrefix = "whsec_"

// newSigner returns the Standard Webhooks signer of a "whsec_…" secret.
func newSigner(secret string) (*standardwebhooks.Webhook, error) {
	if !strings.HasPrefix(secret, secretPrefix) {
		return nil, errors.New("webhook_secret: must be a Standard Webhooks secret starting with whsec_")
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil || len(strings.TrimPrefix(secret, secretPrefix)) < 24 {
		return nil, errors.New("webhook_secret: after whsec_ must come at least 24 base64 characters (16 random bytes or more)")
	}
	return wh, nil
}

// Envelope is a webhook's body, the shape Standard Webhooks recommends.
type Envelope struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      Data      `json:"data"`
}

// EventType is the webhook "type" of a notification kind.
func EventType(kind string) string { return "task." + kind }

// sendWebhook posts the notification, signed with the task's secret,
// through the egress guard. The webhook-id is the notification's, the same
// on every retry, so a receiver can drop a duplicate.
func (o *Outbox) sendWebhook(ctx context.Context, it db.OutboxItem) error {
	wh, err := newSigner(it.Secret)
	if err != nil {
		return permanent{err}
	}
	var d Data
	if err := json.Unmarshal(it.Payload, &d); err != nil {
		return permanent{fmt.Errorf("read payload: %w", err)}
	}
	d.NotificationID = it.NotificationID
	body, err := json.Marshal(Envelope{Type: EventType(d.Kind), Timestamp: it.CreatedAt.UTC(), Data: d})
	if err != nil {
		return permanent{err}
	}
	id := "msg_" + it.NotificationID
	now := time.Now()
	sig, err := wh.Sign(id, now, body)
	if err != nil {
		return permanent{fmt.Errorf("sign: %w", err)}
	}
	ctx, cancel := context.WithTimeout(ctx, o.opt.WebhookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, it.Target, bytes.NewReader(body))
	if err != nil {
		return permanent{fmt.Errorf("webhook request: %w", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Quarry-Webhooks/1")
	req.Header.Set(standardwebhooks.HeaderWebhookID, id)
	req.Header.Set(standardwebhooks.HeaderWebhookTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(standardwebhooks.HeaderWebhookSignature, sig)
	resp, err := o.opt.Guard.NoRedirectClient(o.opt.WebhookTimeout).Do(req)
	if err != nil {
		err = egress.RequestError(it.Target, err)
		if errors.Is(err, egress.ErrRefused) {
			return permanent{err}
		}
		return err
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("webhook answered %s: %s", resp.Status, strings.TrimSpace(string(snippet)))
	}
	return nil
}
