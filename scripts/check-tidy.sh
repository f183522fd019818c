#!/usr/bin/env bash
# check-tidy.sh — fail when `go mod tidy` would change go.mod or go.sum, so a
# dependency added, dropped or promoted to direct is committed with the code
# that needs it. `go mod tidy -diff` (Go 1.23+) changes nothing and prints
# the changes it would make; the fix is to run `go mod tidy` and commit.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=$(mktemp)
errs=$(mktemp)
trap 'rm -f "$out" "$errs"' EXIT

if go mod tidy -diff >"$out" 2>"$errs"; then
	echo "check: go.mod and go.sum are tidy"
	exit 0
fi
if [[ -s $out ]]; then
	echo "check: go.mod or go.sum is not tidy (run \`go mod tidy\` and commit go.mod and go.sum):"
	sed 's/^/    /' "$out"
else
	# No diff, yet tidy failed: it could not load the module graph (offline,
	# a module missing from the cache), which is not the same as untidy.
	echo "check: could not run \`go mod tidy -diff\`:"
	sed 's/^/    /' "$errs"
fi
exit 1
