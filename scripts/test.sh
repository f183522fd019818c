#!/usr/bin/env bash
# test.sh — what `make test` (and so CI) runs:
#   1. install missing Debian packages (chromium for the browser tests, nginx
#      for the replicas-behind-a-proxy test in test/faults,
#      postgresql, also for test/faults' private cluster, gcc for the race
#      detector);
#   2. provision Postgres with scripts/env.sh (test packages create and drop
#      their own databases on that server through db/dbtest);
#   3. go vet ./...;
#   4. scripts/check-generated.sh (templ output committed and current, gofmt);
#   5. scripts/check-tidy.sh (go.mod and go.sum as `go mod tidy` leaves them);
#   6. go test -race -count=1 -timeout 20m ./...
# Every step runs even when an earlier one failed; the summary at the end says
# which failed, and the exit status is non-zero when any did. A private
# cluster started here is stopped again at the end.
#
# The full go test JSON stream is kept in .data/test.json.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

start=$SECONDS
say() { printf '\n==> %s\n' "$*"; }

# postgresql always: test/faults starts a private cluster it can restart.
# poppler-utils: pdftotext, which turns fetched PDFs into text.
# wordnet-base: the WordNet database text.Lexicon reads (/usr/share/wordnet).
packages=(chromium nginx postgresql poppler-utils wordnet-base)
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
steps=(vet generated tidy test)

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

say "go vet ./..."
run_step vet go vet ./...

say "generated code and formatting"
run_step generated scripts/check-generated.sh

say "go.mod and go.sum tidy"
run_step tidy scripts/check-tidy.sh

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

say "go test -race -count=1 -timeout 20m ./..."
mkdir -p .data
test_counts=$(mktemp)
t0=$SECONDS
set +e
go test -race -count=1 -timeout 20m -json ./... 2>&1 | tee .data/test.json | format_go_test "$test_counts"
status=${PIPESTATUS[0]}
set -e
took[test]=$((SECONDS - t0))
if [[ $status -eq 0 ]]; then result[test]=ok; else result[test]=FAILED; fi
passed=0 failed=0 skipped=0 badpkgs=0
read -r passed failed skipped badpkgs <"$test_counts" || true
mapfile -t failed_packages < <(tail -n +2 "$test_counts" | sort)
rm -f "$test_counts"

say "summary"
overall=0
for s in "${steps[@]}"; do
	printf '    %-10s %-7s %4ss\n' "$s" "${result[$s]}" "${took[$s]}"
	[[ ${result[$s]} == ok ]] || overall=1
done
if [[ $badpkgs -gt 0 ]]; then
	echo "    failed packages:"
	printf '        %s\n' "${failed_packages[@]}"
fi
printf '    total      %ds\n' "$((SECONDS - start))"
if [[ $overall -eq 0 ]]; then echo "    result     PASS"; else echo "    result     FAIL"; fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit $overall
