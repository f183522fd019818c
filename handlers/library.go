package handlers

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/library"
	"github.com/quarryhq/quarry/web"
)

// The document library's pages and API. Who may read a collection is the
// store's rule (team collections, and private ones their owner's); a
// document is deleted by whoever added it and by admins (anyone without
// accounts). Share links never reach these routes: a shared report shows
// the cited passages only.

// uploadPaths take multipart bodies up to the library's upload limit
// instead of the server's small default.
func (s *Server) uploadLimit(r *http.Request) (int64, bool) {
	if s.opt.Library == nil || r.Method != http.MethodPost {
		return 0, false
	}
	p := strings.TrimPrefix(r.URL.Path, s.base)
	if p == "/api/documents" || p == "/library/upload" {
		// A multipart request carries the file and a little more.
		return s.opt.Library.UploadMax()*8 + 1<<20, true
	}
	return 0, false
}

// reader is the user whose collections a request may read.
func reader(r *http.Request) string { return UserFrom(r.Context()) }

func (s *Server) libraryOff(w http.ResponseWriter, r *http.Request) bool {
	if s.opt.Library != nil {
		return false
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeError(w, http.StatusNotFound, "the document library is not configured on this server")
	} else {
		s.errorPage(w, r, http.StatusNotFound, "The document library is not configured on this server.")
	}
	return true
}

// libraryPage is GET /library: collections, documents, and a search of
// the passages when ?q= is given.
func (s *Server) libraryPage(w http.ResponseWriter, r *http.Request) {
	if s.libraryOff(w, r) {
		return
	}
	ctx := r.Context()
	v := web.LibraryView{Collection: strings.TrimSpace(r.URL.Query().Get("collection")), Query: strings.TrimSpace(r.URL.Query().Get("q")),
		UploadMax: s.opt.Library.UploadMax(), Message: r.URL.Query().Get("msg"), Failed: r.URL.Query().Get("failed") != ""}
	if len(v.Message) > 2000 {
		v.Message = v.Message[:2000]
	}
	colls, err := s.store.Collections(ctx, reader(r))
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	for _, c := range colls {
		v.Collections = append(v.Collections, web.CollectionView{Name: c.Name, Owner: c.Owner, Visibility: c.Visibility, Documents: c.Documents})
	}
	docs, err := s.store.Documents(ctx, reader(r), v.Collection, 500)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	for _, d := range docs {
		v.Documents = append(v.Documents, s.documentView(r, d))
	}
	if v.Query != "" {
		v.Searched = true
		hits, err := s.opt.Library.Search(ctx, library.Query{Reader: reader(r), Collection: v.Collection, Text: v.Query, Limit: 20})
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		for _, h := range hits {
			v.Hits = append(v.Hits, web.LibraryHitView{DocumentID: h.DocumentID, Title: library.PassageTitle(h), Page: h.Page,
				Heading: h.Heading, Collection: h.Collection, Parts: highlightParts(h.Headline)})
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, http.StatusOK, web.LibraryPage(s.page(r, "Library"), v), nil)
}

// highlightParts splits a headline at the \x01…\x02 marks the store puts
// around matched words.
func highlightParts(h string) []web.HighlightPart {
	var out []web.HighlightPart
	for h != "" {
		i := strings.IndexByte(h, 1)
		if i < 0 {
			out = append(out, web.HighlightPart{Text: h})
			break
		}
		if i > 0 {
			out = append(out, web.HighlightPart{Text: h[:i]})
		}
		h = h[i+1:]
		j := strings.IndexByte(h, 2)
		if j < 0 {
			j = len(h)
		}
		out = append(out, web.HighlightPart{Text: h[:j], Mark: true})
		h = h[min(j+1, len(h)):]
	}
	return out
}

func (s *Server) documentView(r *http.Request, d db.Document) web.DocumentView {
	return web.DocumentView{ID: d.ID, Collection: d.Collection, Title: d.Title, Filename: d.Filename, Kind: d.Kind, Pages: d.Pages,
		Chunks: d.Chunks, Size: d.Size, Status: d.Status, Error: d.Error, AddedBy: d.AddedBy, AddedAt: d.CreatedAt,
		MayDelete: s.mayDeleteDocument(r, d)}
}

func (s *Server) mayDeleteDocument(r *http.Request, d db.Document) bool {
	if s.opt.Auth.Mode == "" || s.opt.Auth.Mode == AuthNone {
		return true
	}
	user := UserFrom(r.Context())
	if user == "" {
		return false
	}
	if d.AddedBy == user {
		return true
	}
	ok, _ := s.store.IsAdmin(r.Context(), user)
	return ok
}

// readableDocument loads the document named in the URL if the request's
// user may read it; otherwise it answers 404 (a private document's
// existence is not disclosed) and returns nil.
func (s *Server) readableDocument(w http.ResponseWriter, r *http.Request) *db.Document {
	id := chi.URLParam(r, "id")
	notFound := func() {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			writeError(w, http.StatusNotFound, "no such document")
		} else {
			s.notFound(w, r)
		}
	}
	ok, err := s.store.MayReadDocument(r.Context(), reader(r), id)
	if err != nil {
		s.serverError(w, r, err)
		return nil
	}
	if !ok {
		notFound()
		return nil
	}
	d, err := s.store.GetDocument(r.Context(), id)
	if err != nil {
		if errors.Is(err, db.ErrNotFound) {
			notFound()
		} else {
			s.serverError(w, r, err)
		}
		return nil
	}
	return d
}

