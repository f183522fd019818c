package browser

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSessionRequestPolicy: a session's policy stops requests of its main
// frame, of its frames and of its workers before they are sent, and
// reports them; what it allows is sent as before.
func TestSessionRequestPolicy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := testPool.OpenSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	noPost := errors.New("no POST")
	sess.SetRequestPolicy(func(r Request) error {
		if r.Method == "POST" {
			return noPost
		}
		return nil
	})
	posts, gets := testSite.sinkPosts.Load(), testSite.sinkGets.Load()
	if _, err := sess.Navigate(ctx, testSite.url("/policy")); err != nil {
		t.Fatal(err)
	}
	var refused []Refusal
	for deadline := time.Now().Add(5 * time.Second); len(refused) < 3 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		refused = append(refused, sess.TakeRefused()...)
	}
	if n := testSite.sinkPosts.Load() - posts; n != 0 {
		t.Errorf("%d POSTs reached the site", n)
	}
	if n := testSite.sinkGets.Load() - gets; n != 1 {
		t.Errorf("%d GETs reached the site, want 1", n)
	}
	if len(refused) != 3 {
		t.Fatalf("refused %+v, want the POSTs of the main frame, the frame and the worker", refused)
	}
	for _, r := range refused {
		if r.Method != "POST" || !strings.HasSuffix(r.URL, "/policy/sink") || r.Frame || !errors.Is(r.Err, noPost) {
			t.Errorf("refused %+v", r)
		}
	}
}
