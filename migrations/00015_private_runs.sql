-- A run that read a private library collection is private to its owner
-- (and admins), and its share link works only once the owner confirms.
-- The mark is set by the database as the passage is stored, in the same
-- transaction as the action event that shows it, so no reader sees a
-- private passage on a run not yet marked; a follow-up of a private run,
-- which sees its parent's sections, is private from the start.

-- +goose Up
ALTER TABLE runs ADD COLUMN reads_private boolean NOT NULL DEFAULT false;
ALTER TABLE runs ADD COLUMN share_confirmed boolean NOT NULL DEFAULT false;

-- +goose StatementBegin
CREATE FUNCTION quarry_source_marks_private() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Library passages are stored with the canonical URL library:<document>/<seq>.
    IF NEW.canonical_url LIKE 'library:%' AND EXISTS (
        SELECT 1 FROM library_documents d JOIN library_collections c ON c.id = d.collection_id
        WHERE c.visibility = 'private' AND d.id::text = split_part(substr(NEW.canonical_url, 9), '/', 1)) THEN
        UPDATE runs SET reads_private = true WHERE id = NEW.run_id AND NOT reads_private;
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER sources_mark_private AFTER INSERT ON sources
    FOR EACH ROW EXECUTE FUNCTION quarry_source_marks_private();

-- +goose StatementBegin
CREATE FUNCTION quarry_follow_up_inherits_private() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.parent_run_id IS NOT NULL THEN
        NEW.reads_private := NEW.reads_private OR COALESCE((SELECT reads_private FROM runs WHERE id = NEW.parent_run_id), false);
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER runs_inherit_private BEFORE INSERT ON runs
    FOR EACH ROW EXECUTE FUNCTION quarry_follow_up_inherits_private();

-- +goose Down
DROP TRIGGER runs_inherit_private ON runs;
DROP FUNCTION quarry_follow_up_inherits_private();
DROP TRIGGER sources_mark_private ON sources;
DROP FUNCTION quarry_source_marks_private();
ALTER TABLE runs DROP COLUMN share_confirmed;
ALTER TABLE runs DROP COLUMN reads_private;
