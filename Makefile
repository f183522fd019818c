# Quarry's everyday commands. The work is done by the scripts in scripts/,
# which install what is missing and find or start Postgres (scripts/env.sh).
#
#   make run       install, provision Postgres, migrate, serve on 127.0.0.1:8080
#   make test      install, provision Postgres, vet, generated-code and tidy checks, go test -race
#   make build     bin/quarry
#   make generate  templ → *_templ.go
#   make lint      go vet, generated code current, gofmt clean, go.mod tidy
#   make bench     Go benchmarks, extraction eval and fetch benchmark
#   make faults    replicas behind nginx, scheduler replicas, each fault x10 (QUARRY_FAULT_REPS); not in make test
#   make load      20 concurrent runs (pool of 4 tabs) and 1,000 SSE viewers
#   make serp-corpus  rerun the search programs that made search/testdata/serp/
#   make db-stop   stop the private Postgres under .data/postgres, if running
#   make clean     remove build and test output (keeps .data/postgres)
#   make distclean clean, stop the private Postgres and remove .data/

SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.DEFAULT_GOAL := help
.PHONY: help run test build generate lint bench faults load serp-corpus db-stop clean distclean

help:
	@sed -n 's/^#   make /  make /p' $(firstword $(MAKEFILE_LIST))

run:
	@scripts/run.sh

test:
	@scripts/test.sh

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o bin/quarry ./cmd/quarry

generate:
	$(GO) tool templ generate

lint:
	$(GO) vet -tags faults,load ./...
	@scripts/check-generated.sh
	@scripts/check-tidy.sh

bench:
	@scripts/bench.sh

faults:
	@scripts/faults.sh faults

load:
	@scripts/faults.sh load

serp-corpus:
	@scripts/serp-corpus.sh

db-stop:
	@scripts/env.sh --stop

clean:
	rm -rf bin/ screenshots/ .data/bench/ .data/test.json
	$(GO) clean -testcache

distclean: clean db-stop
	rm -rf .data/
