package report

import (
	"reflect"
	"slices"
	"testing"

	"github.com/quarryhq/quarry/research"
)

func TestReportSentences(t *testing.T) {
	md := "# Report\n\nIntro line without citation here.\n\n## Summary\n\n" +
		"The default port is 7420. [S2] To change it, set `port` in **ember.conf** [S2][S3]. Run: `replicaof 10.0.0.5 7420` [S3] It works.\n\n" +
		"## Details\n\n- Uses max\\_connections, see [the docs](https://example.com/docs) [S1, S4].\n" +
		"- Second item\n  continues here (inference).\n\n" +
		"| Setting | Value |\n|---|---|\n| port | 7420 [S2] |\n\n" +
		"```\ncode [S9] is skipped\n```\n\n" +
		"## Sources\n\n1. [S1] https://example.com\n"
	got := ReportSentences(md)
	want := []ReportSentence{
		{"Report", "Intro line without citation here.", "Intro line without citation here."},
		{"Summary", "The default port is 7420. [S2]", "The default port is 7420."},
		{"Summary", "To change it, set port in ember.conf [S2][S3].", "To change it, set port in ember.conf."},
		{"Summary", "Run: replicaof 10.0.0.5 7420 [S3]", "Run: replicaof 10.0.0.5 7420"},
		{"Summary", "It works.", "It works."},
		{"Details", "Uses max_connections, see the docs [S1, S4].", "Uses max_connections, see the docs."},
		{"Details", "Second item continues here (inference).", "Second item continues here (inference)."},
		{"Details", "Setting Value", "Setting Value"},
		{"Details", "port 7420 [S2]", "port 7420"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReportSentences:\n got %q\nwant %q", got, want)
	}
}

// FuzzReportSentences checks that no Markdown makes the splitter panic and
// that every sentence's plain form carries no citation marker.
func FuzzReportSentences(f *testing.F) {
	for _, s := range []string{"# A\n\nOne [S1]. Two [S2, S3].", "[S1]", "- a [S1]\n- b", "| x | y [S2] |", "```\n[S1]\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, rs := range ReportSentences(s) {
			if len(research.Citations(rs.Plain)) > 0 {
				t.Fatalf("plain sentence %q still cites", rs.Plain)
			}
		}
	})
}

// A quoted sentence that introduces a list, written with its list, is one
// sentence with its citation; a list after a finished sentence or a blank
// line is read item by item.
func TestReportSentencesLeadInKeepsItsList(t *testing.T) {
	md := "## Summary\nA \"rowid table\" is any table in an SQLite schema that\n- is not a virtual table, and\n- is not a WITHOUT ROWID table [S1].\n\n" +
		"Tables differ in two ways.\n- Keys are stored twice [S2].\n- Rows move on VACUUM [S2].\n"
	got := ReportSentences(md)
	var raws []string
	for _, s := range got {
		raws = append(raws, s.Raw)
	}
	want := []string{
		`A "rowid table" is any table in an SQLite schema that is not a virtual table, and is not a WITHOUT ROWID table [S1].`,
		"Tables differ in two ways.", "Keys are stored twice [S2].", "Rows move on VACUUM [S2].",
	}
	if !slices.Equal(raws, want) {
		t.Errorf("ReportSentences =\n%q\nwant\n%q", raws, want)
	}
}

// A quote that opens on code ("`auto-suffix-retain`: If …") starts a new
// sentence after the citation of one that ends in code, though its first
// letter is lower case; prose in lower case after a citation goes on.
func TestSentenceOpeningOnCodeAfterACitation(t *testing.T) {
	md := "## Summary\n\n`zle-line-init`: This example starts vi mode. `zle -N zle-line-init` [S4] " +
		"`auto-suffix-retain`: If the previous action added a suffix, keep it. [S4] " +
		"The editor saves it [S1] and the shell reads it [S2].\n"
	var got []string
	for _, s := range ReportSentences(md) {
		got = append(got, s.Plain)
	}
	want := []string{
		"zle-line-init: This example starts vi mode. zle -N zle-line-init",
		"auto-suffix-retain: If the previous action added a suffix, keep it.",
		"The editor saves it and the shell reads it.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ReportSentences:\n got %q\nwant %q", got, want)
	}
}
