package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lib/pq"
)

// The document library's storage: collections, documents (with their
// original bytes and an ingestion lease), pages of extracted text and the
// chunks full-text and vector search read. Who may read a collection is
// one rule, readable below: team collections are everyone's, private ones
// their owner's.

// Collection is a named set of documents.
type Collection struct {
	ID             string    `db:"id" json:"id"`
	Name           string    `db:"name" json:"name"`
	Owner          string    `db:"owner" json:"owner"`
	Visibility     string    `db:"visibility" json:"visibility"`
	ShareDocuments bool      `db:"share_documents" json:"share_documents"`
	CreatedAt      time.Time `db:"created_at" json:"created_at"`
	Documents      int       `db:"documents" json:"documents"`
}

// Document is an uploaded file and the state of its ingestion (never its
// bytes; see DocumentContent).
type Document struct {
	ID           string    `db:"id" json:"id"`
	CollectionID string    `db:"collection_id" json:"collection_id"`
	Collection   string    `db:"collection" json:"collection"`
	Title        string    `db:"title" json:"title"`
	Filename     string    `db:"filename" json:"filename"`
	Kind         string    `db:"kind" json:"kind"`
	Size         int64     `db:"size" json:"size"`
	SHA256       string    `db:"sha256" json:"sha256"`
	Language     string    `db:"language" json:"language"`
	Status       string    `db:"status" json:"status"`
	Error        string    `db:"error" json:"error,omitempty"`
	Pages        int       `db:"pages" json:"pages"`
	Chunks       int       `db:"chunks" json:"chunks"`
	AddedBy      string    `db:"added_by" json:"added_by"`
	Attempts     int       `db:"attempts" json:"-"`
	CreatedAt    time.Time `db:"created_at" json:"created_at"`
	UpdatedAt    time.Time `db:"updated_at" json:"updated_at"`
}

// Document statuses.
const (
	DocQueued    = "queued"
	DocIngesting = "ingesting"
	DocReady     = "ready"
	DocFailed    = "failed"
)

// DocPage is one page (or section, for formats without pages) of a
// document's extracted text, numbered from 1.
type DocPage struct {
	Page int    `db:"page" json:"page"`
	Text string `db:"text" json:"text"`
}

// Chunk is a stretch of a document's text that search returns.
type Chunk struct {
	Seq     int    `db:"seq" json:"seq"`
	Page    int    `db:"page" json:"page"`
	Heading string `db:"heading" json:"heading"`
	Text    string `db:"text" json:"text"`
}

// ChunkHit is a chunk a search found, with its document.
type ChunkHit struct {
	DocumentID string  `db:"document_id" json:"document_id"`
	Title      string  `db:"title" json:"title"`
	Filename   string  `db:"filename" json:"filename"`
	Collection string  `db:"collection" json:"collection"`
	Seq        int     `db:"seq" json:"seq"`
	Page       int     `db:"page" json:"page"`
	Heading    string  `db:"heading" json:"heading"`
	Text       string  `db:"text" json:"text"`
	Rank       float64 `db:"rank" json:"rank"`
	// Headline is the text with the query's words between \x01 and \x02.
	Headline string `db:"headline" json:"headline"`
}

// ChunkVector is a chunk's embedding, for the bounded vector scan.
type ChunkVector struct {
	DocumentID string          `db:"document_id"`
	Seq        int             `db:"seq"`
	Embedding  pq.Float32Array `db:"embedding"`
}

// readable is the rule for which collections a reader may search and open:
// team collections, and private ones the reader owns. $1 is the reader.
const readable = `(c.visibility = 'team' OR c.owner = $1)`

// words is the SQL that prepares text (or a query) for the text search
// parser: names joined by dots, underscores or slashes (rows.StructScan,
// file_name, path/to) are split into their words, which the parser would
// otherwise keep as one host or file token no query word matches.
func words(expr string) string {
	return `regexp_replace(` + expr + `, '([[:alnum:]])[._/]+(?=[[:alnum:]])', '\1 ', 'g')`
}

const docColumns = `d.id, d.collection_id, c.name AS collection, d.title, d.filename, d.kind, d.size, d.sha256,
	d.language, d.status, d.error, d.pages, d.chunks, d.added_by, d.attempts, d.created_at, d.updated_at`

