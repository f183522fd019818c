package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/library"
)

// LibraryConfig configures the document library.
type LibraryConfig struct {
	// UploadMax bounds one upload in bytes (QUARRY_UPLOAD_MAX: bytes, or
	// with a KB, MB or GB suffix; default 50 MB).
	UploadMax int64
	// MaxPages bounds the pages read of one document (QUARRY_LIBRARY_MAX_PAGES).
	MaxPages int
	// EmbeddingsURL and EmbeddingsModel name an OpenAI-compatible
	// /v1/embeddings endpoint (QUARRY_EMBEDDINGS_URL, QUARRY_EMBEDDINGS_MODEL);
	// EmbeddingsKey is its key (QUARRY_EMBEDDINGS_KEY, optional).
	EmbeddingsURL   string
	EmbeddingsModel string
	EmbeddingsKey   string
}

func loadLibraryConfig(getenv func(string) string) (LibraryConfig, error) {
	var c LibraryConfig
	var err error
	if c.UploadMax, err = sizeVar(getenv, "QUARRY_UPLOAD_MAX", library.DefaultUploadMax, 1<<10, 4<<30); err != nil {
		return c, err
	}
	if c.MaxPages, err = intVar(getenv, "QUARRY_LIBRARY_MAX_PAGES", 5000, 1, 100000); err != nil {
		return c, err
	}
	c.EmbeddingsURL = strings.TrimRight(strings.TrimSpace(getenv("QUARRY_EMBEDDINGS_URL")), "/")
	c.EmbeddingsModel = strings.TrimSpace(getenv("QUARRY_EMBEDDINGS_MODEL"))
	c.EmbeddingsKey = getenv("QUARRY_EMBEDDINGS_KEY")
	if c.EmbeddingsURL != "" {
		u, err := url.Parse(c.EmbeddingsURL)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return c, fmt.Errorf("QUARRY_EMBEDDINGS_URL: %q must be an absolute http(s) URL such as http://localhost:11434/v1", c.EmbeddingsURL)
		}
		if c.EmbeddingsModel == "" {
			return c, errors.New("QUARRY_EMBEDDINGS_MODEL: required with QUARRY_EMBEDDINGS_URL (e.g. nomic-embed-text)")
		}
	} else if c.EmbeddingsModel != "" {
		return c, errors.New("QUARRY_EMBEDDINGS_URL: required with QUARRY_EMBEDDINGS_MODEL")
	}
	return c, nil
}

// sizeVar reads a byte count with an optional KB, MB or GB suffix.
func sizeVar(getenv func(string) string, name string, def, min, max int64) (int64, error) {
	v := strings.ToUpper(strings.TrimSpace(getenv(name)))
	if v == "" {
		return def, nil
	}
	mult := int64(1)
	for _, s := range []struct {
		suffix string
		m      int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(v, s.suffix) {
			v, mult = strings.TrimSpace(strings.TrimSuffix(v, s.suffix)), s.m
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n*mult < min || n*mult > max {
		return 0, fmt.Errorf("%s: %q is not a size from %d to %d bytes (e.g. 50MB)", name, getenv(name), min, max)
	}
	return n * mult, nil
}

// buildLibrary returns the library over store, embedding with the
// configured endpoint when there is one.
func buildLibrary(cfg *Config, store *db.Store, owner string, logger *slog.Logger) *library.Library {
	opt := library.Options{UploadMax: cfg.Library.UploadMax, Owner: owner, Logger: logger,
		Limits: library.Limits{MaxPages: cfg.Library.MaxPages}}
	if u, err := url.Parse(cfg.BaseURL); err == nil {
		opt.BasePath = strings.TrimRight(u.Path, "/")
	}
	if cfg.Library.EmbeddingsURL != "" {
		opt.Embedder = library.NewOpenAIEmbedder(cfg.Library.EmbeddingsURL, cfg.Library.EmbeddingsModel, cfg.Library.EmbeddingsKey,
			&http.Client{Timeout: 2 * time.Minute})
	}
	return library.New(store, opt)
}

// runLibrary implements `quarry library add --collection NAME PATH…`:
// files, and directories read recursively, are added to the collection
// and ingested here, with a line per file.
func runLibrary(ctx context.Context, args []string, stdout io.Writer) error {
	return libraryTo(ctx, stdout, os.Getenv, args)
}

func libraryTo(ctx context.Context, stdout io.Writer, getenv func(string) string, args []string) error {
	if len(args) == 0 || args[0] != "add" {
		return errors.New("library: usage: quarry library add --collection NAME PATH…")
	}
	fset := flag.NewFlagSet("library add", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	collection := fset.String("collection", "", "the collection to add to (created if missing)")
	by := fset.String("as", "", "the user recorded as having added the files")
	if err := fset.Parse(args[1:]); err != nil {
		return fmt.Errorf("library add: %w", err)
	}
	if _, err := library.CollectionName(*collection); err != nil {
		return fmt.Errorf("library add: --collection: %w", err)
	}
	if fset.NArg() == 0 {
		return errors.New("library add: give at least one file or directory")
	}
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return err
	}
	conn, _, err := cfg.openDB(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	store := db.NewStore(conn, nil)
	host, _ := os.Hostname()
	lib := buildLibrary(cfg, store, fmt.Sprintf("cli:%s:%d", host, os.Getpid()), nil)

	var files []string
	for _, root := range fset.Args() {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("library add: %w", err)
		}
	}
	pending := map[string]string{}
	failed := 0
	for _, path := range files {
		fi, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("library add: %w", err)
		}
		if fi.Size() > lib.UploadMax() {
			fmt.Fprintf(stdout, "refused\t%s\t%d bytes is more than QUARRY_UPLOAD_MAX (%d)\n", path, fi.Size(), lib.UploadMax())
			failed++
			continue
		}
		// The file is read in pieces as it is stored, never whole.
		file, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("library add: %w", err)
		}
		doc, dup, err := lib.Add(ctx, library.Upload{Collection: *collection, Filename: filepath.Base(path), File: file, Size: fi.Size(), AddedBy: *by})
		file.Close()
		var ue *library.UploadError
		switch {
		case errors.As(err, &ue):
			fmt.Fprintf(stdout, "refused\t%s\t%s\n", path, ue.Msg)
			failed++
			continue
		case err != nil:
			return err
		case dup:
			fmt.Fprintf(stdout, "duplicate\t%s\t%s (already in %s)\n", path, doc.ID, doc.Collection)
			continue
		}
		pending[doc.ID] = path
	}
	// Ingest here rather than wait for a server's worker.
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { lib.Work(wctx); close(done) }()
	defer func() { cancel(); <-done }()
	for len(pending) > 0 {
		for id, path := range pending {
			d, err := store.GetDocument(ctx, id)
			if err != nil {
				return err
			}
			switch d.Status {
			case db.DocReady:
				fmt.Fprintf(stdout, "ready\t%s\t%s\t%s, %d pages, %d chunks\n", path, d.ID, d.Kind, d.Pages, d.Chunks)
				delete(pending, id)
			case db.DocFailed:
				fmt.Fprintf(stdout, "failed\t%s\t%s\t%s\n", path, d.ID, d.Error)
				failed++
				delete(pending, id)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	if failed > 0 {
		return fmt.Errorf("library add: %d of %d files were not added", failed, len(files))
	}
	return nil
}
