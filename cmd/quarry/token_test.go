package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/db/dbtest"
)

// TestTokenCommand: `quarry token create` prints the secret alone on
// stdout, `list` shows the token (read-only or not, never used, active)
// without its secret, `revoke` ends it, and bad usage says what is wrong.
func TestTokenCommand(t *testing.T) {
	env := map[string]string{"DATABASE_URL": dbtest.URL(t)}
	getenv := func(k string) string { return env[k] }
	ctx := context.Background()
	run := func(args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		err := tokenTo(ctx, args, &out, &errOut, getenv)
		return out.String(), errOut.String(), err
	}
	secret, note, err := run("create", "--user", "gina", "--name", "nightly report", "--read-only")
	secret = strings.TrimSpace(secret)
	if err != nil || !strings.HasPrefix(secret, "qry_") || strings.Contains(secret, "\n") || !strings.Contains(note, "read-only") {
		t.Fatalf("create: %v %q %q", err, secret, note)
	}
	list, _, err := run("list", "--user", "gina")
	fields := strings.Split(strings.TrimSpace(list), "\t")
	if err != nil || len(fields) != 7 || fields[1] != "nightly report" || fields[3] != "read-only" || fields[5] != "never" || fields[6] != "active" {
		t.Fatalf("list: %v %q", err, list)
	}
	if strings.Contains(list, secret) || !strings.HasPrefix(secret, strings.TrimSuffix(fields[2], "…")) {
		t.Errorf("list shows %q for secret %q", fields[2], secret)
	}
	if out, _, err := run("revoke", fields[0]); err != nil || !strings.Contains(out, "revoked") {
		t.Fatalf("revoke: %v %q", err, out)
	}
	if list, _, _ := run("list", "--user", "gina"); !strings.HasSuffix(strings.TrimSpace(list), "\trevoked") {
		t.Errorf("after revoke: %q", list)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"create", "--name", "x"}, "--user"},
		{[]string{"create", "--user", "gina"}, "--name"},
		{[]string{"create", "--user", "not a name", "--name", "x"}, "--user"},
		{[]string{"revoke", "abc"}, "not a token id"},
		{[]string{"revoke", "999999"}, "no token 999999"},
		{[]string{"list"}, "--user NAME"},
		{[]string{"rotate"}, "unknown subcommand"},
	} {
		if _, _, err := run(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("token %v: %v, want an error naming %q", c.args, err, c.want)
		}
	}
}
