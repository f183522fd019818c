package extractive

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/quarryhq/quarry/research"
)

// loadSources reads the documentation pages and news articles of testdata
// as sources S1…S7 (docs first).
func loadSources(t testing.TB) []research.Source {
	t.Helper()
	var out []research.Source
	for _, f := range []string{"testdata/docs.json", "testdata/articles.json"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read fixture: %v", err)
		}
		var pages []struct{ URL, Title, Text string }
		if err := json.Unmarshal(b, &pages); err != nil {
			t.Fatalf("parse %s: %v", f, err)
		}
		for _, p := range pages {
			out = append(out, research.Source{
				ID: fmt.Sprintf("S%d", len(out)+1), URL: p.URL, Title: p.Title, Text: p.Text,
				FetchedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
			})
		}
	}
	return out
}

// sourceByURL returns the fixture source whose URL is u.
func sourceByURL(t testing.TB, sources []research.Source, u string) research.Source {
	t.Helper()
	for _, s := range sources {
		if s.URL == u {
			return s
		}
	}
	t.Fatalf("no fixture %s", u)
	return research.Source{}
}
