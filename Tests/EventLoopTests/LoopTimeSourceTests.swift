import EventLoop
import Synchronization
import Testing

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
