#!/usr/bin/env bash
# Answers benchmark (issue 22): six sources Quarry's other benchmarks do not
# use, each served on loopback behind a real search program by
# bench/docsqa's server, every question run through `quarry research --json`
# with that program's results page as QUARRY_SEARCH_ENGINES=url:…, then
# scored by bench/answers/score.py (facts in the Summary, facts anywhere,
# sentence precision against bench/answers/labels.tsv, words per report).
#
#   bench/answers/run.sh [OUT=/tmp/answers-out] [DEPTH=standard]
#
#   set          questions                       pages (Debian package or testdata)          program
#   apache       bench/answers/apache.tsv        apache2-doc manual/en (module reference)    swishe  (Swish-e, stock swish.cgi)
#   postfix      bench/answers/postfix.tsv       postfix-doc html (postconf.5 reference)     swishpp (swish++ index++/search++)
#   zsh          bench/answers/zsh.tsv           zsh-doc html (texi2html)                    recoll  (Recoll recollindex/recollq)
#   readability  bench/answers/readability.tsv   testdata/readability (saved news/blogs)     swishpp
#   trafilatura  bench/answers/trafilatura.tsv   testdata/trafilatura (saved news/blogs)     swishe
#   postlight    bench/answers/postlight.tsv     testdata/postlight (saved news)             recoll
#   bind         bench/answers/bind.tsv          bind9-doc ARM (held out, then tuned on: see SCORES.md)  htdig
#   exim         bench/answers/exim.tsv          exim4-doc-html spec (held out, then tuned)  omega (Xapian)
#   knot         bench/answers/knot.tsv          knot-doc reference (held out, then tuned) namazu
#   varnish      bench/answers/varnish.tsv       varnish-doc html (held out, one fix)        swishpp
#   rsyslog      bench/answers/rsyslog.tsv       rsyslog-doc html (held out, then tuned)     omega (Xapian)
#   nut          bench/answers/nut.tsv           nut-doc html (held out, never tuned on)     swishe
#   mutt         bench/answers/mutt.tsv          mutt html manual (held out, written 2026-11-26 before any run)      htdig
#   aptitude     bench/answers/aptitude.tsv      aptitude-doc-en html/en (held out, written 2026-11-26 before any run)  omega (Xapian)
#   ntpsec       bench/answers/ntpsec.tsv        ntpsec-doc html (held out, written 2026-11-26 before any run)          recoll
#   debref       bench/answers/debref.tsv        debian-reference-en html (held out, written 2026-11-26 before any run) namazu
#   haproxy      bench/answers/haproxy.tsv      haproxy-doc html (held out, written 2026-11-26 before any run; tuned on from session 11)          namazu
#   proftpd      bench/answers/proftpd.tsv      proftpd-doc html (held out, written 2026-11-26 before any run)          htdig
#   cups         bench/answers/cups.tsv         cups-server-common help pages (held out, written 2026-11-26 before any run; tuned on from session 11)  pagefind (Pagefind UI, JavaScript; npx pagefind)
#   kea          bench/answers/kea.tsv          kea-doc html (held out, written 2026-11-27 before any run; tuned on from session 11)              pagefind
#   vim          bench/answers/vim.tsv          vim-doc html (held out, written 2026-11-27 before any run; tuned on from session 11)              swishpp
#   policy       bench/answers/policy.tsv       debian-policy policy.html (held out, written 2026-11-27 before any run; tuned on from session 11) recoll
#   borg         bench/answers/borg.tsv         borgbackup-doc html (held out, written 2026-11-27 before any run; tuned on from session 12)       omega (Xapian)
#   wireshark    bench/answers/wireshark.tsv    wireshark-doc wsug_html_chunked (held out, written 2026-11-27 before any run; tuned on from session 12)  swishe
#   bash         bench/answers/bash.tsv         bash-doc bashref.html + bash.html (held out, written 2026-11-27 before any run; tuned on from session 13)  namazu
#   bup          bench/answers/bup.tsv          bup-doc man pages html (held out, written 2026-11-27 before any run; tuned on from session 13)    htdig
#   bird         bench/answers/bird.tsv         bird2-doc User's Guide html (held out, written 2026-11-27 before any run; tuned on from session 13)  pagefind
#   cmake        bench/answers/cmake.tsv        cmake-doc html reference (held out, written 2026-11-27; tuned on from session 14)  swishe
#   krb5         bench/answers/krb5.tsv         krb5-doc html (held out, written 2026-11-27; tuned on from session 14)             swishpp
#   valgrind     bench/answers/valgrind.tsv     valgrind html manual (held out, written 2026-11-27; tuned on from session 14)      recoll
#   privoxy      bench/answers/privoxy.tsv      privoxy package's DocBook manuals, config.html reference (held out, written 2026-11-27 before any run; tuned on from session 15)  htdig
#   ffmpeg       bench/answers/ffmpeg.tsv       ffmpeg-doc manual (texi2html, long pages and -all copies; held out, written 2026-11-27 before any run; tuned on from session 15)  omega (Xapian)
#   gnuplot      bench/answers/gnuplot.tsv      gnuplot-doc htmldocs (LaTeX2HTML nodes; held out, written 2026-11-27 before any run; tuned on from session 15)  pagefind
#   octave       bench/answers/octave.tsv       octave-doc octave.html (makeinfo split by node, redirect stubs; held out, written 2026-11-27 before any run; tuned on from session 16)  htdig
#   libvirt      bench/answers/libvirt.tsv      libvirt-doc html (the project's web site, man pages, kbase, API; held out, written 2026-11-27 before any run; tuned on from session 16)  namazu
#   doxygen      bench/answers/doxygen.tsv      doxygen-doc html (Doxygen-rendered manual, example API sites; held out, written 2026-11-27 before any run; tuned on from session 16)  pagefind
#   rustbook     bench/answers/rustbook.tsv     rust-doc html/book (mdBook, print.html, old-edition stubs; held out, written 2026-11-27 before any run; tuned on from session 17)  omega (Xapian)
#   nodejs       bench/answers/nodejs.tsv       nodejs-doc api (Node's doc tool, one page per module, all.html; held out, written 2026-11-27 before any run; tuned on from session 17)  swishe
#   imagemagick  bench/answers/imagemagick.tsv  imagemagick-6-doc html/www (hand-written site, command-line-options.html, Doxygen C API; held out, written 2026-11-27 before any run; tuned on from session 17)  swishpp
#   lua          bench/answers/lua.tsv          lua5.2-doc (the reference manual as one plain page; held out, written 2026-11-27 before any run)  htdig
#   putty        bench/answers/putty.tsv        putty-doc (Halibut, one page per chapter, FAQ appendix; held out, written 2026-11-27 before any run)  pagefind
#   commonslang  bench/answers/commonslang.tsv  libcommons-lang3-java-doc api (javadoc: class, class-use and source pages; held out, written 2026-11-27 before any run)  recoll
#   mkdocs       bench/answers/mkdocs.tsv       mkdocs-doc html (MkDocs site, mkdocs theme, configuration.html; held out, written 2026-11-28 before any run; tuned on from session 19)  omega (Xapian)
#   glib         bench/answers/glib.tsv         libglib2.0-doc gtk-doc/html/glib (GTK-Doc API reference, one page per section; held out, written 2026-11-28 before any run; tuned on from session 19)  swishpp
#   erlang       bench/answers/erlang.tsv       erlang-doc (erl_docgen: system guides, erts, 38 applications; held out, written 2026-11-28 before any run; tuned on from session 19)  namazu
#   qt           bench/answers/qt.tsv           qtbase5-doc-html (qdoc: class pages with one entry per member, members lists, qmake manual; held out, written 2026-11-28 before any run; tuned on from session 20)  swishe
#   boost        bench/answers/boost.tsv        libboost1.74-doc doc/html (BoostBook subset: library chapters, one reference page per class or macro; held out, written 2026-11-28 before any run; tuned on from session 20)  htdig
#   racket       bench/answers/racket.tsv       racket-doc (Scribble: the Reference, the Guide and 121 other manuals; held out, written 2026-11-28 before any run; tuned on from session 20)  pagefind
#   ruststd      bench/answers/ruststd.tsv      rust-doc html/std (rustdoc: one page per struct, fn, trait, macro or module of std; held out, written 2026-11-28 before any run; tuned on from session 21)  omega (Xapian)
#   ghcbase      bench/answers/ghcbase.tsv      ghc-doc libraries/base-4.15.1.0 (Haddock: one page per module of base, HsColour sources; held out, written 2026-11-28 before any run; tuned on from session 21)  recoll
#   gap          bench/answers/gap.tsv          gap-doc /usr/share/gap/doc (GAPDoc: Reference, Tutorial and HPC-GAP books, one page per chapter; held out, written 2026-11-28 before any run; tuned on from session 21)  swishpp
#   cppreference bench/answers/cppreference.tsv cppreference-doc-en-html (MediaWiki: the cppreference.com offline archive, one page per class, member or topic; held out, written 2026-11-28 before any run; tuned on from session 22)  groonga (bench/answers/groonga.py)
#   gtk4         bench/answers/gtk4.tsv         libgtk-4-doc gtk4 (gi-docgen: one page per method, property, signal or class, prose guides; held out, written 2026-11-28 before any run; tuned on from session 22)  groonga (bench/answers/groonga.py)
#   swipl        bench/answers/swipl.tsv        swi-prolog-doc (SWI-Prolog's own latex2html, PlDoc library sections: one page per manual section, one per package; held out, written 2026-11-28 before any run)  whoosh (bench/answers/fts.py)
#   yard         bench/answers/yard.tsv         yard-doc (YARD: one page per class or module, guides as file.*.html; held out, written 2026-11-28 before any run)  fts5, SQLite FTS5 (bench/answers/fts.py)
#   tioga        bench/answers/tioga.tsv        ruby-tioga-doc rdoc (RDoc Darkfish: one page per reference class, tutorial modules; held out, written 2026-11-28 before any run)  sphinxsearch, Sphinx search (bench/answers/fts.py)
#   nim          bench/answers/nim.tsv          nim-doc html (Nim's docgen: one page per stdlib module, the manual, tutorials and guides; held out, written 2026-11-28 before any run)  pgfts, PostgreSQL full-text search (bench/answers/fts.py)
#   fpc          bench/answers/fpc.tsv          fp-docs-3.2.2 (fpdoc: one page per RTL/FCL identifier; HeVeA: the user's, programmer's and language manuals as one page each; held out, written 2026-11-28 before any run; tuned on from session 28)  mariadb, MariaDB full-text search (bench/answers/fts.py)
#   crystal      bench/answers/crystal.tsv      crystal-doc api-docs (Crystal Docs: one page per type of the standard library, every page a sidebar of all types; held out, written 2026-11-28 before any run; tuned on from session 28)  lunr, lunr.js under node (bench/answers/fts.py, bench/answers/lunr.js)
#   weechat      bench/answers/weechat.tsv      weechat-doc html (Asciidoctor: seven long documents, user's guide, FAQ, scripting, plugin API …, each in several languages; held out, written 2026-11-29 before any run)  sphinxsearch, Sphinx search (bench/answers/fts.py)
#   exiftool     bench/answers/exiftool.tsv     libimage-exiftool-perl html (BuildTagLookup tag tables, pod2html application page, hand-written FAQ and guides; held out, written 2026-11-29 before any run)  fts5, SQLite FTS5 (bench/answers/fts.py)
#
# Environment: SET=<name> runs one set (SET="a b" several); JOBS=3 runs that many sets at once
# (each with its own server; questions within a set run one at a time);
# DATABASE_URL (default the local trust-auth Postgres), QUARRY_CHROMIUM
# (default /usr/bin/chromium). Reports stay in OUT/<set>/NN.json (NN.log
# beside it); OUT/times.txt records how long each question and the whole
# run took. Rescore with `python3 bench/answers/score.py OUT`.
#
# The groonga sets are served by bench/answers/groonga.py (Groonga's own
# HTTP server behind a results page), the whoosh, fts5, sphinxsearch,
# pgfts, lunr and mariadb sets by bench/answers/fts.py (Whoosh, SQLite
# FTS5, Sphinx's searchd, PostgreSQL full-text search on $DATABASE_URL's
# server, lunr.js run by node through bench/answers/lunr.js, a private
# mariadbd); both take docsqa's flags.
#
# Missing Debian packages are installed by scripts/deps.sh when run as
# root, otherwise it prints the apt-get command to run.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-/tmp/answers-out}
DEPTH=${2:-standard}
export DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
export QUARRY_CHROMIUM=${QUARRY_CHROMIUM:-/usr/bin/chromium}
JOBS=${JOBS:-3}

