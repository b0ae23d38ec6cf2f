/// How the service gets a page its local cache could not answer: the one seam between the
/// domain's request path and where pages come from. ``LocalLoads``: this replica's upstreams
/// alone. ``FleetLoads``: the fleet's shared cache first (a look, the fleet-wide lease, the store),
/// then the upstreams. The service holds one and never asks which.
///
/// Every method takes the service whose request it serves (a load path holds none, so the two
/// do not keep each other alive): its in-flight table, its cache and ``ProductDetailsService/loadFromUpstreams(_:answerEarly:whenComplete:)``.
package protocol LoadPath: Sendable {
    /// Stamps a load begun now with the invalidation log's position (``LoadContext/stamp``), or
    /// `nil` when nothing it stores can be vouched for beyond this replica.
    var stamp: UInt64? { get }

    /// Whether ``load(_:readsShared:answerEarly:begun:in:)`` does more than the upstream calls;
    /// `false`: it is exactly ``ProductDetailsService/loadFromUpstreams(_:answerEarly:whenComplete:)``,
    /// which the service then calls itself.
    var addsPhase: Bool { get }

    /// Whether a request's first look (``firstLook(_:in:completion:)``, ``begin(id:in:)``) can
    /// answer before a load starts; `false`: the request goes straight to the in-flight table.
    var looksFirst: Bool { get }

    /// A request's first look, taken without a task on the caller's event loop: `completion`
    /// gets the lookup it ends in. Returns what cancels it, or `nil` when there is none to take
    /// (`completion` then never runs).
    func firstLook(
        _ pending: PendingDetail, in service: ProductDetailsService, completion: @escaping @Sendable (DetailLookup) -> Void
    ) -> (() -> Void)?

    /// The same look from a task, for a request that did not take it on its loop.
    func begin(id: String, in service: ProductDetailsService) async -> (any BegunLoad)?

    /// The load itself, run once per id by the in-flight table. `readsShared`: `false` for a
    /// client's `no-cache`; `begun`: the starting request's first look, carried on.
    func load(
        _ context: LoadContext, readsShared: Bool, answerEarly: AnswerEarly?, begun: (any BegunLoad)?, in service: ProductDetailsService
    ) async throws -> LoadedDocument

    /// Where an invalidation this replica made reaches beyond its own memory.
    func invalidate(_ scope: InvalidationScope) async -> InvalidationReach
}
