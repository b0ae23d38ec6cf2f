import Dispatch
import Locking
@testable import ProductDetails
import PureTestSupport
import Synchronization
import TestSupport
import Testing

/// A load the test drives by hand: each start is counted and waits at a fresh gate.
final class ScriptedLoads: Sendable {
    private let gates = Locked<[CancellableGate]>([])
    let cancellations = Recorder<Int>()

    var started: Int { gates.withLock { $0.count } }

    func gate(_ index: Int) -> CancellableGate { gates.withLock { $0[index] } }

    /// A load returning `value` (or throwing `failure`) once its gate opens.
    func load(_ value: String, failure: (any Error)? = nil) -> @Sendable () async throws -> String {
        { [self] in
            let gate = CancellableGate()
            let index = gates.withLock { gates in
                gates.append(gate)
                return gates.count - 1
            }
            do {
                try await gate.wait()
            } catch {
                cancellations.append(index)
                throw error
            }
            if let failure { throw failure }
            return value
        }
    }

    func waitForStarts(_ count: Int) async {
        await eventually { self.started >= count }
        await gate(count - 1).waitForWaiters(1)
    }
}

struct LoadFailed: Error, Equatable {}

struct InFlightLoadsTests {
    let events = RecordingEvents()
    let loads = ScriptedLoads()

    func table(maxLoads: Int = .max) -> InFlightLoads<String, String> {
        InFlightLoads(maxLoads: maxLoads, events: events)
    }

    @Test func twoCallersShareOneLoadAndTheSecondIsCollapsed() async throws {
        let table = table()
        let first = Task { try await table.value(for: "k", load: loads.load("one")) }
        await loads.waitForStarts(1)
        let second = Task { try await table.value(for: "k", load: loads.load("two")) }
        await eventually { events.count("coalesced") == 1 }
        #expect(table.count == 1)
        loads.gate(0).open()
        let (firstValue, firstCollapsed) = try await first.value
        let (secondValue, secondCollapsed) = try await second.value
        #expect(firstValue == "one" && !firstCollapsed)
        #expect(secondValue == "one" && secondCollapsed)
        #expect(loads.started == 1)
        #expect(events.all == ["loadStarted", "coalesced", "loadFinished"])
    }

    @Test func aCancelledWaiterLeavesAtOnceAndTheOthersStillGetTheAnswer() async throws {
        let table = table()
        let leaving = Task { try await table.value(for: "k", load: loads.load("v")) }
        await loads.waitForStarts(1)
        let staying = Task { try await table.value(for: "k", load: loads.load("unused")) }
        await eventually { events.count("coalesced") == 1 }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(loads.cancellations.values.isEmpty)
        #expect(table.count == 1)
        loads.gate(0).open()
        #expect(try await staying.value.value == "v")
        #expect(events.count("loadCancelled") == 0)
    }

    @Test func theLastWaiterLeavingCancelsTheLoad() async {
        let table = table()
        let only = Task { try await table.value(for: "k", load: loads.load("v")) }
        await loads.waitForStarts(1)
        only.cancel()
        await #expect(throws: CancellationError.self) { try await only.value }
        await eventually { loads.cancellations.values == [0] }
        #expect(table.count == 0)
        #expect(events.count("loadCancelled") == 1)
        #expect(!table.isJoinable("k"))
    }

