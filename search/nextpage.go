package search

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// maxPageLinks bounds the links NextPage looks at.
const maxPageLinks = 2000

// NextPage finds a results page's link to its next page by structure: a
// link to the same results page (same host and path) that asks the same
// query, differing from the page's own address in one numeric parameter
// only (page=2, start=10, whence=20, first=11) whose value is above the
// page's own; when the page's address lacks that parameter it is the
// first page, and a link numbered 1 leads back to it. Of several (a row
// of page numbers) the one with the smallest value is the next page.
// Parameters may be joined by "&" or ";", as older search programs write
// them. It returns "" when the page has none.
func NextPage(pageURL, html string) string {
	base, err := url.Parse(pageURL)
	if err != nil {
		return ""
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		return ""
	}
	own := queryParams(base.RawQuery)
	best, bestN := "", -1
	doc.Find("a[href]").EachWithBreak(func(i int, a *goquery.Selection) bool {
		href, _ := a.Attr("href")
		u, err := base.Parse(strings.TrimSpace(href))
		if err != nil || u.Host != base.Host || u.Path != base.Path || u.RawQuery == "" {
			return i < maxPageLinks
		}
		n, ok := nextOf(own, queryParams(u.RawQuery))
		if ok && (bestN < 0 || n < bestN) {
			u.Fragment = ""
			best, bestN = u.String(), n
		}
		return i < maxPageLinks
	})
	return best
}

// nextOf reports whether link's parameters are own's with one numeric
// parameter raised (or added), and that parameter's value.
func nextOf(own, link map[string]string) (int, bool) {
	key := ""
	for k, v := range link {
		if ov, ok := own[k]; ok && ov == v {
			continue
		}
		if key != "" {
			return 0, false // more than one difference: another query or a filter
		}
		key = k
	}
	for k := range own {
		if _, ok := link[k]; !ok {
			return 0, false // drops a parameter of the query
		}
	}
	if key == "" {
		return 0, false
	}
	n, err := strconv.Atoi(link[key])
	if err != nil || n <= 0 {
		return 0, false
	}
	// Absent, the page is the first: numbered 1 or at offset 0 (or 1).
	cur := 1
	if v, ok := own[key]; ok {
		if cur, err = strconv.Atoi(v); err != nil {
			return 0, false
		}
	}
	if n <= cur {
		return 0, false
	}
	return n, true
}

// queryParams decodes a query string whose pairs are joined by "&" or
// ";" into one value per name (the first), with "+" and %-escapes decoded
// so that two spellings of one query compare equal.
func queryParams(raw string) map[string]string {
	out := map[string]string{}
	for _, pair := range strings.FieldsFunc(raw, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(pair, "=")
		dk, err1 := url.QueryUnescape(k)
		dv, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			dk, dv = k, v
		}
		if _, ok := out[dk]; !ok {
			out[dk] = strings.Join(strings.Fields(dv), " ")
		}
	}
	return out
}
