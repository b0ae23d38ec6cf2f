/// What the retrier and the upstream breakers report: each attempt, retry, hedge and breaker
/// change of a call to an upstream.
///
/// Calls happen on request paths, never while a lock is held: implementations must be cheap and
/// non-blocking (atomics, not locks held across I/O).
package protocol UpstreamEvents: Sendable {
    /// One upstream attempt ended: with `failure`, or (nil) a success.
    func upstreamAttempt(_ upstream: Upstream, failure: UpstreamFailure?, duration: Duration)
    /// A retry is about to be made; `reason` is the failed attempt's ``UpstreamFailure/label``.
    func retry(_ upstream: Upstream, reason: String)
    /// A retry was wanted but the retry budget refused it.
    func retryBudgetExhausted(_ upstream: Upstream)
    /// A retry of a call to `upstream` was not sent: its concurrency limit was full.
    func retryShed(_ upstream: Upstream)
    /// An upstream call failed for good after `attempts` attempts (retries spent, refused by the
    /// budget, or out of time); not for a `404` or a cancelled call.
    func upstreamGaveUp(_ upstream: Upstream, failure: UpstreamFailure, attempts: Int)
    /// An upstream's circuit breaker changed state.
    func upstreamBreaker(_ upstream: Upstream, _ state: CircuitBreaker.State)
    /// A hedge of a call to `upstream` was sent, won, lost, or refused by its budget or breaker.
    func hedge(_ upstream: Upstream, _ result: HedgeResult)
}

/// What became of a hedge (a second attempt of a slow call); also a metrics label.
package enum HedgeResult: String, Sendable, Equatable, Hashable, CaseIterable {
    /// It went out: the first attempt had not answered within the hedge delay.
    case sent
    /// It answered first; the first attempt was cancelled.
    case won
    /// The first attempt answered first; the hedge was cancelled.
    case lost
    /// It was wanted but not sent: the hedge budget was spent or the breaker was not closed.
    case refused
}
