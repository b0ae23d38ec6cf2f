import ProductDetails

/// The domain's events as the application hears them: every one is counted by the metrics, the
/// upstream faults are also logged, and an upstream breaker that opens fails the calls queued for
/// that upstream's connections at once. Metrics only count; lines and actions live here. In fleet
/// mode the lease results the service reports go to the shared cache's telemetry, which its
/// reads and breaker report to directly (`SharedCache` is made before this fan-out).
struct ServiceEventFanOut: ServiceEvents {
    let metrics: ServiceMetrics
    let faultLog: UpstreamFaultLog
    let sharedCache: SharedCacheTelemetry?
    /// Called when an upstream's breaker opens (the client drops that upstream's queued calls).
    let breakerOpened: @Sendable (Upstream) -> Void

    func upstreamAttempt(_ upstream: Upstream, failure: UpstreamFailure?, duration: Duration) {
        faultLog.attempted(upstream, failure: failure)
        metrics.upstreamAttempt(upstream, failure: failure, duration: duration)
    }

    func upstreamGaveUp(_ upstream: Upstream, failure: UpstreamFailure, attempts: Int) {
        faultLog.gaveUp(upstream, failure: failure, attempts: attempts)
    }

    func upstreamBreaker(_ upstream: Upstream, _ state: CircuitBreaker.State) {
        if state == .open { breakerOpened(upstream) }
        faultLog.breaker(upstream, changedTo: state)
        metrics.upstreamBreaker(upstream, state)
    }

    func retry(_ upstream: Upstream, reason: String) { metrics.retry(upstream, reason: reason) }
    func retryBudgetExhausted(_ upstream: Upstream) { metrics.retryBudgetExhausted(upstream) }
    func cacheLookup(_ result: CacheResult) { metrics.cacheLookup(result) }
    func coalesced() { metrics.coalesced() }
    func loadStarted() { metrics.loadStarted() }
    func loadFinished() { metrics.loadFinished() }
    func upstreamLoadStarted() { metrics.upstreamLoadStarted() }
    func loadCancelled() { metrics.loadCancelled() }
    func loadRefused() { metrics.loadRefused() }
    func eviction(reason: String) { metrics.eviction(reason: reason) }
    func lease(_ result: LeaseResult) { sharedCache?.lease(result) }
    func hedge(_ upstream: Upstream, _ result: HedgeResult) { metrics.hedge(upstream, result) }
    func partOmitted(_ part: DetailPart, _ reason: OmissionReason) { metrics.partOmitted(part, reason) }
    func invalidated(_ scope: InvalidationScope) { metrics.invalidated(scope) }
    func dependentPageDropped() { metrics.dependentPageDropped() }
    func loadAdmitted(waited: Duration) { metrics.loadAdmitted(waited: waited) }
    func loadShed(_ reason: AdmissionRefusal) { metrics.loadShed(reason) }
    func retryShed(_ upstream: Upstream) { metrics.retryShed(upstream) }
    func shedding(_ started: Bool) { faultLog.shedding(started) }
}
