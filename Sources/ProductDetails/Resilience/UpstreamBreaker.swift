import Locking
import Timekeeping

/// One upstream's circuit breaker, shared by every loop and every load: a thin locked driver
/// over ``CircuitBreaker`` on the service's time line that reports its changes.
///
/// Every attempt counts, retries and hedges included, by what its outcome says about the
/// upstream (``verdict(for:)``): an answer, even a `404`, says it is up; a time-out, a refused
/// or reset connection, a `5xx`, a `429` or a body it could not have meant say it is not; a call
/// cancelled by its caller (a hedge loser, a client that left) says nothing.
package final class UpstreamBreaker: Sendable {
    /// What an admitted call's outcome tells the breaker.
    package enum Verdict: Sendable, Equatable {
        case success
        case failure
        case nothing
    }

    package let upstream: Upstream
    private let breaker: Locked<CircuitBreaker>
    private let time: any TimeSource
    private let events: any UpstreamEvents

    package init(upstream: Upstream, policy: CircuitBreaker.Policy, time: any TimeSource, events: any UpstreamEvents = NoEvents()) {
        self.upstream = upstream
        self.breaker = Locked(CircuitBreaker(policy: policy))
        self.time = time
        self.events = events
    }

    package static func verdict(for failure: UpstreamFailure?) -> Verdict {
        guard let failure else { return .success }
        switch failure {
        case .connectFailed, .hostNotFound, .connectionReset, .timedOut, .malformedBody:
            return .failure
        case .status(let code, _):
            return code == 429 || (500..<600).contains(code) ? .failure : .success
        case .notFound:
            return .success
        case .cancelled, .circuitOpen, .shed:
            return .nothing
        }
    }

    package var state: CircuitBreaker.State {
        breaker.withLock { $0.state }
    }

    /// Whether a call may go out now (`now`, when the caller has just read the time); in
    /// half-open, `true` makes the caller the probe, which must report its outcome
    /// (``record(_:at:)``).
    package func admit(at now: Duration? = nil) -> Bool {
        let time = self.time
        let admission = breaker.withLock { $0.admit(now: now ?? time.now) }
        if let change = admission.changedTo { events.upstreamBreaker(upstream, change) }
        return admission.admitted
    }

    /// Admits a hedge: only while closed, so a hedge is never a half-open breaker's probe.
    package func admitHedge() -> Bool {
        breaker.withLock { $0.state == .closed }
    }

    /// Reports an admitted call's outcome (`nil`: it succeeded), which came at `now` when the
    /// caller has just read the time.
    package func record(_ failure: UpstreamFailure?, at now: Duration? = nil) {
        let now = now ?? time.now
        let change: CircuitBreaker.State?
        switch Self.verdict(for: failure) {
        case .success: change = breaker.withLock { $0.record(success: true, now: now) }
        case .failure: change = breaker.withLock { $0.record(success: false, now: now) }
        case .nothing:
            breaker.withLock { $0.abandonProbe() }
            change = nil
        }
        if let change { events.upstreamBreaker(upstream, change) }
    }

    /// How long a client refused now should wait: the time until the probe may go out, or, while
    /// the probe is out, the least `Retry-After` (rounded up to a second where it is written).
    package var retryAfter: Duration {
        let now = time.now
        return breaker.withLock { $0.remainingOpenTime(now: now) } ?? .zero
    }
}
