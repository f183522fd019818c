-- Site-agent steps: each atomic browser action of a run's agent, recorded
-- before it runs (status 'running') and again with its outcome, with a
-- small JPEG of the page after it. A resumed run reads them so that it
-- never repeats an action that may have had an effect.

-- +goose Up
CREATE TABLE agent_steps (
    run_id      uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    action_idx  integer NOT NULL,
    n           integer NOT NULL,
    kind        text NOT NULL,
    element     text NOT NULL DEFAULT '',
    status      text NOT NULL CHECK (status IN ('running', 'success', 'error', 'paused')),
    error       text NOT NULL DEFAULT '',
    url         text NOT NULL DEFAULT '',
    action      jsonb NOT NULL DEFAULT '{}',
    screenshot  bytea CHECK (screenshot IS NULL OR length(screenshot) <= 65536),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, action_idx, n)
);

-- +goose Down
DROP TABLE agent_steps;
