package changes

import (
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

const releasePage = `Example DB release notes

The current stable release is version 2.3, published on 4 November 2026.
Support for version 1.9 ends on 31 December 2026.
Status: Operational
The project welcomes contributions from everyone.
Release 2.2 added parallel index builds.`

func src(id, url, title, body string) research.Source {
	return research.Source{ID: id, URL: url, Title: title, Text: body}
}

func TestCompare(t *testing.T) {
	prev := []research.Source{
		src("S1", "http://docs.test/releases", "Release notes", releasePage),
		src("S2", "http://docs.test/old", "Old page", "The old page listed 14 mirrors in 2025."),
	}
	nowPage := strings.NewReplacer("version 2.3, published on 4 November 2026", "version 2.4, published on 20 November 2026",
		"Status: Operational", "Status: Degraded performance",
		"Release 2.2 added parallel index builds.", "Release 2.4 added incremental backups for 3 platforms.").Replace(releasePage)
	cur := []research.Source{
		src("S1", "http://news.test/launch", "Launch news", "Example DB 2.4 shipped to 12000 users on day one."),
		src("S2", "http://docs.test/releases", "Release notes", nowPage),
	}
	d := Compare(prev, cur)
	if len(d.Changed) != 2 {
		t.Fatalf("changed = %+v, want the release sentence and the status", d.Changed)
	}
	c := d.Changed[0]
	if c.Now.Cite != "S2" || !strings.Contains(c.Now.Sentence, "version 2.4") || strings.Join(c.Old, ",") != "2.3,4" || strings.Join(c.New, ",") != "2.4,20" {
		t.Errorf("release change: %+v", c)
	}
	if s := d.Changed[1]; strings.Join(s.New, ",") != "Degraded performance" || strings.Join(s.Old, ",") != "Operational" {
		t.Errorf("status change: %+v", s)
	}
	if len(d.Added) != 1 || !strings.Contains(d.Added[0].Sentence, "incremental backups") {
		t.Errorf("added = %+v", d.Added)
	}
	if len(d.Vanished) != 1 || !strings.Contains(d.Vanished[0].Sentence, "parallel index builds") || d.Vanished[0].Cite != "" {
		t.Errorf("vanished = %+v", d.Vanished)
	}
	if len(d.NewSources) != 1 || d.NewSources[0].Cite != "S1" {
		t.Errorf("new sources = %+v", d.NewSources)
	}
	// The old page was not read again: its facts are not "no longer found".
	for _, f := range d.Vanished {
		if strings.Contains(f.Sentence, "mirrors") {
			t.Errorf("a fact of a page not read again reported gone: %s", f.Sentence)
		}
	}

	// Unchanged pages: nothing to say.
	if d := Compare(cur, cur); !d.Empty() || d.Summary() != "" {
		t.Errorf("same sources: %+v", d)
	}
}

// The section passes verification as it is written: every sentence about
// the world quotes a current source with its citation, and what the last
// run said is a remark about the sources, not a claim.
func TestMarkdownVerifies(t *testing.T) {
	prev := []research.Source{src("S1", "http://docs.test/releases", "Release notes", releasePage)}
	cur := []research.Source{src("S1", "http://docs.test/releases", "Release notes", strings.ReplaceAll(releasePage, "version 2.3", "version 2.4")),
		src("S2", "http://news.test/launch", "Launch news", "Example DB 2.4 shipped to 12000 users on day one.")}
	d := Compare(prev, cur)
	since := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	md := Prepend("# Example DB\n\n## Current release\n\nThe current stable release is version 2.4, published on 4 November 2026 [S1].", d.Markdown(since))
	if !strings.HasPrefix(md, "# Example DB\n\n## Changes since 23 November 2026, 08:00 UTC\n\n") {
		t.Fatalf("section not at the top:\n%s", md)
	}
	want := "- The current stable release is version 2.4, published on 4 November 2026 [S1]. The sources of the last run said “2.3”."
	if !strings.Contains(md, want) {
		t.Fatalf("changed value not named:\n%s", md)
	}
	v := report.Verify(md, cur, nil, nil, report.DefaultVerifyOptions())
	if !v.Passed {
		t.Fatalf("section fails verification: %v\n%s", v.Failures, md)
	}
	for _, s := range v.Sentences {
		if s.Section == "Changes since 23 November 2026, 08:00 UTC" && s.Factual && !s.Supported {
			t.Errorf("unsupported: %q", s.Text)
		}
	}
	// A repair pass that kept the section gets it once, fresh.
	again := Prepend(md, d.Markdown(since))
	if strings.Count(again, "## Changes since") != 1 || again != md {
		t.Errorf("section doubled or moved:\n%s", again)
	}
	if !strings.Contains(d.Summary(), "Changed: The current stable release is version 2.4, published on 4 November 2026 [S1]. (was “2.3”)") {
		t.Errorf("summary:\n%s", d.Summary())
	}
}

func TestFactsSkipUnsafeText(t *testing.T) {
	s := src("S1", "u", "t", "Version 3 is out [S9] now.\nSee <b>version 4</b> today.\nWe shipped 12 builds in March 2026.")
	fs := facts(s)
	if len(fs) != 1 || !strings.Contains(fs[0].Sentence, "12 builds") {
		t.Fatalf("facts = %+v", fs)
	}
}
