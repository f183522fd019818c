-- Personal API tokens: a program's own credential, acting with its user's
-- rights (read-only when so made). Only the SHA-256 of the secret is kept
-- (the secret is 256 random bits, shown once), with a short hint so a
-- person can tell their tokens apart. A revoked token stays listed, so a
-- program refused with 401 can be told why.

-- +goose Up
CREATE TABLE api_tokens (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_name    text NOT NULL,
    name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    token_hash   bytea NOT NULL UNIQUE,
    hint         text NOT NULL,
    read_only    boolean NOT NULL DEFAULT false,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX api_tokens_user ON api_tokens (user_name, created_at DESC);

-- +goose Down
DROP TABLE api_tokens;
