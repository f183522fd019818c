#!/usr/bin/env bash
# Throughput comparison for `quarry bench fetch` (issue 3): serves N pages of
# the article-extraction benchmark on a loopback server with added latency,
# then fetches the same URL list with Quarry's pool and with Crawlee's
# PlaywrightCrawler (same /usr/bin/chromium, concurrency 4), and prints both.
#
#   bench/run.sh [N=200] [LATENCY=100ms] [CONCURRENCY=4]
#
# Needs ../shared/benchmarks/article-extraction beside the work tree and, for
# the Crawlee side, `npm ci` in bench/crawlee (node_modules is not committed).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-200}
LATENCY=${2:-100ms}
CONC=${3:-4}
DATA=${BENCH_DATA:-../shared/benchmarks/article-extraction}
tmp=$(mktemp -d)
trap 'kill "$serve_pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT

go build -o "$tmp/quarry" ./cmd/quarry
go build -o "$tmp/serve" ./bench/serve
"$tmp/serve" -dir "$DATA" -n "$N" -latency "$LATENCY" -urls "$tmp/urls.txt" 2>"$tmp/serve.log" &
serve_pid=$!
for _ in $(seq 50); do [ -s "$tmp/urls.txt" ] && break; sleep 0.1; done
host=$(head -1 "$tmp/urls.txt" | sed -E 's#^https?://([^/]+)/.*#\1#')

echo "quarry:  $(QUARRY_ALLOW_HOSTS="$host" "$tmp/quarry" bench fetch --concurrency "$CONC" --urls "$tmp/urls.txt")"
if [ -d bench/crawlee/node_modules ]; then
	echo "crawlee: $(cd bench/crawlee && node crawl.mjs --urls "$tmp/urls.txt" --concurrency "$CONC" 2>"$tmp/crawlee.log")"
	echo "crawlee adaptive: $(cd bench/crawlee && node crawl.mjs --adaptive --urls "$tmp/urls.txt" --concurrency "$CONC" 2>"$tmp/crawlee-adaptive.log")"
else
	echo "crawlee: skipped (run npm ci in bench/crawlee)"
fi
floor=$(awk -v n="$N" -v c="$CONC" -v l="${LATENCY%ms}" 'BEGIN { printf "%.1f", n * l / 1000 / c }')
echo "floor (latency x pages / concurrency): ${floor} s"
