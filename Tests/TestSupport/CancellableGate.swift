import Locking
import PureTestSupport
import Testing

/// A one-shot gate a test opens by hand: holds a "leader" mid-flight without any delay. Unlike
/// `Gate` (the live suites' latch), a waiter is let go with `CancellationError` as soon as its task
/// is cancelled, and the test can count who waits.
package final class CancellableGate: Sendable {
    private struct State {
        var isOpen = false
        var nextID: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    }

    private let state = Locked(State())

    package init() {}

    package var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Suspends until ``open()``; throws `CancellationError` as soon as the task is cancelled.
    package func wait() async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.isOpen { return .success(()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
            }
        } onCancel: {
            let continuation = state.withLock { $0.waiters.removeValue(forKey: id) }
            continuation?.resume(throwing: CancellationError())
        }
    }

    package func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    package func waitForWaiters(_ count: Int = 1) async {
        await eventually { self.waiterCount >= count }
    }
}
