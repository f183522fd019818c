package extract

import (
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/markusmobius/go-trafilatura"
	"github.com/quarryhq/quarry/text"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxMetaRunes bounds every metadata string taken from a page.
const maxMetaRunes = 300

// headInfo is what the document's own markup says about it.
type headInfo struct {
	title     string
	lang      string
	canonical string
	siteName  string
}

// fillMetadata sets the page's title, site, byline, date, language and
// canonical URL from trafilatura's metadata and the document head.
func fillMetadata(p *Page, head headInfo, base *url.URL, meta trafilatura.Metadata) {
	p.Site = clip(firstNonEmpty(head.siteName, meta.Sitename))
	title := meta.Title
	if strings.EqualFold(strings.TrimSpace(title), p.Site) && head.title != "" {
		// og:title that only names the site, on every page of it
		// ("Example Legacy" over "Example - Resources"): <title> names
		// the page.
		title = head.title
	}
	p.Title = clip(stripSiteName(firstNonEmpty(title, head.title), p.Site))
	if !bogusBylineRe.MatchString(meta.Author) {
		p.Byline = clip(meta.Author)
	}
	if !meta.Date.IsZero() {
		p.Published = formatDate(meta.Date)
	}
	p.Lang = normaliseLang(firstNonEmpty(head.lang, meta.Language))
	p.CanonicalURL = canonicalURL(head.canonical, base)
}

// bogusBylineRe matches author strings picked up from comment widgets.
var bogusBylineRe = regexp.MustCompile(`(?i)\b(commented|comments?|says:|replied|reply)\b`)

// titleSeparators join a headline and the site name in <title>.
var titleSeparators = []string{" | ", " - ", " – ", " — ", " :: ", " · ", " « ", " » "}

// stripSiteName removes the site name from either end of a title
// ("Headline | Site", "Site - Headline").
func stripSiteName(title, site string) string {
	if site == "" {
		return title
	}
	for _, sep := range titleSeparators {
		if rest, ok := strings.CutSuffix(title, sep+site); ok && rest != "" {
			return strings.TrimSpace(rest)
		}
		if rest, ok := strings.CutPrefix(title, site+sep); ok && rest != "" {
			return strings.TrimSpace(rest)
		}
	}
	return title
}

// formatDate renders a date as an RFC 3339 full-date, or a full timestamp
// when the page gave a time of day.
func formatDate(t time.Time) string {
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339)
}

// canonicalURL resolves a rel=canonical href against the page URL and keeps
// it only when it is an absolute http(s) URL; otherwise it returns the page
// URL without its fragment.
func canonicalURL(href string, base *url.URL) string {
	if href != "" {
		if u, err := base.Parse(strings.TrimSpace(href)); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			u.Fragment = ""
			return u.String()
		}
	}
	u := *base
	u.Fragment = ""
	return u.String()
}

// normaliseLang reduces a language tag to its lower-case primary subtag
// ("en-GB" → "en").
func normaliseLang(tag string) string {
	tag = strings.ToLower(strings.TrimSpace(tag))
	if i := strings.IndexAny(tag, "-_"); i > 0 {
		tag = tag[:i]
	}
	if len(tag) < 2 || len(tag) > 3 {
		return ""
	}
	for _, r := range tag {
		if r < 'a' || r > 'z' {
			return ""
		}
	}
	return tag
}

// readHead collects <html lang>, <title>, rel=canonical and og:site_name.
func readHead(doc *html.Node) headInfo {
	var h headInfo
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Html:
				h.lang = attr(n, "lang")
			case atom.Title:
				if h.title == "" && n.FirstChild != nil {
					h.title = collapseSpace(n.FirstChild.Data)
				}
			case atom.Link:
				if h.canonical == "" && hasToken(attr(n, "rel"), "canonical") {
					h.canonical = attr(n, "href")
				}
			case atom.Meta:
				if h.siteName == "" && attr(n, "property") == "og:site_name" {
					h.siteName = collapseSpace(attr(n, "content"))
				}
			case atom.Body:
				return // head data only
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return h
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasToken(list, token string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, token) {
			return true
		}
	}
	return false
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// clip bounds a metadata string to maxMetaRunes runes and marks a cut
// with an ellipsis after them.
func clip(s string) string {
	s = collapseSpace(s)
	if utf8.RuneCountInString(s) <= maxMetaRunes {
		return s
	}
	return text.Clip(s, maxMetaRunes) + "…"
}
