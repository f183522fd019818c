#!/usr/bin/env bash
# run.sh — what `make run` does: install missing Debian packages (chromium,
# wordnet-base, and postgresql unless DATABASE_URL is set), provision Postgres with
# scripts/env.sh, build bin/quarry, apply the migrations and serve on
# QUARRY_ADDR (default 127.0.0.1:8080) until interrupted. A private cluster
# started here is stopped again when the server exits.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

log() { printf 'run: %s\n' "$*" >&2; }
redacted() { sed -E 's#(//[^:/@]+):[^@]*@#\1:***@#; s#\?.*##' <<<"$1"; }

packages=(chromium wordnet-base)
[[ -n ${DATABASE_URL:-} ]] || packages+=(postgresql)
scripts/deps.sh "${packages[@]}"

env_lines=$(scripts/env.sh --db quarry)
eval "$env_lines"
if [[ ${QUARRY_PG_STARTED:-0} == 1 ]]; then
	trap 'scripts/env.sh --stop || true' EXIT
fi

export QUARRY_ADDR=${QUARRY_ADDR:-127.0.0.1:8080}
if [[ -z ${QUARRY_CHROMIUM:-} && -z ${QUARRY_BROWSER_URL:-} && -x /usr/bin/chromium ]]; then
	export QUARRY_CHROMIUM=/usr/bin/chromium
fi

log "building bin/quarry"
version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
go build -ldflags "-X main.version=$version" -o bin/quarry ./cmd/quarry

log "applying migrations"
bin/quarry migrate

host=${QUARRY_ADDR%:*}
port=${QUARRY_ADDR##*:}
case $host in
"" | 0.0.0.0 | "[::]") host=127.0.0.1 ;;
esac
url="http://$host:$port/"

# healthy: true when the server answers /healthz with 200.
healthy() {
	if command -v curl >/dev/null; then
		curl -fsS -o /dev/null --max-time 1 "${url}healthz" 2>/dev/null
		return
	fi
	local line
	exec 3<>"/dev/tcp/$host/$port" || return 1
	printf 'GET /healthz HTTP/1.0\r\nHost: %s\r\n\r\n' "$host:$port" >&3
	read -r -t 1 line <&3 || true
	exec 3<&-
	[[ $line == *" 200 "* ]]
}

bin/quarry serve &
server=$!
# Forward Ctrl-C and SIGTERM to the server, then wait for it to finish its
# graceful shutdown before the EXIT trap stops a private cluster.
trap 'kill -TERM "$server" 2>/dev/null || true' INT TERM

ready=0
for _ in $(seq 1 150); do
	if ! kill -0 "$server" 2>/dev/null; then
		break
	fi
	if healthy 2>/dev/null; then
		ready=1
		break
	fi
	sleep 0.2
done
if [[ $ready == 1 ]]; then
	printf '\n    Quarry is serving at %s   (database: %s)\n    Press Ctrl-C to stop.\n\n' "$url" "$(redacted "$DATABASE_URL")" >&2
else
	log "the server did not answer on ${url}healthz yet; see its log above"
fi

# A signal interrupts wait (status > 128) while the server shuts down
# gracefully; wait again until the server itself has exited, and pass on its
# status.
while true; do
	status=0
	wait "$server" || status=$?
	if [[ $status -le 128 ]] || ! kill -0 "$server" 2>/dev/null; then
		break
	fi
done
if [[ $status -gt 128 ]]; then
	status=0
	wait "$server" || status=$?
fi
exit "$status"
