-- +goose Up
CREATE TABLE runs (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    parent_run_id    uuid REFERENCES runs(id) ON DELETE SET NULL,
    question         text NOT NULL,
    depth            text NOT NULL,
    route            text NOT NULL DEFAULT '',
    options          jsonb NOT NULL DEFAULT '{}',
    status           text NOT NULL DEFAULT 'queued',
    task_spec        jsonb NOT NULL DEFAULT 'null',
    budget           jsonb NOT NULL DEFAULT '{}',
    spend            jsonb NOT NULL DEFAULT '{}',
    stop_reason      text NOT NULL DEFAULT '',
    error            text NOT NULL DEFAULT '',
    owner            text NOT NULL DEFAULT '',
    share_token      text UNIQUE,
    share_revoked_at timestamptz,
    share_expires_at timestamptz,
    lease_owner      text,
    lease_expires_at timestamptz,
    attempts         integer NOT NULL DEFAULT 0,
    last_seq         bigint NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    started_at       timestamptz,
    finished_at      timestamptz,
    CONSTRAINT runs_status_check CHECK (status IN ('queued','planning','awaiting_approval','gathering','synthesizing','verifying','done','failed','cancelled'))
);
CREATE INDEX runs_claimable ON runs (created_at) WHERE status IN ('queued','planning','gathering','synthesizing','verifying');
CREATE INDEX runs_created ON runs (created_at DESC);
CREATE INDEX runs_parent ON runs (parent_run_id);

CREATE TABLE run_events (
    run_id     uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq        bigint NOT NULL,
    type       text NOT NULL,
    payload    jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, seq)
);

CREATE TABLE actions (
    run_id      uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx         integer NOT NULL,
    batch       integer NOT NULL,
    priority    integer NOT NULL DEFAULT 0,
    kind        text NOT NULL,
    engine      text NOT NULL DEFAULT '',
    query       text NOT NULL DEFAULT '',
    url         text NOT NULL DEFAULT '',
    reason      text NOT NULL DEFAULT '',
    status      text NOT NULL DEFAULT 'pending',
    error       text NOT NULL DEFAULT '',
    preview     text NOT NULL DEFAULT '',
    result      jsonb NOT NULL DEFAULT '{}',
    started_at  timestamptz,
    finished_at timestamptz,
    PRIMARY KEY (run_id, idx),
    CONSTRAINT actions_status_check CHECK (status IN ('pending','running','success','error','skipped'))
);

CREATE TABLE sources (
    run_id        uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    sid           integer NOT NULL,
    url           text NOT NULL,
    canonical_url text NOT NULL,
    title         text NOT NULL DEFAULT '',
    host          text NOT NULL DEFAULT '',
    site          text NOT NULL DEFAULT '',
    byline        text NOT NULL DEFAULT '',
    published     text NOT NULL DEFAULT '',
    lang          text NOT NULL DEFAULT '',
    text          text NOT NULL DEFAULT '',
    findings      jsonb NOT NULL DEFAULT '[]',
    action_idx    integer,
    fetched_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, sid),
    UNIQUE (run_id, canonical_url)
);

CREATE TABLE checkpoints (
    id         bigserial PRIMARY KEY,
    run_id     uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    stage      text NOT NULL,
    state      jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX checkpoints_run ON checkpoints (run_id, id DESC);

CREATE TABLE reports (
    run_id       uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    version      integer NOT NULL,
    markdown     text NOT NULL,
    html         text NOT NULL DEFAULT '',
    verification jsonb NOT NULL DEFAULT '{}',
    citations    jsonb NOT NULL DEFAULT '[]',
    published    boolean NOT NULL DEFAULT false,
    created_at   timestamptz NOT NULL DEFAULT now(),
    search       tsvector GENERATED ALWAYS AS (to_tsvector('english', markdown)) STORED,
    PRIMARY KEY (run_id, version)
);
CREATE INDEX reports_search ON reports USING gin (search);
CREATE INDEX runs_question_search ON runs USING gin (to_tsvector('english', question));

-- +goose Down
DROP TABLE reports;
DROP TABLE checkpoints;
DROP TABLE sources;
DROP TABLE actions;
DROP TABLE run_events;
DROP TABLE runs;
