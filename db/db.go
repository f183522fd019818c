// Package db is Quarry's Postgres store: runs (which are also jobs), their
// append-only events, actions, sources, checkpoints and reports. Plain SQL
// through sqlx; it knows nothing of HTTP or of the pipeline's types.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq" // registers the "postgres" driver
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/quarryhq/quarry/migrations"
)

// ErrNotFound is returned when a row asked for does not exist.
var ErrNotFound = errors.New("not found")

// Open connects to Postgres and checks the connection within ctx.
func Open(ctx context.Context, url string) (*sqlx.DB, error) {
	conn, err := sqlx.Open("postgres", url)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	conn.SetMaxOpenConns(20)
	conn.SetMaxIdleConns(10)
	conn.SetConnMaxIdleTime(5 * time.Minute)
	if err := conn.PingContext(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	return conn, nil
}

// Migrate applies every pending migration. A Postgres session lock makes
// replicas that start together apply them once.
func Migrate(ctx context.Context, conn *sql.DB) ([]string, error) {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, fmt.Errorf("migration lock: %w", err)
	}
	provider, err := goose.NewProvider(goose.DialectPostgres, conn, migrations.FS, goose.WithSessionLocker(locker))
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("apply migrations: %w", err)
	}
	applied := make([]string, 0, len(results))
	for _, r := range results {
		applied = append(applied, r.Source.Path)
	}
	return applied, nil
}
