#!/usr/bin/env bash
# env.sh — find or start the Postgres that `make run` and `make test` use, and
# print the environment for it as shell lines to eval:
#
#     export DATABASE_URL='postgres://…'
#     export QUARRY_PG_STARTED=1   # 1 when this call started the private cluster
#
# The DATABASE_URL line is also written to .data/env (`. .data/env`).
#
# Order of choice:
#   1. DATABASE_URL, when it is set, is used as it is.
#   2. A Postgres answering on 127.0.0.1:5432 (trust auth assumed, as user
#      postgres, else as the current user); the database is created if missing.
#   3. A private cluster under .data/postgres on a free port, started as the
#      `postgres` system user when running as root (Postgres refuses root).
#
# Usage:
#   scripts/env.sh [--db NAME]    provision (NAME defaults to quarry)
#   scripts/env.sh --stop         stop the private cluster if it runs
#   scripts/env.sh --status       say which private cluster runs, if any
#
# Environment knobs (for testing this script, and for odd machines):
#   QUARRY_PG_PORT_CHECK   port probed in step 2 (default 5432)
#   QUARRY_PG_PRIVATE=1    skip steps 1 and 2, always use the private cluster
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data_dir="$repo/.data"
pg_root="$data_dir/postgres"

log() { printf 'env: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

db_name=quarry
action=provision
while [[ $# -gt 0 ]]; do
	case "$1" in
	--db) db_name=${2:?--db needs a name}; shift 2 ;;
	--db=*) db_name=${1#--db=}; shift ;;
	--stop) action=stop; shift ;;
	--status) action=status; shift ;;
	-h | --help) sed -n '2,27p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument $1 (try --help)" ;;
	esac
done
[[ $db_name =~ ^[a-z_][a-z0-9_]*$ ]] || die "--db: $db_name is not a plain lower-case database name"

# psql_ok URL: true when a query succeeds over URL.
psql_ok() {
	PGCONNECT_TIMEOUT=5 psql "$1" -XtAq -c 'SELECT 1' >/dev/null 2>&1
}

# ensure_database ADMIN_URL NAME: create database NAME unless it exists.
ensure_database() {
	local admin=$1 name=$2 found
	found=$(PGCONNECT_TIMEOUT=5 psql "$admin" -XtAq -c "SELECT 1 FROM pg_database WHERE datname = '$name'")
	if [[ $found != 1 ]]; then
		log "creating database $name"
		PGCONNECT_TIMEOUT=5 psql "$admin" -XtAq -c "CREATE DATABASE \"$name\"" >/dev/null
	fi
}

