package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/quarryhq/quarry/auth"
)

// TestSessions: a started session names its user on every replica until
// it ends or expires; tokens are new each time; malformed tokens name no
// one and never reach the database; removing the user ends their sessions.
func TestSessions(t *testing.T) {
	a, b := newStore(t), newStore(t)
	ctx := context.Background()
	if err := a.CreateUser(ctx, "bob", "not a real hash"); err != nil {
		t.Fatal(err)
	}
	sa, sb := auth.NewSessions(a, time.Hour), auth.NewSessions(b, 0)

	before := time.Now()
	tok, expires, err := sa.Start(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if len(tok) < 40 {
		t.Errorf("token %q is short", tok)
	}
	if d := expires.Sub(before); d < time.Hour || d > time.Hour+time.Minute {
		t.Errorf("expires in %v, want the TTL of an hour", d)
	}
	tok2, _, err := sa.Start(ctx, "bob")
	if err != nil || tok2 == tok {
		t.Fatalf("a second session reused the token (%v)", err)
	}
	for _, s := range []*auth.Sessions{sa, sb} {
		if u, err := s.User(ctx, tok); err != nil || u != "bob" {
			t.Errorf("User(token) = %q, %v; want bob", u, err)
		}
	}
	for _, bad := range []string{"", "short", "attackerchosenattackerchosenattackerchosen", "not base64url !not base64url !not base64url !"} {
		if u, err := sb.User(ctx, bad); err != nil || u != "" {
			t.Errorf("User(%q) = %q, %v; want nobody", bad, u, err)
		}
		if err := sb.End(ctx, bad); err != nil {
			t.Errorf("End(%q): %v", bad, err)
		}
	}

	// Logout on one replica is felt on the other.
	if err := sb.End(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if u, err := sa.User(ctx, tok); err != nil || u != "" {
		t.Errorf("after End: User = %q, %v", u, err)
	}
	if u, _ := sa.User(ctx, tok2); u != "bob" {
		t.Errorf("ending one session ended another: %q", u)
	}

	// An expired session names no one and is swept.
	stale := "stalestalestalestalestalestalestalestale"
	if err := a.CreateSession(ctx, stale, "bob", time.Now().Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if u, err := sa.User(ctx, stale); err != nil || u != "" {
		t.Errorf("expired session: User = %q, %v", u, err)
	}
	if n, err := sa.DeleteExpired(ctx); err != nil || n != 1 {
		t.Errorf("DeleteExpired = %d, %v; want 1", n, err)
	}

	// Removing the user ends their sessions.
	if err := a.DeleteUser(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	if u, err := sb.User(ctx, tok2); err != nil || u != "" {
		t.Errorf("a removed user's session: User = %q, %v", u, err)
	}
}
