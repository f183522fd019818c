#!/usr/bin/env bash
# check-generated.sh — fail when generated or formatted code is stale:
#   1. `go tool templ generate` must not change any committed *_templ.go, and
#      every *_templ.go must be committed (checked through git status);
#   2. `gofmt -l` must list no file.
# Generation writes the fresh files, so after a failure the fix is to commit
# what it produced.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

fail=0

# go_files PATTERN: files matching PATTERN outside hidden dirs, bin/ and testdata/.
go_files() {
	find . \( -path './.*' -o -name bin -o -name testdata -o -name node_modules -o -name vendor \) \
		-prune -o -type f -name "$1" -print | sort
}

snapshot() {
	go_files '*_templ.go' | while read -r f; do sha256sum "$f"; done
}

before=$(snapshot)
go tool templ generate -log-level error
after=$(snapshot)
if [[ "$before" != "$after" ]]; then
	echo "check: templ generate changed these files (the committed *_templ.go were stale):"
	diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | sed -n 's/^> [0-9a-f]*  \.\//    /p' | sort -u
	fail=1
fi

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	dirty=$(git status --porcelain -- '*_templ.go')
	if [[ -n $dirty ]]; then
		echo "check: generated *_templ.go differ from what is committed (commit them):"
		printf '%s\n' "$dirty" | sed 's/^/    /'
		fail=1
	fi
fi

mapfile -t gofiles < <(go_files '*.go')
unformatted=$(gofmt -l "${gofiles[@]}")
if [[ -n $unformatted ]]; then
	echo "check: gofmt -l lists files that are not formatted (run gofmt -w):"
	printf '%s\n' "$unformatted" | sed 's/^/    /'
	fail=1
fi

if [[ $fail -eq 0 ]]; then
	echo "check: generated code is current and gofmt is clean"
fi
exit $fail