scripts/deps.sh swish-e libcgi-pm-perl libhtml-parser-perl swish++ recollcmd \
	apache2-doc postfix-doc zsh-doc bind9-doc htdig exim4-doc-html xapian-omega knot-doc varnish-doc rsyslog-doc nut-doc mutt aptitude-doc-en ntpsec-doc debian-reference-en haproxy-doc proftpd-doc cups-server-common kea-doc vim-doc debian-policy borgbackup-doc wireshark-doc bash-doc bup-doc bird2-doc cmake-doc krb5-doc valgrind privoxy ffmpeg-doc gnuplot-doc octave-doc libvirt-doc doxygen-doc rust-doc nodejs-doc imagemagick-6-doc lua5.2-doc putty-doc libcommons-lang3-java-doc mkdocs-doc libglib2.0-doc erlang-doc qtbase5-doc-html libboost1.74-doc racket-doc ghc-doc gap-doc cppreference-doc-en-html libgtk-4-doc groonga-bin swi-prolog-doc yard-doc python3-whoosh ruby-tioga-doc nim-doc sphinxsearch python3-pymysql python3-psycopg2 fp-docs-3.2.2 mariadb-server crystal-doc nodejs node-lunr npm weechat-doc libimage-exiftool-perl namazu2 namazu2-index-tools chromium wordnet-base python3

