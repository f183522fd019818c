-- Tasks: research questions that run themselves on a schedule. A task's run
-- is an ordinary run carrying task_id; reports outlive their task.
--
-- schedule_kind 'cron' uses schedule_expr (5 fields) in time_zone (IANA);
-- 'interval' uses interval_seconds; 'once' uses run_at. next_run_at is NULL
-- when nothing is due (paused, completed, archived).

-- +goose Up
CREATE TABLE tasks (
    id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    owner                text NOT NULL DEFAULT '',
    name                 text NOT NULL,
    question             text NOT NULL,
    depth                text NOT NULL DEFAULT '',
    engines              text[] NOT NULL DEFAULT '{}',
    schedule_text        text NOT NULL DEFAULT '',
    schedule_kind        text NOT NULL CHECK (schedule_kind IN ('cron', 'interval', 'once')),
    schedule_expr        text NOT NULL DEFAULT '',
    time_zone            text NOT NULL DEFAULT 'UTC',
    interval_seconds     bigint NOT NULL DEFAULT 0,
    run_at               timestamptz,
    approval             text NOT NULL DEFAULT 'auto' CHECK (approval IN ('auto', 'first', 'always')),
    notify_on            text NOT NULL DEFAULT 'change' CHECK (notify_on IN ('always', 'change', 'failure', 'never')),
    channels             jsonb NOT NULL DEFAULT '{}',
    max_failures         integer NOT NULL DEFAULT 3 CHECK (max_failures >= 1),
    consecutive_failures integer NOT NULL DEFAULT 0,
    status               text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'completed', 'archived')),
    paused_reason        text NOT NULL DEFAULT '',
    next_run_at          timestamptz,
    last_run_at          timestamptz,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tasks_due ON tasks (next_run_at) WHERE status = 'active';
CREATE INDEX tasks_owner ON tasks (owner);

ALTER TABLE runs
    ADD COLUMN task_id       uuid REFERENCES tasks(id) ON DELETE SET NULL,
    ADD COLUMN trigger       text NOT NULL DEFAULT '' CHECK (trigger IN ('', 'schedule', 'manual')),
    ADD COLUMN scheduled_for timestamptz;
CREATE UNIQUE INDEX runs_task_slot ON runs (task_id, scheduled_for) WHERE task_id IS NOT NULL AND scheduled_for IS NOT NULL;
CREATE INDEX runs_task ON runs (task_id, created_at DESC) WHERE task_id IS NOT NULL;

-- A slot the scheduler did not run (the previous run still active, an
-- approval that expired, a budget reached): the task page lists these.
CREATE TABLE task_skips (
    task_id       uuid NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    scheduled_for timestamptz NOT NULL,
    reason        text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (task_id, scheduled_for)
);

-- +goose Down
DROP TABLE task_skips;
DROP INDEX runs_task;
DROP INDEX runs_task_slot;
ALTER TABLE runs DROP COLUMN scheduled_for, DROP COLUMN trigger, DROP COLUMN task_id;
DROP TABLE tasks;