// EnsureCollection returns the collection called name, creating it for
// owner with visibility ("team" or "private") when there is none.
func (s *Store) EnsureCollection(ctx context.Context, name, owner, visibility string) (Collection, error) {
	var c Collection
	query := `WITH ins AS (
			INSERT INTO library_collections (name, owner, visibility) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO NOTHING RETURNING id, name, owner, visibility, share_documents, created_at)
		SELECT *, 0 AS documents FROM ins
		UNION ALL
		SELECT id, name, owner, visibility, share_documents, created_at, 0 FROM library_collections WHERE name = $1
		LIMIT 1`
	err := s.db.GetContext(ctx, &c, query, name, owner, visibility)
	if errors.Is(err, sql.ErrNoRows) {
		// Another upload created it at the same moment: its row was not
		// in this statement's snapshot, and is in the next one's.
		err = s.db.GetContext(ctx, &c, query, name, owner, visibility)
	}
	if err != nil {
		return c, fmt.Errorf("collection %q: %w", name, err)
	}
	return c, nil
}

// CollectionByName returns the collection called name, or ErrNotFound.
func (s *Store) CollectionByName(ctx context.Context, name string) (Collection, error) {
	var c Collection
	err := s.db.GetContext(ctx, &c, `SELECT c.*, (SELECT count(*) FROM library_documents d WHERE d.collection_id = c.id) AS documents
		FROM library_collections c WHERE c.name = $1`, name)
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNotFound
	}
	if err != nil {
		return c, fmt.Errorf("collection %q: %w", name, err)
	}
	return c, nil
}

// Collections lists the collections reader may read, by name.
func (s *Store) Collections(ctx context.Context, reader string) ([]Collection, error) {
	var out []Collection
	err := s.db.SelectContext(ctx, &out, `SELECT c.*, (SELECT count(*) FROM library_documents d WHERE d.collection_id = c.id) AS documents
		FROM library_collections c WHERE `+readable+` ORDER BY c.name`, reader)
	if err != nil {
		return nil, fmt.Errorf("list collections: %w", err)
	}
	return out, nil
}

// NewDocument is an upload to store.
type NewDocument struct {
	CollectionID string
	Title        string
	Filename     string
	Kind         string
	SHA256       string
	Language     string
	// Content is the file's bytes, read once in pieces: they are never
	// held whole in this process.
	Content io.Reader
	Size    int64
	AddedBy string
}

// contentPiece is how much of an upload one statement sends.
const contentPiece = 1 << 20

// AddDocument stores an upload, queued for ingestion. A document with the
// same hash already in the collection is returned instead, with dup true.
// The bytes go to Postgres a piece at a time into a large object, which
// the server then copies into the row and drops, all in one transaction:
// storing a file costs this process one piece of memory, not the file
// (nor the twice-as-large hex text a bytea parameter is sent as).
func (s *Store) AddDocument(ctx context.Context, nd NewDocument) (doc Document, dup bool, err error) {
	var id string
	err = s.InTx(ctx, func(tx *Tx) error {
		err := tx.tx.GetContext(ctx, &id, `INSERT INTO library_documents (collection_id, title, filename, kind, size, sha256, language, content, added_by)
			VALUES ($1, $2, $3, $4, $5, $6, $7, '', $8)
			ON CONFLICT (collection_id, sha256) DO NOTHING RETURNING id`,
			nd.CollectionID, nd.Title, nd.Filename, nd.Kind, nd.Size, nd.SHA256, nd.Language, nd.AddedBy)
		if errors.Is(err, sql.ErrNoRows) {
			dup = true
			return tx.tx.GetContext(ctx, &id, `SELECT id FROM library_documents WHERE collection_id = $1 AND sha256 = $2`, nd.CollectionID, nd.SHA256)
		}
		if err != nil {
			return err
		}
		var oid int64
		if err := tx.tx.GetContext(ctx, &oid, `SELECT lo_create(0)`); err != nil {
			return fmt.Errorf("large object: %w", err)
		}
		buf := make([]byte, contentPiece)
		var off int64
		for {
			n, rerr := io.ReadFull(nd.Content, buf)
			if n > 0 {
				if _, err := tx.tx.ExecContext(ctx, `SELECT lo_put($1, $2, $3)`, oid, off, buf[:n]); err != nil {
					return fmt.Errorf("write content at %d: %w", off, err)
				}
				off += int64(n)
			}
			if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
				break
			}
			if rerr != nil {
				return fmt.Errorf("read content: %w", rerr)
			}
		}
		if off != nd.Size {
			return fmt.Errorf("content is %d bytes, not the %d announced", off, nd.Size)
		}
		if _, err := tx.tx.ExecContext(ctx, `UPDATE library_documents SET content = lo_get($2) WHERE id = $1`, id, oid); err != nil {
			return fmt.Errorf("copy content: %w", err)
		}
		if _, err := tx.tx.ExecContext(ctx, `SELECT lo_unlink($1)`, oid); err != nil {
			return fmt.Errorf("drop large object: %w", err)
		}
		return nil
	})
	if err != nil {
		return doc, false, fmt.Errorf("add document %q: %w", nd.Filename, err)
	}
	d, err := s.GetDocument(ctx, id)
	if err != nil {
		return doc, false, err
	}
	return *d, dup, nil
}

