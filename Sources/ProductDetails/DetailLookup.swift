/// What the one synchronous cache look-up for a detail page gave
/// (``ProductDetailsService/lookUpDetail(id:noCache:)``).
package enum DetailLookup: Sendable {
    /// Fresh in the cache: the answer, at once, with nothing to wait for.
    case answered(DetailAnswer)
    /// Anything else: ``ProductDetailsService/detail(after:requestID:trace:observer:executor:)`` finishes
    /// it (a stale answer with its refresh, a load, a refusal) without looking the cache up again.
    case pending(PendingDetail)
}
