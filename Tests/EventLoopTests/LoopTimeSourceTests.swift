import EventLoop
import Synchronization
import Testing
import Timekeeping

@Suite("Loop time source and timers")
struct LoopTimeSourceTests {
    @Test func sleepWakesOnTheSleepersLoop() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let loop = group.loops[1]
        let clock = LoopTimeSource(fallbackLoop: group.loops[0])
        let wokeOnLoop = try await Task(executorPreference: loop) { () -> Bool in
            let start = clock.now
            try await clock.sleep(for: .milliseconds(2))
            return EventLoop.current === loop && clock.now - start >= .milliseconds(2)
        }.value
        #expect(wokeOnLoop)
    }

    @Test func aScheduledActionRunsOnTheCallersLoopAfterItsDelay() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let loop = group.loops[1]
        let clock = LoopTimeSource(fallbackLoop: group.loops[0])
        let ranOnLoopInTime = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            loop.execute {
                let start = clock.now
                _ = clock.schedule(after: .milliseconds(2)) {
                    continuation.resume(returning: EventLoop.current === loop && clock.now - start >= .milliseconds(2))
                }
            }
        }
        #expect(ranOnLoopInTime)
    }

    @Test func aCancelledScheduledActionNeverRuns() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let clock = LoopTimeSource(fallbackLoop: loop)
        let ran = Atomic(false)
        // Cancelled from off the loop, as a finished race may do. A later action runs after the
        // cancelled one's deadline on the same loop, so once it has run, the first would have too.
        let action = clock.schedule(after: .milliseconds(1)) { ran.store(true, ordering: .relaxed) }
        action.cancel()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = clock.schedule(after: .milliseconds(5)) { continuation.resume() }
        }
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
    }

    /// One libuv timer serves every scheduled action of a loop: they run in deadline order (ties
    /// in the order scheduled), and cancelling the earliest, which the timer is armed for, must
    /// not strand the later ones.
    @Test func scheduledActionsRunInDeadlineOrderWhenTheEarliestIsCancelled() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let clock = LoopTimeSource(fallbackLoop: loop)
        let order = await withCheckedContinuation { (continuation: CheckedContinuation<[Int], Never>) in
            loop.execute {
                // Loop-confined: every action runs on this loop's thread.
                nonisolated(unsafe) var order: [Int] = []
                let earliest = clock.schedule(after: .milliseconds(1)) { order.append(0) }
                _ = clock.schedule(after: .milliseconds(6)) {
                    order.append(3)
                    continuation.resume(returning: order)
                }
                _ = clock.schedule(after: .milliseconds(3)) { order.append(1) }
                _ = clock.schedule(after: .milliseconds(3)) { order.append(2) }
                let later = clock.schedule(after: .milliseconds(4)) { order.append(-1) }
                earliest.cancel()
                later.cancel()
            }
        }
        #expect(order == [1, 2, 3])
    }

    /// A target is called back as a closure would be, on the loop, and an action scheduled from
    /// inside another's callback runs too.
    @Test func aTargetIsCalledBackAndMayScheduleAgain() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let clock = LoopTimeSource(fallbackLoop: loop)
        let calls = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            let target = CountingTarget(loop: loop) { count, target in
                if count == 1 {
                    _ = clock.schedule(after: .zero, target: target)
                } else {
                    continuation.resume(returning: count)
                }
            }
            loop.execute { _ = clock.schedule(after: .milliseconds(1), target: target) }
        }
        #expect(calls == 2)
    }

    @Test func cancellingASleepEndsItAtOnce() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let clock = LoopTimeSource(fallbackLoop: group.loops[0])
        let sleeper = Task(executorPreference: group.loops[0]) {
            try await clock.sleep(for: .seconds(3600))
        }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func sleepingAfterCancellationThrowsWithoutArmingATimer() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let clock = LoopTimeSource(fallbackLoop: group.loops[0])
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(3600))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func timerFiresOnceAndCanBeRearmed() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let fired = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            loop.execute {
                let timer = LoopTimer(loop: loop)
                var count = 0
                timer.start(after: .zero) {
                    count += 1
                    timer.start(after: .milliseconds(1)) {
                        count += 1
                        timer.cancel()
                        continuation.resume(returning: count)
                    }
                }
            }
        }
        #expect(fired == 2)
    }

    @Test func aDeadlineTimerNeverCallsBackEarly() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let deadline = ContinuousClock.now + .milliseconds(20)
        let firedAt = await withCheckedContinuation { (continuation: CheckedContinuation<ContinuousClock.Instant, Never>) in
            loop.execute {
                let timer = LoopTimer(loop: loop)
                timer.start(at: deadline) {
                    timer.cancel()
                    continuation.resume(returning: .now)
                }
            }
        }
        #expect(firedAt >= deadline)
    }

    /// A timer re-armed with a plain delay must forget the deadline it was armed with before,
    /// or it would keep re-arming itself until that deadline.
    @Test func rearmingWithADelayForgetsTheEarlierDeadline() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let staleDeadline = ContinuousClock.now + .seconds(2)
        let (calls, firedAt) = await withCheckedContinuation { (continuation: CheckedContinuation<([String], ContinuousClock.Instant), Never>) in
            loop.execute {
                let timer = LoopTimer(loop: loop)
                var calls: [String] = []
                timer.start(at: staleDeadline) { calls.append("deadline") }
                timer.start(after: .milliseconds(1)) {
                    calls.append("delay")
                    timer.cancel()
                    continuation.resume(returning: (calls, .now))
                }
            }
        }
        #expect(calls == ["delay"])
        #expect(firedAt < staleDeadline)
    }
}

/// Counts its calls, each on `loop`'s thread.
///
/// `@unchecked Sendable`: `count` is touched only on `loop`'s thread (checked on each call).
private final class CountingTarget: TimerTarget, @unchecked Sendable {
    private let loop: EventLoop
    private var count = 0
    private let onCall: (Int, CountingTarget) -> Void

    init(loop: EventLoop, onCall: @escaping (Int, CountingTarget) -> Void) {
        self.loop = loop
        self.onCall = onCall
    }

    func timerFired() {
        precondition(loop.inLoop)
        count += 1
        onCall(count, self)
    }
}

@Suite("Timer durations")
struct TimerDurationTests {
    @Test func negativeAndSubMillisecondDelaysDoNotTrap() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let clock = LoopTimeSource(fallbackLoop: group.loops[0])
        // A negative delay and one a fraction of a millisecond away.
        try await clock.sleep(for: .milliseconds(-5))
        try await clock.sleep(for: .microseconds(300))
    }
}
