#!/usr/bin/env bash
# test.sh — what `make test` (and so CI) runs:
#   1. install missing Debian packages (chromium for the browser tests,
#      postgresql, poppler-utils for PDFs, gcc for the race detector);
#   2. provision Postgres with scripts/env.sh (each test package creates and
#      drops one database of its own on that server through db/dbtest);
#   3. scripts/check-generated.sh (templ output committed and current,
#      gofmt) — first, because templ rewrites the *_templ.go files the
#      compiler reads next;
#   4. go vet -race ./..., with scripts/check-tidy.sh (go.mod and go.sum as
#      `go mod tidy` leaves them) beside it;
#   5. go test -race -vet=off -count=1 -p $QUARRY_TEST_P (default 4) on every
#      package, the longest-running first (see test_order).
# Vet runs with -race so that the packages it compiles are the ones the race
# tests link: on a cold cache the dependency graph is compiled once, not once
# for vet and again for the tests. go test's own vet pass is off because
# step 4 ran every analyzer on every package, test files included (go test
# runs a subset, and only on packages with tests). Test packages spend much
# of their time waiting on Chromium, Postgres and loopback servers, so more
# of them run at once than there are cores.
#
# The deployment suites of test/faults (replicas behind nginx, SIGKILL and
# Postgres-restart faults, scheduler replicas, the end-to-end security
# check, load) are not part of this: each needs minutes of real time or a
# build of the server of its own; they are `make faults` and `make load`
# (scripts/faults.sh).
#
# Every step runs even when an earlier one failed; the summary at the end says
# which failed, the five slowest test packages, and the exit status is
# non-zero when any step failed. A private cluster started here is stopped
# again at the end.
#
# The full go test JSON stream is kept in .data/test.json.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

start=$SECONDS
say() { printf '\n==> %s\n' "$*"; }

# postgresql always: test/faults starts a private cluster it can restart.
# poppler-utils: pdftotext, which turns fetched PDFs into text. (nginx is
# for make faults only.)
# wordnet-base: the WordNet database text.Lexicon reads (/usr/share/wordnet).
# npm (and node): the MCP test runs the TypeScript SDK as an independent client.
packages=(chromium postgresql poppler-utils wordnet-base npm)
command -v gcc >/dev/null || packages+=(gcc libc6-dev)
command -v git >/dev/null || packages+=(git)
say "checking Debian packages: ${packages[*]}"
scripts/deps.sh "${packages[@]}"

say "provisioning Postgres"
env_lines=$(scripts/env.sh --db postgres)
eval "$env_lines"
if [[ ${QUARRY_PG_STARTED:-0} == 1 ]]; then
	trap 'scripts/env.sh --stop || true' EXIT
fi
echo "DATABASE_URL=$DATABASE_URL"

declare -A result
declare -A took
steps=(generated vet tidy test)

run_step() {
	local name=$1
	shift
	local t0=$SECONDS
	if "$@"; then
		result[$name]=ok
	else
		result[$name]=FAILED
	fi
	took[$name]=$((SECONDS - t0))
}

# How many packages' tests (and compiles) go test runs at once.
parallel=${QUARRY_TEST_P:-4}

say "generated code and formatting"
run_step generated scripts/check-generated.sh

# The tidy check reads go.mod and go.sum and writes nothing, so it runs
# beside vet; its output is shown when vet is done.
tidy_out=$(mktemp)
tidy_t0=$SECONDS
scripts/check-tidy.sh >"$tidy_out" 2>&1 &
tidy_pid=$!

# The tags bring in test/faults' deployment suites, so vet reads every file.
say "go vet -race -tags faults,load ./..."
run_step vet go vet -race -tags faults,load ./...

say "go.mod and go.sum tidy"
if wait "$tidy_pid"; then result[tidy]=ok; else result[tidy]=FAILED; fi
took[tidy]=$((SECONDS - tidy_t0))
cat "$tidy_out"
rm -f "$tidy_out"

# format_go_test: read `go test -json` and print what a person needs: build
# errors, each package's result line, and the full output of failed (and
# skipped) tests only. Writes "passed failed skipped failed-packages" counts
# to $1, then the failed packages one a line.
format_go_test() {
	awk -v counts="$1" '
	function uchar(h) {
		h = tolower(h)
		if (h == "003c") return "<"
		if (h == "003e") return ">"
		if (h == "0026") return "&"
		if (h == "0027") return "\047"
		if (h == "001b") return ""
		return "?"
	}
	# jstr: the JSON string value of key in line, unescaped.
	function jstr(line, key,    i, j, c, n, out, rest) {
		i = index(line, "\"" key "\":\"")
		if (i == 0) return ""
		rest = substr(line, i + length(key) + 4)
		n = length(rest)
		out = ""
		for (j = 1; j <= n; j++) {
			c = substr(rest, j, 1)
			if (c == "\"") break
			if (c != "\\") { out = out c; continue }
			j++
			c = substr(rest, j, 1)
			if (c == "n") out = out "\n"
			else if (c == "t") out = out "\t"
			else if (c == "r") out = out ""
			else if (c == "u") { out = out uchar(substr(rest, j + 1, 4)); j += 4 }
			else out = out c
		}
		return out
	}
	function show(text,    m, k, lines) {
		m = split(text, lines, "\n")
		for (k = 1; k <= m; k++) {
			if (lines[k] ~ /^=== (RUN|PAUSE|CONT|NAME)/) continue
			if (k == m && lines[k] == "") continue
			print lines[k]
		}
	}
	function flush_package(pkg,    key, parts) {
		for (key in buf) {
			split(key, parts, SUBSEP)
			if (parts[1] == pkg) { show(buf[key]); delete buf[key] }
		}
	}
	{
		action = jstr($0, "Action")
		if (action == "build-output") { printf "%s", jstr($0, "Output"); fflush(); next }
		pkg = jstr($0, "Package")
		test = jstr($0, "Test")
		key = pkg SUBSEP test
		if (action == "output") {
			out = jstr($0, "Output")
			if (test != "") { buf[key] = buf[key] out; next }
			if (out ~ /^(=== |PASS\n|FAIL\n|ok  |testing: warning)/) { if (out ~ /^ok  /) { printf "%s", out; fflush() } ; next }
			printf "%s", out
			fflush()
			next
		}
		if (test != "") {
			if (action == "pass") { passed++; delete buf[key] }
			else if (action == "fail") { failed++; show(buf[key]); delete buf[key] }
			else if (action == "skip") { skipped++; show(buf[key]); delete buf[key] }
			next
		}
		if (action == "fail") { badpkg[pkg] = 1; flush_package(pkg) }
	}
	END {
		for (pkg in badpkg) nbad++
		printf "%d %d %d %d\n", passed, failed, skipped, nbad > counts
		for (pkg in badpkg) print pkg > counts
	}'
}

