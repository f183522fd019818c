package auth

import (
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// SetClock makes l read the time from now (tests move time without waiting).
func SetClock(l *Limiter, now func() time.Time) { l.now = now }

// FastRefusals makes CheckPassword's refusals of unknown or malformed names
// compare against a dummy hash at bcrypt.MinCost until the test ends. The
// tests check which passwords are accepted; at PasswordCost each refusal
// takes seconds under the race detector.
func FastRefusals(t testing.TB) {
	h, err := bcrypt.GenerateFromPassword([]byte("not a password of anyone"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	old := dummyHash
	dummyHash = func() []byte { return h }
	t.Cleanup(func() { dummyHash = old })
}
