import Locking
import Synchronization
import Testing
@testable import ProductDetails
import Timekeeping

struct TimeSourceTests {
    @Test func manualTimeMovesOnlyWhenAdvanced() {
        let time = ManualTimeSource()
        #expect(time.now == .zero)
        time.advance(by: .seconds(3))
        #expect(time.now == .seconds(3))
    }

    @Test func advanceResumesDueSleepersInDeadlineOrder() async throws {
        let time = ManualTimeSource()
        let order = Recorder<Int>()
        let late = Task { try await time.sleep(for: .seconds(2)); order.append(2) }
        #expect(await time.waitForSleepers(1))
        let early = Task { try await time.sleep(for: .seconds(1)); order.append(1) }
        #expect(await time.waitForSleepers(2))

        time.advance(by: .milliseconds(999))
        #expect(time.sleeperCount == 2)
        time.advance(by: .milliseconds(1))
        try await early.value
        #expect(order.values == [1])
        #expect(time.sleeperCount == 1)
        time.advance(by: .seconds(1))
        try await late.value
        #expect(order.values == [1, 2])
    }

    @Test func scheduledActionsRunWhenDueInOrderUnlessCancelled() {
        let time = ManualTimeSource()
        let order = Recorder<Int>()
        _ = time.schedule(after: .seconds(2)) { order.append(2) }
        _ = time.schedule(after: .seconds(1)) { order.append(1) }
        let cancelled = time.schedule(after: .seconds(1)) { order.append(-1) }
        #expect(time.scheduledCount == 3)
        cancelled.cancel()
        time.advance(by: .milliseconds(999))
        #expect(order.values.isEmpty)
        time.advance(by: .seconds(2))
        #expect(order.values == [1, 2])
        #expect(time.scheduledCount == 0)
        cancelled.cancel()
    }

    @Test func sleepThrowsAtOnceWhenCancelled() async {
        let time = ManualTimeSource()
        let sleeper = Task { try await time.sleep(for: .seconds(60)) }
        #expect(await time.waitForSleepers(1))
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(time.sleeperCount == 0)
    }

    /// A test waiting for a sleeper that never parks fails instead of spinning for ever.
    @Test func waitingForASleeperThatNeverComesGivesUp() async {
        let time = ManualTimeSource()
        #expect(await time.waitForSleepers(1, tries: 100) == false)
        let sleeper = Task { try await time.sleep(for: .seconds(1)) }
        #expect(await time.waitForSleepers(1))
        #expect(await time.waitForSleepers(2, tries: 100) == false)
        sleeper.cancel()
    }

    @Test func sleepInAnAlreadyCancelledTaskThrows() async {
        let time = ManualTimeSource()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await time.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func clockTimeSourceStartsNearZeroAndMovesForward() async throws {
        let time = ClockTimeSource()
        let first = time.now
        #expect(first >= .zero && first < .seconds(5))
        try await time.sleep(for: .zero)
        #expect(time.now >= first)
    }
}

/// A thread-safe append-only list, for recording order across tasks.
final class Recorder<Element: Sendable>: Sendable {
    private let storage = Locked<[Element]>([])
    func append(_ element: Element) { storage.withLock { $0.append(element) } }
    var values: [Element] { storage.withLock { $0 } }
}
