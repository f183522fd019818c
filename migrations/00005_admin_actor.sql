-- Who may act on a run, and who did. Runs are readable by the whole team;
-- cancelling, approving or editing the plan and sharing are for the run's
-- owner and for admins. Every event a person's request writes (a cancel,
-- an approval) records that person as its actor.

-- +goose Up
ALTER TABLE users ADD COLUMN admin boolean NOT NULL DEFAULT false;
ALTER TABLE run_events ADD COLUMN actor text;

-- +goose Down
ALTER TABLE run_events DROP COLUMN actor;
ALTER TABLE users DROP COLUMN admin;
