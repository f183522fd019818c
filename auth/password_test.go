package auth_test

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/quarryhq/quarry/auth"
)

// TestHashPassword: too short and too long passwords are refused with the
// reason; an accepted one is stored as bcrypt at PasswordCost and matches.
func TestHashPassword(t *testing.T) {
	for _, tt := range []struct{ password, want string }{
		{"short", "too short"},
		{strings.Repeat("x", auth.MaxPasswordLen+1), "too long"},
	} {
		if h, err := auth.HashPassword(tt.password); err == nil || !strings.Contains(err.Error(), tt.want) || h != "" {
			t.Errorf("HashPassword(%d bytes) = %q, %v; want an error saying %q", len(tt.password), h, err, tt.want)
		}
	}
	h, err := auth.HashPassword("a long enough password")
	if err != nil {
		t.Fatal(err)
	}
	if cost, err := bcrypt.Cost([]byte(h)); err != nil || cost != auth.PasswordCost {
		t.Errorf("hash %q: cost %d (%v), want %d", h, cost, err, auth.PasswordCost)
	}
	if bcrypt.CompareHashAndPassword([]byte(h), []byte("a long enough password")) != nil {
		t.Error("the hash does not match its password")
	}
}

// TestCheckPassword: only the right password of a stored user is accepted;
// wrong, empty or overlong passwords and unknown or malformed names are
// refused without an error. (The refusals without a stored hash compare
// against a cheap dummy hash here: CheapRefusalsForTests.)
func TestCheckPassword(t *testing.T) {
	t.Cleanup(auth.CheapRefusalsForTests())
	store := newStore(t)
	ctx := context.Background()
	h, err := bcrypt.GenerateFromPassword([]byte("correct horse battery"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateUser(ctx, "alice", string(h)); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, password string
		ok             bool
	}{
		{"alice", "correct horse battery", true},
		{"alice", "wrong password", false},
		{"alice", "", false},
		{"alice", strings.Repeat("x", auth.MaxPasswordLen+1), false},
		{"mallory", "correct horse battery", false},
		{"bad name", "correct horse battery", false},
	} {
		ok, err := auth.CheckPassword(ctx, store, tt.name, tt.password)
		if err != nil || ok != tt.ok {
			t.Errorf("CheckPassword(%q, %q) = %v, %v; want %v", tt.name, tt.password, ok, err, tt.ok)
		}
	}
}