# name questions pages program
SETS=(
	"apache bench/answers/apache.tsv /usr/share/doc/apache2-doc/manual/en swishe"
	"postfix bench/answers/postfix.tsv /usr/share/doc/postfix/html swishpp"
	"zsh bench/answers/zsh.tsv /usr/share/doc/zsh-common/html recoll"
	"readability bench/answers/readability.tsv bench/answers/testdata/readability swishpp"
	"trafilatura bench/answers/trafilatura.tsv bench/answers/testdata/trafilatura swishe"
	"postlight bench/answers/postlight.tsv bench/answers/testdata/postlight recoll"
	"bind bench/answers/bind.tsv /usr/share/doc/bind9-doc/arm htdig"
	"exim bench/answers/exim.tsv /usr/share/doc/exim4-doc-html/spec_html omega"
	"knot bench/answers/knot.tsv /usr/share/doc/knot-doc namazu"
	"varnish bench/answers/varnish.tsv /usr/share/doc/varnish/html swishpp"
	"rsyslog bench/answers/rsyslog.tsv /usr/share/doc/rsyslog-doc/html omega"
	"nut bench/answers/nut.tsv /usr/share/doc/nut-doc/html swishe"
	"mutt bench/answers/mutt.tsv /usr/share/doc/mutt/html htdig"
	"aptitude bench/answers/aptitude.tsv /usr/share/doc/aptitude/html/en omega"
	"ntpsec bench/answers/ntpsec.tsv /usr/share/doc/ntpsec-doc/html recoll"
	"debref bench/answers/debref.tsv /usr/share/debian-reference namazu"
	"haproxy bench/answers/haproxy.tsv /usr/share/doc/haproxy/html namazu"
	"proftpd bench/answers/proftpd.tsv /usr/share/doc/proftpd-doc htdig"
	"cups bench/answers/cups.tsv /usr/share/cups/doc-root/help pagefind"
	"kea bench/answers/kea.tsv /usr/share/doc/kea/html pagefind"
	"vim bench/answers/vim.tsv /usr/share/doc/vim/html swishpp"
	"policy bench/answers/policy.tsv /usr/share/doc/debian-policy/policy.html recoll"
	"borg bench/answers/borg.tsv /usr/share/doc/borgbackup/html omega"
	"wireshark bench/answers/wireshark.tsv /usr/share/doc/wireshark/wsug_html_chunked swishe"
	"bash bench/answers/bash.tsv /usr/share/doc/bash namazu"
	"bup bench/answers/bup.tsv /usr/share/doc/bup htdig"
	"bird bench/answers/bird.tsv /usr/share/doc/bird2 pagefind"
	"cmake bench/answers/cmake.tsv /usr/share/doc/cmake-doc/html swishe"
	"krb5 bench/answers/krb5.tsv /usr/share/doc/krb5-doc swishpp"
	"valgrind bench/answers/valgrind.tsv /usr/share/doc/valgrind/html recoll"
	"privoxy bench/answers/privoxy.tsv /usr/share/doc/privoxy htdig"
	"ffmpeg bench/answers/ffmpeg.tsv /usr/share/doc/ffmpeg/manual omega"
	"gnuplot bench/answers/gnuplot.tsv /usr/share/doc/gnuplot/htmldocs pagefind"
	"octave bench/answers/octave.tsv /usr/share/doc/octave/octave.html htdig"
	"libvirt bench/answers/libvirt.tsv /usr/share/doc/libvirt-doc/html namazu"
	"doxygen bench/answers/doxygen.tsv /usr/share/doc/doxygen/html pagefind"
	"rustbook bench/answers/rustbook.tsv /usr/share/doc/rust-doc/html/book omega"
	"nodejs bench/answers/nodejs.tsv /usr/share/doc/nodejs/api swishe"
	"imagemagick bench/answers/imagemagick.tsv /usr/share/doc/imagemagick-6-common/html/www swishpp"
	"lua bench/answers/lua.tsv /usr/share/doc/lua5.2 htdig"
	"putty bench/answers/putty.tsv /usr/share/doc/putty-doc pagefind"
	"commonslang bench/answers/commonslang.tsv /usr/share/doc/libcommons-lang3-java/api recoll"
	"mkdocs bench/answers/mkdocs.tsv /usr/share/doc/mkdocs/html omega"
	"glib bench/answers/glib.tsv /usr/share/gtk-doc/html/glib swishpp"
	"erlang bench/answers/erlang.tsv /usr/share/doc/erlang-doc namazu"
	"qt bench/answers/qt.tsv /usr/share/qt5/doc swishe"
	"boost bench/answers/boost.tsv /usr/share/doc/libboost1.74-doc/doc/html htdig"
	"racket bench/answers/racket.tsv /usr/share/doc/racket pagefind"
	"ruststd bench/answers/ruststd.tsv /usr/share/doc/rust-doc/html/std omega"
	"ghcbase bench/answers/ghcbase.tsv /usr/share/doc/ghc-doc/html/libraries/base-4.15.1.0 recoll"
	"gap bench/answers/gap.tsv /usr/share/gap/doc swishpp"
	"cppreference bench/answers/cppreference.tsv /usr/share/cppreference/doc/html groonga"
	"gtk4 bench/answers/gtk4.tsv /usr/share/doc/libgtk-4-doc/gtk4 groonga"
	"swipl bench/answers/swipl.tsv /usr/share/swi-prolog/doc whoosh"
	"yard bench/answers/yard.tsv /usr/share/doc/yard/doc fts5"
	"tioga bench/answers/tioga.tsv /usr/share/doc/ruby-tioga-doc/rdoc sphinxsearch"
	"nim bench/answers/nim.tsv /usr/share/doc/nim/html pgfts"
	"fpc bench/answers/fpc.tsv /usr/share/doc/fp-docs/3.2.2 mariadb"
	"crystal bench/answers/crystal.tsv /usr/share/doc/crystal/api-docs lunr"
	"weechat bench/answers/weechat.tsv /usr/share/doc/weechat-doc/html sphinxsearch"
	"exiftool bench/answers/exiftool.tsv /usr/share/doc/libimage-exiftool-perl/html fts5"
)
chosen=()
for s in "${SETS[@]}"; do
	read -r name _ <<<"$s"
	if [ -z "${SET:-}" ] || [[ " $SET " == *" $name "* ]]; then chosen+=("$s"); fi
