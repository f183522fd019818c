package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/quarryhq/quarry/auth"
	"github.com/quarryhq/quarry/db"
)

// runToken implements `quarry token create|list|revoke`: personal API
// tokens, for programs that call the JSON API or /mcp as a user.
func runToken(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return tokenTo(ctx, args, stdout, stderr, os.Getenv)
}

func tokenTo(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		return errors.New("token: say create, list or revoke (e.g. quarry token create --user alice --name ci)")
	}
	cmd, rest := args[0], args[1:]
	var do func(ctx context.Context, store *db.Store) error
	switch cmd {
	case "create":
		fs := flag.NewFlagSet("token create", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		user := fs.String("user", "", "the user the token acts as")
		name := fs.String("name", "", "a label saying what will use the token")
		readOnly := fs.Bool("read-only", false, "the token may read but not create, cancel, approve, share or upload")
		if err := fs.Parse(rest); err != nil {
			return fmt.Errorf("token create: %w", err)
		}
		if fs.NArg() > 0 {
			return fmt.Errorf("token create: unexpected argument %q", fs.Arg(0))
		}
		if *user == "" {
			return errors.New("token create: give the user with --user NAME")
		}
		do = func(ctx context.Context, store *db.Store) error {
			secret, t, err := auth.CreateToken(ctx, store, *user, *name, *readOnly)
			var bad *auth.InputError
			if errors.As(err, &bad) {
				return fmt.Errorf("token create: --%s: %s", bad.Field, bad.Msg)
			}
			if err != nil {
				return err
			}
			// The secret alone on stdout, so `T=$(quarry token create …)` works;
			// the rest on stderr.
			fmt.Fprintln(stdout, secret)
			rights := "read and write"
			if t.ReadOnly {
				rights = "read-only"
			}
			fmt.Fprintf(stderr, "token %d (%s, %s) created for %s; it is shown only this once\n", t.ID, t.Name, rights, t.User)
			return nil
		}
	case "list":
		fs := flag.NewFlagSet("token list", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		user := fs.String("user", "", "whose tokens")
		if err := fs.Parse(rest); err != nil {
			return fmt.Errorf("token list: %w", err)
		}
		if *user == "" || fs.NArg() > 0 {
			return errors.New("token list: usage: quarry token list --user NAME")
		}
		do = func(ctx context.Context, store *db.Store) error {
			tokens, err := store.APITokens(ctx, *user)
			if err != nil {
				return err
			}
			for _, t := range tokens {
				fmt.Fprintln(stdout, tokenLine(t))
			}
			return nil
		}
	case "revoke":
		if len(rest) != 1 {
			return errors.New("token revoke: give exactly one token id (quarry token revoke ID)")
		}
		id, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil || id <= 0 {
			return fmt.Errorf("token revoke: %q is not a token id (see quarry token list)", rest[0])
		}
		do = func(ctx context.Context, store *db.Store) error {
			t, err := store.RevokeAPIToken(ctx, id, "")
			if errors.Is(err, db.ErrNotFound) {
				return fmt.Errorf("token revoke: no token %d", id)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "token %d (%s of %s) revoked\n", t.ID, t.Name, t.User)
			return nil
		}
	default:
		return fmt.Errorf("token: unknown subcommand %q (accepted: create, list, revoke)", cmd)
	}
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, _, err := cfg.openDB(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return do(ctx, db.NewStore(conn, nil))
}

// tokenLine is one token in `quarry token list`: id, name, hint, rights,
// created, last used, state, tab-separated.
func tokenLine(t db.APIToken) string {
	rights := "read-write"
	if t.ReadOnly {
		rights = "read-only"
	}
	used := "never"
	if t.LastUsedAt.Valid {
		used = t.LastUsedAt.Time.UTC().Format(time.RFC3339)
	}
	state := "active"
	if t.RevokedAt.Valid {
		state = "revoked"
	}
	return fmt.Sprintf("%d\t%s\t%s…\t%s\t%s\t%s\t%s", t.ID, t.Name, t.Hint, rights, t.CreatedAt.UTC().Format(time.RFC3339), used, state)
}
