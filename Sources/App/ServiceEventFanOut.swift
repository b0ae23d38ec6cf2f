import ProductDetails

/// The domain's events as the application hears them: every one is counted by the metrics or
/// says why not, the upstream faults and shedding are also logged, and an upstream breaker that
/// opens fails the calls queued for that upstream's connections at once. Metrics only count;
/// lines and actions live here. The shared cache's events go to its own ``SharedCacheTelemetry``.
struct ServiceEventFanOut: ServiceEvents {
    let metrics: ServiceMetrics
    let faultLog: UpstreamFaultLog
    /// Called when an upstream's breaker opens (the client drops that upstream's queued calls).
    let breakerOpened: @Sendable (Upstream) -> Void

    // MARK: UpstreamEvents

    func upstreamAttempt(_ upstream: Upstream, failure: UpstreamFailure?, duration: Duration) {
        faultLog.attempted(upstream, failure: failure)
        metrics.upstreamAttempt(upstream, failure: failure, duration: duration)
    }

    /// Logged only: the attempts it ends are counted each, by outcome.
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
    func retryShed(_ upstream: Upstream) { metrics.retryShed(upstream) }
    func hedge(_ upstream: Upstream, _ result: HedgeResult) { metrics.hedge(upstream, result) }

    // MARK: PageEvents

    func cacheLookup(_ result: CacheResult) { metrics.cacheLookup(result) }
    func coalesced() { metrics.coalesced() }
    func loadStarted() { metrics.loadStarted() }
    /// Not counted: the in-flight gauge reads the table itself, so finished loads are started
    /// loads less those in flight.
    func loadFinished() {}
    func upstreamLoadStarted() { metrics.upstreamLoadStarted() }
    func loadCancelled() { metrics.loadCancelled() }
    func loadRefused() { metrics.loadRefused() }
    func eviction(reason: String) { metrics.eviction(reason: reason) }
    func partOmitted(_ part: DetailPart, _ reason: OmissionReason) { metrics.partOmitted(part, reason) }
    func invalidated(_ scope: InvalidationScope) { metrics.invalidated(scope) }
    func dependentPageDropped() { metrics.dependentPageDropped() }

    // MARK: AdmissionEvents

    func loadAdmitted(waited: Duration) { metrics.loadAdmitted(waited: waited) }
    func loadShed(_ reason: AdmissionRefusal) { metrics.loadShed(reason) }
    /// Logged only: each refusal is counted, by reason (`loadShed`).
    func shedding(_ started: Bool) { faultLog.shedding(started) }
}
