-- Each report names the engine (and model) that wrote it, so a report
-- keeps its attribution after the server is switched to another engine.

-- +goose Up
ALTER TABLE reports ADD COLUMN engine text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE reports DROP COLUMN engine;
