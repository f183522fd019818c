#!/usr/bin/env bash
# Docs-QA benchmark for the extractive engine: serves the PostgreSQL 15
# documentation and a BM25 search engine over it on loopback
# (bench/docsqa/main.go), runs every question of questions.tsv through
# `quarry research --json` with that engine as url:<template>, and prints
# per question whether each key fact appears in a cited sentence of the
# report, then the totals.
#
#   bench/docsqa/run.sh [OUT=/tmp/docsqa-out] [DEPTH=standard] [QUESTION NUMBERS…]
#
# Needs: apt-get install postgresql-doc-15 (DOCS overrides the directory, QS
# the questions: DOCS=/usr/share/doc/python3-doc/html QS=bench/docsqa/python.tsv),
# Postgres (DATABASE_URL, default the local trust-auth server) and Chromium
# (QUARRY_CHROMIUM, default /usr/bin/chromium). Reports stay in OUT/NN.json;
# `python3 bench/docsqa/score.py bench/docsqa/questions.tsv OUT` rescores them.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-/tmp/docsqa-out}
DEPTH=${2:-standard}
shift $(( $# > 2 ? 2 : $# ))
DOCS=${DOCS:-/usr/share/doc/postgresql-doc-15/html}
export DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
export QUARRY_CHROMIUM=${QUARRY_CHROMIUM:-/usr/bin/chromium}
QS=${QS:-bench/docsqa/questions.tsv}
mkdir -p "$OUT"
tmp=$(mktemp -d)
serve_pid=
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; rm -rf "$tmp"' EXIT

go build -o "$tmp/quarry" ./cmd/quarry
go build -o "$tmp/docsqa" ./bench/docsqa
"$tmp/docsqa" -dir "$DOCS" -addr-file "$tmp/addr" 2>"$tmp/serve.log" &
serve_pid=$!
for _ in $(seq 100); do [ -s "$tmp/addr" ] && break; sleep 0.1; done
addr=$(cat "$tmp/addr")
export QUARRY_ALLOW_HOSTS=$addr
export QUARRY_SEARCH_ENGINES="url:http://$addr/search?q={query}"

n=0
grep -v '^#' "$QS" | grep -v '^[[:space:]]*$' | while IFS=$'\t' read -r question _; do
	n=$((n + 1))
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$n"; then
		continue
	fi
	f=$(printf '%s/%02d.json' "$OUT" "$n")
	start=$(date +%s)
	"$tmp/quarry" research --depth "$DEPTH" --json "$question" </dev/null >"$f" 2>"${f%.json}.log" || true
	echo "ran $n in $(( $(date +%s) - start ))s: $question" >&2
done
python3 bench/docsqa/score.py "$QS" "$OUT"
