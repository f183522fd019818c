-- Token buckets of the abuse limits (run creation, sign-in), shared by
-- every replica so N replicas do not allow N times the rate. A row is a
-- bucket: its tokens when it was last touched, and whether that touch
-- took a token.

-- +goose Up
CREATE TABLE rate_buckets (
    key        text PRIMARY KEY,
    tokens     double precision NOT NULL,
    allowed    boolean NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX rate_buckets_updated ON rate_buckets (updated_at);

-- +goose Down
DROP TABLE rate_buckets;
