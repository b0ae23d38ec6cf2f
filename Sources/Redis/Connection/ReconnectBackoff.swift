import Timekeeping

/// How long to wait before the next connection attempt: full-jitter exponential backoff.
///
/// The delay after `failures` failed attempts is drawn uniformly from
/// `0 ... min(cap, base × 2^failures)`. Full jitter rather than a fixed ladder because every
/// replica (and every loop of each) loses Redis at the same moment: drawn delays spread their
/// reconnects over the window instead of landing together on a server that just came back.
package struct ReconnectBackoff: Sendable, Equatable {
    /// The ceiling of the first delay. 50 ms heals a brief blip (a killed connection, a
    /// failover) before many requests notice, without a tight loop against a dead server.
    package var base: Duration
    /// The largest ceiling. 2 s keeps a replica back within a couple of seconds of Redis
    /// returning (the subscriber's L1 runs capped meanwhile) while a down Redis sees at most a
    /// connection attempt per connection every second on average.
    package var cap: Duration

    package init(base: Duration = .milliseconds(50), cap: Duration = .seconds(2)) {
        precondition(base > .zero && cap >= base, "backoff needs 0 < base <= cap")
        self.base = base
        self.cap = cap
    }

    /// `min(cap, base × 2^failures)`, without overflowing for any count.
    package func ceiling(afterFailures failures: Int) -> Duration {
        var ceiling = base
        var doublings = max(0, failures)
        while doublings > 0 && ceiling < cap {
            ceiling = ceiling * 2
            doublings -= 1
        }
        return min(ceiling, cap)
    }

    /// A delay drawn from `0 ... ceiling(afterFailures:)`, to the nanosecond.
    package func delay(afterFailures failures: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let ceiling = ceiling(afterFailures: failures).wholeNanoseconds
        return .nanoseconds(Int64.random(in: 0...ceiling, using: &random))
    }
}
