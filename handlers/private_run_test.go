package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
)

// TestPrivateRunIsTheOwners: a run that read a passage of a private
// collection is marked as such; to another user its page, API, events,
// exports and follow-ups are not there and history does not list it; its
// share link (minted at publish) does not work until the owner confirms;
// the owner and an admin read it, and the page says it is private.
func TestPrivateRunIsTheOwners(t *testing.T) {
	s := libraryServer(t)
	ctx := context.Background()
	coll := "ann-private-" + strings.ToLower(t.Name())
	t.Cleanup(func() { dbtest.Exec(t, s.store, `DELETE FROM library_collections WHERE name = $1`, coll) })
	code, out := upload(t, s.srv.URL, "ann", coll, "salary.txt", []byte("Ann's salary is forty-two thousand crowns a year."), true)
	if code != http.StatusCreated {
		t.Fatalf("ann's private upload: %d %v", code, out)
	}
	docID := out["id"].(string)
	rep := publishTestReport(t, s.store, "What does ann earn, by her private notes?")
	run := rep.run
	dbtest.Exec(t, s.store, `UPDATE runs SET owner = 'ann' WHERE id = $1`, run.ID)
	if run.ReadsPrivate {
		t.Fatal("a run that read only web pages is marked private")
	}
	// The gatherer stores a library passage as a source like this.
	err := s.store.InTx(ctx, func(tx *db.Tx) error {
		_, _, err := tx.AddSource(ctx, db.Source{RunID: run.ID, URL: "/library/documents/" + docID + "?page=1#page-1",
			CanonicalURL: "library:" + docID + "/0", Title: "salary.txt, p. 1", Host: "library", Text: "Ann's salary is forty-two thousand crowns a year."})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := getRun(t, s.store, run.ID); !got.ReadsPrivate {
		t.Fatal("reading a private passage did not mark the run private")
	}
	id := run.ID
	as := func(user, method, path, body string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, s.srv.URL+path, strings.NewReader(body))
		if user != "" {
			req.Header.Set("X-User", user)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil || b.Len() > 1<<20 || strings.HasSuffix(path, "/events") {
				break
			}
		}
		return resp.StatusCode, []byte(b.String())
	}
	for _, path := range []string{"/runs/" + id, "/api/runs/" + id, "/runs/" + id + "/events", "/api/runs/" + id + "/events",
		"/runs/" + id + "/report.md", "/runs/" + id + "/report.json", "/runs/" + id + "/report.pdf",
		"/api/runs/" + id + "/report.md", "/api/runs/" + id + "/report.json"} {
		if code, body := as("bob", "GET", path, ""); code != http.StatusNotFound || strings.Contains(string(body), "forty-two") {
			t.Errorf("bob GET %s: %d, want 404 without the passage", path, code)
		}
	}
	for _, path := range []string{"/runs?q=private+notes", "/runs", "/"} {
		if code, body := as("bob", "GET", path, ""); code != http.StatusOK || strings.Contains(string(body), id) {
			t.Errorf("bob's %s lists ann's private run (%d)", path, code)
		}
	}
	if code, body := as("bob", "POST", "/api/runs", `{"question":"And what else?","parent_id":"`+id+`"}`); code != http.StatusBadRequest || !strings.Contains(string(body), "parent_id") {
		t.Errorf("bob follows up ann's private run: %d %s", code, body)
	}
	if code, _ := as("bob", "POST", "/api/runs/"+id+"/share", `{"confirm_private":true}`); code != http.StatusNotFound {
		t.Errorf("bob shares ann's private run: %d", code)
	}
	// The link minted at publish does not work before ann confirms.
	for _, path := range []string{"/r/" + rep.token, "/r/" + rep.token + "/report.md", "/r/" + rep.token + "/report.json"} {
		if code, body := as("", "GET", path, ""); code != http.StatusNotFound || strings.Contains(string(body), "forty-two") {
			t.Errorf("share link %s before confirming: %d", path, code)
		}
	}

	// Ann reads her run, marked private, with the confirmation on the share form.
	code, body := as("ann", "GET", "/runs/"+id, "")
	doc := mustDoc(t, strings.NewReader(string(body)))
	if code != http.StatusOK || doc.Find("[data-testid=private-run]").Length() != 1 || doc.Find("[data-testid=confirm-private]").Length() != 1 ||
		doc.Find("[data-testid=share-link]").Length() != 0 {
		t.Fatalf("ann's page: %d, marked %d, confirm %d, link %d", code, doc.Find("[data-testid=private-run]").Length(),
			doc.Find("[data-testid=confirm-private]").Length(), doc.Find("[data-testid=share-link]").Length())
	}
	code, body = as("ann", "GET", "/api/runs/"+id, "")
	var got struct {
		ShareURL string `json:"share_url"`
		Private  bool   `json:"private"`
	}
	json.Unmarshal(body, &got)
	if code != http.StatusOK || got.ShareURL != "" || !got.Private {
		t.Errorf("ann's API: %d share_url %q private %v, want no live link, marked private", code, got.ShareURL, got.Private)
	}
	if code, body := as("ann", "POST", "/api/runs/"+id+"/share", `{}`); code != http.StatusBadRequest || !strings.Contains(string(body), "confirm_private") {
		t.Errorf("sharing without confirming: %d %s", code, body)
	}
	if code, _ := as("ann", "POST", "/runs/"+id+"/share", ""); code != http.StatusBadRequest {
		t.Errorf("the share form without the box ticked: %d", code)
	}
	code, body = as("ann", "POST", "/api/runs/"+id+"/share", `{"confirm_private":true}`)
	json.Unmarshal(body, &got)
	if code != http.StatusOK || !strings.Contains(got.ShareURL, "/r/") {
		t.Fatalf("confirmed share: %d %s", code, body)
	}
	path := got.ShareURL[strings.Index(got.ShareURL, "/r/"):]
	if code, _ := as("", "GET", path, ""); code != http.StatusOK {
		t.Errorf("the confirmed link: %d", code)
	}
	if code, _ := as("", "GET", "/r/"+rep.token, ""); code != http.StatusNotFound {
		t.Errorf("the old link works after a new one: %d", code)
	}

	// An admin reads it too.
	addAdmin(t, s.store, "root-"+id[:8], "admin password")
	if code, _ := as("root-"+id[:8], "GET", "/api/runs/"+id, ""); code != http.StatusOK {
		t.Errorf("an admin reads the private run: %d", code)
	}
}

// TestStreamEndsWhenRunBecomesPrivate: another user following a run live
// gets its events until the run reads a private passage; the event that
// would show the passage is never sent, the stream ends, and reconnecting
// is refused. The owner's stream carries on.
func TestStreamEndsWhenRunBecomesPrivate(t *testing.T) {
	s := libraryServer(t)
	ctx := context.Background()
	coll := "ann-live-" + strings.ToLower(t.Name())
	t.Cleanup(func() { dbtest.Exec(t, s.store, `DELETE FROM library_collections WHERE name = $1`, coll) })
	code, out := upload(t, s.srv.URL, "ann", coll, "plans.txt", []byte("Ann plans to move to Lisbon in the spring."), true)
	if code != http.StatusCreated {
		t.Fatalf("ann's private upload: %d %v", code, out)
	}
	docID := out["id"].(string)
	run := createRun(t, s.store, "Where does ann plan to move?")
	dbtest.Exec(t, s.store, `UPDATE runs SET owner = 'ann', status = 'gathering' WHERE id = $1`, run.ID)
	url := s.srv.URL + "/api/runs/" + run.ID + "/events"
	bob := openSSEAs(t, url, "", "X-User", "bob")
	ann := openSSEAs(t, url, "", "X-User", "ann")
	bob.next(t, 5*time.Second) // run_created
	ann.next(t, 5*time.Second)
	appendEvent(t, s.store, run.ID, "stage_started", map[string]any{"stage": "gather"})
	if ev := apiEvent(t, bob.next(t, 5*time.Second)); ev.Type != "stage_started" {
		t.Fatalf("bob's second event: %s", ev.Type)
	}
	ann.next(t, 5*time.Second)
	err := s.store.InTx(ctx, func(tx *db.Tx) error {
		if _, _, err := tx.AddSource(ctx, db.Source{RunID: run.ID, URL: "/library/documents/" + docID, CanonicalURL: "library:" + docID + "/0",
			Title: "plans.txt, p. 1", Host: "library", Text: "Ann plans to move to Lisbon in the spring."}); err != nil {
			return err
		}
		_, err := tx.AppendEvent(ctx, run.ID, "action", map[string]any{"status": "success", "preview": "Ann plans to move to Lisbon in the spring."})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if ev := apiEvent(t, ann.next(t, 5*time.Second)); ev.Type != "action" {
		t.Fatalf("ann's stream: %s", ev.Type)
	}
	bob.expectEnd(t, 5*time.Second)
	if resp := do(t, http.MethodGet, url, "", nil, "X-User", "bob"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob reconnects: %d", resp.StatusCode)
	}
}