// documentPage is GET /library/documents/{id}: the extracted text by page.
func (s *Server) documentPage(w http.ResponseWriter, r *http.Request) {
	if s.libraryOff(w, r) {
		return
	}
	d := s.readableDocument(w, r)
	if d == nil {
		return
	}
	pages, err := s.store.DocumentPages(r.Context(), d.ID)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	v := web.DocumentPageView{Doc: s.documentView(r, *d), Original: true}
	v.Current, _ = strconv.Atoi(r.URL.Query().Get("page"))
	for _, p := range pages {
		v.Pages = append(v.Pages, web.DocPageView{Num: p.Page, Text: p.Text})
	}
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, http.StatusOK, web.DocumentPage(s.page(r, d.Title), v), nil)
}

// documentFile is GET /library/documents/{id}/file: the original, always
// as a download (an uploaded HTML file never runs in Quarry's origin).
func (s *Server) documentFile(w http.ResponseWriter, r *http.Request) {
	if s.libraryOff(w, r) {
		return
	}
	d := s.readableDocument(w, r)
	if d == nil {
		return
	}
	b, err := s.store.DocumentContent(r.Context(), d.ID)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	ctype := map[string]string{library.KindPDF: "application/pdf"}[d.Kind]
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	name := strings.Map(func(r rune) rune {
		if r < 0x20 || r == '"' || r == '\\' || r > 0x7e {
			return '_'
		}
		return r
	}, d.Filename)
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, name))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(b)
}

// deleteDocument is POST /library/documents/{id}/delete.
func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request) {
	if s.libraryOff(w, r) {
		return
	}
	d := s.readableDocument(w, r)
	if d == nil {
		return
	}
	if !s.mayDeleteDocument(r, *d) {
		s.errorPage(w, r, http.StatusForbidden, "Only whoever added the document, or an admin, may delete it.")
		return
	}
	if err := s.store.DeleteDocument(r.Context(), d.ID); err != nil {
		s.pageFail(w, r, err)
		return
	}
	s.redirect(w, r, "/library?collection="+d.Collection)
}

// uploadedFile is one file of a multipart upload, spooled to a
// temporary file as it arrives (never whole in memory while the request
// is read).
type uploadedFile struct {
	name string
	path string // the temporary file; removed by the upload's cleanup
	size int64
}

