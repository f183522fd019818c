// Package library is the document library: uploads sniffed and checked,
// ingested by a leased background job into pages and chunks, and searched
// with Postgres full-text search, ranked together with embeddings when an
// embeddings endpoint is configured. It answers the search engines kb and
// kb:<collection>.
package library

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/extract"
)

// Options configure a Library.
type Options struct {
	// UploadMax bounds one upload in bytes (QUARRY_UPLOAD_MAX); 0 means 50 MB.
	UploadMax int64
	// Limits bound the reading of one document; zero fields get defaults.
	Limits Limits
	// Embedder embeds chunks and queries; nil means full-text search only.
	Embedder Embedder
	// VectorScan bounds the chunks compared with a query's embedding; 0 means 20,000.
	VectorScan int
	// Owner names this process's worker in leases.
	Owner string
	// LeaseTTL is how long a claimed document is held without renewal; 0 means 30 s.
	LeaseTTL time.Duration
	// Poll is how often an idle worker looks for work; 0 means 1 s.
	Poll   time.Duration
	Logger *slog.Logger
	// BasePath is the server's path prefix (QUARRY_BASE_URL's path), put
	// before the document links passages carry as their URL.
	BasePath string
}

// DefaultUploadMax is QUARRY_UPLOAD_MAX's default.
const DefaultUploadMax = 50 << 20

// Library stores, ingests and searches documents.
type Library struct {
	store   *db.Store
	opt     Options
	log     *slog.Logger
	wake    chan struct{}
	configs sync.Map // text search configurations the database has
	// progress receives ingestion progress (tests and the CLI listen).
	progress func(Progress)
}

// Progress is a step of one document's ingestion.
type Progress struct {
	DocumentID string `json:"document_id"`
	Status     string `json:"status"`
	Pages      int    `json:"pages"`
	Chunks     int    `json:"chunks"`
	Total      int    `json:"total"` // chunks the document will have
	Error      string `json:"error,omitempty"`
}

