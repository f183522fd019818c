#!/usr/bin/env bash
# Docs-QA benchmark: four manuals Debian packages, each served on loopback
# behind the search page of a different real search program
# (bench/docsqa/main.go, programs.go), every question of the set run through
# `quarry research --json` with that page as QUARRY_SEARCH_ENGINES=url:…,
# and each key fact checked in a cited sentence of the report (score.py).
#
#   bench/docsqa/run.sh [OUT=/tmp/docsqa-out] [DEPTH=standard] [QUESTION NUMBERS…]
#
#   set       questions                     manual (Debian package)                   program
#   postgres  bench/docsqa/questions.tsv    postgresql-doc-15 (DocBook)               omega    (Xapian Omega CGI, xapian-omega)
#   python    bench/docsqa/python.tsv       python3-doc (Sphinx)                      pagefind (Pagefind UI, JavaScript; npx pagefind)
#   git       bench/docsqa/git.tsv          git-doc (asciidoc)                        htdig    (ht://Dig htsearch CGI, htdig)
#   sqlite    bench/docsqa/sqlite.tsv       sqlite3-doc                               namazu   (namazu.cgi, namazu2 + namazu2-index-tools)
#
# Environment:
#   SET=postgres|python|git|sqlite   run one set (default: all four, in the order above)
#   ENGINE=bm25|omega|htdig|namazu|pagefind   put this program in front of every
#             chosen set instead of the set's own (bm25 is docsqa's own BM25 page)
#   JOBS=2    run that many sets at once (separate servers and quarry processes;
#             each question still runs alone within its set)
#   DATABASE_URL (default the local trust-auth Postgres), QUARRY_CHROMIUM
#   (default /usr/bin/chromium).
#
# Each program indexes its manual once into .data/docsqa/<program>-<manual>/
# (delete the directory to rebuild); the loopback server serves the manual
# under /docs/ and the program's results page. QUESTION NUMBERS keep only
# those questions (numbered within each set). Reports stay in
# OUT/<set>/NN.json (with NN.log); `python3 bench/docsqa/score.py
# bench/docsqa/git.tsv OUT/git` rescores one set. Missing Debian packages
# are installed by scripts/deps.sh when run as root, otherwise it prints
# the apt-get command to run.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-/tmp/docsqa-out}
DEPTH=${2:-standard}
shift $(( $# > 2 ? 2 : $# ))
export DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
export QUARRY_CHROMIUM=${QUARRY_CHROMIUM:-/usr/bin/chromium}
JOBS=${JOBS:-1}

scripts/deps.sh xapian-omega htdig namazu2 namazu2-index-tools postgresql-doc-15 \
	python3-doc git-doc sqlite3-doc npm chromium wordnet-base python3

# name questions docs program package
SETS=(
	"postgres bench/docsqa/questions.tsv /usr/share/doc/postgresql-doc-15/html omega postgresql-doc-15"
	"python bench/docsqa/python.tsv /usr/share/doc/python3-doc/html pagefind python3-doc"
	"git bench/docsqa/git.tsv /usr/share/doc/git-doc htdig git-doc"
	"sqlite bench/docsqa/sqlite.tsv /usr/share/doc/sqlite3 namazu sqlite3-doc"
)
chosen=()
for s in "${SETS[@]}"; do
	read -r name _ <<<"$s"
	if [ -z "${SET:-}" ] || [ "$SET" = "$name" ]; then chosen+=("$s"); fi
done
if [ ${#chosen[@]} -eq 0 ]; then
	echo "run.sh: unknown SET=$SET (postgres, python, git or sqlite)" >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'for p in "$tmp"/*.pid; do [ -e "$p" ] && kill "$(cat "$p")" 2>/dev/null; done; rm -rf "$tmp"' EXIT
go build -o "$tmp/quarry" ./cmd/quarry
go build -o "$tmp/docsqa" ./bench/docsqa

# Check every chosen manual and build every index first, one at a time,
# so that a missing package stops the run before any question is asked.
for s in "${chosen[@]}"; do
	read -r name qs docs program pkg <<<"$s"
	program=${ENGINE:-$program}
	if [ ! -d "$docs" ]; then
		echo "run.sh: $docs is missing: install Debian package $pkg (as root: scripts/deps.sh $pkg)" >&2
		exit 1
	fi
	[ "$program" = bm25 ] || "$tmp/docsqa" -engine "$program" -dir "$docs" -index-only
done

# run_set serves one manual behind its program and asks its questions.
run_set() {
	local name=$1 qs=$2 docs=$3 program=$4 nums=("${@:5}")
	local out=$OUT/$name
	mkdir -p "$out"
	"$tmp/docsqa" -engine "$program" -dir "$docs" -addr-file "$tmp/$name.addr" \
		-template-file "$tmp/$name.template" 2>"$out/serve.log" &
	echo $! >"$tmp/$name.pid"
	for _ in $(seq 600); do [ -s "$tmp/$name.template" ] && break; sleep 0.1; done
	if [ ! -s "$tmp/$name.template" ]; then
		echo "run.sh: $name: the $program server did not start:" >&2
		cat "$out/serve.log" >&2
		return 1
	fi
	local n=0 question f start
	while IFS=$'\t' read -r question _; do
		n=$((n + 1))
		if [ ${#nums[@]} -gt 0 ] && ! printf '%s\n' "${nums[@]}" | grep -qx "$n"; then
			continue
		fi
		f=$(printf '%s/%02d.json' "$out" "$n")
		start=$(date +%s)
		QUARRY_ALLOW_HOSTS=$(cat "$tmp/$name.addr") QUARRY_SEARCH_ENGINES="url:$(cat "$tmp/$name.template")" \
			"$tmp/quarry" research --depth "$DEPTH" --json "$question" </dev/null >"$f" 2>"${f%.json}.log" || true
		echo "$name $n ($program) in $(( $(date +%s) - start ))s: $question" >&2
	done < <(grep -v '^#' "$qs" | grep -v '^[[:space:]]*$')
	kill "$(cat "$tmp/$name.pid")" 2>/dev/null || true
	rm -f "$tmp/$name.pid"
}

running=0
for s in "${chosen[@]}"; do
	read -r name qs docs program _ <<<"$s"
	run_set "$name" "$qs" "$docs" "${ENGINE:-$program}" "$@" &
	running=$((running + 1))
	if [ "$running" -ge "$JOBS" ]; then
		wait -n || true
		running=$((running - 1))
	fi
done
wait

# Scores: per set, then the total.
total_q=0 total_qn=0 total_f=0 total_fn=0
summary=()
for s in "${chosen[@]}"; do
	read -r name qs _ program _ <<<"$s"
	echo "== $name (${ENGINE:-$program})"
	python3 bench/docsqa/score.py "$qs" "$OUT/$name" "$@" | tee "$tmp/$name.score"
	read -r _ q qn f fn < <(grep '^SUMMARY' "$tmp/$name.score")
	summary+=("$(printf '%-9s %-9s %3d/%-3d questions passed  %3d/%-3d facts found' "$name" "${ENGINE:-$program}" "$q" "$qn" "$f" "$fn")")
	total_q=$((total_q + q)) total_qn=$((total_qn + qn)) total_f=$((total_f + f)) total_fn=$((total_fn + fn))
done
echo
printf '%s\n' "${summary[@]}"
printf '%-19s %3d/%-3d questions passed  %3d/%-3d facts found\n' TOTAL "$total_q" "$total_qn" "$total_f" "$total_fn"
