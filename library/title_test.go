package library

import (
	"context"
	"testing"
)

// TestTitleFromTheDocument: a document is titled by its own words — a
// Markdown heading without its #, whether the file reads as Markdown or
// as plain text (a single heading is not enough structure to sniff it as
// Markdown), else the first heading-like line.
func TestTitleFromTheDocument(t *testing.T) {
	for _, tt := range []struct {
		name, content, want string
	}{
		{"one heading", "# Quarry field notes\n\nThe north face was cut in 1921 and closed in 1968.\n", "Quarry field notes"},
		{"closing hashes", "## Survey of the lower bench ##\n\nWater fills it every spring.\n\n- one\n- two\n", "Survey of the lower bench"},
		{"markdown", "# Release notes\n\nSee [the changelog](https://example.com/c) for **all** changes.\n\n## Fixes\n\nMany.\n", "Release notes"},
		{"plain heading line", "Quarterly report\n\nSales rose by a tenth over the quarter, led by the north.\n", "Quarterly report"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kind, err := Sniff([]byte(tt.content))
			if err != nil {
				t.Fatal(err)
			}
			ex, err := Read(context.Background(), kind, []byte(tt.content), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if ex.Title != tt.want {
				t.Errorf("read as %s, title %q, want %q", kind, ex.Title, tt.want)
			}
		})
	}
}
