package library

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
)

// A real multi-page PDF, an HTML page and a Markdown file are ingested
// with their pages and headings; a question answered on page 8 of the PDF
// finds that page first.
func TestIngestAndSearch(t *testing.T) {
	lib := New(dbtest.NewStore(t), Options{Owner: "w1"})
	docs := ingestAll(t, lib, "ingest", "GPL-3.pdf", "go-asm.html", "chi-README.md", "BSD.txt")
	for n, d := range docs {
		if d.Status != db.DocReady || d.Chunks == 0 || d.Pages == 0 {
			t.Errorf("%s: status %s (%s), %d pages, %d chunks", n, d.Status, d.Error, d.Pages, d.Chunks)
		}
	}
	if d := docs["GPL-3.pdf"]; d.Kind != KindPDF || d.Pages != 12 || d.Language != "english" || d.Title != "GPL-3" {
		t.Errorf("pdf: kind %s, %d pages, language %s, title %q", d.Kind, d.Pages, d.Language, d.Title)
	}
	if d := docs["go-asm.html"]; d.Kind != KindHTML {
		t.Errorf("html sniffed as %s", d.Kind)
	}
	if d := docs["chi-README.md"]; d.Kind != KindMarkdown {
		t.Errorf("markdown sniffed as %s", d.Kind)
	}
	if d := docs["BSD.txt"]; d.Kind != KindText {
		t.Errorf("text sniffed as %s", d.Kind)
	}
	ctx := context.Background()
	hits, err := lib.Search(ctx, Query{Collection: "ingest", Text: "cure the violation within 30 days license reinstated", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].DocumentID != docs["GPL-3.pdf"].ID || hits[0].Page != 8 {
		t.Fatalf("hits: %+v", hits)
	}
	if !strings.Contains(hits[0].Headline, "\x01") {
		t.Errorf("headline has no highlighted word: %q", hits[0].Headline)
	}
	// Markdown headings become the chunks' headings.
	chunks, err := lib.Store().DocumentChunks(ctx, docs["chi-README.md"].ID)
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	for _, c := range chunks {
		headings[c.Heading] = true
	}
	if !headings["Middlewares"] && !headings["Router interface"] {
		t.Errorf("markdown headings not kept: %v", headings)
	}
	// The title is the PDF's own (the name it was printed under).
	// Pages are stored in order with their text.
	pages, err := lib.Store().DocumentPages(ctx, docs["GPL-3.pdf"].ID)
	if err != nil || len(pages) != 12 || !strings.Contains(pages[7].Text, "prior to 30 days after") {
		t.Errorf("pdf pages: %d, err %v", len(pages), err)
	}

	// The same bytes again are the same document.
	again, dup, err := lib.Add(ctx, Upload{Collection: "ingest", Filename: "copy.pdf", Content: readDoc(t, "GPL-3.pdf")})
	if err != nil || !dup || again.ID != docs["GPL-3.pdf"].ID {
		t.Errorf("duplicate upload: dup %v id %s err %v", dup, again.ID, err)
	}
}

func TestUploadRefusals(t *testing.T) {
	lib := New(dbtest.NewStore(t), Options{UploadMax: 1 << 20})
	ctx := context.Background()
	cases := []struct {
		name    string
		content []byte
		want    string
	}{
		{"big.txt", bytes.Repeat([]byte("word "), 300000), "upload limit"},
		{"notes.txt", append([]byte("PK\x03\x04"), make([]byte, 100)...), "zip archive"},
		{"notes.txt", append([]byte("\x1f\x8b\x08"), make([]byte, 100)...), "gzip archive"},
		{"photo.md", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "image/png"},
		{"empty.txt", nil, "empty"},
	}
	for _, c := range cases {
		_, _, err := lib.Add(ctx, Upload{Collection: "refusals", Filename: c.name, Content: c.content})
		var ue *UploadError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: %v, want an upload error saying %q", c.name, err, c.want)
		}
	}
	if _, _, err := lib.Add(ctx, Upload{Collection: "../etc", Filename: "a.txt", Content: []byte("text")}); err == nil || !strings.Contains(err.Error(), "collection") {
		t.Errorf("bad collection name: %v", err)
	}
	// A file name is a label, never a path.
	doc, _, err := lib.Add(ctx, Upload{Collection: "refusals", Filename: "../../etc/passwd\x00.txt", Content: []byte("plain words here")})
	if err != nil || doc.Filename != "passwd.txt" {
		t.Errorf("file name kept as %q (%v)", doc.Filename, err)
	}
}

