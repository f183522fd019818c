// Package faults holds Quarry's deployment tests: real `quarry serve`
// processes (built from this tree) on a private Postgres cluster the tests
// start, behind nginx, gathering from a loopback site with headless
// Chromium, while the tests kill replicas, Chromium and Postgres.
//
//	go test ./test/faults                                 the end-to-end security check (part of make test)
//	go test -tags faults ./test/faults                    also replicas behind nginx and each fault once
//	QUARRY_FAULT_REPS=10 go test -tags faults ./test/faults  every fault ten times (make faults)
//	go test -tags load -run Load ./test/faults            20 concurrent runs, 1,000 viewers (make load)
//
// The replica, fault and scheduler suites carry the build tag `faults` and
// the load suite the tag `load`, so that `go test ./...` (make test) runs
// only the quick security check here; they need minutes of real time each.
// It needs the Debian packages postgresql and chromium, and nginx for the
// replica suites.
package faults
