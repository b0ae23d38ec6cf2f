/// The result of one load, shared by every request that waited for it.
package struct LoadedDocument: Sendable {
    package let document: CachedDocument
    /// The TTL it was stored with; `nil` when it was not stored (caching off, or invalidated).
    package let storedFor: Duration?
    /// The trace its upstream calls carried, kept as numbers: its id is written out as text only
    /// for a request that joined the load (``DetailAnswer/loadTraceID``), not for every load.
    package var trace: TraceContext?
    /// Set when the document is served stale (from the shared cache, while another replica
    /// refreshes it): how long it has been stale.
    package var staleAge: Duration?
    /// The shared cache's part, in fleet mode.
    package var shared: SharedCacheStatus?
    /// What to share with the fleet: the document with its windows, when it was cacheable.
    package var page: SharedPage?
    /// Set when the page was answered without waiting for an optional part (its grace ended, or
    /// its breaker is open).
    package var withoutWaiting: OmissionReason?
    /// The page was answered without a part still on its way: it is completed when that part
    /// arrives (``ProductDetailsService/completeLate(_:with:_:_:)``).
    package var completesLater = false

    package init(document: CachedDocument, storedFor: Duration?, staleAge: Duration? = nil, shared: SharedCacheStatus? = nil, page: SharedPage? = nil) {
        self.document = document
        self.storedFor = storedFor
        self.staleAge = staleAge
        self.shared = shared
        self.page = page
    }
}

/// Runs when a load's late optional parts have arrived: with the completed page, or `nil` when
/// there is nothing new to store (the parts failed, or an invalidation overtook the load).
package typealias LateCompletion = nonisolated(nonsending) @Sendable (LoadedDocument?) async -> Void
