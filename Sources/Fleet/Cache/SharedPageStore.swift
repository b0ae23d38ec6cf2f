import ProductDetails
/// The cache the replicas of a fleet share, as the domain needs it: pages, load leases and
/// fleet-wide invalidation. The Redis implementation is `RedisPageStore` (`Fleet/Redis`); the rules
/// only see this port, so they are tested without a server.
///
/// Every call is bounded by `deadline` (on the service's time line) and either answers or throws
/// ``SharedStoreFailure``: the caller then carries on without the shared cache.
package protocol SharedPageStore: Sendable {
    /// The page for `id` (or that another replica loads it, where a store learns that as
    /// cheaply), without taking the lease: what a request asks before it joins or starts a load
    /// (a hit needs nothing more). `nil` when neither is known this way;
    /// ``read(id:deadline:peeked:)`` then takes the lease or says who holds it.
    func peek(id: String, deadline: Duration) async throws(SharedStoreFailure) -> SharedRead?

    /// ``peek(id:deadline:)`` without a task, for a caller on an event loop (an L2 hit is then
    /// answered with no task at all): `completion` gets what `peek` would return or throw, on
    /// the caller's thread, perhaps before this returns. Returns what cancels the peek (on that
    /// thread; `completion` then gets `.cancelled` unless it ran already), or `nil` when this
    /// store cannot from here (`completion` then never runs): the caller awaits `peek`.
    func peek(
        id: String, deadline: Duration, completion: @escaping @Sendable (Result<SharedRead?, SharedStoreFailure>) -> Void
    ) -> (() -> Void)?

    /// The page for `id`; when there is none, an attempt to take the product's load lease.
    /// `peeked`: a ``peek(id:deadline:)`` just answered `nil`, so what it asked need not be asked
    /// again.
    func read(id: String, deadline: Duration, peeked: Bool) async throws(SharedStoreFailure) -> SharedRead

    /// Takes the load lease for a page that went stale, unless another replica holds it.
    func claim(id: String, generation: SharedGeneration, deadline: Duration) async throws(SharedStoreFailure) -> SharedClaim?

    /// Takes the load lease of `id` at its current tokens without reading its page (a refresh a
    /// client asked for with `no-cache`); `nil` when another replica holds it.
    func claimCurrent(id: String, deadline: Duration) async throws(SharedStoreFailure) -> SharedClaim?

    /// Extends `claim` while its load runs; `false` once it was lost (lapsed and taken by another).
    func renew(_ claim: SharedClaim, deadline: Duration) async throws(SharedStoreFailure) -> Bool

    /// Stores the page loaded under `claim` and gives the lease up, unless `keepingLease` (the
    /// page lacks a part still on its way: the completed one follows under the same claim).
    /// Refused (`false`) unless the claim is still held and neither the product nor everything
    /// was invalidated since it was taken: a late or overtaken load never overwrites.
    func store(_ page: SharedPage, under claim: SharedClaim, keepingLease: Bool, deadline: Duration) async throws(SharedStoreFailure) -> Bool

    /// Gives the lease up without storing (the load failed), so a waiter may take over at once.
    func release(_ claim: SharedClaim, deadline: Duration) async throws(SharedStoreFailure)

    /// Makes every replica forget what `scope` reaches: pages stored before are unreachable from
    /// now on, and the replicas are told. Returns the invalidation's sequence and how many
    /// replicas received the message.
    func invalidate(_ scope: InvalidationScope, deadline: Duration) async throws(SharedStoreFailure) -> SharedInvalidationReceipt

    /// The fleet's recent invalidations, read when this replica (re)subscribes: what it may have
    /// missed while it was not listening.
    func invalidationHistory(deadline: Duration) async throws(SharedStoreFailure) -> SharedInvalidationHistory
}

extension SharedPageStore {
    package func peek(
        id: String, deadline: Duration, completion: @escaping @Sendable (Result<SharedRead?, SharedStoreFailure>) -> Void
    ) -> (() -> Void)? {
        nil
    }

    /// The page for `id`; when there is none, an attempt to take the product's load lease.
    package func read(id: String, deadline: Duration) async throws(SharedStoreFailure) -> SharedRead {
        try await read(id: id, deadline: deadline, peeked: false)
    }

    /// Stores the page and gives the lease up.
    package func store(_ page: SharedPage, under claim: SharedClaim, deadline: Duration) async throws(SharedStoreFailure) -> Bool {
        try await store(page, under: claim, keepingLease: false, deadline: deadline)
    }
}

/// What a look at the shared cache without taking a lease found (``SharedCache/peek(id:deadline:)``).
enum SharedPeek: Sendable {
    /// The page (fresh, stale, or one that may not be served), or that another replica loads it.
    case found(SharedRead)
    /// Neither page nor lease is known this way: the read that takes the lease must follow.
    case unknown
    /// The call failed, or the breaker refused it.
    case failed
}

/// What the shared cache had for a product.
package enum SharedRead: Sendable, Equatable {
    /// A stored page, `age` after it was stored, under the product's current generation.
    case page(SharedPage, age: Duration, generation: SharedGeneration)
    /// No page, and this replica now holds the load lease: it loads and stores.
    case claimed(SharedClaim)
    /// No page, and another replica holds the lease: its page should appear soon.
    case loadingElsewhere
    /// A page that shows a product invalidated after it was loaded: never served, loaded again
    /// under the lease at `generation` as on a miss. Only ``SharedCache`` answers this, having
    /// judged a store's page by what it knows of the fleet's invalidations.
    case invalidated(generation: SharedGeneration)
}
