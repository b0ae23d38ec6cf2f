import Locking
import Synchronization

/// Holds upstream answers on chosen routes until `resume`, so that herd tests can keep a load
/// in flight for as long as they need without sleeping.
///
/// A held request has already been counted (``StatsCounters/received(_:)`` runs first). A held
/// request whose task is cancelled (its client went away) leaves at once and reports it, so the
/// caller counts it as abandoned.
final class PauseGate: Sendable {
    private struct State {
        /// Routes held; `.all` holds every served route.
        var paused: Set<StubRoute> = []
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0

        func holds(_ route: StubRoute) -> Bool {
            paused.contains(route) || paused.contains(.all)
        }
    }

    private let state = Locked(State())

    /// Holds requests on `route` (every route for `.all`) from now on; adds to earlier pauses.
    func pause(_ route: StubRoute) {
        state.withLock { _ = $0.paused.insert(route) }
    }

    /// Stops holding any route and releases every held request.
    func resume() {
        let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.paused.removeAll()
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in released { waiter.resume() }
    }

    /// Requests held right now.
    var waiting: Int {
        state.withLock { $0.waiters.count }
    }

    /// Waits while `route` is paused. Returns `false` when the task was cancelled (before or
    /// while waiting), `true` when it may go on.
    func pass(_ route: StubRoute) async -> Bool {
        guard state.withLock({ $0.holds(route) }) else { return !Task.isCancelled }
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let goNow = state.withLock { state -> Bool in
                    // Checked under the lock, so neither `resume` nor the cancellation handler can
                    // slip between the check and the registration.
                    if !state.holds(route) || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if goNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
        return !Task.isCancelled
    }
}
