package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/db/dbtest"
)

// TestUserCommand: add (flag and stdin), list, refusals with the reason,
// remove.
func TestUserCommand(t *testing.T) {
	t.Setenv("DATABASE_URL", dbtest.URL(t))
	runUserCmd := func(stdin string, args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := runWithInput(context.Background(), append([]string{"user"}, args...), strings.NewReader(stdin), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	if code, out, errOut := runUserCmd("", "add", "--name", "kim", "--password", "a long enough password"); code != 0 || !strings.Contains(out, "kim added") {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := runUserCmd("piped password\n", "add", "--name", "lee", "--password-stdin", "--admin"); code != 0 || !strings.Contains(out, "lee added (admin)") {
		t.Fatalf("add an admin from stdin: %d %q %q", code, out, errOut)
	}
	for _, tt := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"add", "--name", "kim", "--password", "another password"}, "already exists"},
		{"", []string{"add", "--name", "max", "--password", "short"}, "too short"},
		{"", []string{"add", "--name", "bad name", "--password", "a long enough password"}, "not a valid name"},
		{"", []string{"add", "--name", "max"}, "--password"},
		{"x\n", []string{"add", "--name", "max", "--password", "a long enough password", "--password-stdin"}, "not both"},
		{"", []string{"remove", "nobody"}, "no user"},
		{"", []string{"rename"}, "unknown subcommand"},
		{"", nil, "add, remove or list"},
	} {
		if code, _, errOut := runUserCmd(tt.stdin, tt.args...); code != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("user %v: exit %d, %q does not say %q", tt.args, code, errOut, tt.want)
		}
	}
	var hash string
	if err := dbtest.Open(t).Get(&hash, `SELECT password_hash FROM users WHERE name = 'lee'`); err != nil || !strings.HasPrefix(hash, "$2a$12$") {
		t.Errorf("stored hash %q (%v), want bcrypt cost 12", hash, err)
	}
	code, out, _ := runUserCmd("", "list")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "kim\tuser\t") || !strings.HasPrefix(lines[1], "lee\tadmin\t") {
		t.Errorf("list: %d %q", code, out)
	}
	if strings.Contains(out, "$2a$") || strings.Contains(out, "password") {
		t.Errorf("list shows secrets: %q", out)
	}
	if code, out, _ := runUserCmd("", "remove", "kim"); code != 0 || !strings.Contains(out, "removed") {
		t.Errorf("remove: %d %q", code, out)
	}
	if _, out, _ := runUserCmd("", "list"); strings.Contains(out, "kim") {
		t.Errorf("kim still listed: %q", out)
	}
}

// TestExposure: with authentication left at its default, only a loopback
// address may be served; saying QUARRY_AUTH (even none) allows any.
func TestExposure(t *testing.T) {
	for _, tt := range []struct {
		addr, auth string
		ok         bool
	}{
		{"127.0.0.1:8080", "", true},
		{"[::1]:8080", "", true},
		{"localhost:8080", "", true},
		{"0.0.0.0:8080", "", false},
		{":8080", "", false},
		{"192.0.2.10:8080", "", false},
		{"0.0.0.0:8080", "none", true},
		{"0.0.0.0:8080", "password", true},
	} {
		env := map[string]string{"QUARRY_ADDR": tt.addr, "QUARRY_AUTH": tt.auth}
		cfg, err := LoadConfig(func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		err = checkExposure(cfg)
		if (err == nil) != tt.ok || (err != nil && !strings.Contains(err.Error(), "QUARRY_AUTH")) {
			t.Errorf("%s with QUARRY_AUTH=%q: %v", tt.addr, tt.auth, err)
		}
	}
	// And through the command: exit 1 before opening anything.
	t.Setenv("DATABASE_URL", dbtest.URL(t))
	t.Setenv("QUARRY_ADDR", "0.0.0.0:0")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"serve"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "QUARRY_AUTH=none") {
		t.Errorf("serve on 0.0.0.0 without QUARRY_AUTH: exit %d %q", code, stderr.String())
	}
}

// TestAccessConfig: the limits and durations parse, with the variable named
// in each error.
func TestAccessConfig(t *testing.T) {
	env := map[string]string{"QUARRY_RUNS_PER_MINUTE": "0", "QUARRY_MAX_ACTIVE_RUNS": "9", "QUARRY_SHARE_TTL": "72h", "QUARRY_AUTH_HEADER": "X-Email",
		"QUARRY_ALLOWED_HOSTS": "quarry.lan:8080, *.corp.example"}
	cfg, err := LoadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Limits.RunsPerMinute != 0 || cfg.Limits.MaxActiveRuns != 9 || cfg.ShareTTL.Hours() != 72 || cfg.AuthHeader != "X-Email" || cfg.Limits.MaxStreams != 24 ||
		len(cfg.AllowedHosts) != 2 || cfg.AllowedHosts[1] != "*.corp.example" {
		t.Errorf("config %+v", cfg)
	}
	for name, bad := range map[string]string{"QUARRY_AUTH_HEADER": "X Email", "QUARRY_SHARE_TTL": "5s", "QUARRY_RUNS_PER_MINUTE": "-1", "QUARRY_MAX_QUEUED_RUNS": "many", "QUARRY_ALLOWED_HOSTS": "https://quarry.lan/"} {
		_, err := LoadConfig(func(k string) string {
			if k == name {
				return bad
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: %v", name, bad, err)
		}
	}
}

func TestTaskConfig(t *testing.T) {
	env := map[string]string{"QUARRY_TASK_CONCURRENCY": "3", "QUARRY_TASK_GRACE": "30m", "QUARRY_TASK_MIN_INTERVAL": "10s",
		"QUARRY_TASK_DAILY_BUDGET_USD": "2.5", "QUARRY_TASK_DAILY_RUNS": "40", "QUARRY_TASKS_PER_USER": "7"}
	cfg, err := LoadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Tasks; got.Concurrency != 3 || got.Grace.Minutes() != 30 || got.MinInterval.Seconds() != 10 ||
		got.DailyBudgetUSD != 2.5 || got.DailyRuns != 40 || got.PerUser != 7 {
		t.Errorf("tasks config %+v", got)
	}
	def, err := LoadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if got := def.Tasks; got.Concurrency != 2 || got.Grace.Hours() != 1 || got.MinInterval.Minutes() != 5 {
		t.Errorf("task defaults %+v", got)
	}
	for name, bad := range map[string]string{"QUARRY_TASK_CONCURRENCY": "-1", "QUARRY_TASK_GRACE": "soon", "QUARRY_TASK_MIN_INTERVAL": "0",
		"QUARRY_TASK_DAILY_BUDGET_USD": "lots", "QUARRY_TASK_DAILY_RUNS": "x", "QUARRY_TASKS_PER_USER": "-2"} {
		_, err := LoadConfig(func(k string) string {
			if k == name {
				return bad
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: %v", name, bad, err)
		}
	}
}
