package main

import (
	"context"
	"log/slog"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/notify"
	"github.com/quarryhq/quarry/tasks"
)

// buildOutbox returns the notifier of task notices: inbox rows and an
// outbox this replica delivers (Run), webhooks through the egress guard
// (QUARRY_ALLOW_HOSTS opens private receivers), email through
// QUARRY_SMTP_URL, report links under the public URL.
func buildOutbox(cfg *Config, store *db.Store, logger *slog.Logger) *notify.Outbox {
	return notify.New(notify.Options{Store: store, Guard: egress.NewGuard(cfg.AllowHosts), BaseURL: cfg.PublicURL(),
		SMTP: cfg.SMTP, Logger: logger})
}

// changeReader answers notify=change from the stored change summaries; a
// summary that cannot be read counts as changed, so no notice is lost to it.
func changeReader(store *db.Store) tasks.ChangeReader {
	return func(ctx context.Context, runID string) (string, bool) {
		summary, changed, err := store.ChangeSummary(ctx, runID)
		if err != nil {
			return "", true
		}
		return summary, changed
	}
}
