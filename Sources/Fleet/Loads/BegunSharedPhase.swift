import ProductDetails
/// A load's shared-cache phase as a request began it, before it reached the in-flight table: its
/// first look, taken without the lease (``FleetLoads/begin(id:in:)``).
/// A fresh page is answered there and then, so a shared-cache hit costs no load task; anything else is
/// carried on by the load the request starts, from where the look left the machine. A request
/// that joins another's load instead drops it.
package struct BegunSharedPhase: BegunLoad {
    var machine: SharedLookupMachine
    /// What the machine said after the look.
    let next: SharedLookupMachine.Action
    /// The look found neither page nor lease: the load's read goes straight to the lease.
    let peeked: Bool
    /// Taken before the look, so that an invalidation meanwhile refuses what the load stores.
    package let token: LoadToken
    package let stamp: UInt64
    /// The load's deadline, counted from the look.
    package let deadline: Duration
}

extension BegunSharedPhase {
    /// The answer the first look gave by itself (a fresh page), counted as the load it spares;
    /// `nil` when the load must carry on from it.
    package func freshAnswer(counting events: any PageEvents) -> DetailAnswer? {
        guard case .answerFresh(let document, let remaining, let status) = next else { return nil }
        // Answered as the load would have answered it, and counted as one.
        events.loadStarted()
        events.loadFinished()
        events.cacheLookup(.miss)
        return DetailAnswer(document: document, cache: CacheOutcome(result: .miss, ttlRemaining: remaining, shared: status))
    }
}
