import PureTestSupport
import Testing
import Timekeeping
@testable import CatalogStub

/// The shell around the worker pool, on a manual clock: handlers park until their service
/// ends, a cancelled one returns at once while its work goes on, and the timers chain.
@Suite struct RouteWorkersTests {
    @Test func waitersAnswerInTurnAndALeaverReturnsAtOnceWhileItsWorkGoesOn() async {
        let clock = ManualTimeSource()
        let workers = RouteWorkers(workers: 1, serviceTime: .milliseconds(20), time: clock)
        // One at a time, so the arrival order is known.
        let first = Task { await workers.serve() }
        await eventually { workers.stats().busy == 1 }
        let second = Task { await workers.serve() }
        await eventually { workers.stats().queued == 1 }
        let third = Task { await workers.serve() }
        await eventually { workers.stats().queued == 2 }
        #expect(clock.scheduledCount == 1)

        third.cancel()
        #expect(await third.value == false)
        // It keeps its turn.
        #expect(workers.stats() == StubWorkerStats(workers: 1, busy: 1, queued: 2))

        clock.advance(by: .milliseconds(20))
        #expect(await first.value == true)
        #expect(workers.stats() == StubWorkerStats(workers: 1, busy: 1, queued: 1, served: 1))
        clock.advance(by: .milliseconds(20))
        #expect(await second.value == true)
        // The third's worker is busy for nobody until 60 ms.
        #expect(workers.stats() == StubWorkerStats(workers: 1, busy: 1, queued: 0, served: 2))
        clock.advance(by: .milliseconds(19))
        #expect(workers.stats().busy == 1)
        clock.advance(by: .milliseconds(1))
        #expect(workers.stats() == StubWorkerStats(workers: 1, busy: 0, queued: 0, served: 3, servedForGone: 1))
        #expect(clock.scheduledCount == 0)
    }

    @Test func aCallerLeavingDuringItsServiceIsCountedAtItsEnd() async {
        let clock = ManualTimeSource()
        let workers = RouteWorkers(workers: 2, serviceTime: .milliseconds(20), time: clock)
        let leaving = Task { await workers.serve() }
        await eventually { workers.stats().busy == 1 }
        leaving.cancel()
        #expect(await leaving.value == false)
        #expect(workers.stats().servedForGone == 0)
        clock.advance(by: .milliseconds(20))
        #expect(workers.stats() == StubWorkerStats(workers: 2, served: 1, servedForGone: 1))
    }

    @Test func aZeroServiceTimeAnswersBeforeTheHandlerWaits() async {
        // A manual clock runs a timer of zero at once, inside `serve`, before its handler parks.
        let clock = ManualTimeSource()
        let workers = RouteWorkers(workers: 0, serviceTime: .zero, time: clock)
        for _ in 0..<3 {
            #expect(await workers.serve() == true)
        }
        #expect(workers.stats() == StubWorkerStats(workers: 0, served: 3))
        workers.resetCounts()
        #expect(workers.stats() == StubWorkerStats())
    }

    @Test func anAlreadyCancelledCallerStillQueuesItsWork() async {
        let clock = ManualTimeSource()
        let workers = RouteWorkers(workers: 1, serviceTime: .milliseconds(5), time: clock)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await workers.serve()
        }
        #expect(await task.value == false)
        #expect(workers.stats() == StubWorkerStats(workers: 1, busy: 1))
        clock.advance(by: .milliseconds(5))
        #expect(workers.stats() == StubWorkerStats(workers: 1, served: 1, servedForGone: 1))
    }
}
