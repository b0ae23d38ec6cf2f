import Locking
import Synchronization

/// Counts open connections across loops, enforces the cap, and lets shutdown wait for zero.
final class ConnectionCounter: Sendable {
    private let state = Locked(State())

    private struct State {
        var open = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    var open: Int { state.withLock { $0.open } }

    /// Admits one more connection unless `limit` are open.
    func admit(limit: Int) -> Bool {
        state.withLock { state in
            guard state.open < limit else { return false }
            state.open += 1
            return true
        }
    }

    func release() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open -= 1
            guard state.open == 0 else { return [] }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when no connection is open, or when the calling task is cancelled.
    func waitUntilNoneOpen() async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.open == 0 || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