// GetDocument returns a document without its bytes, or ErrNotFound.
func (s *Store) GetDocument(ctx context.Context, id string) (*Document, error) {
	var d Document
	err := s.db.GetContext(ctx, &d, `SELECT `+docColumns+` FROM library_documents d
		JOIN library_collections c ON c.id = d.collection_id WHERE d.id::text = $1`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("document %s: %w", id, err)
	}
	return &d, nil
}

// MayReadDocument reports whether reader may read the document's collection.
func (s *Store) MayReadDocument(ctx context.Context, reader, id string) (bool, error) {
	var ok bool
	err := s.db.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM library_documents d
		JOIN library_collections c ON c.id = d.collection_id WHERE d.id::text = $2 AND `+readable+`)`, reader, id)
	if err != nil {
		return false, fmt.Errorf("document %s: %w", id, err)
	}
	return ok, nil
}

// DocumentContent returns a document's original bytes.
func (s *Store) DocumentContent(ctx context.Context, id string) ([]byte, error) {
	var b []byte
	err := s.db.GetContext(ctx, &b, `SELECT content FROM library_documents WHERE id::text = $1`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("document %s: %w", id, err)
	}
	return b, nil
}

// Documents lists the documents of the collections reader may read, newest
// first; collection "" means all of them.
func (s *Store) Documents(ctx context.Context, reader, collection string, limit int) ([]Document, error) {
	var out []Document
	err := s.db.SelectContext(ctx, &out, `SELECT `+docColumns+` FROM library_documents d
		JOIN library_collections c ON c.id = d.collection_id
		WHERE `+readable+` AND ($2 = '' OR c.name = $2)
		ORDER BY d.created_at DESC, d.id LIMIT $3`, reader, collection, limit)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	return out, nil
}

// DeleteDocument removes a document with its pages and chunks.
func (s *Store) DeleteDocument(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM library_documents WHERE id::text = $1`, id)
	if err != nil {
		return fmt.Errorf("delete document %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// ClaimDocument leases the oldest document waiting for ingestion (queued,
// or ingesting under an expired lease: its worker died) to owner for ttl;
// nil, nil when there is none.
func (s *Store) ClaimDocument(ctx context.Context, owner string, ttl time.Duration) (*Document, error) {
	var id string
	err := s.db.GetContext(ctx, &id, `UPDATE library_documents SET lease_owner = $1,
			lease_expires_at = now() + make_interval(secs => $2),
			attempts = attempts + 1, status = 'ingesting', updated_at = now()
		WHERE id = (
			SELECT id FROM library_documents
			WHERE status IN ('queued', 'ingesting')
			  AND (lease_expires_at IS NULL OR lease_expires_at < now())
			ORDER BY created_at, id
			LIMIT 1
			FOR UPDATE SKIP LOCKED)
		RETURNING id`, owner, ttl.Seconds())
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claim document: %w", err)
	}
	return s.GetDocument(ctx, id)
}

// RenewDocumentLease extends owner's lease; ErrLeaseLost when another
// worker holds the document now.
func (s *Store) RenewDocumentLease(ctx context.Context, id, owner string, ttl time.Duration) error {
	res, err := s.db.ExecContext(ctx, `UPDATE library_documents SET lease_expires_at = now() + make_interval(secs => $3)
		WHERE id = $1 AND lease_owner = $2 AND status = 'ingesting'`, id, owner, ttl.Seconds())
	if err != nil {
		return fmt.Errorf("renew lease on document %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// leased runs fn in a transaction that holds owner's lease on document id
// (the row is locked, so the lease cannot change hands meanwhile).
func (s *Store) leased(ctx context.Context, id, owner string, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	var held bool
	err = tx.QueryRowContext(ctx, `SELECT lease_owner = $2 FROM library_documents WHERE id = $1 FOR UPDATE`, id, owner).Scan(&held)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("document %s: %w", id, err)
	}
	if !held {
		return ErrLeaseLost
	}
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// SaveDocumentText stores a document's title, language and pages of text
// (pages already stored are kept), under owner's lease.
func (s *Store) SaveDocumentText(ctx context.Context, id, owner, title, language string, pages []DocPage) error {
	return s.leased(ctx, id, owner, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE library_documents SET title = CASE WHEN $2 = '' THEN title ELSE $2 END,
				language = $3, pages = $4, updated_at = now() WHERE id = $1`, id, title, language, len(pages)); err != nil {
			return fmt.Errorf("document %s: %w", id, err)
		}
		nums := make(pq.Int64Array, len(pages))
		texts := make(pq.StringArray, len(pages))
		for i, p := range pages {
			nums[i], texts[i] = int64(p.Page), p.Text
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO library_pages (document_id, page, text)
			SELECT $1, p, t FROM unnest($2::int[], $3::text[]) AS u(p, t)
			ON CONFLICT (document_id, page) DO NOTHING`, id, nums, texts)
		if err != nil {
			return fmt.Errorf("document %s pages: %w", id, err)
		}
		return nil
	})
}

// DocumentChunkCount is how many chunks of the document are stored (where
// a resumed ingestion picks up).
func (s *Store) DocumentChunkCount(ctx context.Context, id string) (int, error) {
	var n int
	if err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM library_chunks WHERE document_id = $1`, id); err != nil {
		return 0, fmt.Errorf("document %s chunks: %w", id, err)
	}
	return n, nil
}

// AddChunks stores chunks of a document under owner's lease, indexed for
// full-text search in the document's language with the title weighted A
// and the heading B. A chunk already stored (same seq) is kept as it is.
// embeddings is nil or one vector per chunk.
func (s *Store) AddChunks(ctx context.Context, id, owner string, chunks []Chunk, embeddings [][]float32) error {
	if len(chunks) == 0 {
		return nil
	}
	seqs := make(pq.Int64Array, len(chunks))
	pages := make(pq.Int64Array, len(chunks))
	headings := make(pq.StringArray, len(chunks))
	texts := make(pq.StringArray, len(chunks))
	// Vectors travel as one array literal per chunk ("" for none): Postgres
	// has no ragged arrays.
	vecs := make(pq.StringArray, len(chunks))
	for i, c := range chunks {
		seqs[i], pages[i], headings[i], texts[i] = int64(c.Seq), int64(c.Page), c.Heading, c.Text
		if embeddings != nil {
			v, _ := pq.Float32Array(embeddings[i]).Value()
			vecs[i] = v.(string)
		}
	}
	return s.leased(ctx, id, owner, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO library_chunks (document_id, seq, page, heading, text, tsv, embedding)
			SELECT d.id, c.seq, c.page, c.heading, c.text,
				setweight(to_tsvector(d.language::regconfig, `+words("d.title")+`), 'A') ||
				setweight(to_tsvector(d.language::regconfig, `+words("c.heading")+`), 'B') ||
				to_tsvector(d.language::regconfig, `+words("c.text")+`),
				NULLIF(c.vec, '')::real[]
			FROM library_documents d,
				unnest($2::int[], $3::int[], $4::text[], $5::text[], $6::text[]) AS c(seq, page, heading, text, vec)
			WHERE d.id = $1
			ON CONFLICT (document_id, seq) DO NOTHING`, id, seqs, pages, headings, texts, vecs)
		if err != nil {
			return fmt.Errorf("document %s chunks %d–%d: %w", id, seqs[0], seqs[len(seqs)-1], err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE library_documents SET chunks = (SELECT count(*) FROM library_chunks WHERE document_id = $1),
			updated_at = now() WHERE id = $1`, id)
		return err
	})
}

// FinishDocument ends an ingestion: ready, or failed with reason. The
// lease is released either way.
func (s *Store) FinishDocument(ctx context.Context, id, owner, status, reason string) error {
	return s.leased(ctx, id, owner, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE library_documents SET status = $2, error = $3,
				lease_owner = NULL, lease_expires_at = NULL, updated_at = now() WHERE id = $1`, id, status, reason)
		if err != nil {
			return fmt.Errorf("finish document %s: %w", id, err)
		}
		return nil
	})
}