// New returns a Library over store.
func New(store *db.Store, opt Options) *Library {
	if opt.UploadMax <= 0 {
		opt.UploadMax = DefaultUploadMax
	}
	l := &opt.Limits
	if l.PDF.Timeout <= 0 {
		l.PDF.Timeout = 2 * time.Minute
	}
	if l.PDF.MemBytes <= 0 {
		l.PDF.MemBytes = 1 << 30
	}
	if l.MaxPages <= 0 {
		l.MaxPages = 5000
	}
	if l.PDF.MaxPages <= 0 {
		l.PDF.MaxPages = l.MaxPages
	}
	if l.MaxText <= 0 {
		l.MaxText = 32 << 20
	}
	if l.PDF.MaxText <= 0 {
		l.PDF.MaxText = int64(l.MaxText)
	}
	if opt.VectorScan <= 0 {
		opt.VectorScan = 20000
	}
	if opt.LeaseTTL <= 0 {
		opt.LeaseTTL = 30 * time.Second
	}
	if opt.Poll <= 0 {
		opt.Poll = time.Second
	}
	if opt.Owner == "" {
		host, _ := os.Hostname()
		var r [4]byte
		rand.Read(r[:])
		opt.Owner = fmt.Sprintf("library:%s:%d:%s", host, os.Getpid(), hex.EncodeToString(r[:]))
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Library{store: store, opt: opt, log: log.With("component", "library"), wake: make(chan struct{}, 1)}
}

// OnProgress sets a function told of every ingestion step (before Work).
func (l *Library) OnProgress(fn func(Progress)) { l.progress = fn }

// Store is the library's database.
func (l *Library) Store() *db.Store { return l.store }

// UploadMax is the largest upload accepted, in bytes.
func (l *Library) UploadMax() int64 { return l.opt.UploadMax }

// Upload is one file to add: its bytes are Content, or else read from
// File (Size bytes), which is read in pieces and never held whole.
type Upload struct {
	Collection string // name; created if missing (private when Private)
	Filename   string // shown only, never used as a path
	Content    []byte
	File       io.ReadSeeker
	Size       int64
	AddedBy    string
	// Private asks for a collection readable by AddedBy only: a new one is
	// created so, and an existing one must be AddedBy's private one.
	Private bool
}

// UploadError is an upload refused for what it is (too large, an archive,
// not text); its message names the file.
type UploadError struct{ Msg string }

func (e *UploadError) Error() string { return e.Msg }

// sniffBytes is how much of a file Sniff looks at.
const sniffBytes = 64 << 10

// Add checks an upload and queues it for ingestion. A file whose bytes
// the collection already holds is not stored again: the existing document
// is returned with dup true.
func (l *Library) Add(ctx context.Context, up Upload) (doc db.Document, dup bool, err error) {
	name := displayName(up.Filename)
	coll, err := CollectionName(up.Collection)
	if err != nil {
		return doc, false, &UploadError{err.Error()}
	}
	if up.File == nil {
		up.File, up.Size = bytes.NewReader(up.Content), int64(len(up.Content))
	}
	if up.Size > l.opt.UploadMax {
		return doc, false, &UploadError{fmt.Sprintf("file %q: %d bytes is more than the upload limit of %d bytes (QUARRY_UPLOAD_MAX)", name, up.Size, l.opt.UploadMax)}
	}
	if up.Size == 0 {
		return doc, false, &UploadError{fmt.Sprintf("file %q is empty", name)}
	}
	head := make([]byte, min(up.Size, sniffBytes))
	if _, err := io.ReadFull(up.File, head); err != nil {
		return doc, false, fmt.Errorf("read %q: %w", name, err)
	}
	kind, err := Sniff(head)
	if err != nil {
		return doc, false, &UploadError{fmt.Sprintf("file %q: %v", name, err)}
	}
	sum := sha256.New()
	if _, err := up.File.Seek(0, io.SeekStart); err != nil {
		return doc, false, err
	}
	if _, err := io.Copy(sum, up.File); err != nil {
		return doc, false, fmt.Errorf("read %q: %w", name, err)
	}
	if _, err := up.File.Seek(0, io.SeekStart); err != nil {
		return doc, false, err
	}
	visibility := "team"
	if up.Private && up.AddedBy != "" {
		visibility = "private"
	}
	c, err := l.store.EnsureCollection(ctx, coll, up.AddedBy, visibility)
	if err != nil {
		return doc, false, err
	}
	// A private upload goes only into its uploader's own private
	// collection, and no one adds to someone else's private one. Both
	// refusals read the same, so they do not tell whether a private
	// collection of that name exists (names are unique across users).
	mine := c.Visibility == "private" && c.Owner == up.AddedBy
	if (visibility == "private" && !mine) || (c.Visibility == "private" && !mine) {
		return doc, false, &UploadError{fmt.Sprintf("collection %q is not a private collection of yours: the name is taken; choose another name for a private collection", coll)}
	}
	doc, dup, err = l.store.AddDocument(ctx, db.NewDocument{CollectionID: c.ID, Filename: name, Kind: kind,
		SHA256: hex.EncodeToString(sum.Sum(nil)), Language: "simple", Content: up.File, Size: up.Size, AddedBy: up.AddedBy})
	if err == nil && !dup {
		l.Wake()
	}
	return doc, dup, err
}

// CollectionName validates a collection's name: 1–64 letters, digits,
// dots, dashes and underscores (it is written in kb:<collection>).
func CollectionName(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("collection: a name is required")
	}
	if utf8.RuneCountInString(s) > 64 {
		return "", errors.New("collection: at most 64 characters")
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "", fmt.Errorf("collection %q: only letters, digits, '.', '-' and '_'", s)
		}
	}
	return s, nil
}

// displayName is the last element of an uploaded file's name, cleaned and
// bounded; it is shown, never used to open a file.
func displayName(s string) string {
	s = strings.ReplaceAll(s, "\\", "/")
	s = filepath.Base("/" + s)
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	if s == "/" || s == "." {
		s = ""
	}
	if utf8.RuneCountInString(s) > 200 {
		s = string([]rune(s)[:200])
	}
	return s
}

// Wake tells an idle worker there is work.
func (l *Library) Wake() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Work ingests documents until ctx ends: it claims the oldest waiting
// document (or one whose worker died), ingests it under a renewed lease
// and marks it ready or failed.
func (l *Library) Work(ctx context.Context) {
	for ctx.Err() == nil {
		doc, err := l.store.ClaimDocument(ctx, l.opt.Owner, l.opt.LeaseTTL)
		if err != nil {
			if ctx.Err() == nil {
				l.log.Error("claim document", "err", err)
			}
		}
		if doc != nil && doc.Attempts > maxAttempts {
			// Claimed again and again: each attempt died (a document that
			// kills its worker). Stop trying.
			reason := fmt.Sprintf("ingestion was interrupted %d times; giving up", doc.Attempts-1)
			if err := l.store.FinishDocument(ctx, doc.ID, l.opt.Owner, db.DocFailed, reason); err != nil && ctx.Err() == nil {
				l.log.Error("finish document", "document", doc.ID, "err", err)
			}
			continue
		}
		if doc != nil {
			l.ingestLeased(ctx, doc)
			continue
		}
		select {
		case <-ctx.Done():
		case <-l.wake:
		case <-time.After(l.opt.Poll):
		}
	}
}

