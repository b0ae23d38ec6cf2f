@testable import EventLoop
import Testing
import Timekeeping

@Suite("Loop utilization")
struct LoopUtilizationTests {
    static let millisecond: UInt64 = 1_000_000

    @Test func aSpanIsWorkOverElapsedTimeAndANewOneBeginsAtEachReading() {
        var meter = LoopUtilization()
        #expect(meter.read(now: 1_000 * Self.millisecond) { 40 * Self.millisecond } == 0)
        // 200 ms later, 50 of them idle.
        #expect(meter.read(now: 1_200 * Self.millisecond) { 90 * Self.millisecond } == 0.75)
        // The next span starts there: 100 ms, none idle.
        #expect(meter.read(now: 1_300 * Self.millisecond) { 90 * Self.millisecond } == 1)
    }

    @Test func withinTheWindowTheLastFigureStandsAndIdleTimeIsNotRead() {
        var meter = LoopUtilization()
        _ = meter.read(now: 0) { 0 }
        _ = meter.read(now: 100 * Self.millisecond) { 80 * Self.millisecond }
        var reads = 0
        let figure = meter.read(now: 150 * Self.millisecond) {
            reads += 1
            return 80 * Self.millisecond
        }
        #expect(abs(figure - 0.2) < 1e-9)
        #expect(reads == 0)
    }

    @Test func idleTimeBeyondTheSpanCountsAsAllIdle() {
        var meter = LoopUtilization()
        _ = meter.read(now: 0) { 0 }
        #expect(meter.read(now: 100 * Self.millisecond) { 130 * Self.millisecond } == 0)
    }

    /// libuv measures idle time only when the loop was configured for it: a loop that spins in a
    /// job reads saturated, and one that then waits on a timer reads mostly idle.
    @Test func aLoopThatNeverWaitsIsSaturatedAndOneThatWaitsIsNot() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let clock = LoopTimeSource(fallbackLoop: loop)
        let (busy, idle) = try await Task(executorPreference: loop) { () -> (Double, Double) in
            _ = loop.utilization
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .milliseconds(150) {}
            let busy = loop.utilization
            try await clock.sleep(for: .milliseconds(300))
            return (busy, loop.utilization)
        }.value
        #expect(busy >= 0.9)
        #expect(idle < 0.5)
    }
}
