package extract

import (
	"strings"
	"testing"
)

func TestRendered(t *testing.T) {
	body := "<p>" + strings.Repeat("The harbour bridge reopened to traffic on Monday after eleven weeks of repairs. ", 8) + "</p>"
	html := "<!DOCTYPE html><html><head></head><body><main><article>" + body + "</article></main></body></html>"
	page, err := Rendered("http://example.org/old", "https://example.org:443/news/bridge/?utm_source=x", " Bridge reopens ", html)
	if err != nil {
		t.Fatal(err)
	}
	if page.URL != "http://example.org/old" || page.FinalURL != "https://example.org:443/news/bridge/?utm_source=x" {
		t.Errorf("URL %q, FinalURL %q", page.URL, page.FinalURL)
	}
	if page.Title != "Bridge reopens" {
		t.Errorf("Title = %q, want the document title when the page names none", page.Title)
	}
	if page.CanonicalURL != "https://example.org/news/bridge" || page.Host != "example.org" {
		t.Errorf("CanonicalURL %q, Host %q", page.CanonicalURL, page.Host)
	}
	if !strings.Contains(page.Text, "harbour bridge reopened") {
		t.Errorf("Text = %q", page.Text)
	}
	if _, err := Rendered("x", "://bad", "", html); err == nil || !strings.HasPrefix(err.Error(), "extract x: ") {
		t.Errorf("bad final URL: err = %v", err)
	}
}

func TestCanonicalFor(t *testing.T) {
	tests := []struct{ declared, final, want string }{
		{"", "https://example.org/a?utm_source=x", "https://example.org/a"},
		{"https://example.org/article", "https://example.org/article?page=2", "https://example.org/article"},
		{"https://other.example/article", "https://example.org/article", "https://example.org/article"},
		{"https://example.org/", "https://example.org/news/1", "https://example.org/news/1"},
		{"/relative", "https://example.org/a", "https://example.org/a"},
	}
	for _, tt := range tests {
		if got := canonicalFor(tt.declared, tt.final); got != tt.want {
			t.Errorf("canonicalFor(%q, %q) = %q, want %q", tt.declared, tt.final, got, tt.want)
		}
	}
}
