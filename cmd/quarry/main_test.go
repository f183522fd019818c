package main

import (
	"os"
	"testing"

	"github.com/quarryhq/quarry/db/dbtest"
)

// asMainEnv makes the test binary behave as the quarry command, so the
// subprocess tests run the real main (signals, exit codes) without
// linking a second binary.
const asMainEnv = "QUARRY_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		os.Args = append([]string{"quarry"}, os.Args[1:]...)
		main()
		return
	}
	os.Exit(dbtest.Run(m))
}
