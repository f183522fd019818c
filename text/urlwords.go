package text

import (
	"net/url"
	"strings"
)

// URLWords returns the words of a URL's path (and query), with its
// separators as spaces: "/docs/cli-install.html" → "docs cli install html",
// so a page's address can be matched like its title.
func URLWords(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	p, err := url.PathUnescape(u.Path)
	if err != nil {
		p = u.Path
	}
	return strings.TrimSpace(urlSeparators.Replace(p + " " + u.RawQuery))
}

var urlSeparators = strings.NewReplacer("/", " ", "-", " ", "_", " ", ".", " ", "&", " ", "=", " ")
