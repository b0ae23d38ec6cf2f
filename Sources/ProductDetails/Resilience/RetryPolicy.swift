import Timekeeping
/// How hard to try an upstream call: attempts, backoff and per-attempt time-out.
///
/// ``nextStep(after:attempt:now:deadline:random:)`` is the whole decision as a pure function of
/// plain values, so that every rule (which failures retry, jitter bounds, `Retry-After`, the
/// deadline) is tested without a clock or a task. ``Retrier`` only performs what it decides.
package struct RetryPolicy: Sendable, Equatable {
    /// Total attempts including the first.
    package var attempts: Int
    package var baseDelay: Duration
    package var maxDelay: Duration
    package var attemptTimeout: Duration

    package init(
        attempts: Int = 3,
        baseDelay: Duration = .milliseconds(50),
        maxDelay: Duration = .seconds(1),
        attemptTimeout: Duration = .seconds(1)
    ) {
        self.attempts = attempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.attemptTimeout = attemptTimeout
    }

    /// What to do after a failed attempt.
    package enum Step: Sendable, Equatable {
        case retry(after: Duration)
        case giveUp(GiveUpReason)
    }

    package enum GiveUpReason: String, Sendable, Equatable {
        case notRetryable
        case attemptsExhausted
        /// The upstream asked to wait longer than ``maxDelay``; waiting that long helps nobody.
        case retryAfterTooLong
        /// The next attempt could not start before the request deadline.
        case deadline
    }

    /// The ceiling of the full-jitter backoff after attempt number `attempt` (1-based):
    /// `min(maxDelay, baseDelay × 2^(attempt-1))`.
    package func backoffCeiling(afterAttempt attempt: Int) -> Duration {
        var ceiling = baseDelay
        var doublings = max(0, attempt - 1)
        while doublings > 0 && ceiling < maxDelay {
            ceiling = ceiling * 2
            doublings -= 1
        }
        return min(ceiling, maxDelay)
    }

    /// The time-out of an attempt starting at `now`: the policy's, or less if the deadline is nearer.
    package func attemptTimeout(now: Duration, deadline: Duration) -> Duration {
        min(attemptTimeout, deadline - now)
    }

    /// Decides whether and when to retry after `failure` ended attempt number `attempt` (1-based).
    ///
    /// `random` draws the full-jitter delay from the given range of seconds.
    package func nextStep(
        after failure: UpstreamFailure,
        attempt: Int,
        now: Duration,
        deadline: Duration,
        random: (ClosedRange<Double>) -> Double
    ) -> Step {
        guard failure.isRetryable else { return .giveUp(.notRetryable) }
        guard attempt < attempts else { return .giveUp(.attemptsExhausted) }
        let ceiling = backoffCeiling(afterAttempt: attempt)
        let drawn = random(0...ceiling.fractionalSeconds)
        var delay = min(max(Duration.seconds(drawn), .zero), ceiling)
        if case .status(_, let retryAfter?) = failure {
            guard retryAfter <= maxDelay else { return .giveUp(.retryAfterTooLong) }
            delay = max(delay, retryAfter)
        }
        guard now + delay < deadline else { return .giveUp(.deadline) }
        return .retry(after: delay)
    }
}
