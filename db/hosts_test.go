package db_test

import (
	"context"
	"testing"
	"time"
)

// TestHostFetchModes: a decision is read back until it expires, a newer one
// replaces it, and an expired one reads as unknown.
func TestHostFetchModes(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if m, err := s.FetchMode(ctx, "docs.example.org"); err != nil || m != "" {
		t.Fatalf("unknown host: %q, %v", m, err)
	}
	if err := s.SetFetchMode(ctx, "docs.example.org", "render", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if m, err := s.FetchMode(ctx, "docs.example.org"); err != nil || m != "render" {
		t.Fatalf("after set: %q, %v", m, err)
	}
	if err := s.SetFetchMode(ctx, "docs.example.org", "http", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.FetchMode(ctx, "docs.example.org"); m != "http" {
		t.Fatalf("after replace: %q", m)
	}
	if err := s.SetFetchMode(ctx, "old.example.org", "render", time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.FetchMode(ctx, "old.example.org"); m != "" {
		t.Fatalf("expired decision read as %q", m)
	}
	if err := s.SetFetchMode(ctx, "bad.example.org", "sometimes", time.Now().Add(time.Hour)); err == nil {
		t.Fatal("an unknown mode was stored")
	}
}