done
if [ ${#chosen[@]} -eq 0 ]; then
	echo "run.sh: unknown SET=$SET" >&2
	exit 2
fi

mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'for p in "$tmp"/*.pid; do [ -e "$p" ] && kill "$(cat "$p")" 2>/dev/null; done; rm -rf "$tmp"' EXIT
go build -o "$tmp/quarry" ./cmd/quarry
go build -o "$tmp/docsqa" ./bench/docsqa
git log -1 --format='commit %H %s' >"$OUT/commit.txt" 2>/dev/null || true

# server PROGRAM: the command that indexes and serves a tree behind
# PROGRAM (bench/docsqa's flags either way).
server() {
	case $1 in
	groonga) echo python3 bench/answers/groonga.py ;;
	whoosh | fts5 | sphinxsearch | pgfts | lunr | mariadb) echo python3 bench/answers/fts.py ;;
	*) echo "$tmp/docsqa" ;;
	esac
}

# Build every index first, one at a time, so a broken program stops the
# run before any question is asked.
for s in "${chosen[@]}"; do
	read -r name qs docs program <<<"$s"
	if [ ! -d "$docs" ]; then
		echo "run.sh: $docs is missing" >&2
		exit 1
	fi
	$(server "$program") -engine "$program" -dir "$docs" -index-only
