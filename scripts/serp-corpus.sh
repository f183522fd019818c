#!/usr/bin/env bash
# Regenerates the results pages of the search programs Debian packages, for
# the harvester corpus in search/testdata/serp/: each program is RUN over a
# small local site and its results page saved as NAME.html, with the URLs of
# its organic results, in page order, in NAME.expected (read from the
# program's own machine-readable output where it has one, otherwise from
# the program's documented result markup).
#
#   scripts/serp-corpus.sh            (make serp-corpus)
#
# Programs: Xapian Omega (CGI), ht://Dig htsearch, Namazu (CGI), Sphinx's
# search.html, MkDocs' search page and the Pagefind UI. The last three render
# their results with JavaScript; their pages are the DOM Chromium renders.
# The sites are a slice of the PostgreSQL manual (postgresql-doc-15) and a
# small manual in scripts/serp-corpus/pages/. Pages name the site as
# http://127.0.0.1:8765/, the address the tests give as the page's URL.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/search/testdata/serp
PAGES=$ROOT/scripts/serp-corpus/pages
BASE=http://127.0.0.1:8765
PORT=${SERP_CORPUS_PORT:-8765}

need() { command -v "$1" >/dev/null || { echo "serp-corpus: $1 is missing (apt-get install $2)" >&2; exit 1; }; }
need omindex xapian-omega
need htdig htdig
need mknmz namazu2-index-tools
need namazu namazu2
need sphinx-build python3-sphinx
need mkdocs mkdocs
need chromium chromium
need npx npm
[ -d /usr/share/doc/postgresql-doc-15/html ] || { echo "serp-corpus: postgresql-doc-15 is missing" >&2; exit 1; }

ONLY=" ${*:-omega htdig namazu sphinx mkdocs pagefind} "
want() { [[ $ONLY == *" $1 "* ]]; }

