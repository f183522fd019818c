package main

import (
	"log/slog"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/notify"
)

// buildOutbox returns the notifier of task notices: inbox rows and an
// outbox this replica delivers (Run), webhooks through the egress guard
// (QUARRY_ALLOW_HOSTS opens private receivers), email through
// QUARRY_SMTP_URL, report links under the public URL.
func buildOutbox(cfg *Config, store *db.Store, logger *slog.Logger) *notify.Outbox {
	return notify.New(notify.Options{Store: store, Guard: egress.NewGuard(cfg.AllowHosts), BaseURL: cfg.PublicURL(),
		SMTP: cfg.SMTP, Logger: logger})
}
