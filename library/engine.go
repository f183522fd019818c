package library

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/extract"
	"github.com/quarryhq/quarry/text"
)

// SearchLibrary answers the search engines kb and kb:<collection>
// (search.Library): each of the best n passages becomes a page of
// evidence whose text is the passage, titled with its document and page,
// linking to the document opened at that page.
func (l *Library) SearchLibrary(ctx context.Context, reader, collection, query string, n int) ([]extract.Page, error) {
	if collection != "" {
		c, err := l.store.CollectionByName(ctx, collection)
		if err != nil || !(c.Visibility == "team" || c.Owner == reader) {
			return nil, fmt.Errorf("library collection %q does not exist or is not readable by this run's owner", collection)
		}
	}
	hits, err := l.Search(ctx, Query{Reader: reader, Collection: collection, Text: query, Limit: n})
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	pages := make([]extract.Page, 0, len(hits))
	for _, h := range hits {
		body := h.Text
		if h.Heading != "" && !strings.HasPrefix(body, h.Heading) {
			body = h.Heading + "\n\n" + body
		}
		u := l.opt.BasePath + DocumentURL(h.DocumentID, h.Page)
		pages = append(pages, extract.Page{
			URL:          u,
			FinalURL:     u,
			CanonicalURL: ChunkKey(h.DocumentID, h.Seq),
			Title:        PassageTitle(h),
			Site:         h.Collection,
			Host:         "library",
			Text:         body,
			Findings:     extract.KeyFindings(body, 4),
			FetchedAt:    now,
		})
	}
	return pages, nil
}

// DocumentURL opens a document at a page (a path under the server's base path).
func DocumentURL(id string, page int) string {
	return fmt.Sprintf("/library/documents/%s?page=%d#page-%d", id, page, page)
}

// ChunkKey is a passage's identity among a run's sources.
func ChunkKey(id string, seq int) string {
	return fmt.Sprintf("library:%s/%d", id, seq)
}

// PassageTitle names a passage: its document, page and section.
func PassageTitle(h db.ChunkHit) string {
	title := h.Title
	if title == "" {
		title = h.Filename
	}
	t := fmt.Sprintf("%s, p. %d", text.Clip(title, 120), h.Page)
	if h.Heading != "" && h.Heading != title {
		t += " — " + text.Clip(h.Heading, 80)
	}
	return t
}