WORK=$(mktemp -d)
SERVER=
cleanup() {
	[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT

# cgi-body drops the CGI header block.
cgi_body() { sed '1,/^\r\{0,1\}$/d'; }

# urls FILE REGEX prints the first capture group of every match, in order.
urls() { python3 -c 'import re,sys,html
for m in re.finditer(sys.argv[2], open(sys.argv[1], encoding="utf-8", errors="replace").read(), re.S):
    print(html.unescape(m.group(1)))' "$1" "$2"; }

# serve DIR: a static server on $PORT (stops the previous one).
serve() {
	[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
	python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$1" >/dev/null 2>&1 &
	SERVER=$!
	for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/" -o /dev/null && return; sleep 0.1; done
	echo "serp-corpus: static server did not start" >&2
	exit 1
}

# render URL MARKER: the DOM Chromium has once the page's scripts wrote
# MARKER (through browser.Pool.RenderUntil, as the searcher renders).
render() {
	[ -x "$WORK/render" ] || go build -o "$WORK/render" ./scripts/serp-corpus/render
	"$WORK/render" "$1" "$2"
}

# expected: URLs on stdin, fragments dropped, first occurrence kept.
expected() { sed 's/#.*//' | awk '!seen[$0]++'; }

# --- The PostgreSQL slice, for the server-side programs and Pagefind. ---
PG=$WORK/pg
mkdir -p "$PG"
cp /usr/share/doc/postgresql-doc-15/html/{sql-*.html,runtime-config-*.html,routine-vacuuming.html,datatype*.html,stylesheet.css} "$PG/"
{
	echo '<!DOCTYPE html><html lang="en"><head><meta name="robots" content="noindex,follow"><title>Site index</title></head><body>'
	for f in "$PG"/*.html; do echo "<a href=\"$(basename "$f")\">$(basename "$f")</a>"; done
	echo '</body></html>'
} >"$WORK/index.html"
mv "$WORK/index.html" "$PG/index.html"

# Xapian Omega: its default "query" template wraps the whole page in a form
# and lists results in a table. Expected: the same query in FMT=xml.
if want omega; then
echo "serp-corpus: xapian omega"
omindex --db "$WORK/omega-db" --url "$BASE/" "$PG" >/dev/null
printf 'database_dir %s\ntemplate_dir /var/lib/xapian-omega/templates\nlog_dir %s\n' "$WORK" "$WORK" >"$WORK/omega.conf"
omega() {
	OMEGA_CONFIG_FILE=$WORK/omega.conf REQUEST_METHOD=GET SCRIPT_NAME=/cgi-bin/omega \
		QUERY_STRING="$1" /usr/lib/cgi-bin/omega/omega | cgi_body
}
omega 'DB=omega-db&P=vacuum' >"$OUT/omega.html"
omega 'DB=omega-db&P=vacuum&FMT=xml' >"$WORK/omega.xml"
urls "$WORK/omega.xml" '\burl="([^"]+)"' >"$OUT/omega.expected"

fi

# ht://Dig: each result is a <dl> of its own. htsearch takes the query as
# its argument outside a web server. Expected: the <dt> links.
if want htdig; then
echo "serp-corpus: ht://Dig"
mkdir -p "$WORK/htdig-db"
cat >"$WORK/htdig.conf" <<EOF
database_dir: $WORK/htdig-db
start_url: $BASE/
limit_urls_to: \${start_url}
local_urls: $BASE/=$PG/
local_default_doc: index.html
common_dir: /etc/htdig
maintainer: nobody@localhost
max_doc_size: 400000
search_algorithm: exact:1 endings:0.1
EOF
htdig -i -c "$WORK/htdig.conf"
htmerge -c "$WORK/htdig.conf"
/usr/lib/cgi-bin/htsearch -c "$WORK/htdig.conf" 'words=vacuum' | cgi_body >"$OUT/htdig.html"
urls "$OUT/htdig.html" '<dt><strong><a href="([^"]+)"' >"$OUT/htdig.expected"

fi

# Namazu: one <dl>, a <dt> per result and <dd>s after it. Expected: the
# namazu command's URI list for the same query.
if want namazu; then
echo "serp-corpus: namazu"
mkdir -p "$WORK/nmz"
mknmz -O "$WORK/nmz" "$PG" >/dev/null 2>&1
printf 'Index %s\nReplace %s/ %s/\nLang en\n' "$WORK/nmz" "$PG" "$BASE" >"$WORK/namazurc"
NAMAZURC=$WORK/namazurc REQUEST_METHOD=GET SCRIPT_NAME=/cgi-bin/namazu.cgi QUERY_STRING='query=vacuum&max=10' \
	/usr/lib/cgi-bin/namazu.cgi | cgi_body >"$OUT/namazu.html"
NAMAZURC=$WORK/namazurc namazu --list --max=10 vacuum "$WORK/nmz" >"$OUT/namazu.expected"

fi

# --- The small manual, for the static generators. ---

# Sphinx (its own search.html, results rendered by searchtools.js).
if want sphinx; then
echo "serp-corpus: sphinx"
SPH=$WORK/sphinx
mkdir -p "$SPH"
printf 'project = "Kestrel"\nhtml_theme = "alabaster"\n' >"$SPH/conf.py"
for f in "$PAGES"/*.md; do
	python3 - "$f" "$SPH/$(basename "$f" .md).rst" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
title = lines[0].lstrip("# ").strip()
out = [title, "=" * len(title), ""] + lines[1:]
open(sys.argv[2], "w", encoding="utf-8").write("\n".join(out) + "\n")
PY
done
{
	echo; echo '.. toctree::'; echo
	for f in "$PAGES"/*.md; do n=$(basename "$f" .md); [ "$n" = index ] || echo "   $n"; done
} >>"$SPH/index.rst"
sphinx-build -q -b html "$SPH" "$SPH/_build" >/dev/null
serve "$SPH/_build"
render "http://127.0.0.1:$PORT/search.html?q=compaction" "matching the search query" >"$OUT/sphinx.html"
urls "$OUT/sphinx.html" '<ul class="search">(.*?)</ul>' | urls /dev/stdin '<li[^>]*><a href="([^"]+)"' | sed "s#^#$BASE/#" | expected >"$OUT/sphinx.expected"
# A query only one page matches: a results list of one.
render "http://127.0.0.1:$PORT/search.html?q=kestrelctl" "matching the search query" >"$OUT/sphinx_one.html"
urls "$OUT/sphinx_one.html" '<ul class="search">(.*?)</ul>' | urls /dev/stdin '<li[^>]*><a href="([^"]+)"' | sed "s#^#$BASE/#" | expected >"$OUT/sphinx_one.expected"

fi

# MkDocs (search plugin, lunr in a web worker, results in #mkdocs-search-results).
if want mkdocs; then
echo "serp-corpus: mkdocs"
MKD=$WORK/mkdocs
mkdir -p "$MKD/docs"
cp "$PAGES"/*.md "$MKD/docs/"
printf 'site_name: Kestrel\ntheme: readthedocs\nuse_directory_urls: false\nplugins:\n  - search\n' >"$MKD/mkdocs.yml"
(cd "$MKD" && mkdocs build -q)
# The search page and what its scripts load, for the test that renders it
# live (search/serp_corpus_test.go).
rm -rf "$OUT/site/mkdocs"
mkdir -p "$OUT/site/mkdocs/js" "$OUT/site/mkdocs/search"
cp "$MKD/site/search.html" "$MKD/site/cli.html" "$OUT/site/mkdocs/"
cp "$MKD/site/js"/*.js "$OUT/site/mkdocs/js/"
cp "$MKD/site/search"/*.js "$MKD/site/search/search_index.json" "$OUT/site/mkdocs/search/"
serve "$MKD/site"
render "http://127.0.0.1:$PORT/search.html?q=compaction" "<article><h3>" >"$OUT/mkdocs.html"
urls "$OUT/mkdocs.html" '<article><h3><a href="([^"]+)"' | sed "s#^\./#$BASE/#; s#^\([^h]\)#$BASE/\1#" | expected >"$OUT/mkdocs.expected"

fi

# Pagefind (its UI, over the PostgreSQL slice).
if want pagefind; then
echo "serp-corpus: pagefind"
cat >"$PG/search.html" <<'EOF'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Search</title>
<link href="/pagefind/pagefind-ui.css" rel="stylesheet"><script src="/pagefind/pagefind-ui.js"></script></head>
<body data-pagefind-ignore="all"><header><a href="/index.html">PostgreSQL slice</a></header>
<main><h1>Search</h1><div id="search"></div></main>
<script>
window.addEventListener('DOMContentLoaded', () => {
  const ui = new PagefindUI({ element: "#search", showSubResults: false, showImages: false });
  const q = new URLSearchParams(location.search).get("q");
  if (q) ui.triggerSearch(q);
});
</script></body></html>
EOF
npx -y pagefind@1.6.0 --site "$PG" >/dev/null
serve "$PG"
render "http://127.0.0.1:$PORT/search.html?q=vacuum" "pagefind-ui__result-link" >"$OUT/pagefind.html"
urls "$OUT/pagefind.html" '<a class="pagefind-ui__result-link[^"]*" href="([^"]+)"' | sed "s#^/#$BASE/#" | expected >"$OUT/pagefind.expected"

fi

for n in $ONLY; do
	printf 'serp-corpus: %-9s %3d results\n' "$n" "$(grep -c . "$OUT/$n.expected")"
	[ -s "$OUT/$n.expected" ] || { echo "serp-corpus: $n gave no results" >&2; exit 1; }
done
