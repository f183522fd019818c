#!/usr/bin/env bash
# deps.sh PACKAGE... — make sure the Debian packages Quarry needs are
# installed. As root, missing packages are installed with apt-get (running
# `apt-get update` first only when something is missing). Otherwise the exact
# command is printed and the script exits 1 so the caller stops.
#
# Also checks for the Go toolchain, which is not installed here (see README).
set -euo pipefail

log() { printf 'deps: %s\n' "$*" >&2; }

if ! command -v go >/dev/null 2>&1; then
	log "the Go toolchain is not on PATH; install Go 1.26 or newer (https://go.dev/dl/) and retry"
	exit 1
fi

missing=()
for pkg in "$@"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	if [[ "$status" != "install ok installed" ]]; then
		missing+=("$pkg")
	fi
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
