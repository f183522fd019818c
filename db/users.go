package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/lib/pq"
)

// ErrUserExists is returned when adding a user whose name is taken.
var ErrUserExists = errors.New("a user with that name already exists")

// userName is what a user name may look like (the users table checks the
// same): it is shown in the history and used as runs' owner.
var userName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// ValidUserName reports whether name is acceptable as a user name: 1 to 64
// letters, digits, '.', '_', '@' or '-', starting with a letter or digit.
func ValidUserName(name string) bool { return userName.MatchString(name) }

// User is an account for QUARRY_AUTH=password.
type User struct {
	Name         string `db:"name"`
	PasswordHash string `db:"password_hash"`
	// Admin may act on every run (cancel, approve, share), not only their own.
	Admin     bool      `db:"admin"`
	CreatedAt time.Time `db:"created_at"`
}

// CreateUser stores a user with an already hashed password; ErrUserExists
// when the name is taken.
func (s *Store) CreateUser(ctx context.Context, name, passwordHash string) error {
	return s.AddUser(ctx, User{Name: name, PasswordHash: passwordHash})
}

// AddUser stores u (its name, hashed password and admin flag);
// ErrUserExists when the name is taken.
func (s *Store) AddUser(ctx context.Context, u User) error {
	name := u.Name
	if !ValidUserName(name) {
		return fmt.Errorf("add user: %q is not a valid name (1-64 letters, digits, '.', '_', '@', '-')", name)
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO users (name, password_hash, admin) VALUES ($1, $2, $3)`, name, u.PasswordHash, u.Admin)
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "23505" {
		return ErrUserExists
	}
	if err != nil {
		return fmt.Errorf("add user %s: %w", name, err)
	}
	return nil
}

// GetUser returns a user, or ErrNotFound.
func (s *Store) GetUser(ctx context.Context, name string) (*User, error) {
	var u User
	err := s.db.GetContext(ctx, &u, `SELECT name, password_hash, admin, created_at FROM users WHERE name = $1`, name)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get user %s: %w", name, err)
	}
	return &u, nil
}

// DeleteUser removes a user and, with it, every session and API token of
// theirs (their runs keep the name as owner); ErrNotFound when there is no
// such user.
func (s *Store) DeleteUser(ctx context.Context, name string) error {
	res, err := s.db.ExecContext(ctx, `WITH tokens AS (DELETE FROM api_tokens WHERE user_name = $1)
		DELETE FROM users WHERE name = $1`, name)
	if err != nil {
		return fmt.Errorf("remove user %s: %w", name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// ListUsers returns every user by name, with the hashes left empty.
func (s *Store) ListUsers(ctx context.Context) ([]User, error) {
	var users []User
	if err := s.db.SelectContext(ctx, &users, `SELECT name, '' AS password_hash, admin, created_at FROM users ORDER BY name`); err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return users, nil
}

// IsAdmin reports whether name is a user with the admin flag; a name with
// no account (a proxy user, say) is not.
func (s *Store) IsAdmin(ctx context.Context, name string) (bool, error) {
	var admin bool
	err := s.db.GetContext(ctx, &admin, `SELECT admin FROM users WHERE name = $1`, name)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check whether %s is an admin: %w", name, err)
	}
	return admin, nil
}

// SetAdmin grants or withdraws a user's admin flag; ErrNotFound when there
// is no such user.
func (s *Store) SetAdmin(ctx context.Context, name string, admin bool) error {
	res, err := s.db.ExecContext(ctx, `UPDATE users SET admin = $2 WHERE name = $1`, name, admin)
	if err != nil {
		return fmt.Errorf("set admin flag of %s: %w", name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