// DocumentPages returns a document's pages of text in order.
func (s *Store) DocumentPages(ctx context.Context, id string) ([]DocPage, error) {
	var out []DocPage
	if err := s.db.SelectContext(ctx, &out, `SELECT page, text FROM library_pages WHERE document_id::text = $1 ORDER BY page`, id); err != nil {
		return nil, fmt.Errorf("document %s pages: %w", id, err)
	}
	return out, nil
}

// DocumentChunks returns a document's chunks in order.
func (s *Store) DocumentChunks(ctx context.Context, id string) ([]Chunk, error) {
	var out []Chunk
	if err := s.db.SelectContext(ctx, &out, `SELECT seq, page, heading, text FROM library_chunks WHERE document_id::text = $1 ORDER BY seq`, id); err != nil {
		return nil, fmt.Errorf("document %s chunks: %w", id, err)
	}
	return out, nil
}

// ChunkQuery is a library search: the query in web-search syntax, over the
// ready documents of the collections Reader may read (Collection "" for
// all of them).
type ChunkQuery struct {
	Reader     string
	Collection string
	Query      string
	Limit      int
}

// SearchChunks ranks chunks by full-text search: the query is parsed with
// websearch_to_tsquery in each document's language, and ts_rank_cd scores
// the weighted vector (title A, heading B, text D).
func (s *Store) SearchChunks(ctx context.Context, q ChunkQuery) ([]ChunkHit, error) {
	var out []ChunkHit
	err := s.db.SelectContext(ctx, &out, `WITH langs AS (
			SELECT l.language, websearch_to_tsquery(l.language::regconfig, `+words("$3")+`) AS query
			FROM (SELECT DISTINCT language FROM library_documents WHERE status = 'ready') l)
		SELECT ch.document_id, d.title, d.filename, c.name AS collection, ch.seq, ch.page, ch.heading, ch.text,
			ts_rank_cd(ch.tsv, langs.query, 1) AS rank,
			ts_headline(d.language::regconfig, ch.text, langs.query,
				'StartSel=' || chr(1) || ', StopSel=' || chr(2) || ', MaxFragments=2, MaxWords=30, MinWords=10') AS headline
		FROM library_chunks ch
		JOIN library_documents d ON d.id = ch.document_id
		JOIN library_collections c ON c.id = d.collection_id
		JOIN langs ON langs.language = d.language
		WHERE d.status = 'ready' AND `+readable+` AND ($2 = '' OR c.name = $2) AND ch.tsv @@ langs.query
		ORDER BY rank DESC, ch.document_id, ch.seq
		LIMIT $4`, q.Reader, q.Collection, q.Query, q.Limit)
	if err != nil {
		return nil, fmt.Errorf("search library: %w", err)
	}
	return out, nil
}

