package browser

// extractPage is the seam between rendering and extraction: Visit calls it
// with the rendered DOM and the page's final URL.
func extractPage(html, pageURL string) (Page, error) {
	return Extract([]byte(html), pageURL)
}
