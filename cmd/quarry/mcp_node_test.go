package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// npmInstall installs the TypeScript client's locked dependencies with
// `npm ci` into a cache directory named by the lock file's hash (so a
// second run reuses it) and returns the directory, holding client.mjs. A
// machine without npm fails the test: scripts/deps.sh installs it.
func npmInstall(t *testing.T) string {
	t.Helper()
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("npm is not installed (scripts/deps.sh npm): %v", err)
	}
	src := filepath.Join("testdata", "mcp-ts")
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256(lock)
	dir := filepath.Join(cache, "quarry-test", "mcp-ts-"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
		if err != nil {
			if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
				t.Fatal(err)
			}
			if tmp, err = os.MkdirTemp(filepath.Dir(dir), "install-"); err != nil {
				t.Fatal(err)
			}
		}
		defer os.RemoveAll(tmp)
		copyFiles(t, src, tmp, "package.json", "package-lock.json")
		cmd := exec.Command(npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund")
		cmd.Dir = tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
		os.RemoveAll(dir)
		if err := os.Rename(tmp, dir); err != nil {
			t.Fatal(err)
		}
	}
	copyFiles(t, src, dir, "client.mjs")
	return dir
}

func copyFiles(t *testing.T, from, to string, names ...string) {
	t.Helper()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(from, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// execNode returns `node client.mjs args…` in dir, stderr collected.
func execNode(t *testing.T, ctx context.Context, dir string, args ...string) *exec.Cmd {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed (it comes with npm): %v", err)
	}
	cmd := exec.CommandContext(ctx, node, append([]string{"client.mjs"}, args...)...)
	cmd.Dir = dir
	cmd.Stderr = new(strings.Builder)
	return cmd
}