# emit URL STARTED: print the environment lines and remember them in .data/env.
emit() {
	local quoted=${1//\'/\'\\\'\'}
	mkdir -p "$data_dir"
	printf "export DATABASE_URL='%s'\n" "$quoted" >"$data_dir/env"
	printf "export DATABASE_URL='%s'\n" "$quoted"
	printf "export QUARRY_PG_STARTED=%s\n" "$2"
}

# --- the private cluster ---------------------------------------------------

# set_paths: the cluster's files, through the real directory (.data/postgres
# may be a link to a directory the cluster user can reach).
set_paths() {
	real_root=$pg_root
	if [[ -e $pg_root ]]; then
		real_root=$(readlink -f "$pg_root")
	fi
	pgdata="$real_root/data"
	port_file="$real_root/port"
	log_file="$real_root/postgres.log"
}
set_paths

# pg_bin: the newest installed server binaries.
pg_bin() {
	local dir
	dir=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
	[[ -n $dir && -x $dir/initdb ]] || die "no Postgres server binaries under /usr/lib/postgresql/*/bin (install the Debian package postgresql)"
	printf '%s\n' "$dir"
}

# cluster_user: the OS user that owns and runs the cluster. Root runs it as
# `postgres` (created by the Debian package), or a dedicated system user.
cluster_user() {
	if [[ -d $pgdata ]]; then
		stat -c %U "$pgdata"
		return
	fi
	if [[ $(id -u) -ne 0 ]]; then
		id -un
		return
	fi
	if ! id postgres >/dev/null 2>&1; then
		if ! id quarry-postgres >/dev/null 2>&1; then
			log "creating system user quarry-postgres to run the private cluster"
			useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin quarry-postgres
		fi
		echo quarry-postgres
		return
	fi
	echo postgres
}

# as USER CMD...: run CMD as USER (directly when that is us already).
as() {
	local user=$1
	shift
	if [[ $user == "$(id -un)" ]]; then
		"$@"
	elif [[ $(id -u) -eq 0 ]]; then
		(cd / && runuser -u "$user" -- "$@")
	else
		die "the private cluster in $pg_root belongs to $user; run as $user or root, or remove $pg_root"
	fi
}

port_in_use() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

cluster_running() {
	local user=$1 bin=$2
	[[ -f $pgdata/postmaster.pid ]] && as "$user" "$bin/pg_ctl" -D "$pgdata" status >/dev/null 2>&1
}

# make_root USER: create .data/postgres owned by USER. When USER cannot reach
# the work tree (a home directory closed to others, say), the cluster lives in
# /var/tmp and .data/postgres is a symbolic link to it.
make_root() {
	local user=$1
	mkdir -p "$data_dir"
	if [[ -e $pg_root ]]; then
		return
	fi
	mkdir -p "$pg_root"
	chmod 700 "$pg_root"
	chown "$user:" "$pg_root"
	if ! as "$user" test -w "$pg_root"; then
		rmdir "$pg_root"
		local elsewhere
		elsewhere="/var/tmp/quarry-postgres-$(printf '%s' "$repo" | md5sum | cut -c1-12)"
		log "$user cannot reach $repo; keeping the cluster in $elsewhere (linked from .data/postgres)"
		mkdir -p "$elsewhere"
		chmod 700 "$elsewhere"
		chown "$user:" "$elsewhere"
		ln -s "$elsewhere" "$pg_root"
	fi
}

start_private() {
	local bin user port started=0
	bin=$(pg_bin)
	user=$(cluster_user)
	make_root "$user"
	set_paths

	if [[ ! -f $pgdata/PG_VERSION ]]; then
		log "initialising a private cluster in $pgdata (as $user)"
		as "$user" "$bin/initdb" -D "$pgdata" -U postgres -A trust -E UTF8 --no-locale --no-instructions >"$real_root/initdb.log" 2>&1 ||
			die "initdb failed; see $real_root/initdb.log"
		local sock="$real_root/run"
		as "$user" mkdir -p "$sock"
		# A Unix socket path must fit in 107 bytes; TCP on loopback is all
		# Quarry needs, so a deep work tree just goes without the socket.
		if [[ ${#sock} -gt 90 ]]; then
			sock=""
		fi
		as "$user" tee -a "$pgdata/postgresql.conf" >/dev/null <<-EOF

			# Added by scripts/env.sh: loopback only, trust auth, for development and tests.
			listen_addresses = '127.0.0.1'
			unix_socket_directories = '$sock'
			max_connections = 200
		EOF
	fi

	if cluster_running "$user" "$bin"; then
		port=$(cat "$port_file")
	else
		port=$(cat "$port_file" 2>/dev/null || echo 55432)
		local tries=0
		while port_in_use "$port"; do
			port=$((port + 1))
			tries=$((tries + 1))
			[[ $tries -lt 200 ]] || die "no free port found in 55432-55632"
		done
		as "$user" tee "$port_file" >/dev/null <<<"$port"
		# The server must not inherit the lock (fd 9), or it would hold it forever.
		log "starting the private cluster on 127.0.0.1:$port (log: $log_file)"
		as "$user" "$bin/pg_ctl" -D "$pgdata" -l "$log_file" -w -t 60 -o "-p $port" start >/dev/null 9>&- ||
			{ tail -n 20 "$log_file" >&2 || true; die "the private cluster did not start"; }
		started=1
	fi

	local admin="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
	psql_ok "$admin" || die "the private cluster on port $port does not accept connections; see $log_file"
	ensure_database "$admin" "$db_name"
	emit "postgres://postgres@127.0.0.1:$port/$db_name?sslmode=disable" "$started"
}

stop_private() {
	if [[ ! -f $pgdata/postmaster.pid ]]; then
		log "the private cluster is not running"
		return
	fi
	local bin user
	bin=$(pg_bin)
	user=$(cluster_user)
	log "stopping the private cluster in $pgdata"
	as "$user" "$bin/pg_ctl" -D "$pgdata" -m fast -w -t 30 stop >/dev/null
}

# --- main ------------------------------------------------------------------

case $action in
stop)
	[[ -d $data_dir ]] || exit 0
	exec 9>"$data_dir/postgres.lock"
	flock -w 120 9 || die "another process holds $data_dir/postgres.lock"
	stop_private
	exit 0
	;;
status)
	if [[ -f $pgdata/postmaster.pid ]] && cluster_running "$(cluster_user)" "$(pg_bin)"; then
		echo "private cluster running on 127.0.0.1:$(cat "$port_file") ($pgdata)"
	else
		echo "private cluster not running"
	fi
	exit 0
	;;
esac

if [[ -n ${DATABASE_URL:-} && ${QUARRY_PG_PRIVATE:-} != 1 ]]; then
	log "using DATABASE_URL from the environment"
	emit "$DATABASE_URL" 0
	exit 0
fi

command -v psql >/dev/null || die "psql not found (install the Debian package postgresql)"

probe_port=${QUARRY_PG_PORT_CHECK:-5432}
if [[ ${QUARRY_PG_PRIVATE:-} != 1 ]] && pg_isready -q -h 127.0.0.1 -p "$probe_port" -t 3; then
	for user in postgres "$(id -un)"; do
		admin="postgres://$user@127.0.0.1:$probe_port/postgres?sslmode=disable"
		if psql_ok "$admin"; then
			log "using the Postgres on 127.0.0.1:$probe_port as $user"
			ensure_database "$admin" "$db_name"
			emit "postgres://$user@127.0.0.1:$probe_port/$db_name?sslmode=disable" 0
			exit 0
		fi
	done
	log "a Postgres answers on 127.0.0.1:$probe_port but refuses postgres and $(id -un) without a password; starting a private cluster instead (or set DATABASE_URL)"
fi

mkdir -p "$data_dir"
exec 9>"$data_dir/postgres.lock"
flock -w 120 9 || die "another process holds $data_dir/postgres.lock"
start_private
