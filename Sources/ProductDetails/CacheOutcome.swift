/// How the cache took part in an answer: what `Cache-Status` (RFC 9211) is rendered from.
package struct CacheOutcome: Sendable, Equatable {
    package var result: CacheResult
    /// This request joined a load another request started.
    package var collapsed: Bool
    /// Freshness left: positive for a hit or a stored miss, zero or negative when served stale,
    /// `nil` when the answer was not cached.
    package var ttlRemaining: Duration?
    /// `"error"` (stale-if-error), `"breaker-open"` (stale-if-error without asking: the products
    /// breaker is open) or `"revalidating"` (stale-while-revalidate) when served stale.
    package var servedStaleBecause: String?
    /// The shared cache's part, in fleet mode when this replica's cache did not answer alone.
    package var shared: SharedCacheStatus?
    /// Set when the page was answered without waiting for an optional part: its grace ended, or
    /// its upstream's breaker is open (`Cache-Status`'s `detail`).
    package var withoutWaiting: OmissionReason?

    package init(
        result: CacheResult, collapsed: Bool = false, ttlRemaining: Duration? = nil,
        servedStaleBecause: String? = nil, shared: SharedCacheStatus? = nil, withoutWaiting: OmissionReason? = nil
    ) {
        self.result = result
        self.collapsed = collapsed
        self.ttlRemaining = ttlRemaining
        self.servedStaleBecause = servedStaleBecause
        self.shared = shared
        self.withoutWaiting = withoutWaiting
    }
}
