/// When a connection tries again: full-jitter backoff over the failures since it last
/// succeeded, drawn from the generator the machine was given.
struct ReconnectSchedule: Sendable {
    let backoff: ReconnectBackoff
    private var random: any RandomNumberGenerator & Sendable
    /// Failed attempts since the last success: the backoff's exponent.
    private var failures = 0

    init(backoff: ReconnectBackoff, random: any RandomNumberGenerator & Sendable) {
        self.backoff = backoff
        self.random = random
    }

    /// The instant of the next attempt after a failure at `now`.
    mutating func nextAttempt(afterFailureAt now: Duration) -> Duration {
        let at = now + backoff.delay(afterFailures: failures, using: &random)
        failures += 1
        return at
    }

    /// The connection succeeded: the next failure starts from the first delay again.
    mutating func succeeded() {
        failures = 0
    }
}
