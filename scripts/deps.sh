#!/usr/bin/env bash
# deps.sh PACKAGE... — make sure the Debian packages Quarry needs are
# installed. A package counts as present when dpkg has it installed, or when
# the command Quarry uses from it is already there however it was installed
# (Node.js from nodesource or nvm brings its own npm, and apt refuses
# Debian's npm beside it; a Postgres from the PGDG packages is
# postgresql-17, not postgresql). As root, missing packages are installed
# with apt-get (running `apt-get update` first only when something is
# missing). Otherwise the exact command is printed and the script exits 1 so
# the caller stops.
#
# Also checks for the Go toolchain, which is not installed here (see README).
set -euo pipefail

log() { printf 'deps: %s\n' "$*" >&2; }

if ! command -v go >/dev/null 2>&1; then
	log "the Go toolchain is not on PATH; install Go 1.26 or newer (https://go.dev/dl/) and retry"
	exit 1
fi

# have CMD: CMD is on PATH or in one of the sbin directories a non-root
# PATH may lack.
have() {
	command -v "$1" >/dev/null 2>&1 && return 0
	local dir
	for dir in /usr/sbin /sbin /usr/local/sbin; do
		[[ -x $dir/$1 ]] && return 0
	done
	return 1
}

# provided PACKAGE: what Quarry uses from PACKAGE is already on the machine.
# A package not listed here counts only when dpkg has it.
provided() {
	case $1 in
	chromium) have chromium ;;
	npm) have npm ;;
	nodejs) have node ;;
	nginx) have nginx ;;
	poppler-utils) have pdftotext ;;
	git) have git ;;
	gcc) have gcc ;;
	postgresql)
		# scripts/env.sh and test/faults run initdb and pg_ctl from
		# /usr/lib/postgresql/<version>/bin, and psql from PATH.
		have psql || return 1
		have initdb && return 0
		local bin
		for bin in /usr/lib/postgresql/*/bin/initdb; do
			[[ -x $bin ]] && return 0
		done
		return 1
		;;
	*) return 1 ;;
	esac
}

missing=()
for pkg in "$@"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	if [[ "$status" == "install ok installed" ]] || provided "$pkg"; then
		continue
	fi
	missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
	exit 0
fi

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
	log "missing Debian packages: ${missing[*]}"
	log "install them, then run make again:"
	printf '\n    sudo apt-get update && sudo %s\n\n' "$cmd" >&2
	exit 1
fi

log "installing missing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
log "installed: ${missing[*]}"
