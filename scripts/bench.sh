#!/usr/bin/env bash
# bench.sh — what `make bench` does:
#   1. go test -bench . -run '^$' ./...   (against the provisioned Postgres);
#   2. when ../shared/benchmarks/article-extraction exists (or QUARRY_BENCH_DIR
#      names such a directory): `quarry eval extraction` over it, predictions
#      written to .data/bench/extraction-predictions.json;
#   3. `quarry bench fetch` over QUARRY_BENCH_URLS (a file of URLs) when set,
#      else over the same benchmark pages served from a loopback HTTP server
#      (python3 -m http.server; skipped when python3 is missing): adaptive
#      (HTTP first) and then --mode render (every page in the browser).
# Results are printed and kept in .data/bench/.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

say() { printf '\n==> %s\n' "$*"; }

packages=(chromium wordnet-base)
[[ -n ${DATABASE_URL:-} ]] || packages+=(postgresql)
scripts/deps.sh "${packages[@]}"

env_lines=$(scripts/env.sh --db postgres)
eval "$env_lines"
server=""
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	if [[ -n $server ]]; then kill "$server" 2>/dev/null || true; fi
	if [[ ${QUARRY_PG_STARTED:-0} == 1 ]]; then scripts/env.sh --stop || true; fi
}
trap cleanup EXIT

out=.data/bench
mkdir -p "$out"
status=0

say "go test -bench . -run '^\$' ./..."
go test -bench . -run '^$' ./... 2>&1 | tee "$out/go-bench.txt" || status=1

say "building bin/quarry"
go build -o bin/quarry ./cmd/quarry
export QUARRY_CHROMIUM=${QUARRY_CHROMIUM:-/usr/bin/chromium}

bench_dir=${QUARRY_BENCH_DIR:-$repo/../shared/benchmarks/article-extraction}
if [[ -f $bench_dir/ground-truth.json ]]; then
	say "quarry eval extraction --dir $bench_dir"
	bin/quarry eval extraction --dir "$bench_dir" --out "$out/extraction-predictions.json" | tee "$out/eval-extraction.txt" || status=1
else
	say "no extraction benchmark at $bench_dir; skipping quarry eval"
fi

urls=${QUARRY_BENCH_URLS:-}
allow=${QUARRY_ALLOW_HOSTS:-}
if [[ -z $urls && -d $bench_dir/html ]]; then
	if command -v python3 >/dev/null; then
		pages="$out/pages"
		rm -rf "$pages"
		mkdir -p "$pages"
		for f in "$bench_dir"/html/*.html.gz; do
			gzip -dc "$f" >"$pages/$(basename "$f" .gz)"
		done
		port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		python3 -m http.server "$port" --bind 127.0.0.1 --directory "$pages" >/dev/null 2>&1 &
		server=$!
		for _ in $(seq 1 50); do
			(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
			sleep 0.1
		done
		urls="$out/urls.txt"
		for f in "$pages"/*.html; do
			printf 'http://127.0.0.1:%s/%s\n' "$port" "$(basename "$f")"
		done >"$urls"
		allow="${allow:+$allow,}127.0.0.1:$port"
	else
		say "python3 not found: no loopback server for the fetch benchmark (set QUARRY_BENCH_URLS to a file of URLs)"
	fi
fi
if [[ -n $urls ]]; then
	say "quarry bench fetch --concurrency ${QUARRY_BENCH_CONCURRENCY:-4} --urls $urls ($(wc -l <"$urls") pages)"
	QUARRY_ALLOW_HOSTS=$allow bin/quarry bench fetch --concurrency "${QUARRY_BENCH_CONCURRENCY:-4}" --urls "$urls" |
		tee "$out/bench-fetch.json" || status=1
	say "quarry bench fetch --mode render (every page in the browser, for comparison)"
	QUARRY_ALLOW_HOSTS=$allow bin/quarry bench fetch --mode render --concurrency "${QUARRY_BENCH_CONCURRENCY:-4}" --urls "$urls" |
		tee "$out/bench-fetch-render.json" || status=1
fi

say "results are in $out/"
exit $status
