/// Everything the service reports, as the application's one sink for it receives it: the upstream
/// calls, the pages and their loads, and the admission of loads. Each component is given only the
/// part it reports to; the shared cache (module Fleet) reports to its own `SharedCacheEvents`.
///
/// No event has a default: a sink implements every event it receives, so an event added to one of
/// the parts does not compile until each sink says what it does with it.
package typealias ServiceEvents = UpstreamEvents & PageEvents & AdmissionEvents

/// Events that go nowhere: the default when no metrics backend is wired (tests, tools).
package struct NoEvents: ServiceEvents {
    package init() {}

    package func upstreamAttempt(_ upstream: Upstream, failure: UpstreamFailure?, duration: Duration) {}
    package func retry(_ upstream: Upstream, reason: String) {}
    package func retryBudgetExhausted(_ upstream: Upstream) {}
    package func retryShed(_ upstream: Upstream) {}
    package func upstreamGaveUp(_ upstream: Upstream, failure: UpstreamFailure, attempts: Int) {}
    package func upstreamBreaker(_ upstream: Upstream, _ state: CircuitBreaker.State) {}
    package func hedge(_ upstream: Upstream, _ result: HedgeResult) {}

    package func cacheLookup(_ result: CacheResult) {}
    package func coalesced() {}
    package func loadStarted() {}
    package func loadFinished() {}
    package func upstreamLoadStarted() {}
    package func loadCancelled() {}
    package func loadRefused() {}
    package func eviction(reason: String) {}
    package func partOmitted(_ part: DetailPart, _ reason: OmissionReason) {}
    package func invalidated(_ scope: InvalidationScope) {}
    package func dependentPageDropped() {}

    package func loadAdmitted(waited: Duration) {}
    package func loadShed(_ reason: AdmissionRefusal) {}
    package func shedding(_ started: Bool) {}
}
