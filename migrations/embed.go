// Package migrations holds Quarry's SQL schema migrations, applied by goose
// from this embedded file system.
package migrations

import "embed"

// FS contains the *.sql migration files.
//
//go:embed *.sql
var FS embed.FS
