# The two commands a newcomer needs: `make run` and `make test`. Both install what is missing.
SWIFT ?= swift
SWIFT_BUILD_FLAGS ?=
# What every release build takes (scripts/release-flags: the scripts and the Dockerfile read it too).
RELEASE_BUILD_FLAGS := $(shell cat scripts/release-flags)

.PHONY: run test build release deps clean bench bench-duel bench-counts fleet

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

release: deps
	$(SWIFT) build -c release $(RELEASE_BUILD_FLAGS) $(SWIFT_BUILD_FLAGS)

## Runs the service on :8080 (PORT to change); with no upstream configured it serves a demo catalog.
run: release
	GLIBC_TUNABLES=$${GLIBC_TUNABLES:-glibc.malloc.tcache_count=128} .build/release/product-details

## A local fleet on loopback (scripts/fleet.sh): redis-server, catalog-stub, three replicas sharing
## them and nginx in front, on free 127.0.0.1 ports; prints the URLs; Ctrl-C stops everything.
## CLUSTER=1: on a loopback Redis Cluster (scripts/redis-cluster.sh: six nodes, three masters with
## a replica each) instead of one redis-server, REDIS_URL naming one master.
fleet: deps
	@SWIFT=$(SWIFT) FLEET_CLUSTER=$(CLUSTER) scripts/fleet.sh

## scripts/test.sh, in order: the documents (scripts/docs-check.py: README.md at most 15 KB, no
## link leaving the repository; scripts/check-inlinable.py: no @inlinable that other modules call
## out of line; scripts/check-imports.py: no import of a module the target does not declare),
## every Python script (scripts/python-check.sh: pyflakes), a build with warnings as errors, every
## test (scripts/swift-test.sh: on failure it ends with the issues, a short crash report and the
## tests left running), the running service against openapi.yaml and
## the deploy files (scripts/contract-test.sh), heap allocations per answer against
## Tests/Budgets/allocations.json (Tests/Budgets/budgets.py), the alert rules (promtool test rules) and every
## dashboard, alert and docs query against a real Prometheus scraping the service
## (scripts/prometheus-check.sh), then a short fuzz run (scripts/fuzz.sh). Installs what is
## missing; the Python tools install while the build runs. Each step's time is printed at the end.
test: deps
	SWIFT=$(SWIFT) scripts/test.sh $(SWIFT_BUILD_FLAGS)

## Side-by-side benchmarks against nginx (not part of the tests); BENCH_SECONDS, BENCH_SCENARIOS, BENCH_FLEET_BACKEND=single,cluster (the fleet rows on a loopback Redis Cluster too).
bench:
	@scripts/install-deps.sh wrk nginx-light redis-server
	$(SWIFT) build -c release $(RELEASE_BUILD_FLAGS) $(SWIFT_BUILD_FLAGS)
	python3 bench/bench.py

## Before/after ratio of two builds sharing one core (bench/duel.py): make bench-duel BEFORE=dir AFTER=dir [SCENARIO=hot|healthz|miss|fill|l2] [LOGGED=1]
bench-duel:
	@scripts/install-deps.sh wrk nginx-light redis-server
	python3 bench/duel.py $(BEFORE) $(AFTER) --scenario $(or $(SCENARIO),hot) $(if $(LOGGED),--logged)

## Runtime calls per answer (malloc, swift_retain, swift_task_switch...) counted with uprobes; steady
## where timings are not (bench/counts.py; needs root): make bench-counts [DIR=dir] [SCENARIO=hot|healthz|miss|fill|l2]
bench-counts:
	@scripts/install-deps.sh wrk nginx-light linux-perf redis-server
	$(if $(DIR),,$(SWIFT) build -c release $(RELEASE_BUILD_FLAGS) $(SWIFT_BUILD_FLAGS))
	python3 bench/counts.py $(or $(DIR),.build/release) --scenario $(or $(SCENARIO),hot)

## Heap allocations per answer (healthz, hot, hot-gzip, miss, l2) against Tests/Budgets/allocations.json,
## as `make test` checks them, on the same static release build; UPDATE=1 writes the measured counts.
.PHONY: budgets
budgets: deps
	@scripts/install-deps.sh redis-server gcc libc6-dev
	$(SWIFT) build -c release $(RELEASE_BUILD_FLAGS) --static-swift-stdlib --scratch-path .build/static-contract --product product-details
	$(SWIFT) build -c release $(RELEASE_BUILD_FLAGS) --static-swift-stdlib --scratch-path .build/static-contract --product catalog-stub
	python3 Tests/Budgets/budgets.py --build .build/static-contract/release $(if $(UPDATE),--update)

## Gray-failure scenarios against the release build (bench/gray.py; not part of the tests): upstream
## hangs, slow first calls, healing; one PASS/FAIL row each. Extra service settings: GRAY_ARGS="HEDGE=off".
.PHONY: bench-gray
bench-gray: deps
	$(SWIFT) build -c release $(RELEASE_BUILD_FLAGS) $(SWIFT_BUILD_FLAGS)
	BUILD_DIR=$(or $(BUILD_DIR),.build) python3 bench/gray.py $(GRAY_ARGS)

## Overload against the release build (bench/overload.py, issue 51; not part of the tests): an
## open-loop generator (bench/openloop.c, compiled with gcc) offers uncached pages at 0.5x, 2x and
## 4x an upstream of 16 workers x 20 ms per route, 4x with cached pages beside them, and the first
## pages after a restart with slow first calls; one PASS/FAIL per aim of issue 51.
## BENCH_SECONDS (20), BENCH_WARMUP_SECONDS (5); OVERLOAD_ARGS="--only 2x HEDGE=off".
.PHONY: bench-overload
bench-overload: deps
	@scripts/install-deps.sh gcc libc6-dev
	$(SWIFT) build -c release $(RELEASE_BUILD_FLAGS) $(SWIFT_BUILD_FLAGS)
	BUILD_DIR=$(or $(BUILD_DIR),.build) python3 bench/overload.py $(OVERLOAD_ARGS)

clean:
	rm -rf .build

.PHONY: fuzz test-tsan test-asan

## libFuzzer runs of the HTTP1 and RESP parsers and the JSON decoders (Fuzz/, scripts/fuzz.sh): FUZZ_SECONDS (default 60) per target.
fuzz: deps
	FUZZ_SECONDS=$${FUZZ_SECONDS:-60} scripts/fuzz.sh

## The whole suite under ThreadSanitizer (TSAN_LOCKS=1); fails on any report (scripts/sanitizers.sh).
test-tsan:
	SWIFT=$(SWIFT) scripts/sanitizers.sh thread

## The whole suite under AddressSanitizer and LeakSanitizer; fails on any report (scripts/sanitizers.sh).
test-asan:
	SWIFT=$(SWIFT) scripts/sanitizers.sh address

## Soak (not part of the tests): mixed traffic and scripted upstream faults against the release
## build, failing on RSS growth after warm-up or on errors no fault explains. SOAK_SECONDS (60).
## With SWIFT_BUILD_FLAGS="--scratch-path DIR", also pass BUILD_DIR=DIR.
.PHONY: soak
soak: deps
	$(SWIFT) build -c release $(RELEASE_BUILD_FLAGS) $(SWIFT_BUILD_FLAGS)
	BUILD_DIR=$(or $(BUILD_DIR),.build) python3 scripts/soak.py
