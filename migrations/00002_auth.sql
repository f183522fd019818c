-- +goose Up
-- Accounts for QUARRY_AUTH=password. Names are what runs record as their
-- owner; the password is a bcrypt hash, never the password.
CREATE TABLE users (
    name          text PRIMARY KEY,
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT users_name_check CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$')
);

-- Login sessions, shared by every replica. Only the SHA-256 of the cookie's
-- token is stored, so a copy of the table cannot be replayed as cookies.
CREATE TABLE sessions (
    token_hash bytea PRIMARY KEY,
    user_name  text NOT NULL REFERENCES users(name) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_name);
CREATE INDEX sessions_expires ON sessions (expires_at);

-- The per-user cap on runs in progress counts these.
CREATE INDEX runs_owner_active ON runs (owner) WHERE status IN ('queued','planning','gathering','synthesizing','verifying');

-- +goose Down
DROP INDEX runs_owner_active;
DROP TABLE sessions;
DROP TABLE users;
