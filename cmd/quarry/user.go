package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/quarryhq/quarry/auth"
	"github.com/quarryhq/quarry/db"
)

// runUser implements `quarry user add|remove|list`: the accounts of
// QUARRY_AUTH=password, stored in the database every replica shares.
func runUser(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("user: say add, remove or list (e.g. quarry user add --name alice --password-stdin)")
	}
	cmd, rest := args[0], args[1:]
	var do func(ctx context.Context, store *db.Store) error
	switch cmd {
	case "add":
		fs := flag.NewFlagSet("user add", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		name := fs.String("name", "", "the user's name")
		password := fs.String("password", "", "the password (visible to other local users in the process list; prefer --password-stdin)")
		fromStdin := fs.Bool("password-stdin", false, "read the password from the first line of standard input")
		admin := fs.Bool("admin", false, "the user may cancel, approve and share every run, not only their own")
		if err := fs.Parse(rest); err != nil {
			return fmt.Errorf("user add: %w", err)
		}
		if fs.NArg() > 0 {
			return fmt.Errorf("user add: unexpected argument %q", fs.Arg(0))
		}
		if !db.ValidUserName(*name) {
			return fmt.Errorf("user add: --name %q is not a valid name (1-64 letters, digits, '.', '_', '@', '-', starting with a letter or digit)", *name)
		}
		pw := *password
		switch {
		case *fromStdin && pw != "":
			return errors.New("user add: give --password or --password-stdin, not both")
		case *fromStdin:
			line, err := bufio.NewReader(io.LimitReader(stdin, 4096)).ReadString('\n')
			if err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("user add: read the password: %w", err)
			}
			pw = strings.TrimRight(line, "\r\n")
		case pw == "":
			return errors.New("user add: give the password with --password PASSWORD or --password-stdin")
		}
		hash, err := auth.HashPassword(pw)
		if err != nil {
			return fmt.Errorf("user add: %w", err)
		}
		do = func(ctx context.Context, store *db.Store) error {
			if err := store.AddUser(ctx, db.User{Name: *name, PasswordHash: hash, Admin: *admin}); err != nil {
				if errors.Is(err, db.ErrUserExists) {
					return fmt.Errorf("user add: %q already exists (remove it first to change the password)", *name)
				}
				return err
			}
			role := ""
			if *admin {
				role = " (admin)"
			}
			fmt.Fprintf(stdout, "user %s added%s\n", *name, role)
			return nil
		}
	case "remove":
		if len(rest) != 1 {
			return errors.New("user remove: give exactly one name (quarry user remove NAME)")
		}
		name := rest[0]
		do = func(ctx context.Context, store *db.Store) error {
			if err := store.DeleteUser(ctx, name); err != nil {
				if errors.Is(err, db.ErrNotFound) {
					return fmt.Errorf("user remove: no user %q", name)
				}
				return err
			}
			fmt.Fprintf(stdout, "user %s removed; their sessions ended\n", name)
			return nil
		}
	case "list":
		if len(rest) > 0 {
			return fmt.Errorf("user list: unexpected argument %q", rest[0])
		}
		do = func(ctx context.Context, store *db.Store) error {
			users, err := store.ListUsers(ctx)
			if err != nil {
				return err
			}
			for _, u := range users {
				role := "user"
				if u.Admin {
					role = "admin"
				}
				fmt.Fprintf(stdout, "%s\t%s\t%s\n", u.Name, role, u.CreatedAt.UTC().Format(time.RFC3339))
			}
			return nil
		}
	default:
		return fmt.Errorf("user: unknown subcommand %q (accepted: add, remove, list)", cmd)
	}

	cfg, err := LoadConfig(os.Getenv)
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
