#!/usr/bin/env bash
# Replays a benchmark run's reports from its fetched pages with the
# current engine, then scores them (see main.go).
#
#   bench/replay/run.sh answers|docsqa IN OUT
set -euo pipefail
cd "$(dirname "$0")/../.."
bench=$1 in=$2 out=$3
mkdir -p "$out"
case $bench in
answers)
	for set in apache postfix zsh readability trafilatura postlight bind exim knot varnish rsyslog nut mutt aptitude ntpsec debref haproxy proftpd cups kea vim policy borg wireshark bash bup bird cmake krb5 valgrind privoxy ffmpeg gnuplot octave libvirt doxygen rustbook nodejs imagemagick lua putty commonslang mkdocs glib erlang qt boost racket ruststd ghcbase gap cppreference gtk4 swipl yard tioga nim fpc crystal weechat exiftool; do
		[ -d "$in/$set" ] || continue
		awk -F'\t' -v set="$set" -v src="$in" -v out="$out" '
			/^[[:space:]]*$/ { next }
			/^#/ && !/^#excluded/ { next }
			{ n++ }
			/^#excluded/ { next }
			{ printf "%s\t%s/%s/%02d.json\t%s/%s/%02d.json\n", $2, src, set, n, out, set, n }' "bench/answers/$set.tsv"
	done | go run ./bench/replay
	python3 bench/answers/score.py "$out"
	;;
docsqa)
	for s in "postgres questions" "python python" "git git" "sqlite sqlite"; do
		read -r set file <<<"$s"
		[ -d "$in/$set" ] || continue
		grep -v '^#' "bench/docsqa/$file.tsv" | grep -v '^[[:space:]]*$' |
			awk -F'\t' -v set="$set" -v src="$in" -v out="$out" '
				{ n++; printf "%s\t%s/%s/%02d.json\t%s/%s/%02d.json\n", $1, src, set, n, out, set, n }'
	done | go run ./bench/replay
	for s in "postgres questions" "python python" "git git" "sqlite sqlite"; do
		read -r set file <<<"$s"
		[ -d "$out/$set" ] || continue
		printf '%s: ' "$set"
		python3 bench/docsqa/score.py "bench/docsqa/$file.tsv" "$out/$set" | tail -1
	done
	;;
*)
	echo "usage: bench/replay/run.sh answers|docsqa IN OUT" >&2
	exit 2
	;;
esac
