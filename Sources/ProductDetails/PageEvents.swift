/// How a request was answered with respect to the cache; also a metrics label.
package enum CacheResult: String, Sendable, Equatable, Hashable, CaseIterable {
    case hit
    case miss
    case stale
}

/// What the service, its cache and its in-flight table report about pages: how each request was
/// answered, the loads, evictions and invalidations.
///
/// Calls happen on request paths and sometimes inside an actor, never while a lock is held:
/// implementations must be cheap and non-blocking (atomics, not locks held across I/O).
package protocol PageEvents: Sendable {
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
    /// A page was answered without an optional part, and why.
    func partOmitted(_ part: DetailPart, _ reason: OmissionReason)
    /// This replica was asked to invalidate `scope` (`DELETE` or the bulk `POST`).
    func invalidated(_ scope: InvalidationScope)
    /// A cached page was dropped because a product it shows was invalidated after its load began.
    func dependentPageDropped()
}