// readUpload reads the multipart fields collection, private and file
// (one or more), streaming each file to a temporary file and refusing it
// as soon as it passes the upload limit. cleanup removes the temporary
// files; call it whatever the error.
func (s *Server) readUpload(r *http.Request) (collection string, private bool, files []uploadedFile, cleanup func(), err error) {
	cleanup = func() {
		for _, f := range files {
			os.Remove(f.path)
		}
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return "", false, nil, cleanup, fmt.Errorf("the request must be multipart/form-data with fields file and collection")
	}
	max := s.opt.Library.UploadMax()
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", false, files, cleanup, fmt.Errorf("read the upload: %v", err)
		}
		switch part.FormName() {
		case "collection":
			b, _ := io.ReadAll(io.LimitReader(part, 200))
			collection = strings.TrimSpace(string(b))
			if err := checkText("collection", collection); err != nil {
				return "", false, files, cleanup, err
			}
		case "private":
			b, _ := io.ReadAll(io.LimitReader(part, 10))
			private = strings.TrimSpace(string(b)) != ""
		case "file":
			f, err := spool(part, max)
			if f.path != "" {
				files = append(files, f)
			}
			if err != nil {
				return "", false, files, cleanup, err
			}
			if f.name == "" && f.size == 0 {
				os.Remove(f.path) // the form's empty file input
				files = files[:len(files)-1]
			}
		default:
			io.Copy(io.Discard, io.LimitReader(part, 1<<20))
		}
		part.Close()
	}
	if len(files) == 0 {
		return "", false, nil, cleanup, errors.New("file: no file was uploaded")
	}
	return collection, private, files, cleanup, nil
}

// spool copies a file part to a temporary file, stopping at max+1 bytes:
// a larger file is refused, naming the limit, having cost at most that
// much disk and a copy buffer of memory.
func spool(part *multipart.Part, max int64) (uploadedFile, error) {
	f := uploadedFile{name: part.FileName()}
	tmp, err := os.CreateTemp("", "quarry-upload-*")
	if err != nil {
		return f, fmt.Errorf("store the upload: %w", err)
	}
	f.path = tmp.Name()
	f.size, err = io.Copy(tmp, io.LimitReader(part, max+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return f, fmt.Errorf("file %q: the request is larger than %d bytes (eight times QUARRY_UPLOAD_MAX)", f.name, tooBig.Limit)
		}
		return f, fmt.Errorf("read the upload: %v", err)
	}
	if f.size > max {
		return f, fmt.Errorf("file %q: more than the upload limit of %d bytes (QUARRY_UPLOAD_MAX)", f.name, max)
	}
	return f, nil
}

// uploadSlot takes a place for one upload of the request's client, within
// Limits.UploadsPerUser and Limits.Uploads; when there is none it answers
// 429 naming the setting and returns false. release gives the place back.
func (s *Server) uploadSlot(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	a := s.access
	l := a.limits
	refuse := func(msg string) (func(), bool) {
		a.limited.WithLabelValues("uploads").Inc()
		s.refuse(w, r, http.StatusTooManyRequests, 10*time.Second, msg)
		return nil, false
	}
	key := clientID(r)
	if l.UploadsPerUser > 0 && !a.uploads.acquire(key, l.UploadsPerUser) {
		return refuse(fmt.Sprintf("You have %d uploads in progress, the most allowed at once (QUARRY_UPLOADS_PER_USER). Wait for one to finish, then upload again.", l.UploadsPerUser))
	}
	if l.Uploads > 0 && !a.uploads.acquire("", l.Uploads) {
		if l.UploadsPerUser > 0 {
			a.uploads.release(key)
		}
		return refuse(fmt.Sprintf("The server is taking in %d uploads already, the most at once (QUARRY_UPLOADS). Try again in a few seconds.", l.Uploads))
	}
	return func() {
		if l.Uploads > 0 {
			a.uploads.release("")
		}
		if l.UploadsPerUser > 0 {
			a.uploads.release(key)
		}
	}, true
}

