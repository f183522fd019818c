-- Per host, which way of fetching its pages worked: 'http' (the served
-- HTML holds the text) or 'render' (the pages need a browser), until
-- expires_at, after which the host is tested again. Shared by replicas so
-- each does not learn it anew.

-- +goose Up
CREATE TABLE host_fetch_modes (
    host       text PRIMARY KEY,
    mode       text NOT NULL CHECK (mode IN ('http', 'render')),
    expires_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX host_fetch_modes_expires ON host_fetch_modes (expires_at);

-- +goose Down
DROP TABLE host_fetch_modes;
