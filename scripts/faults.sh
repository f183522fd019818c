#!/usr/bin/env bash
# faults.sh faults|load — the deployment suites of test/faults, which
# `make test` leaves out (their files carry the build tags faults and load):
#   faults   two replicas behind nginx, the end-to-end security check, then
#            every fault (SIGKILL of the server mid-gather and
#            mid-synthesis, Chromium killed, Postgres restarted, scheduler
#            replicas killed) QUARRY_FAULT_REPS times (default 10)
#   load     20 concurrent standard runs on a pool of 4 tabs, and 1,000 SSE
#            viewers of one run (build tag `load`)
# The tests start their own Postgres cluster, nginx and quarry processes on
# loopback; the figures are printed at the end (lines with FIGURES) and the
# whole log is kept in .data/<suite>.log.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
suite=${1:?usage: scripts/faults.sh faults|load}

scripts/deps.sh chromium postgresql nginx
mkdir -p .data
log=.data/$suite.log
case $suite in
faults)
	export QUARRY_FAULT_REPS=${QUARRY_FAULT_REPS:-10}
	echo "==> go test -tags faults ./test/faults (QUARRY_FAULT_REPS=$QUARRY_FAULT_REPS)"
	set +e
	go test -tags faults -count=1 -v -timeout 120m -run 'TestReplicas|TestSecurity|TestFault' ./test/faults 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	;;
load)
	echo "==> go test -tags load ./test/faults"
	set +e
	go test -tags load -count=1 -v -timeout 60m -run 'TestLoad' ./test/faults 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	;;
*)
	echo "usage: scripts/faults.sh faults|load" >&2
	exit 2
	;;
esac
set -e
echo
echo "==> figures"
grep -h 'FIGURES' "$log" | sed 's/^ *[a-z_]*\.go:[0-9]*: /    /' || true
passed=$(grep -c -- '^--- PASS' "$log" || true)
failed=$(grep -c -- '^--- FAIL' "$log" || true)
echo "$suite: $passed passed, $failed failed"
exit "$status"
