package research

import "testing"

// TestActionKey: one definition of "the same action" — searches by their
// words (case, spacing and engine aside), visits by their URL (scheme and
// host case, fragment and trailing slash aside).
func TestActionKey(t *testing.T) {
	search := func(engine, q string) ActionSpec { return ActionSpec{Kind: ActionSearch, Engine: engine, Query: q} }
	visit := func(u string) ActionSpec { return ActionSpec{Kind: ActionNavigate, URL: u} }
	same := []struct{ a, b ActionSpec }{
		{search("duckduckgo", "Rust ownership"), search("duckduckgo", "rust ownership")},
		{search("duckduckgo", "  rust\t ownership \n"), search("duckduckgo", "rust ownership")},
		{search("duckduckgo", "rust ownership"), search("bing", "rust ownership")},
		{search("duckduckgo", "rust ownership"), ActionSpec{Kind: " Search ", Query: "rust ownership"}},
		{visit("https://example.org/seen/"), visit("https://example.org/seen")},
		{visit("HTTPS://Example.ORG/seen#part"), visit("https://example.org/seen")},
		{visit(" https://example.org/ "), visit("https://example.org")},
		{ActionSpec{Kind: "NAVIGATE", URL: "https://example.org/a"}, visit("https://example.org/a")},
	}
	for _, c := range same {
		if c.a.Key() != c.b.Key() {
			t.Errorf("%+v and %+v differ: %q vs %q", c.a, c.b, c.a.Key(), c.b.Key())
		}
	}
	different := []struct{ a, b ActionSpec }{
		{search("duckduckgo", "rust ownership"), search("duckduckgo", "ownership rust")},
		{search("duckduckgo", "rust"), search("duckduckgo", "rust ownership")},
		{visit("https://example.org/Page"), visit("https://example.org/page")},
		{visit("https://example.org/a?x=1"), visit("https://example.org/a?x=2")},
		{visit("https://example.org/a"), search("duckduckgo", "https://example.org/a")},
	}
	for _, c := range different {
		if c.a.Key() == c.b.Key() {
			t.Errorf("%+v and %+v share the key %q", c.a, c.b, c.a.Key())
		}
	}
}
