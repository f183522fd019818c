-- Notifications: one row per user-visible message (the inbox), and an outbox
-- of deliveries to channels (webhook, email), claimed by any replica with
-- SKIP LOCKED and retried with backoff until delivered or given up.

-- +goose Up
CREATE TABLE notifications (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    owner      text NOT NULL DEFAULT '',
    kind       text NOT NULL,
    title      text NOT NULL,
    body       text NOT NULL DEFAULT '',
    url        text NOT NULL DEFAULT '',
    task_id    uuid REFERENCES tasks(id) ON DELETE SET NULL,
    run_id     uuid REFERENCES runs(id) ON DELETE SET NULL,
    payload    jsonb NOT NULL DEFAULT '{}',
    read_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notifications_owner ON notifications (owner, created_at DESC);
CREATE INDEX notifications_unread ON notifications (owner) WHERE read_at IS NULL;

CREATE TABLE outbox (
    id               bigserial PRIMARY KEY,
    notification_id  uuid NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
    channel          text NOT NULL CHECK (channel IN ('webhook', 'email')),
    target           text NOT NULL,
    secret           text NOT NULL DEFAULT '',
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    last_error       text NOT NULL DEFAULT '',
    delivered_at     timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE status = 'pending';

-- What changed in a task's run since the task's previous finished run: the
-- summary the report's "Changes since" section was written from, so the
-- notify policy 'change' and the task page need not re-read reports.
CREATE TABLE run_changes (
    run_id          uuid PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    previous_run_id uuid REFERENCES runs(id) ON DELETE SET NULL,
    since           timestamptz NOT NULL,
    changed         boolean NOT NULL,
    summary         text NOT NULL DEFAULT '',
    detail          jsonb NOT NULL DEFAULT '{}',
    created_at      timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE run_changes;
DROP TABLE outbox;
DROP TABLE notifications;
