/// How a request was answered with respect to the cache; also a metrics label.
package enum CacheResult: String, Sendable, Equatable, Hashable, CaseIterable {
    case hit
    case miss
    case stale
}

/// The domain's metrics hook: the service, cache, in-flight table and retry loop report here.
///
/// Every method has an empty default, so a backend implements only what it counts. Calls happen
/// on request paths and sometimes inside an actor, never while a lock is held: implementations
/// must be cheap and non-blocking (atomics, not locks held across I/O).
package protocol ServiceEvents: Sendable {
    /// One upstream attempt ended: with `failure`, or (nil) a success.
    func upstreamAttempt(_ upstream: Upstream, failure: UpstreamFailure?, duration: Duration)
    /// A retry is about to be made; `reason` is the failed attempt's ``UpstreamFailure/label``.
    func retry(_ upstream: Upstream, reason: String)
    /// A retry was wanted but the retry budget refused it.
    func retryBudgetExhausted(_ upstream: Upstream)
    /// An upstream call failed for good after `attempts` attempts (retries spent, refused by the
    /// budget, or out of time); not for a `404` or a cancelled call.
    func upstreamGaveUp(_ upstream: Upstream, failure: UpstreamFailure, attempts: Int)
    /// A detail request was answered from the cache (hit), from an upstream load (miss), or stale.
    func cacheLookup(_ result: CacheResult)
    /// A request joined a load another request had started.
    func coalesced()
    func loadStarted()
    func loadFinished()
    /// A load is calling the upstreams: every load but those the shared cache answers, so
    /// upstream attempts per such load read the same in a fleet as on a single node.
    func upstreamLoadStarted()
    /// A load was cancelled because its last waiter left.
    func loadCancelled()
    /// A load was refused (`503`) because `maxInFlightLoads` were running.
    func loadRefused()
    /// An entry left the cache; `reason` is `"capacity"`, `"bytes"` or `"expired"`.
    func eviction(reason: String)
    /// The shared cache (fleet mode) was read.
    func sharedRead(_ result: SharedReadResult)
    /// This replica took part in a fleet-wide load.
    func lease(_ result: LeaseResult)
    /// The shared cache's circuit breaker changed state.
    func sharedBreaker(_ state: CircuitBreaker.State)
    /// An upstream's circuit breaker changed state.
    func upstreamBreaker(_ upstream: Upstream, _ state: CircuitBreaker.State)
    /// A hedge of a call to `upstream` was sent, won, lost, or refused by its budget or breaker.
    func hedge(_ upstream: Upstream, _ result: HedgeResult)
    /// A page was answered without an optional part, and why.
    func partOmitted(_ part: DetailPart, _ reason: OmissionReason)
    /// This replica was asked to invalidate `scope` (`DELETE` or the bulk `POST`).
    func invalidated(_ scope: InvalidationScope)
    /// A cached page was dropped because a product it shows was invalidated after its load began.
    func dependentPageDropped()
    /// A load was let through to its upstreams after waiting `waited` (zero: room was free).
    func loadAdmitted(waited: Duration)
    /// A load was refused room at its upstreams (``LoadAdmission``), and why.
    func loadShed(_ reason: AdmissionRefusal)
    /// Loads started (`true`) or stopped (`false`) being refused for want of upstream room.
    func shedding(_ started: Bool)
    /// A retry of a call to `upstream` was not sent: its concurrency limit was full.
    func retryShed(_ upstream: Upstream)
}

extension ServiceEvents {
    package func upstreamAttempt(_ upstream: Upstream, failure: UpstreamFailure?, duration: Duration) {}
    package func retry(_ upstream: Upstream, reason: String) {}
    package func retryBudgetExhausted(_ upstream: Upstream) {}
    package func upstreamGaveUp(_ upstream: Upstream, failure: UpstreamFailure, attempts: Int) {}
    package func cacheLookup(_ result: CacheResult) {}
    package func coalesced() {}
    package func loadStarted() {}
    package func loadFinished() {}
    package func upstreamLoadStarted() {}
    package func loadCancelled() {}
    package func loadRefused() {}
    package func eviction(reason: String) {}
    package func sharedRead(_ result: SharedReadResult) {}
    package func lease(_ result: LeaseResult) {}
    package func sharedBreaker(_ state: CircuitBreaker.State) {}
    package func upstreamBreaker(_ upstream: Upstream, _ state: CircuitBreaker.State) {}
    package func hedge(_ upstream: Upstream, _ result: HedgeResult) {}
    package func partOmitted(_ part: DetailPart, _ reason: OmissionReason) {}
    package func invalidated(_ scope: InvalidationScope) {}
    package func dependentPageDropped() {}
    package func loadAdmitted(waited: Duration) {}
    package func loadShed(_ reason: AdmissionRefusal) {}
    package func shedding(_ started: Bool) {}
    package func retryShed(_ upstream: Upstream) {}
}

/// Events that go nowhere: the default when no metrics backend is wired.
package struct NoEvents: ServiceEvents {
    package init() {}
}
