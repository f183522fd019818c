package auth_test

import (
	"os"
	"testing"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Run(m)) }

// newStore is a replica's store on the package's test database.
func newStore(t *testing.T) *db.Store {
	t.Helper()
	return db.NewStore(dbtest.Open(t), nil)
}
