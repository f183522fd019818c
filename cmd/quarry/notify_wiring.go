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

// taskNotifier hands the scheduler's notices to the outbox.
type taskNotifier struct{ outbox *notify.Outbox }

// Notify implements tasks.Notifier.
func (n taskNotifier) Notify(ctx context.Context, t tasks.Notice) error {
	return n.outbox.Notify(ctx, notify.Notice{Owner: t.Owner, Kind: t.Kind, Title: t.Title, Body: t.Body, TaskID: t.TaskID,
		RunID: t.RunID, Status: t.Status, ReportPath: t.ReportPath, Changes: t.Changes, Channels: notify.Channels(t.Channels)})
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
