import CLibUV
import Locking
import Synchronization
import Timekeeping

/// The production ``TimeSource``: its `sleep` is a libuv timer on an event loop, so a sleeping
/// handler wakes on its own loop thread without a hop. Time is `ContinuousClock`'s (monotonic),
/// counted from when the source was made. Tests swap in `ManualTimeSource`.
package struct LoopTimeSource: TimeSource {
    /// Used when the sleeper is not on a loop thread.
    package let fallbackLoop: EventLoop
    private let origin: ContinuousClock.Instant

    package init(fallbackLoop: EventLoop) {
        self.fallbackLoop = fallbackLoop
        origin = .now
    }

    package var now: Duration { origin.duration(to: .now) }

    package func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        guard duration > .zero else { return }
        let deadline = ContinuousClock.now + duration
        let loop = EventLoop.current ?? fallbackLoop
        let sleeper = LoopSleeper(loop: loop)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                sleeper.begin(continuation, deadline: deadline)
            }
        } onCancel: {
            sleeper.cancel()
        }
    }

    /// On the caller's loop (or the fallback one), in the loop's ``LoopTimerQueue``: no task, and
    /// no hop when called on a loop thread.
    package func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledAction {
        schedule(after: delay, target: ClosureTarget(action: action))
    }

    /// ``schedule(after:_:)`` whose only allocation is the returned action.
    package func schedule(after delay: Duration, target: any TimerTarget) -> any ScheduledAction {
        let deadline = ContinuousClock.now + delay
        if let loop = EventLoop.current {
            let scheduled = LoopScheduledAction(loop: loop, deadline: deadline, target: target)
            loop.timerQueue.insert(scheduled)
            return scheduled
        }
        let scheduled = LoopScheduledAction(loop: fallbackLoop, deadline: deadline, target: target)
        fallbackLoop.execute { scheduled.loop.timerQueue.insert(scheduled) }
        return scheduled
    }
}

/// A closure as a ``TimerTarget``.
private final class ClosureTarget: TimerTarget {
    let action: @Sendable () -> Void
    init(action: @escaping @Sendable () -> Void) { self.action = action }
    func timerFired() { action() }
}

/// One pending `LoopTimeSource.sleep`: resumed exactly once, by its timer or by cancellation.
///
/// `@unchecked Sendable`: `timer` is touched only on `loop`'s thread; `state` is a `Mutex`.
private final class LoopSleeper: @unchecked Sendable {
    private let loop: EventLoop
    private var timer: LoopTimer?
    private let state = Locked(State.idle)

    private enum State {
        case idle
        case waiting(CheckedContinuation<Void, any Error>)
        case cancelled
        case finished
    }

    init(loop: EventLoop) { self.loop = loop }

    func begin(_ continuation: CheckedContinuation<Void, any Error>, deadline: ContinuousClock.Instant) {
        let alreadyCancelled = state.withLock { state -> Bool in
            if case .cancelled = state { return true }
            state = .waiting(continuation)
            return false
        }
        if alreadyCancelled {
            continuation.resume(throwing: CancellationError())
            return
        }
        let scheduled = loop.execute { [self] in
            let timer = LoopTimer(loop: loop)
            self.timer = timer
            arm(timer, until: deadline)
        }
        if !scheduled { finish(with: CancellationError()) }
    }

    private func arm(_ timer: LoopTimer, until deadline: ContinuousClock.Instant) {
        timer.start(at: deadline) { [self] in
            timer.cancel()
            self.timer = nil
            finish(with: nil)
        }
    }

    func cancel() {
        finish(with: CancellationError())
        loop.execute { [self] in
            timer?.cancel()
            timer = nil
        }
    }

    private func finish(with error: (any Error)?) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            switch state {
            case .waiting(let continuation):
                state = .finished
                return continuation
            case .idle:
                state = .cancelled
                return nil
            case .cancelled, .finished:
                return nil
            }
        }
        guard let continuation else { return }
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }
}
