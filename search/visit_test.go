package search

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestVisitArticle(t *testing.T) {
	page, err := Visit(context.Background(), testPool, testSite.url("/article/1"))
	if err != nil {
		t.Fatal(err)
	}
	if page.Title != "Article 1" {
		t.Errorf("title = %q", page.Title)
	}
	if !strings.Contains(page.Text, "article number 1 about measured rainfall") {
		t.Errorf("text does not hold the article: %q", page.Text)
	}
	if page.URL != testSite.url("/article/1") || page.Host != "127.0.0.1" || page.FinalURL != testSite.url("/article/1") || page.FetchedAt.IsZero() || page.LoadTime <= 0 {
		t.Errorf("metadata: url %q host %q final %q fetched %v load %v", page.URL, page.Host, page.FinalURL, page.FetchedAt, page.LoadTime)
	}
}

func TestVisitFollowsRedirect(t *testing.T) {
	page, err := Visit(context.Background(), testPool, testSite.url("/to-article"))
	if err != nil {
		t.Fatal(err)
	}
	if page.URL != testSite.url("/to-article") || page.FinalURL != testSite.url("/article/redirected?utm_source=test") {
		t.Errorf("URL %q, final URL %q", page.URL, page.FinalURL)
	}
	if page.CanonicalURL != testSite.url("/article/redirected") {
		t.Errorf("canonical URL = %q", page.CanonicalURL)
	}
}

func TestVisitHTTPError(t *testing.T) {
	_, err := Visit(context.Background(), testPool, testSite.url("/missing"))
	var status *HTTPStatusError
	if !errors.As(err, &status) || status.Status != 404 || !strings.Contains(err.Error(), "answered HTTP 404") {
		t.Errorf("err = %v, want an HTTP 404 status error", err)
	}
}
