#!/usr/bin/env bash
# Fails when a unit-level test waits on real time or reads the wall clock. The unit level steps
# time by hand (ManualTimeSource, a state machine's `now:`), so its rules hold exactly on a loaded
# host; a real sleep or clock read there brings back the timing windows that used to flake. Tests
# that need a socket or a process (the live level) live elsewhere and may wait.
#
# Usage: scripts/check-clockless-tests.sh        (run by scripts/swift-test.sh, so by `make test`)
set -euo pipefail
cd "$(dirname "$0")/.."

unit_level=(
  Tests/HTTP1Tests
  Tests/ProductDetailsTests
  Tests/TestSupport/CancellableGate.swift
  Tests/TestSupport/CountingObserver.swift
  Tests/TestSupport/FakeCatalog.swift
  Tests/TestSupport/FakeCompressor.swift
  Tests/TestSupport/Finished.swift
  Tests/TestSupport/ServiceHarness.swift
  Tests/MetricsTests
  Tests/FleetTests/Replicas.swift
  Tests/FleetTests/SharedCacheBreakerTests.swift
  Tests/FleetTests/SharedCacheRuleTests.swift
  Tests/FleetTests/SharedDependentInvalidationTests.swift
  Tests/FleetTests/SharedInvalidationLogTests.swift
  Tests/FleetTests/SharedLookWithoutTaskTests.swift
  Tests/FleetTests/SharedLookupMachineTests.swift
  Tests/FleetTests/SharedPageCompressionTests.swift
  Tests/FleetTests/SharedTimeBudgetTests.swift
  Tests/FleetTests/SharedUpstreamLoadCountTests.swift
  Tests/RedisTests/Unit
  Tests/HTTPServerTests/HTTPConnectionStateMachineTests.swift
  Tests/HTTPServerTests/ConnectionMachineDriver.swift
  Tests/HTTPClientTests/ClientConnectionStateMachineTests.swift
  Tests/HTTPClientTests/ConnectionPoolStateMachineTests.swift
  Tests/CatalogStubTests/WorkerPoolTests.swift
)
forbidden='Task\.sleep|usleep|Thread\.sleep|Date\(\)|ContinuousClock\.now|ContinuousClock\(\)\.now|SuspendingClock'

for path in "${unit_level[@]}"; do
  [ -e "$path" ] || { echo "error: $0 lists $path, which is gone: update the list" >&2; exit 1; }
done
if found=$(grep -rnE "$forbidden" "${unit_level[@]}"); then
  echo "error: unit-level tests must not sleep or read the wall clock (Task.sleep, usleep, Date(), ContinuousClock.now):" >&2
  echo "$found" >&2
  echo "Move time by hand instead (ManualTimeSource, or pass now: to the state machine), or move the test to a live suite." >&2
  exit 1
fi
