-- The document library: collections of uploaded documents, their pages
-- of extracted text and the chunks search reads. A document is ingested by
-- a background job that leases the document row (the run queue's
-- claim-and-lease pattern), so a crashed ingestion is claimed again and
-- resumed; chunks are keyed by (document, seq), so a resumed job never
-- stores one twice.

-- +goose Up
CREATE TABLE library_collections (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name       text NOT NULL UNIQUE,
    owner      text NOT NULL DEFAULT '',
    visibility text NOT NULL DEFAULT 'team' CHECK (visibility IN ('team', 'private')),
    -- whether share links of runs citing its documents may open whole documents
    share_documents boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE library_documents (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    collection_id    uuid NOT NULL REFERENCES library_collections(id) ON DELETE CASCADE,
    title            text NOT NULL DEFAULT '',
    filename         text NOT NULL DEFAULT '',
    kind             text NOT NULL CHECK (kind IN ('pdf', 'html', 'markdown', 'text')),
    size             bigint NOT NULL,
    sha256           text NOT NULL,
    language         text NOT NULL DEFAULT 'simple',
    content          bytea NOT NULL,
    status           text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'ingesting', 'ready', 'failed')),
    error            text NOT NULL DEFAULT '',
    pages            integer NOT NULL DEFAULT 0,
    chunks           integer NOT NULL DEFAULT 0,
    added_by         text NOT NULL DEFAULT '',
    lease_owner      text,
    lease_expires_at timestamptz,
    attempts         integer NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (collection_id, sha256)
);
CREATE INDEX library_documents_todo ON library_documents (created_at) WHERE status IN ('queued', 'ingesting');

CREATE TABLE library_pages (
    document_id uuid NOT NULL REFERENCES library_documents(id) ON DELETE CASCADE,
    page        integer NOT NULL,
    text        text NOT NULL,
    PRIMARY KEY (document_id, page)
);

CREATE TABLE library_chunks (
    document_id uuid NOT NULL REFERENCES library_documents(id) ON DELETE CASCADE,
    seq         integer NOT NULL,
    page        integer NOT NULL,
    heading     text NOT NULL DEFAULT '',
    text        text NOT NULL,
    tsv         tsvector NOT NULL,
    embedding   real[],
    PRIMARY KEY (document_id, seq)
);
CREATE INDEX library_chunks_tsv ON library_chunks USING gin (tsv);

-- +goose Down
DROP TABLE library_chunks;
DROP TABLE library_pages;
DROP TABLE library_documents;
DROP TABLE library_collections;
