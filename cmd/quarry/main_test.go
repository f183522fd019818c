package main

import (
	"context"
	"os"
	"testing"

	"github.com/quarryhq/quarry/db/dbtest"
)

// asMainEnv makes the test binary behave as the quarry command, so the
// subprocess tests run the real main (signals, exit codes) without
// linking a second binary.
const asMainEnv = "QUARRY_TEST_AS_MAIN"

// ownDatabase returns a database of the test's own, dropped when it ends.
// The tests that run `quarry serve` run in parallel (most of their time
// is spent waiting on the subprocesses); each serves its own database, so
// no process's workers claim another test's runs and no test sees another
// test's rows.
func ownDatabase(t *testing.T) string {
	t.Helper()
	url, drop, err := dbtest.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	return url
}

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		os.Args = append([]string{"quarry"}, os.Args[1:]...)
		main()
		return
	}
	os.Exit(dbtest.Run(m))
}
