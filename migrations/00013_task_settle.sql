-- Tasks, second part: a budget pause lasts until a time (the next day), and
-- a task's finished run is settled once (failure count, notice) by
-- whichever replica gets to it first.

-- +goose Up
ALTER TABLE tasks ADD COLUMN paused_until timestamptz;
ALTER TABLE runs ADD COLUMN task_settled_at timestamptz;
CREATE INDEX runs_task_unsettled ON runs (finished_at) WHERE task_id IS NOT NULL AND task_settled_at IS NULL;
CREATE INDEX tasks_paused_until ON tasks (paused_until) WHERE status = 'paused' AND paused_until IS NOT NULL;

-- +goose Down
DROP INDEX tasks_paused_until;
DROP INDEX runs_task_unsettled;
ALTER TABLE runs DROP COLUMN task_settled_at;
ALTER TABLE tasks DROP COLUMN paused_until;
