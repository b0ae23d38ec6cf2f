import Locking
import Timekeeping

/// One upstream's hedging state, shared by every loop: its latency window and hedge budget,
/// each operation one short lock.
public final class Hedger: Sendable {
    private struct State {
        var latencies: LatencyWindow
        var budget: RetryBudgetWindow
    }

    public let policy: HedgePolicy
    private let state: Locked<State>
    private let time: any TimeSource

    public init(policy: HedgePolicy, time: any TimeSource) {
        self.policy = policy
        self.state = Locked(State(latencies: LatencyWindow(capacity: policy.samples), budget: RetryBudgetWindow(limits: policy.budget)))
        self.time = time
    }

    /// How long a call waits for its answer before a hedge goes out; `nil`: no hedging yet.
    public var delay: Duration? {
        let (p95, count) = state.withLock { ($0.latencies.p95, $0.latencies.count) }
        return policy.delay(p95: p95, samples: count)
    }

    /// Counts one call (its first attempt) toward the budget's allowance.
    public func recordCall() {
        let now = time.now
        state.withLock { $0.budget.recordRequest(at: now) }
    }

    /// A successful attempt's latency (not a hedge race's loser, not a time-out).
    public func recordSuccess(after latency: Duration) {
        state.withLock { $0.latencies.record(latency) }
    }

    /// Takes one hedge from the budget; `false` when it is spent.
    public func tryWithdrawHedge() -> Bool {
        let now = time.now
        return state.withLock { $0.budget.tryWithdrawRetry(at: now) }
    }
}
