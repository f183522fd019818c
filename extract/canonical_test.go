package extract

import "testing"

func TestCanonicalURLForDedup(t *testing.T) {
	tests := []struct{ in, want string }{
		{"HTTPS://Example.COM/Path/", "https://example.com/Path"},
		{"https://example.com", "https://example.com/"},
		{"https://example.com:443/a", "https://example.com/a"},
		{"http://example.com:80/a", "http://example.com/a"},
		{"http://example.com:8080/a", "http://example.com:8080/a"},
		{"https://example.com/a#section-2", "https://example.com/a"},
		{"https://example.com/a?utm_source=x&utm_medium=y&id=3", "https://example.com/a?id=3"},
		{"https://example.com/a?b=2&a=1&fbclid=zz&gclid=qq", "https://example.com/a?a=1&b=2"},
		{"https://user:pw@example.com/a", "https://example.com/a"},
		{"https://example.com/a?", "https://example.com/a"},
		{"https://example.com./a", "https://example.com/a"},
		{"  https://example.com/a  ", "https://example.com/a"},
		{"not a url", "not a url"},
		{"/relative/path", "/relative/path"},
	}
	for _, tt := range tests {
		if got := CanonicalURL(tt.in); got != tt.want {
			t.Errorf("CanonicalURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
