// Package faults holds Quarry's deployment tests: real `quarry serve`
// processes (built from this tree) on a private Postgres cluster the tests
// start, behind nginx, gathering from a loopback site with headless
// Chromium, while the tests kill replicas, Chromium and Postgres.
//
//	go test ./test/faults                       the quick versions (part of make test)
//	QUARRY_FAULT_REPS=10 go test ./test/faults  every fault ten times (make faults)
//	go test -tags load -run Load ./test/faults  20 concurrent runs, 1,000 viewers (make load)
//
// It needs the Debian packages postgresql, chromium and nginx.
package faults
