package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/browser"
)

// open navigates a fresh session to path and observes it.
func open(t *testing.T, path string) (*browser.Session, *Snapshot) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	sess, err := testPool.OpenSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sess.Close)
	if _, err := sess.Navigate(ctx, testSite.url(path)); err != nil {
		t.Fatal(err)
	}
	snap, err := Observe(ctx, sess.Page(ctx))
	if err != nil {
		t.Fatal(err)
	}
	return sess, snap
}

func find(s *Snapshot, role, name string) *Element {
	for i := range s.Elements {
		if e := &s.Elements[i]; e.Role == role && strings.Contains(e.Name, name) {
			return e
		}
	}
	return nil
}

func TestObserveElements(t *testing.T) {
	t.Parallel()
	cases := []struct {
		path, role, name string
		check            func(t *testing.T, s *Snapshot, e *Element)
	}{
		{"/archive", "textbox", "Look through the archive", func(t *testing.T, s *Snapshot, e *Element) {
			if e.Form < 0 || e.FormMethod != "post" || !e.InView || e.Covered {
				t.Errorf("field = %+v", e)
			}
		}},
		{"/consent", "link", "Northern valleys", func(t *testing.T, s *Snapshot, e *Element) {
			if !e.Covered {
				t.Errorf("a link under the consent overlay is not covered: %+v", e)
			}
			if len(s.Dialogs) != 1 || !strings.Contains(s.Dialogs[0], "Cookie consent") {
				t.Errorf("dialogs = %q", s.Dialogs)
			}
			if b := find(s, "button", "Reject all"); b == nil || b.Covered || !b.InDialog {
				t.Errorf("reject button = %+v", b)
			}
		}},
		{"/framed", "button", "Show details", func(t *testing.T, s *Snapshot, e *Element) {
			if e.Frame != 1 {
				t.Errorf("a button inside the iframe is in frame %d", e.Frame)
			}
		}},
		{"/shadow", "searchbox", "Find a station", func(t *testing.T, s *Snapshot, e *Element) {
			if SearchBox(s) != e {
				t.Errorf("the search box in the shadow root is not the search box: %+v", SearchBox(s))
			}
		}},
		{"/filter", "combobox", "Region", func(t *testing.T, s *Snapshot, e *Element) {
			if e.Tag != "select" || !slices.Contains(e.Options, "North") {
				t.Errorf("select = %+v", e)
			}
			if find(s, "checkbox", "Include archived") == nil {
				t.Error("no checkbox")
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			t.Parallel()
			_, s := open(t, c.path)
			e := find(s, c.role, c.name)
			if e == nil {
				t.Fatalf("no %s %q in\n%s", c.role, c.name, s.Text())
			}
			c.check(t, s, e)
		})
	}
}

// TestStaleElementRefused: an id of an earlier snapshot is refused, never
// mapped onto the new page.
func TestStaleElementRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sess, old := open(t, "/archive")
	r := &Run{sess: sess, snap: old, opt: Options{ActionTimeout: 5 * time.Second}}
	id := find(old, "textbox", "archive").ID
	if _, err := sess.Navigate(ctx, testSite.url("/consent")); err != nil {
		t.Fatal(err)
	}
	if err := r.execute(ctx, Action{Kind: Type, Element: id, Text: "rain"}); !errors.Is(err, ErrStaleElement) {
		t.Fatalf("typing into a field that left the page: %v, want ErrStaleElement", err)
	}
	snap, err := Observe(ctx, sess.Page(ctx))
	if err != nil {
		t.Fatal(err)
	}
	r.snap = snap
	if err := r.execute(ctx, Action{Kind: Click, Element: len(snap.Elements) + 5}); !errors.Is(err, ErrStaleElement) {
		t.Fatalf("an id past the snapshot: %v", err)
	}
}

// TestElementTreeSize measures the rendered element tree in tokens
// (characters / 4) on the fixtures and three real saved pages, and keeps
// it bounded.
func TestElementTreeSize(t *testing.T) {
	t.Parallel()
	fixtures := []string{"/archive", "/app", "/consent", "/list", "/framed", "/inject", "/shop", "/filter"}
	files, _ := filepath.Glob("testdata/real/*.html.gz")
	if len(files) != 3 {
		t.Fatalf("want three real pages, have %d", len(files))
	}
	paths := slices.Clone(fixtures)
	for _, f := range files {
		paths = append(paths, "/real/"+filepath.Base(f))
	}
	snaps := observeAll(t, paths)
	var fix []int
	for _, s := range snaps[:len(fixtures)] {
		fix = append(fix, s.Tokens())
	}
	var real []int
	var took []time.Duration
	for i, f := range files {
		s := snaps[len(fixtures)+i]
		took = append(took, s.took)
		if len(s.Elements) == 0 {
			t.Errorf("%s: no elements", f)
		}
		real = append(real, s.Tokens())
		if testing.Verbose() && os.Getenv("AGENT_SHOW_TREE") != "" {
			t.Log(s.Text())
		}
	}
	t.Logf("element tree tokens (chars/4): fixtures %v median %d; real pages %v median %d (session+load+observe %v)", fix, median(fix), real, median(real), took)
	if m := median(real); m > 3000 {
		t.Errorf("median tree of real pages is %d tokens, over 3000", m)
	}
}

// timedSnapshot is a snapshot with the time its session, load and
// observation took.
type timedSnapshot struct {
	*Snapshot
	took time.Duration
}

// observeAll observes each path in a session of its own, closed once
// observed; the pages load side by side (the pool has a tab for each
// test that runs at once).
func observeAll(t *testing.T, paths []string) []timedSnapshot {
	t.Helper()
	snaps := make([]timedSnapshot, len(paths))
	t.Run("observe", func(t *testing.T) {
		for i, path := range paths {
			t.Run(strings.Trim(path, "/"), func(t *testing.T) {
				t.Parallel()
				start := time.Now()
				_, snap := open(t, path)
				snaps[i] = timedSnapshot{snap, time.Since(start)}
			})
		}
	})
	for _, s := range snaps {
		if s.Snapshot == nil {
			t.FailNow()
		}
	}
	return snaps
}

func median(xs []int) int {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