// A PDF the extractor cannot read in its limits fails with the reason.
func TestExtractorLimits(t *testing.T) {
	lib := New(dbtest.NewStore(t), Options{Owner: "lim"})
	lib.opt.Limits.PDF.MemBytes = 8 << 20 // far too little for pdftotext
	docs := ingestAll(t, lib, "limits", "Apache-2.0.pdf")
	d := docs["Apache-2.0.pdf"]
	if d.Status != db.DocFailed || !strings.Contains(d.Error, "pdftotext") {
		t.Errorf("status %s, error %q", d.Status, d.Error)
	}
	slow := New(lib.Store(), Options{Owner: "slow"})
	slow.opt.Limits.PDF.Timeout = time.Millisecond // no PDF is read that fast
	docs = ingestAll(t, slow, "limits-time", "MPL-2.0.pdf")
	if d := docs["MPL-2.0.pdf"]; d.Status != db.DocFailed || !strings.Contains(d.Error, "took longer than 1ms") {
		t.Errorf("time limit: status %s, error %q", d.Status, d.Error)
	}
}

// A run searches only the collections its owner may read: a private
// collection is its owner's, named or not.
func TestLibraryEngineAccess(t *testing.T) {
	lib := New(dbtest.NewStore(t), Options{Owner: "acc"})
	ctx := context.Background()
	doc, _, err := lib.Add(ctx, Upload{Collection: "alice-private", Filename: "sqlx.md", Content: readDoc(t, "sqlx-README.md"), AddedBy: "alice", Private: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := waitReady(t, lib, doc.ID); d.Status != db.DocReady {
		t.Fatalf("%s: %s", d.Status, d.Error)
	}
	pages, err := lib.SearchLibrary(ctx, "alice", "alice-private", "StructScan", 5)
	if err != nil || len(pages) == 0 {
		t.Fatalf("alice: %d pages, %v", len(pages), err)
	}
	p := pages[0]
	if !strings.HasPrefix(p.URL, "/library/documents/"+doc.ID+"?page=") || p.Host != "library" || p.Site != "alice-private" ||
		!strings.Contains(p.Title, ", p. ") || !strings.Contains(p.Text, "StructScan") || !strings.HasPrefix(p.CanonicalURL, "library:"+doc.ID+"/") {
		t.Errorf("passage as a page: %+v", p)
	}
	if _, err := lib.SearchLibrary(ctx, "bob", "alice-private", "StructScan", 5); err == nil || !strings.Contains(err.Error(), "not readable") {
		t.Errorf("bob names alice's collection: %v", err)
	}
	pages, err = lib.SearchLibrary(ctx, "bob", "", "StructScan", 5)
	for _, p := range pages {
		if p.Site == "alice-private" {
			t.Errorf("bob's kb search found %s", p.Title)
		}
	}
	if err != nil {
		t.Error(err)
	}
}

// An encrypted PDF (testdata/bad/encrypted.py wrote it; poppler reads it
// with the password "secret") fails as encrypted.
func TestEncryptedPDF(t *testing.T) {
	lib := New(dbtest.NewStore(t), Options{Owner: "enc"})
	content, err := os.ReadFile(filepath.Join("testdata", "bad", "encrypted.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	d := ingestAllBytes(t, lib, "encrypted", "secret.pdf", content)
	if d.Status != db.DocFailed || !strings.Contains(d.Error, "encrypted") {
		t.Errorf("status %s, error %q", d.Status, d.Error)
	}
}