# test_order: every package, the longest-running first. go test starts the
# packages' tests in the order it is given them, so the slow ones start at
# once and the quick ones fill the other slots, instead of a slow package
# starting last and running alone. The times are the last run's
# (.data/test.json); a package it does not have comes first; without one,
# the size of a package's test files stands in for its time.
test_order() {
	go list -e -f '{{.ImportPath}} {{.Dir}} {{join .TestGoFiles " "}} {{join .XTestGoFiles " "}}' ./... |
		while read -r pkg dir files; do
			local size=0 f
			for f in $files; do size=$((size + $(wc -c <"$dir/$f"))); done
			echo "$size $pkg"
		done |
		awk -v prev=.data/test.json '
		BEGIN {
			while ((getline line < prev) > 0) {
				if (line ~ /"Test":/ || line !~ /"Action":"(pass|fail|skip)"/) continue
				if (!match(line, /"Package":"[^"]*"/)) continue
				pkg = substr(line, RSTART + 11, RLENGTH - 12)
				if (!match(line, /"Elapsed":[0-9.]+/)) continue
				took[pkg] = substr(line, RSTART + 10, RLENGTH - 10)
				timed = 1
			}
		}
		{
			if (!timed) print $1, $2
			else if ($2 in took) print took[$2], $2
			else print 1e9, $2
		}' | sort -rn | awk '{ print $2 }'
}

mapfile -t test_packages < <(test_order)
[[ ${#test_packages[@]} -gt 0 ]] || test_packages=(./...)

say "go test -race -vet=off -count=1 -p $parallel -timeout 20m (${#test_packages[@]} packages, longest first)"
mkdir -p .data
test_counts=$(mktemp)
t0=$SECONDS
set +e
go test -race -vet=off -count=1 -p "$parallel" -timeout 20m -json "${test_packages[@]}" 2>&1 | tee .data/test.json | format_go_test "$test_counts"
status=${PIPESTATUS[0]}
set -e
took[test]=$((SECONDS - t0))
if [[ $status -eq 0 ]]; then result[test]=ok; else result[test]=FAILED; fi
passed=0 failed=0 skipped=0 badpkgs=0
read -r passed failed skipped badpkgs <"$test_counts" || true
mapfile -t failed_packages < <(tail -n +2 "$test_counts" | sort)
rm -f "$test_counts"

# slowest_packages N: the N test packages that took longest, from the
# package results (pass or fail, with Elapsed seconds) in .data/test.json.
slowest_packages() {
	awk '
	/"Test":/ { next }
	/"Action":"(pass|fail)"/ {
		if (!match($0, /"Package":"[^"]*"/)) next
		pkg = substr($0, RSTART + 11, RLENGTH - 12)
		if (!match($0, /"Elapsed":[0-9.]+/)) next
		printf "%s %s\n", substr($0, RSTART + 10, RLENGTH - 10), pkg
	}' .data/test.json | sort -rn | head -n "$1" || true
}

say "summary"
overall=0
for s in "${steps[@]}"; do
	printf '    %-10s %-7s %4ss\n' "$s" "${result[$s]}" "${took[$s]}"
	[[ ${result[$s]} == ok ]] || overall=1
done
echo "    slowest test packages (wall time, $parallel at once):"
slowest_packages 5 | while read -r secs pkg; do
	printf '        %6.1fs  %s\n' "$secs" "${pkg#github.com/quarryhq/quarry/}"
done || true
if [[ $badpkgs -gt 0 ]]; then
	echo "    failed packages:"
	printf '        %s\n' "${failed_packages[@]}"
fi
printf '    total      %ds\n' "$((SECONDS - start))"
# CPU time of every process the steps ran (user + system, as `times`
# reports the reaped children): on a shared machine a steadier figure than
# the wall clock.
cpu_file=$(mktemp)
times >"$cpu_file"
awk 'NR == 2 {
	split($1, u, /[ms]/); split($2, s, /[ms]/)
	printf "    cpu        %ds (user %ds, system %ds)\n", u[1] * 60 + u[2] + s[1] * 60 + s[2], u[1] * 60 + u[2], s[1] * 60 + s[2]
}' "$cpu_file"
rm -f "$cpu_file"
if [[ $overall -eq 0 ]]; then echo "    result     PASS"; else echo "    result     FAIL"; fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit $overall