    @Test func anAlreadyCancelledCallerStartsNothing() async {
        let table = table()
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await table.value(for: "k", load: loads.load("v"))
        }
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(table.count == 0)
        #expect(events.all.isEmpty)
    }

    @Test func completionRemovesTheEntrySoTheNextCallLoadsAgain() async throws {
        let table = table()
        let first = Task { try await table.value(for: "k", load: loads.load("one")) }
        await loads.waitForStarts(1)
        loads.gate(0).open()
        #expect(try await first.value.value == "one")
        #expect(table.count == 0)
        let second = Task { try await table.value(for: "k", load: loads.load("two")) }
        await loads.waitForStarts(2)
        loads.gate(1).open()
        #expect(try await second.value == ("two", false))
    }

    @Test func aFailureReachesEveryWaiterAndIsNotRemembered() async throws {
        let table = table()
        let first = Task { try await table.value(for: "k", load: loads.load("x", failure: LoadFailed())) }
        await loads.waitForStarts(1)
        let second = Task { try await table.value(for: "k", load: loads.load("unused")) }
        await eventually { events.count("coalesced") == 1 }
        loads.gate(0).open()
        await #expect(throws: LoadFailed.self) { try await first.value }
        await #expect(throws: LoadFailed.self) { try await second.value }
        #expect(table.count == 0)
        let third = Task { try await table.value(for: "k", load: loads.load("ok")) }
        await loads.waitForStarts(2)
        loads.gate(1).open()
        #expect(try await third.value.value == "ok")
    }

    @Test func detachedLoadsAnswerTheirWaitersButNobodyJoinsThem() async throws {
        let table = table()
        let before = Task { try await table.value(for: "k", load: loads.load("old")) }
        await loads.waitForStarts(1)
        await table.detach("k")
        let after = Task { try await table.value(for: "k", load: loads.load("new")) }
        await loads.waitForStarts(2)
        #expect(table.count == 2)
        loads.gate(1).open()
        loads.gate(0).open()
        #expect(try await before.value == ("old", false))
        #expect(try await after.value == ("new", false))
        #expect(events.count("coalesced") == 0)
    }

    @Test func detachAllAffectsEveryKey() async throws {
        let table = table()
        let a = Task { try await table.value(for: "a", load: loads.load("a")) }
        await loads.waitForStarts(1)
        let b = Task { try await table.value(for: "b", load: loads.load("b")) }
        await loads.waitForStarts(2)
        await table.detachAll()
        #expect(!table.isJoinable("a"))
        #expect(!table.isJoinable("b"))
        loads.gate(0).open()
        loads.gate(1).open()
        _ = try await (a.value, b.value)
        #expect(table.count == 0)
    }

    @Test func aNonJoiningCallerStartsAFreshLoadThatLaterCallersJoin() async throws {
        let table = table()
        let old = Task { try await table.value(for: "k", load: loads.load("old")) }
        await loads.waitForStarts(1)
        let fresh = Task { try await table.value(for: "k", joinable: false, load: loads.load("fresh")) }
        await loads.waitForStarts(2)
        let later = Task { try await table.value(for: "k", load: loads.load("unused")) }
        await eventually { events.count("coalesced") == 1 }
        loads.gate(1).open()
        #expect(try await fresh.value == ("fresh", false))
        #expect(try await later.value == ("fresh", true))
        loads.gate(0).open()
        #expect(try await old.value == ("old", false))
    }

    @Test func beyondMaxLoadsNewLoadsFailFastButJoiningStillWorks() async throws {
        let table = table(maxLoads: 1)
        let running = Task { try await table.value(for: "a", load: loads.load("a")) }
        await loads.waitForStarts(1)
        await #expect(throws: InFlightLoadsOverloaded(limit: 1)) {
            try await table.value(for: "b", load: loads.load("b"))
        }
        let joiner = Task { try await table.value(for: "a", load: loads.load("unused")) }
        await eventually { events.count("coalesced") == 1 }
        loads.gate(0).open()
        #expect(try await running.value.value == "a")
        #expect(try await joiner.value == ("a", true))
    }

    @Test func aBackgroundLoadIsStartedOnceAndSurvivesItsWaitersLeaving() async throws {
        let table = table()
        #expect(await table.startBackgroundLoad(for: "k", load: loads.load("refreshed")))
        #expect(!(await table.startBackgroundLoad(for: "k", load: loads.load("second"))))
        await loads.waitForStarts(1)
        let joiner = Task { try await table.value(for: "k", load: loads.load("unused")) }
        await eventually { events.count("coalesced") == 1 }
        joiner.cancel()
        await #expect(throws: CancellationError.self) { try await joiner.value }
        #expect(table.count == 1)
        loads.gate(0).open()
        await eventually { table.count == 0 }
        #expect(loads.cancellations.values.isEmpty)
        #expect(loads.started == 1)
    }

    @Test func theLoadRunsOnTheFirstCallersExecutor() async throws {
        let executor = CountingExecutor()
        let table = table()
        let (value, _) = try await table.value(for: "k", executor: executor) {
            "ran"
        }
        #expect(value == "ran")
        #expect(executor.jobs >= 1)
    }
}

/// A task executor that runs jobs on a dispatch queue and counts them.
final class CountingExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "counting-executor")
    private let count = Atomic<Int>(0)

    var jobs: Int { count.load(ordering: .relaxed) }

    func enqueue(_ job: consuming ExecutorJob) {
        count.wrappingAdd(1, ordering: .relaxed)
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
