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
	Name         string    `db:"name"`
	PasswordHash string    `db:"password_hash"`
	CreatedAt    time.Time `db:"created_at"`
}

// CreateUser stores a user with an already hashed password; ErrUserExists
// when the name is taken.
func (s *Store) CreateUser(ctx context.Context, name, passwordHash string) error {
	if !ValidUserName(name) {
		return fmt.Errorf("add user: %q is not a valid name (1-64 letters, digits, '.', '_', '@', '-')", name)
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO users (name, password_hash) VALUES ($1, $2)`, name, passwordHash)
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
	err := s.db.GetContext(ctx, &u, `SELECT name, password_hash, created_at FROM users WHERE name = $1`, name)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get user %s: %w", name, err)
	}
	return &u, nil
}

// DeleteUser removes a user and, with it, every session of theirs (their
// runs keep the name as owner); ErrNotFound when there is no such user.
func (s *Store) DeleteUser(ctx context.Context, name string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM users WHERE name = $1`, name)
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
	if err := s.db.SelectContext(ctx, &users, `SELECT name, '' AS password_hash, created_at FROM users ORDER BY name`); err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return users, nil
}
