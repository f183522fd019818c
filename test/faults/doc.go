// Package faults holds Quarry's deployment tests: real `quarry serve`
// processes (built from this tree) on a private Postgres cluster the tests
// start, behind nginx, gathering from a loopback site with headless
// Chromium, while the tests kill replicas, Chromium and Postgres.
//
//	go test -tags faults ./test/faults                       each suite once: replicas behind nginx, each fault, scheduler replicas, security end to end
//	QUARRY_FAULT_REPS=10 go test -tags faults ./test/faults  every fault ten times (make faults)
//	go test -tags load -run Load ./test/faults               20 concurrent runs, 1,000 viewers (make load)
//
// Every test file carries the build tag `faults` or `load`: the suites need
// minutes of real time and a build of the server of their own, so
// `go test ./...` (make test) leaves them out and make faults runs them.
// They need the Debian packages postgresql, chromium and nginx.
package faults