// ingestLeased ingests doc while a goroutine renews its lease; a lost
// lease stops the ingestion (another worker has it).
func (l *Library) ingestLeased(ctx context.Context, doc *db.Document) {
	ictx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		t := time.NewTicker(l.opt.LeaseTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-ictx.Done():
				return
			case <-t.C:
				if err := l.store.RenewDocumentLease(ictx, doc.ID, l.opt.Owner, l.opt.LeaseTTL); errors.Is(err, db.ErrLeaseLost) {
					cancel(err)
					return
				}
			}
		}
	}()
	err := l.ingest(ictx, doc)
	if ctx.Err() != nil || errors.Is(context.Cause(ictx), db.ErrLeaseLost) {
		return // shutting down or taken over: the lease decides who resumes
	}
	status, reason := db.DocReady, ""
	if err != nil {
		status, reason = db.DocFailed, err.Error()
		l.log.Info("document failed", "document", doc.ID, "err", err)
	}
	if err := l.store.FinishDocument(ctx, doc.ID, l.opt.Owner, status, reason); err != nil {
		l.log.Error("finish document", "document", doc.ID, "err", err)
		return
	}
	d, _ := l.store.GetDocument(ctx, doc.ID)
	if d != nil {
		l.report(Progress{DocumentID: doc.ID, Status: status, Pages: d.Pages, Chunks: d.Chunks, Total: d.Chunks, Error: reason})
	}
}

func (l *Library) report(p Progress) {
	if l.progress != nil {
		l.progress(p)
	}
}

// maxAttempts is how many times a document is claimed before it fails.
const maxAttempts = 5

// chunkBatch is how many chunks are stored (and embedded) per transaction.
const chunkBatch = 64

// ingest reads a document and stores its pages and chunks, skipping the
// chunks a previous attempt stored.
func (l *Library) ingest(ctx context.Context, doc *db.Document) error {
	content, err := l.store.DocumentContent(ctx, doc.ID)
	if err != nil {
		return err
	}
	ex, err := Read(ctx, doc.Kind, content, l.opt.Limits)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return describe(doc.Kind, err)
	}
	var sample strings.Builder
	pages := make([]db.DocPage, len(ex.Pages))
	for i, p := range ex.Pages {
		pages[i] = db.DocPage{Page: p.Num, Text: p.Text()}
		if sample.Len() < 20000 {
			sample.WriteString(pages[i].Text + "\n")
		}
	}
	lang := language(sample.String(), l.textConfigs(ctx))
	if err := l.store.SaveDocumentText(ctx, doc.ID, l.opt.Owner, ex.Title, lang, pages); err != nil {
		return err
	}
	all := chunks(ex.Pages)
	done, err := l.store.DocumentChunkCount(ctx, doc.ID)
	if err != nil {
		return err
	}
	l.report(Progress{DocumentID: doc.ID, Status: db.DocIngesting, Pages: len(pages), Chunks: done, Total: len(all)})
	for start := done; start < len(all); start += chunkBatch {
		batch := all[start:min(start+chunkBatch, len(all))]
		var vecs [][]float32
		if l.opt.Embedder != nil {
			texts := make([]string, len(batch))
			for i, c := range batch {
				texts[i] = embedText(ex.Title, c)
			}
			if vecs, err = l.opt.Embedder.Embed(ctx, texts); err != nil {
				return fmt.Errorf("embed chunks: %w", err)
			}
		}
		if err := l.store.AddChunks(ctx, doc.ID, l.opt.Owner, batch, vecs); err != nil {
			return err
		}
		l.report(Progress{DocumentID: doc.ID, Status: db.DocIngesting, Pages: len(pages), Chunks: start + len(batch), Total: len(all)})
	}
	if ex.Truncated != "" {
		l.log.Info("document truncated", "document", doc.ID, "why", ex.Truncated)
	}
	return nil
}

// describe words an extraction failure for the document's list.
func describe(kind string, err error) error {
	switch {
	case errors.Is(err, extract.ErrPDFEncrypted):
		return errors.New("the PDF is encrypted; upload it without a password")
	case errors.Is(err, extract.ErrNoPDFTool):
		return err
	}
	return fmt.Errorf("reading the %s failed: %w", kind, err)
}

func (l *Library) textConfigs(ctx context.Context) map[string]bool {
	if v, ok := l.configs.Load("all"); ok {
		return v.(map[string]bool)
	}
	names, err := l.store.TextSearchConfigs(ctx)
	if err != nil {
		return map[string]bool{}
	}
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	l.configs.Store("all", m)
	return m
}

// embedText is what a chunk's embedding is computed from: its document's
// title and its heading give it the context a passage lacks alone.
func embedText(title string, c db.Chunk) string {
	parts := []string{}
	for _, s := range []string{title, c.Heading, c.Text} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}
