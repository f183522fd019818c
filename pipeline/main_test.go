package pipeline_test

import (
	"os"
	"testing"

	"github.com/quarryhq/quarry/db/dbtest"
)

func TestMain(m *testing.M) {
	// The crash test re-executes this binary as a worker process it can
	// SIGKILL; that process runs the worker and never the tests.
	if os.Getenv(crashWorkerEnv) != "" {
		runCrashWorker()
		return
	}
	os.Exit(dbtest.Run(m))
}
