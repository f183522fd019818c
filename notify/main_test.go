package notify_test

import (
	"os"
	"testing"

	"github.com/quarryhq/quarry/db/dbtest"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Run(m)) }
