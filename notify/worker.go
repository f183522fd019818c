package notify

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/text"
)

// claimBatch is how many deliveries a worker takes at a time.
const claimBatch = 16

// Run delivers the outbox until ctx ends. Every replica runs one: due rows
// are claimed with SKIP LOCKED, so each delivery has one worker at a time,
// and a delivery whose worker died is taken again when its lease runs out.
func (o *Outbox) Run(ctx context.Context) {
	for {
		n, err := o.DeliverDue(ctx)
		if err != nil && ctx.Err() == nil {
			o.log.Warn("deliver notifications", "err", err)
		}
		if n == claimBatch {
			continue // there may be more due at once
		}
		select {
		case <-ctx.Done():
			return
		case <-o.wake:
		case <-time.After(o.opt.Poll):
		}
	}
}

// DeliverDue claims the deliveries due now and attempts each once,
// returning how many it claimed.
func (o *Outbox) DeliverDue(ctx context.Context) (int, error) {
	items, err := o.opt.Store.ClaimOutbox(ctx, claimBatch, o.opt.Lease)
	if err != nil {
		return 0, err
	}
	for _, it := range items {
		if ctx.Err() != nil {
			return len(items), ctx.Err() // the leases hand the rest to another worker
		}
		o.deliver(ctx, it)
	}
	return len(items), nil
}

// permanent marks a delivery error that retrying cannot fix.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

func (o *Outbox) deliver(ctx context.Context, it db.OutboxItem) {
	var err error
	switch it.Channel {
	case ChannelWebhook:
		err = o.sendWebhook(ctx, it)
	case ChannelEmail:
		err = o.sendEmail(ctx, it)
	default:
		err = permanent{fmt.Errorf("unknown channel %q", it.Channel)}
	}
	// The outcome is recorded even when ctx ended meanwhile.
	rec, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	log := o.log.With("delivery", it.ID, "channel", it.Channel, "attempt", it.Attempts)
	if err == nil {
		if err := o.opt.Store.OutboxDelivered(rec, it.ID); err != nil {
			log.Warn("record delivery", "err", err)
		}
		return
	}
	msg := text.Shorten(err.Error(), 500)
	var p permanent
	if errors.As(err, &p) || it.Attempts >= o.opt.MaxAttempts {
		log.Warn("delivery given up", "err", msg)
		if err := o.opt.Store.OutboxFailed(rec, it.ID, msg); err != nil {
			log.Warn("record failed delivery", "err", err)
		}
		return
	}
	delay := o.backoff(it.Attempts)
	log.Info("delivery failed; will retry", "err", msg, "retry_in", delay)
	if err := o.opt.Store.OutboxRetry(rec, it.ID, delay, msg); err != nil {
		log.Warn("record retry", "err", err)
	}
}

// backoff is the wait after the n-th failed attempt: BaseDelay doubled per
// further attempt, capped at MaxDelay, less up to a fifth at random so
// deliveries that failed together do not retry together.
func (o *Outbox) backoff(n int) time.Duration {
	d := o.opt.BaseDelay
	for i := 1; i < n && d < o.opt.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, o.opt.MaxDelay)
	return d - time.Duration(rand.Int64N(int64(d)/5+1))
}
