package extract_test

import (
	"strings"
	"testing"

	"github.com/quarryhq/quarry/extract"
)

// TestExtractDeeplyNestedPage: a page whose article sits inside 2,000
// nested <div>s (past the HTML parser's 512 open elements) is extracted,
// not failed.
func TestExtractDeeplyNestedPage(t *testing.T) {
	article := "<h1>Deep nesting</h1>" + strings.Repeat("<p>Deeply nested pages still carry text that readers came for, and the extractor keeps it whole.</p>", 12)
	page := "<!doctype html><html><head><title>Nested page</title></head><body>" +
		strings.Repeat("<div>", 2000) + article + strings.Repeat("</div>", 2000) +
		"<p>After the nesting, a closing paragraph is still part of the page's text.</p></body></html>"
	got, err := extract.Extract([]byte(page), "https://example.org/deep")
	if err != nil {
		t.Fatalf("extract: %v", err)
	}
	if !strings.Contains(got.Text, "Deeply nested pages still carry text") {
		t.Errorf("the nested article's text is missing: %.300q", got.Text)
	}
	if got.Title != "Nested page" && got.Title != "Deep nesting" {
		t.Errorf("title %q", got.Title)
	}
}
