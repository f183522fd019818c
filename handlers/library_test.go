package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db/dbtest"
	"github.com/quarryhq/quarry/handlers"
	"github.com/quarryhq/quarry/library"
	"github.com/quarryhq/quarry/web"
)

// libraryServer is a server with a library whose worker runs, behind a
// trusted proxy that names the user in X-User.
func libraryServer(t *testing.T) *authServer {
	t.Helper()
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	lib := library.New(dbtest.NewStore(t), library.Options{Poll: 100 * time.Millisecond})
	b := newAuthServer(t, "", handlers.Options{Auth: handlers.AuthOptions{Mode: handlers.AuthProxy, Header: "X-User"},
		TrustedProxies: []*net.IPNet{loopback}, Library: lib})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { lib.Work(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return b
}

func multipartBody(t *testing.T, fields map[string]string, files map[string][]byte) (*bytes.Buffer, string) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	for name, b := range files {
		fw, err := w.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(b)
	}
	w.Close()
	return &buf, w.FormDataContentType()
}

func upload(t *testing.T, url, user, collection, name string, content []byte, private bool) (int, map[string]any) {
	fields := map[string]string{"collection": collection}
	if private {
		fields["private"] = "1"
	}
	body, ctype := multipartBody(t, fields, map[string][]byte{name: content})
	req, _ := http.NewRequest(http.MethodPost, url+"/api/documents", body)
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("X-User", user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func getJSON(t *testing.T, url, user string) (int, map[string]any) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("X-User", user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func testDoc(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "library", "testdata", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func waitDocument(t *testing.T, url, user, id string) map[string]any {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		code, d := getJSON(t, url+"/api/documents/"+id, user)
		if code != http.StatusOK {
			t.Fatalf("GET document: %d %v", code, d)
		}
		if d["status"] == "ready" || d["status"] == "failed" {
			return d
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("document not ingested")
	return nil
}

func TestLibraryAPIAndPages(t *testing.T) {
	s := libraryServer(t)
	code, out := upload(t, s.srv.URL, "alice", "team-docs", "apache.pdf", testDoc(t, "Apache-2.0.pdf"), false)
	// A worker may pick the document up before the answer is written:
	// it is then already "ingesting".
	if code != http.StatusCreated || out["id"] == "" || out["collection"] != "team-docs" || out["status"] != "queued" && out["status"] != "ingesting" {
		t.Fatalf("POST /api/documents: %d %v", code, out)
	}
	id := out["id"].(string)
	d := waitDocument(t, s.srv.URL, "alice", id)
	if d["status"] != "ready" || d["pages"].(float64) != 4 || d["error"] != "" {
		t.Fatalf("document: %v", d)
	}
	// Same bytes again: the existing document, not a new one.
	if code, out := upload(t, s.srv.URL, "bob", "team-docs", "again.pdf", testDoc(t, "Apache-2.0.pdf"), false); code != http.StatusOK || out["id"] != id || out["duplicate"] != true {
		t.Errorf("duplicate upload: %d %v", code, out)
	}
	// An archive is refused, naming the field.
	if code, out := upload(t, s.srv.URL, "alice", "team-docs", "docs.zip", append([]byte("PK\x03\x04"), make([]byte, 64)...), false); code != http.StatusBadRequest || out["field"] != "file" || !strings.Contains(out["error"].(string), "archive") {
		t.Errorf("zip upload: %d %v", code, out)
	}

	// The library page searches passages with the matched words marked.
	resp := do(t, http.MethodGet, s.srv.URL+"/library?q=patent+litigation", "", nil, "X-User", "bob")
	doc := mustDoc(t, resp.Body)
	if resp.StatusCode != http.StatusOK || doc.Find("[data-testid=library-hit]").Length() == 0 || doc.Find("[data-testid=library-hit] mark").Length() == 0 {
		t.Fatalf("library search: %d, %d hits", resp.StatusCode, doc.Find("[data-testid=library-hit]").Length())
	}
	link, _ := doc.Find("[data-testid=library-hit] a").First().Attr("href")
	if !strings.HasPrefix(link, "/library/documents/"+id+"?page=") {
		t.Errorf("hit links to %q", link)
	}
	if doc.Find("[data-testid=library-documents] tbody tr").Length() != 1 {
		t.Errorf("documents listed: %d", doc.Find("[data-testid=library-documents] tbody tr").Length())
	}
	// The document page shows the text by page.
	resp = do(t, http.MethodGet, s.srv.URL+"/library/documents/"+id+"?page=3", "", nil, "X-User", "bob")
	doc = mustDoc(t, resp.Body)
	if resp.StatusCode != http.StatusOK || doc.Find("[data-testid=doc-page]").Length() != 4 || doc.Find("#page-3.current").Length() != 1 {
		t.Errorf("document page: %d, %d pages", resp.StatusCode, doc.Find("[data-testid=doc-page]").Length())
	}

	// A private collection is its owner's only: others get 404.
	code, out = upload(t, s.srv.URL, "alice", "alice-notes", "notes.md", testDoc(t, "sqlx-README.md"), true)
	if code != http.StatusCreated {
		t.Fatalf("private upload: %d %v", code, out)
	}
	pid := out["id"].(string)
	waitDocument(t, s.srv.URL, "alice", pid)
	if code, _ := getJSON(t, s.srv.URL+"/api/documents/"+pid, "bob"); code != http.StatusNotFound {
		t.Errorf("bob reads alice's private document: %d", code)
	}
	if resp := do(t, http.MethodGet, s.srv.URL+"/library/documents/"+pid, "", nil, "X-User", "bob"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob opens alice's private document page: %d", resp.StatusCode)
	}
	resp = do(t, http.MethodGet, s.srv.URL+"/library?q=StructScan", "", nil, "X-User", "bob")
	if n := mustDoc(t, resp.Body).Find("[data-testid=library-hit]").Length(); n != 0 {
		t.Errorf("bob's search finds %d passages of alice's private collection", n)
	}
	if code, out := upload(t, s.srv.URL, "bob", "alice-notes", "x.txt", []byte("some words of text"), false); code != http.StatusBadRequest {
		t.Errorf("bob adds to alice's private collection: %d %v", code, out)
	}

	// Only whoever added a document (or an admin) deletes it.
	if resp := do(t, http.MethodPost, s.srv.URL+"/library/documents/"+id+"/delete", "", nil, "X-User", "bob"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("bob deletes alice's document: %d", resp.StatusCode)
	}
	if resp := do(t, http.MethodPost, s.srv.URL+"/library/documents/"+id+"/delete", "", nil, "X-User", "alice"); resp.StatusCode >= 400 {
		t.Errorf("alice deletes her document: %d", resp.StatusCode)
	}
	if code, _ := getJSON(t, s.srv.URL+"/api/documents/"+id, "alice"); code != http.StatusNotFound {
		t.Errorf("deleted document: %d", code)
	}
}

// The upload form works without JavaScript: several files in one post,
// then a redirect to the library saying what became of each.
func TestLibraryUploadForm(t *testing.T) {
	s := libraryServer(t)
	body, ctype := multipartBody(t, map[string]string{"collection": "form-docs"}, map[string][]byte{
		"bsd.txt": testDoc(t, "BSD.txt"), "chi.md": testDoc(t, "chi-README.md"), "bad.gz": {0x1f, 0x8b, 8, 0}})
	req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/library/upload", body)
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("X-User", "carol")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/library?collection=form-docs") {
		t.Fatalf("form upload: %d %q", resp.StatusCode, loc)
	}
	page := do(t, http.MethodGet, s.srv.URL+loc, "", nil, "X-User", "carol")
	doc := mustDoc(t, page.Body)
	msg := doc.Find("[data-testid=library-message]").Text()
	if !strings.Contains(msg, "bsd.txt added") || !strings.Contains(msg, "chi.md added") || !strings.Contains(msg, "gzip archive") {
		t.Errorf("message: %q", msg)
	}
	if n := doc.Find("[data-testid=library-documents] tbody tr").Length(); n != 2 {
		t.Errorf("%d documents listed in form-docs", n)
	}
}

// With the library and a web engine configured, the ask form offers
// "Search in: the web / my library / both"; with web engines only, not.
func TestAskFormSearchScope(t *testing.T) {
	both := newAuthServer(t, "", handlers.Options{Settings: web.SettingsView{SearchEngines: []string{"kb", "duckduckgo"}}})
	doc := mustDoc(t, do(t, http.MethodGet, both.srv.URL+"/", "", nil).Body)
	if doc.Find("[data-testid=scope-web]").Length() != 1 || doc.Find("[data-testid=scope-library]").Length() != 1 || doc.Find("[data-testid=scope-both][checked]").Length() != 1 {
		t.Errorf("scope choice missing: %s", doc.Find("form").Text())
	}
	webOnly := newAuthServer(t, "", handlers.Options{Settings: web.SettingsView{SearchEngines: []string{"duckduckgo", "bing"}}})
	if n := mustDoc(t, do(t, http.MethodGet, webOnly.srv.URL+"/", "", nil).Body).Find("[data-testid=scope-both]").Length(); n != 0 {
		t.Errorf("scope choice without a library: %d", n)
	}
}
