/// What the one synchronous cache look-up for a detail page gave
/// (``ProductDetailsService/lookUpDetail(id:noCache:)``).
package enum DetailLookup: Sendable {
    /// Fresh in the cache: the answer, at once, with nothing to wait for.
    case answered(DetailAnswer)
    /// Anything else: ``ProductDetailsService/detail(after:requestID:trace:observer:executor:)`` finishes
    /// it (a stale answer with its refresh, a load, a refusal) without looking the cache up again.
    case pending(PendingDetail)
}

/// A detail request whose cache look-up found nothing fresh: the id and what the look-up gave,
/// carried from the synchronous look-up to the work that waits.
package struct PendingDetail: Sendable {
    package let id: String
    /// Nil when the id is invalid or the client asked for no cache (no look-up was made).
    package let cached: CacheLookup<CachedDocument>?
    /// The client's `no-cache`: a load this request starts skips the shared cache too.
    package var noCache = false
    /// The request's first look at the shared cache, when it was taken without a task
    /// (``ProductDetailsService/firstLook(_:completion:)``): the load goes on from it.
    package var begun: (any BegunLoad)?
}
