package auth

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/crypto/bcrypt"

	"github.com/quarryhq/quarry/db"
)

// PasswordCost is the bcrypt cost of stored passwords (about a quarter of
// a second on one core), which with the login rate limit makes guessing
// slow.
const PasswordCost = 12

// Password length bounds (bcrypt reads at most 72 bytes).
const (
	// MinPasswordLen is the shortest password HashPassword accepts.
	MinPasswordLen = 8
	// MaxPasswordLen is the longest password, in bytes, HashPassword
	// accepts and CheckPassword compares.
	MaxPasswordLen = 72
)

// HashPassword returns the bcrypt hash of a password for storage, or an
// error saying why the password is not acceptable.
func HashPassword(password string) (string, error) {
	if len(password) < MinPasswordLen {
		return "", fmt.Errorf("the password is too short (at least %d characters)", MinPasswordLen)
	}
	if len(password) > MaxPasswordLen {
		return "", fmt.Errorf("the password is too long (at most %d bytes)", MaxPasswordLen)
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), PasswordCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// dummyHash is compared against when the name is unknown, so a wrong name
// takes as long as a wrong password and names cannot be probed by timing.
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("not a password of anyone"), PasswordCost)
	return h
})

// CheapRefusalsForTests makes CheckPassword's refusals of unknown or
// malformed names compare against a dummy hash at bcrypt.MinCost, and
// returns the function that puts the PasswordCost one back. It is for
// tests that check which logins pass: at PasswordCost each such refusal
// takes seconds under the race detector. A server must never call it, as
// unknown names would then be refused faster than known ones.
func CheapRefusalsForTests() (restore func()) {
	h, _ := bcrypt.GenerateFromPassword([]byte("not a password of anyone"), bcrypt.MinCost)
	old := dummyHash
	dummyHash = func() []byte { return h }
	return func() { dummyHash = old }
}

// CheckPassword reports whether password is the stored password of the
// user name. An unknown or malformed name is a wrong password (false, no
// error) and costs as much time as one; an error means the users could
// not be read.
func CheckPassword(ctx context.Context, store *db.Store, name, password string) (bool, error) {
	if name == "" || password == "" || len(password) > MaxPasswordLen || !db.ValidUserName(name) {
		bcrypt.CompareHashAndPassword(dummyHash(), []byte(password))
		return false, nil
	}
	u, err := store.GetUser(ctx, name)
	if errors.Is(err, db.ErrNotFound) {
		bcrypt.CompareHashAndPassword(dummyHash(), []byte(password))
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(password)) == nil, nil
}
