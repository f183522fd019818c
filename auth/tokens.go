package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/quarryhq/quarry/db"
)

// TokenPrefix starts every personal API token, so a token pasted where it
// should not be (a log, a repository) is recognisable as Quarry's.
const TokenPrefix = "qry_"

// apiTokenBytes is the randomness of an API token's secret: 256 bits, so
// a plain SHA-256 in the table is as good as a slow hash (there is no
// dictionary to try) and a lookup costs one index probe.
const apiTokenBytes = 32

// tokenHintLen is how much of a secret is kept in clear to tell tokens
// apart in a list: the prefix and four random characters.
const tokenHintLen = len(TokenPrefix) + 4

// MaxTokenNameLen bounds a token's label.
const MaxTokenNameLen = 100

// Errors of CheckToken, each with the message a program is told.
var (
	ErrTokenUnknown = errors.New("the API token is not valid; create a new one on the settings page or with `quarry token create`")
	ErrTokenRevoked = errors.New("the API token was revoked; create a new one on the settings page or with `quarry token create`")
)

// InputError is bad input to CreateToken, naming the field.
type InputError struct{ Field, Msg string }

func (e *InputError) Error() string { return e.Field + ": " + e.Msg }

// CreateToken mints a token named name for user and returns its secret
// (shown once, never stored) and its row.
func CreateToken(ctx context.Context, store *db.Store, user, name string, readOnly bool) (string, *db.APIToken, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", nil, &InputError{"name", "give the token a name (what will use it)"}
	}
	if utf8.RuneCountInString(name) > MaxTokenNameLen {
		return "", nil, &InputError{"name", fmt.Sprintf("at most %d characters", MaxTokenNameLen)}
	}
	if !db.ValidUserName(user) {
		return "", nil, &InputError{"user", fmt.Sprintf("%q is not a valid user name", user)}
	}
	b := make([]byte, apiTokenBytes)
	rand.Read(b)
	secret := TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	t, err := store.CreateAPIToken(ctx, user, name, secret, secret[:tokenHintLen], readOnly)
	if err != nil {
		return "", nil, err
	}
	return secret, t, nil
}

// CheckToken returns the live token whose secret is secret, recording its
// use; ErrTokenUnknown or ErrTokenRevoked when it may not be used.
func CheckToken(ctx context.Context, store *db.Store, secret string) (*db.APIToken, error) {
	if !plausibleAPIToken(secret) {
		return nil, ErrTokenUnknown
	}
	t, err := store.UseAPIToken(ctx, secret)
	switch {
	case errors.Is(err, db.ErrNotFound):
		return nil, ErrTokenUnknown
	case err != nil:
		return nil, err
	case t.RevokedAt.Valid:
		return nil, ErrTokenRevoked
	}
	return t, nil
}

// plausibleAPIToken rejects what CreateToken cannot have made before it
// reaches the database.
func plausibleAPIToken(v string) bool {
	rest, ok := strings.CutPrefix(v, TokenPrefix)
	return ok && plausibleToken(rest)
}
