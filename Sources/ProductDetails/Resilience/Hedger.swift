import Locking
import Timekeeping

/// One upstream's hedging state, shared by every loop: its latency window and hedge budget,
/// each operation one short lock.
package final class Hedger: Sendable {
    private struct State {
        var latencies: LatencyWindow
        var budget: RetryBudgetWindow
        /// Attempts slower than the hedge delay (time-outs and hedged ones included) lately.
        var slow: SlidingCounts<SlowCount>
        /// The first call's start: hedging is armed for ``HedgePolicy/armedFor`` after it.
        var firstCall: Duration?
    }

    struct SlowCount: WindowCounts {
        var attempts = 0
        mutating func add(_ other: SlowCount) { attempts += other.attempts }
    }

    package let policy: HedgePolicy
    private let state: Locked<State>
    private let time: any TimeSource
    private let load: (any LocalLoad)?

    /// - Parameter load: the caller's own load; while it is saturated hedging neither arms nor races.
    package init(policy: HedgePolicy, time: any TimeSource, load: (any LocalLoad)? = nil) {
        self.policy = policy
        self.state = Locked(State(
            latencies: LatencyWindow(capacity: policy.samples), budget: RetryBudgetWindow(limits: policy.budget),
            slow: SlidingCounts(window: policy.armedFor, bucketCount: 10)))
        self.time = time
        self.load = load
    }

    /// How long a call waits for its answer before a hedge goes out, and whether hedging is
    /// armed. Until ``HedgePolicy/minimumSamples`` successes are known the delay is the ceiling.
    /// Hedging is armed for ``HedgePolicy/armedFor`` after the first call and while too few
    /// samples are known, so the first slow calls after a start are hedged without one having to
    /// be seen first; then only after an attempt slower than the delay in the last `armedFor`. Never while
    /// the caller's own load is saturated (``LocalLoad``). A call that is not hedged runs alone,
    /// with no race and no timer: an upstream with no tail pays nothing for hedging.
    package func delay(at now: Duration) -> (delay: Duration, armed: Bool) {
        let (p95, count, slow, firstCall) = state.withLock {
            ($0.latencies.p95, $0.latencies.count, $0.slow.total(at: now).attempts, $0.firstCall)
        }
        let learning = count < policy.minimumSamples || now - (firstCall ?? now) < policy.armedFor
        return (policy.delay(p95: p95, samples: count), (learning || slow > 0) && load?.isSaturated != true)
    }

    /// An attempt took at least the hedge delay (or timed out, or was hedged): arms hedging,
    /// unless the caller's own load is saturated, which made it slow.
    package func recordSlow() {
        if load?.isSaturated == true { return }
        let now = time.now
        state.withLock { $0.slow.add(at: now) { $0.attempts += 1 } }
    }

    /// Counts one call (its first attempt, at `now`) toward the budget's allowance.
    package func recordCall(at now: Duration) {
        state.withLock {
            $0.budget.recordRequest(at: now)
            if $0.firstCall == nil { $0.firstCall = now }
        }
    }

    /// A successful attempt's latency (not a hedge race's loser, not a time-out).
    package func recordSuccess(after latency: Duration) {
        state.withLock { $0.latencies.record(latency) }
    }

    /// Takes one hedge from the budget; `false` when it is spent.
    package func tryWithdrawHedge() -> Bool {
        let now = time.now
        return state.withLock { $0.budget.tryWithdrawRetry(at: now) }
    }
}
