import Timekeeping

/// The one retry loop every upstream call goes through.
///
/// It performs what ``RetryPolicy/nextStep(after:attempt:now:deadline:random:)`` decides, asks the
/// ``RetryBudget`` before each retry, sleeps on the injected ``TimeSource`` and stops at once when
/// its task is cancelled: a cancelled request must not keep knocking on an upstream.
public struct Retrier: Sendable {
    public let policy: RetryPolicy
    public let budget: RetryBudget
    private let time: any TimeSource
    private let random: @Sendable (ClosedRange<Double>) -> Double
    private let events: any ServiceEvents

    public init(
        policy: RetryPolicy = RetryPolicy(),
        budget: RetryBudget,
        time: any TimeSource,
        random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) },
        events: any ServiceEvents = NoEvents()
    ) {
        self.policy = policy
        self.budget = budget
        self.time = time
        self.random = random
        self.events = events
    }

    /// Runs `operation` until it succeeds, fails for good, or `deadline` (absolute, in the time
    /// source's `now` terms) leaves no room for another attempt.
    ///
    /// Throws the last attempt's failure, or ``UpstreamFailure/cancelled`` when the task is cancelled.
    public func run<T: Sendable>(
        _ upstream: Upstream,
        deadline: Duration,
        requestID: String,
        trace: TraceContext? = nil,
        _ operation: (UpstreamCall) async throws(UpstreamFailure) -> T
    ) async throws(UpstreamFailure) -> T {
        budget.recordRequest()
        var attempt = 1
        var lastFailure: UpstreamFailure?
        while true {
            if Task.isCancelled { throw .cancelled }
            let started = time.now
            // Only reachable on a later attempt if a sleep overshot; then the last failure is the answer.
            guard started < deadline else { throw gaveUp(upstream, lastFailure ?? .timedOut, attempts: attempt - 1) }
            let call = UpstreamCall(timeout: policy.attemptTimeout(now: started, deadline: deadline), requestID: requestID, trace: trace)
            let failure: UpstreamFailure
            do throws(UpstreamFailure) {
                let value = try await operation(call)
                events.upstreamAttempt(upstream, failure: nil, duration: time.now - started)
                return value
            } catch {
                failure = error
            }
            events.upstreamAttempt(upstream, failure: failure, duration: time.now - started)
            lastFailure = failure
            if Task.isCancelled || failure == .cancelled { throw .cancelled }

            let step = policy.nextStep(after: failure, attempt: attempt, now: time.now, deadline: deadline, random: random)
            guard case .retry(let delay) = step else { throw gaveUp(upstream, failure, attempts: attempt) }
            guard budget.tryWithdrawRetry() else {
                events.retryBudgetExhausted(upstream)
                throw gaveUp(upstream, failure, attempts: attempt)
            }
            events.retry(upstream, reason: failure.label)
            do {
                try await time.sleep(for: delay)
            } catch {
                throw .cancelled
            }
            attempt += 1
        }
    }

    /// Reports a call that failed for good (a `404` is an answer, not a failure) and returns
    /// its failure to throw.
    private func gaveUp(_ upstream: Upstream, _ failure: UpstreamFailure, attempts: Int) -> UpstreamFailure {
        if failure != .notFound { events.upstreamGaveUp(upstream, failure: failure, attempts: attempts) }
        return failure
    }
}
