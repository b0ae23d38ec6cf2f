/// What a load path (``LoadPath``, in fleet mode `FleetLoads`) may ask of the service beyond its
/// settings, time line and events: whether a load is running here, a load's token, L1's copy of
/// a page read elsewhere, and the upstream calls themselves
/// (``loadFromUpstreams(_:answerEarly:whenComplete:)``).
extension ProductDetailsService {
    /// Whether a request for `id` would join a load this replica is running.
    package func isLoading(_ id: String) -> Bool {
        inFlight.isJoinable(id)
    }

    /// The token a load of `id` begun now stores under (``ResponseCache/loadToken(for:)``).
    package func loadToken(for id: String) -> LoadToken {
        cache.loadToken(for: id)
    }

    /// Fills L1 with a page read from elsewhere (the shared cache), its windows counted from its
    /// first store: `age` ago.
    package func keepLocally(_ page: SharedPage, age: Duration, id: String, token: LoadToken) {
        guard settings.ttl > .zero else { return }
        cache.store(
            page.document, for: id, cost: page.document.cacheCost, ttl: page.ttl,
            staleIfError: page.staleIfError, staleWhileRevalidate: page.staleWhileRevalidate, age: age,
            dependencies: page.document.dependencies, token: token
        )
    }
}