done

# run_set serves one source behind its program and asks its questions.
run_set() {
	local name=$1 qs=$2 docs=$3 program=$4
	local out=$OUT/$name
	mkdir -p "$out"
	$(server "$program") -engine "$program" -dir "$docs" -addr-file "$tmp/$name.addr" \
		-template-file "$tmp/$name.template" 2>"$out/serve.log" &
	echo $! >"$tmp/$name.pid"
	for _ in $(seq 600); do [ -s "$tmp/$name.template" ] && break; sleep 0.1; done
	if [ ! -s "$tmp/$name.template" ]; then
		echo "run.sh: $name: the $program server did not start:" >&2
		cat "$out/serve.log" >&2
		return 1
	fi
	local n=0 kind question f start
	while IFS=$'\t' read -r kind question _; do
		n=$((n + 1))
		case $kind in '#excluded'*) continue ;; esac
		f=$(printf '%s/%02d.json' "$out" "$n")
		start=$(date +%s)
		QUARRY_ALLOW_HOSTS=$(cat "$tmp/$name.addr") QUARRY_SEARCH_ENGINES="url:$(cat "$tmp/$name.template")" \
			"$tmp/quarry" research --depth "$DEPTH" --json "$question" </dev/null >"$f" 2>"${f%.json}.log" || true
		echo "$name $n $(( $(date +%s) - start ))s $question" | tee -a "$OUT/times.txt" >&2
	done < <(awk '!/^[[:space:]]*$/ && (!/^#/ || /^#excluded/)' "$qs")
	kill "$(cat "$tmp/$name.pid")" 2>/dev/null || true
	rm -f "$tmp/$name.pid"
}

begin=$(date +%s)
running=0
for s in "${chosen[@]}"; do
	read -r name qs docs program <<<"$s"
	run_set "$name" "$qs" "$docs" "$program" &
	running=$((running + 1))
	if [ "$running" -ge "$JOBS" ]; then
		wait -n || true
		running=$((running - 1))
	fi
done
wait
echo "run took $(( $(date +%s) - begin ))s with JOBS=$JOBS" | tee -a "$OUT/times.txt" >&2

python3 bench/answers/score.py "$OUT"
