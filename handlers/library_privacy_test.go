package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/db/dbtest"
)

// TestPrivateUploadNotHijacked: a private upload into a name another user
// holds — a team collection, or their private one — is refused with the
// same words either way, and stores nothing; the team collection's owner
// never sees the file. A private upload into one's own private
// collection works.
func TestPrivateUploadNotHijacked(t *testing.T) {
	s := libraryServer(t)
	suffix := strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	team, theirs, mine := "trap-"+suffix, "carls-"+suffix, "anns-"+suffix
	// The library's database is shared: leave no team documents behind.
	t.Cleanup(func() {
		dbtest.Exec(t, s.store, `DELETE FROM library_collections WHERE name IN ($1, $2, $3)`, team, theirs, mine)
	})
	if code, out := upload(t, s.srv.URL, "bob", team, "bait.txt", []byte("a team collection made in advance"), false); code != http.StatusCreated {
		t.Fatalf("bob's team upload: %d %v", code, out)
	}
	if code, out := upload(t, s.srv.URL, "carl", theirs, "diary.txt", []byte("carl keeps this to himself"), true); code != http.StatusCreated {
		t.Fatalf("carl's private upload: %d %v", code, out)
	}
	secret := []byte("ann's salary negotiation notes, not for anyone else")
	var refusals []string
	for _, name := range []string{team, theirs} {
		code, out := upload(t, s.srv.URL, "ann", name, "private.txt", secret, true)
		if code != http.StatusBadRequest || out["field"] != "collection" {
			t.Fatalf("ann's private upload into %s: %d %v, want 400 naming collection", name, code, out)
		}
		refusals = append(refusals, strings.ReplaceAll(out["error"].(string), name, "NAME"))
	}
	if refusals[0] != refusals[1] {
		t.Errorf("the refusals differ, telling a team name from someone's private one:\n%s\n%s", refusals[0], refusals[1])
	}
	var n int
	dbtest.Get(t, s.store, &n, `SELECT count(*) FROM library_documents WHERE added_by = 'ann'`)
	if n != 0 {
		t.Fatalf("%d of ann's documents stored", n)
	}
	resp := do(t, http.MethodGet, s.srv.URL+"/library?collection="+team, "", nil, "X-User", "bob")
	if strings.Contains(mustDoc(t, resp.Body).Text(), "private.txt") {
		t.Error("bob sees ann's private file in his collection")
	}
	if code, out := upload(t, s.srv.URL, "ann", mine, "private.txt", secret, true); code != http.StatusCreated {
		t.Fatalf("ann's own private collection: %d %v", code, out)
	}
	if code, out := upload(t, s.srv.URL, "ann", mine, "more.txt", []byte("a second private note of ann's"), true); code != http.StatusCreated {
		t.Fatalf("ann adds to her own private collection: %d %v", code, out)
	}
}
