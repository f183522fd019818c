package db

import (
	"context"
	"log/slog"
	"time"

	"github.com/lib/pq"
)

// listen follows NOTIFY on channel until ctx ends, on a connection of its
// own (pinged every 30 s, reconnected by lib/pq): each notification's
// payload goes to on, and lost is called after a reconnect, when
// notifications may have been missed, so the caller can resynchronise
// from its tables. The event broker, the inbox and the scheduler each
// follow one channel this way.
func listen(ctx context.Context, url, channel string, logger *slog.Logger, on func(payload string), lost func()) error {
	listener := pq.NewListener(url, 100*time.Millisecond, 5*time.Second, func(ev pq.ListenerEventType, err error) {
		if err != nil && logger != nil {
			logger.Warn("listener", "channel", channel, "event", ev, "err", err)
		}
		if ev == pq.ListenerEventReconnected {
			lost()
		}
	})
	if err := listener.Listen(channel); err != nil {
		listener.Close()
		return err
	}
	go func() {
		defer listener.Close()
		ping := time.NewTicker(30 * time.Second)
		defer ping.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case n := <-listener.Notify:
				if n == nil { // reconnected: notifications may be lost
					lost()
					continue
				}
				on(n.Extra)
			case <-ping.C:
				go listener.Ping()
			}
		}
	}()
	return nil
}
