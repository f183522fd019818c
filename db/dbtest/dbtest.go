// Package dbtest gives each test package a fresh, migrated Postgres
// database on the server at DATABASE_URL, dropped when the package's tests
// end. Tests fail (never skip) when no Postgres answers.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/quarryhq/quarry/db"
)

// DefaultURL is used when DATABASE_URL is not set.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

var testURL string

// AdminURL is the server the test databases are created on.
func AdminURL() string {
	if u := os.Getenv("DATABASE_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// Run creates the package's database, runs the tests and drops it. Use it
// from TestMain: os.Exit(dbtest.Run(m)).
func Run(m *testing.M) int {
	u, drop, err := NewDatabase(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "dbtest:", err)
		return 1
	}
	testURL = u
	code := m.Run()
	drop()
	return code
}

// URL returns the package's test database URL.
func URL(t testing.TB) string {
	t.Helper()
	if testURL == "" {
		t.Fatal("dbtest: call dbtest.Run from TestMain")
	}
	return testURL
}

// Open connects to the package's test database, closed at test end.
func Open(t testing.TB) *sqlx.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := db.Open(ctx, URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// NewDatabase creates a uniquely named database next to AdminURL's, applies
// the migrations and returns its URL and a function that drops it.
func NewDatabase(ctx context.Context) (string, func(), error) {
	admin := AdminURL()
	u, err := url.Parse(admin)
	if err != nil || u.Scheme == "" {
		return "", nil, fmt.Errorf("DATABASE_URL must be a postgres:// URL, got %q", admin)
	}
	suffix := make([]byte, 6)
	rand.Read(suffix)
	name := "quarry_test_" + hex.EncodeToString(suffix)

	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := db.Open(ctx, admin)
	if err != nil {
		return "", nil, fmt.Errorf("connect to %s (set DATABASE_URL, or run make test which starts Postgres): %w", u.Redacted(), err)
	}
	if _, err := conn.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		conn.Close()
		return "", nil, fmt.Errorf("create test database: %w", err)
	}
	// A test database is thrown away, so its commits need not wait for the
	// WAL to reach the disk: the tests commit thousands of small
	// transactions, and with a flush each they wait on the disk more than
	// they compute. Only durability across a crash of the machine changes;
	// what other sessions see, and when, does not.
	if _, err := conn.ExecContext(ctx, `ALTER DATABASE `+name+` SET synchronous_commit = off`); err != nil {
		conn.Close()
		return "", nil, fmt.Errorf("configure test database: %w", err)
	}
	u.Path = "/" + name
	testDB := u.String()
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
		conn.Close()
	}
	mconn, err := db.Open(ctx, testDB)
	if err != nil {
		drop()
		return "", nil, err
	}
	defer mconn.Close()
	if _, err := db.Migrate(ctx, mconn.DB); err != nil {
		drop()
		return "", nil, err
	}
	return testDB, drop, nil
}

// NewStore opens the package's test database as a store with its own
// broker, as a replica of the server would (Listen on the broker to hear
// of other stores' events).
func NewStore(t testing.TB) *db.Store {
	t.Helper()
	conn := Open(t)
	return db.NewStore(conn, db.NewBroker(db.NewEventReader(conn), nil))
}

// Get reads one row or value into dest with query, for a test's set-up or
// checks of rows no store method returns.
func Get(t testing.TB, s *db.Store, dest any, query string, args ...any) {
	t.Helper()
	if err := db.TestingDB(s).Get(dest, query, args...); err != nil {
		t.Fatal(err)
	}
}

// Exec runs a statement for a test's set-up (say, finishing runs by hand).
func Exec(t testing.TB, s *db.Store, query string, args ...any) {
	t.Helper()
	if _, err := db.TestingDB(s).Exec(query, args...); err != nil {
		t.Fatal(err)
	}
}
