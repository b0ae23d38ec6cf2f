import Locking
import Synchronization
import Timekeeping

/// A retry budget shared by every call to one upstream, safe to use from any thread.
///
/// A thin locked driver over ``RetryBudgetWindow``: each operation is one short lock.
package final class RetryBudget: Sendable {
    private let window: Locked<RetryBudgetWindow>
    private let time: any TimeSource

    package init(limits: RetryBudgetWindow.Limits = .init(), time: any TimeSource) {
        self.window = Locked(RetryBudgetWindow(limits: limits))
        self.time = time
    }

    /// Counts one request (call once per first attempt), made at `now` when the caller has just
    /// read the time.
    package func recordRequest(at now: Duration? = nil) {
        let now = now ?? time.now
        window.withLock { $0.recordRequest(at: now) }
    }

    /// Takes a retry from the budget; `false` when the window has no retries left.
    package func tryWithdrawRetry() -> Bool {
        let now = time.now
        return window.withLock { $0.tryWithdrawRetry(at: now) }
    }

    /// Requests and retries in the current window (for tests and diagnostics).
    package var totals: (requests: Int, retries: Int) {
        let now = time.now
        return window.withLock { $0.totals(at: now) }
    }
}
