package search

import (
	"slices"
	"testing"
)

// A site's own search ranks long pages that mention a word many times
// first; the page whose title names the asked thing is the one to read.
func TestPickTargetsPrefersTheTitleThatNamesTheQuestion(t *testing.T) {
	results := []Result{
		{URL: "http://docs.test/release-15-2.html", Title: "Release 15.2 — Manual 15", Snippet: "Fix VACUUM to … Fix autovacuum … VACUUM FULL could …"},
		{URL: "http://docs.test/bookindex.html", Title: "Index — Manual 15", Snippet: "VACUUM, VACUUM FULL, vacuum_cost_delay …"},
		{URL: "http://docs.test/release-15-1.html", Title: "Release 15.1 — Manual 15", Snippet: "Avoid VACUUM …"},
		{URL: "http://docs.test/routine-vacuuming.html", Title: "25.1. Routine Vacuuming — Manual 15", Snippet: "Databases need periodic vacuuming …"},
		{URL: "http://docs.test/sql-vacuum.html", Title: "VACUUM — Manual 15", Snippet: "VACUUM — garbage-collect and optionally analyze a database"},
		{URL: "http://docs.test/runtime-config-autovacuum.html", Title: "20.10. Automatic Vacuuming — Manual 15", Snippet: "These settings control the behavior of the autovacuum feature."},
	}
	got := pickTargets(results, "VACUUM FULL reclaim space", 2, func(string) bool { return false })
	if len(got) != 2 || got[0] != "http://docs.test/sql-vacuum.html" {
		t.Fatalf("picked %q, want the page titled VACUUM first", got)
	}
	if slices.Contains(got, "http://docs.test/bookindex.html") {
		t.Errorf("picked the index page: %q", got)
	}
}

// An identifier written as the question writes it ("gc.auto") in a
// result's title or URL marks that result as the reference page.
func TestPickTargetsExactIdentifier(t *testing.T) {
	results := []Result{
		{URL: "http://docs.test/RelNotes/2.39.0.txt", Title: "Git 2.39 Release Notes", Snippet: "git gc --auto now …"},
		{URL: "http://docs.test/git-gc.html", Title: "git-gc(1)", Snippet: "Runs a number of housekeeping tasks … gc.auto"},
		{URL: "http://docs.test/git-maintenance.html", Title: "git-maintenance(1)", Snippet: "Run tasks to optimize Git repository data"},
	}
	got := pickTargets(results, "default value gc.auto git", 1, func(string) bool { return false })
	if len(got) != 1 || got[0] != "http://docs.test/git-gc.html" {
		t.Fatalf("picked %q, want git-gc.html", got)
	}
}

// Equal matches keep the engine's order, and skip is asked only about the
// URLs taken or passed over on the way to n (a skip may claim what it is
// asked about).
func TestPickTargetsRankBreaksTiesAndSkipIsAskedInOrder(t *testing.T) {
	results := []Result{
		{URL: "http://a.test/1", Title: "One thing"},
		{URL: "http://a.test/2", Title: "Another thing"},
		{URL: "http://a.test/2#frag", Title: "Another thing again"},
		{URL: "http://a.test/3", Title: "Third thing"},
		{URL: "http://a.test/4", Title: "Fourth thing"},
	}
	var asked []string
	got := pickTargets(results, "unrelated words", 2, func(u string) bool {
		asked = append(asked, u)
		return u == "http://a.test/1"
	})
	if want := []string{"http://a.test/2", "http://a.test/3"}; !slices.Equal(got, want) {
		t.Errorf("picked %q, want %q", got, want)
	}
	if len(asked) != 3 {
		t.Errorf("skip asked about %q, want only the three URLs on the way to two picks", asked)
	}
}
