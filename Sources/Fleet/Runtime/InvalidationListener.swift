import ProductDetails
import Redis

/// What the invalidation subscription's events do to this replica's L1. Called on the
/// subscription's loop, in the order the events happened.
///
/// Everything that decides whether L1 may be trusted (dropping copies, the freshness cap) is done
/// here before returning, never in a task: a task could run after the next event and undo it (a
/// resubscription's uncapping landing after the disconnect that followed it). Only stopping
/// requests from joining loads waits for the in-flight table, an actor; that only narrows who
/// shares a load, and the dropped copies already keep loads begun before from being stored.
struct InvalidationListener: Sendable {
    let service: ProductDetailsService
    let shared: SharedCache
    let metrics: SharedCacheMetrics
    let log: SharedCacheLog
    /// L1's freshness while invalidations may be missed (`REDIS_DISCONNECTED_FRESHNESS_MS`).
    let disconnectedFreshness: Duration

    func handle(_ event: RedisSubscriptionEvent) {
        switch event {
        case .subscribed(let isResubscription):
            // Anything L1 holds may have missed an invalidation while nothing was subscribed, on
            // the first subscription too: pages stored before it were only capped, and would be
            // fresh for their whole TTL once the cap goes.
            service.dropCachedCopies(.everything)
            service.capLocalFreshness(to: nil)
            // Until the fleet's log is read, shared pages that show other products are not
            // served: an invalidation of one of them may have been missed.
            Task { await shared.subscribed() }
            metrics.subscription(active: true)
            if isResubscription {
                metrics.flushed(because: "resubscribed")
                log.subscription("redis subscription restored: local cache dropped, invalidations may have been missed")
            }
            Task { await service.stopJoiningLoads(.everything) }
        case .message(_, let payload):
            guard let (sequence, scope) = InvalidationScope.message(payload) else { return }
            // This replica's own invalidation, known from Redis's answer: its copies went before
            // it was sent, and dropping them again would refuse the reloads begun since.
            guard shared.received(sequence, scope) else {
                metrics.received(scope)
                return
            }
            service.dropCachedCopies(scope)
            // Counted once both halves are done.
            Task {
                await service.stopJoiningLoads(scope)
                metrics.received(scope)
                if scope == .everything { metrics.flushed(because: "invalidated") }
            }
        case .disconnected:
            metrics.subscription(active: false)
            service.capLocalFreshness(to: disconnectedFreshness)
        }
    }
}