// apiAddDocument is POST /api/documents (multipart: file, collection) →
// 201 {"id","collection","status"}; a file the collection already holds
// answers 200 with "duplicate": true.
func (s *Server) apiAddDocument(w http.ResponseWriter, r *http.Request) {
	if s.libraryOff(w, r) {
		return
	}
	release, ok := s.uploadSlot(w, r)
	if !ok {
		return
	}
	defer release()
	coll, private, files, cleanup, err := s.readUpload(r)
	defer cleanup()
	if err != nil {
		field := "file"
		var te *TextError
		if errors.As(err, &te) {
			field = te.Field
		}
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error(), Field: field})
		return
	}
	if len(files) != 1 {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "file: send one file per request", Field: "file"})
		return
	}
	doc, dup, err := s.addDocument(r, coll, private, files[0])
	if err != nil {
		var ue *library.UploadError
		if errors.As(err, &ue) {
			field := "file"
			if strings.HasPrefix(ue.Msg, "collection") {
				field = "collection"
			}
			writeJSON(w, http.StatusBadRequest, apiError{Error: ue.Msg, Field: field})
			return
		}
		s.apiFail(w, r, err)
		return
	}
	status := http.StatusCreated
	if dup {
		status = http.StatusOK
	}
	writeJSON(w, status, map[string]any{"id": doc.ID, "collection": doc.Collection, "status": doc.Status, "duplicate": dup})
}

// addDocument stores one spooled file, read from its temporary file in
// pieces (the library and the store never hold it whole).
func (s *Server) addDocument(r *http.Request, coll string, private bool, f uploadedFile) (db.Document, bool, error) {
	if f.size > s.opt.Library.UploadMax() {
		return db.Document{}, false, &library.UploadError{Msg: fmt.Sprintf("file %q: more than the upload limit of %d bytes (QUARRY_UPLOAD_MAX)", f.name, s.opt.Library.UploadMax())}
	}
	file, err := os.Open(f.path)
	if err != nil {
		return db.Document{}, false, fmt.Errorf("read the spooled upload: %w", err)
	}
	defer file.Close()
	return s.opt.Library.Add(r.Context(), library.Upload{Collection: coll, Private: private, Filename: f.name, File: file, Size: f.size,
		AddedBy: UserFrom(r.Context())})
}

// apiGetDocument is GET /api/documents/{id} → {"id","status","pages","error"}.
func (s *Server) apiGetDocument(w http.ResponseWriter, r *http.Request) {
	if s.libraryOff(w, r) {
		return
	}
	d := s.readableDocument(w, r)
	if d == nil {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": d.ID, "status": d.Status, "pages": d.Pages, "error": d.Error,
		"collection": d.Collection, "title": d.Title, "kind": d.Kind, "chunks": d.Chunks})
}

// uploadForm is POST /library/upload, the form without JavaScript: every
// file is added, and the library page says what became of each.
func (s *Server) uploadForm(w http.ResponseWriter, r *http.Request) {
	if s.libraryOff(w, r) {
		return
	}
	release, ok := s.uploadSlot(w, r)
	if !ok {
		return
	}
	defer release()
	coll, private, files, cleanup, err := s.readUpload(r)
	defer cleanup()
	if err != nil {
		s.redirect(w, r, "/library?failed=1&msg="+url.QueryEscape(err.Error()))
		return
	}
	var notes []string
	failed := false
	for _, f := range files {
		doc, dup, err := s.addDocument(r, coll, private, f)
		var ue *library.UploadError
		switch {
		case errors.As(err, &ue):
			notes, failed = append(notes, ue.Msg), true
		case err != nil:
			s.serverError(w, r, err)
			return
		case dup:
			notes = append(notes, fmt.Sprintf("%s is already in %s", f.name, doc.Collection))
		default:
			notes = append(notes, fmt.Sprintf("%s added (%s)", f.name, doc.Status))
		}
	}
	target := "/library?collection=" + url.QueryEscape(coll) + "&msg=" + url.QueryEscape(strings.Join(notes, "; "))
	if failed {
		target += "&failed=1"
	}
	s.redirect(w, r, target)
}
