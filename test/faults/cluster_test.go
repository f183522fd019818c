//go:build faults || load

package faults

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/quarryhq/quarry/db"
)

// pgCluster is a private Postgres cluster the tests start, so they may
// restart it; the machine's own server is never touched.
type pgCluster struct {
	bin  string // server binaries
	dir  string // data directory's parent (logs, socket)
	user string // OS user running it ("" = us)
	port int
}

// startCluster initialises and starts a cluster on a free loopback port.
func startCluster() (*pgCluster, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) < versionOf(dirs[j]) })
	if len(dirs) == 0 {
		return nil, fmt.Errorf("no Postgres server under /usr/lib/postgresql/*/bin (install the Debian package postgresql)")
	}
	c := &pgCluster{bin: dirs[len(dirs)-1]}
	dir, err := os.MkdirTemp("", "quarry-faults-pg-")
	if err != nil {
		return nil, err
	}
	c.dir = dir
	if os.Getuid() == 0 {
		// Postgres refuses to run as root.
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs the postgres system user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		os.Chmod(dir, 0o755)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
		c.user = "postgres"
	}
	if out, err := c.as(filepath.Join(c.bin, "initdb"), "-D", c.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-instructions").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return c, c.start()
}

func versionOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func (c *pgCluster) data() string { return filepath.Join(c.dir, "data") }

// as runs a command as the cluster's user.
func (c *pgCluster) as(name string, args ...string) *exec.Cmd {
	if c.user == "" {
		return exec.Command(name, args...)
	}
	cmd := exec.Command("runuser", append([]string{"-u", c.user, "--", name}, args...)...)
	cmd.Dir = "/"
	return cmd
}

func (c *pgCluster) start() error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off", c.port, c.dir)
	out, err := c.as(filepath.Join(c.bin, "pg_ctl"), "-D", c.data(), "-l", filepath.Join(c.dir, "postgres.log"), "-w", "-t", "60", "-o", opts, "start").CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "postgres.log"))
		return fmt.Errorf("start postgres: %v\n%s\n%s", err, out, log)
	}
	return nil
}

// restart stops the cluster the hard way (every connection cut, crash
// recovery on start) and starts it again after pause.
func (c *pgCluster) restart(pause time.Duration) error {
	if out, err := c.as(filepath.Join(c.bin, "pg_ctl"), "-D", c.data(), "-m", "immediate", "-w", "stop").CombinedOutput(); err != nil {
		return fmt.Errorf("stop postgres: %v\n%s", err, out)
	}
	time.Sleep(pause)
	return c.start()
}

// stop ends the cluster and removes its files.
func (c *pgCluster) stop() {
	c.as(filepath.Join(c.bin, "pg_ctl"), "-D", c.data(), "-m", "immediate", "-w", "stop").Run()
	os.RemoveAll(c.dir)
}

// adminURL is the cluster's postgres database.
func (c *pgCluster) adminURL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
}

// newDatabase creates a migrated database for one test.
func (c *pgCluster) newDatabase(name string) (string, *sqlx.DB, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := db.Open(ctx, c.adminURL())
	if err != nil {
		return "", nil, err
	}
	defer admin.Close()
	name = strings.ToLower(name)
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		return "", nil, fmt.Errorf("create database %s: %w", name, err)
	}
	url := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, name)
	conn, err := db.Open(ctx, url)
	if err != nil {
		return "", nil, err
	}
	if _, err := db.Migrate(ctx, conn.DB); err != nil {
		conn.Close()
		return "", nil, err
	}
	return url, conn, nil
}