// ChunkVectors returns up to limit embedded chunks of the ready documents
// q.Reader may read (the bounded scan used when the database has no
// vector index).
func (s *Store) ChunkVectors(ctx context.Context, q ChunkQuery, limit int) ([]ChunkVector, error) {
	var out []ChunkVector
	err := s.db.SelectContext(ctx, &out, `SELECT ch.document_id, ch.seq, ch.embedding
		FROM library_chunks ch
		JOIN library_documents d ON d.id = ch.document_id
		JOIN library_collections c ON c.id = d.collection_id
		WHERE d.status = 'ready' AND `+readable+` AND ($2 = '' OR c.name = $2) AND ch.embedding IS NOT NULL
		ORDER BY d.created_at DESC, ch.document_id, ch.seq
		LIMIT $3`, q.Reader, q.Collection, limit)
	if err != nil {
		return nil, fmt.Errorf("scan library vectors: %w", err)
	}
	return out, nil
}

// ChunkKey names one chunk.
type ChunkKey struct {
	DocumentID string
	Seq        int
}

// ChunksByKey returns the chunks named, with their documents, in no order.
func (s *Store) ChunksByKey(ctx context.Context, keys []ChunkKey) ([]ChunkHit, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	ids := make(pq.StringArray, len(keys))
	seqs := make(pq.Int64Array, len(keys))
	for i, k := range keys {
		ids[i], seqs[i] = k.DocumentID, int64(k.Seq)
	}
	var out []ChunkHit
	err := s.db.SelectContext(ctx, &out, `SELECT ch.document_id, d.title, d.filename, c.name AS collection, ch.seq, ch.page,
			ch.heading, ch.text, 0::float8 AS rank, ch.text AS headline
		FROM unnest($1::uuid[], $2::int[]) AS k(doc, seq)
		JOIN library_chunks ch ON ch.document_id = k.doc AND ch.seq = k.seq
		JOIN library_documents d ON d.id = ch.document_id
		JOIN library_collections c ON c.id = d.collection_id`, ids, seqs)
	if err != nil {
		return nil, fmt.Errorf("library chunks: %w", err)
	}
	return out, nil
}

// TextSearchConfigs lists the text search configurations the database has
// (the languages a document's words can be stemmed in).
func (s *Store) TextSearchConfigs(ctx context.Context) ([]string, error) {
	var out []string
	if err := s.db.SelectContext(ctx, &out, `SELECT cfgname FROM pg_ts_config`); err != nil {
		return nil, fmt.Errorf("text search configurations: %w", err)
	}
	return out, nil
}
