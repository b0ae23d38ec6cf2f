import Synchronization

/// The stub's counters: one atomic each, bumped from any loop without a lock.
final class StatsCounters: Sendable {
    private let product = Atomic<Int>(0)
    private let reviews = Atomic<Int>(0)
    private let suggested = Atomic<Int>(0)
    private let abandoned = Atomic<Int>(0)
    private let abandonedProduct = Atomic<Int>(0)
    private let slowFirstCalls = Atomic<Int>(0)

    func received(_ route: StubRoute) {
        switch route {
        case .product: product.add(1, ordering: .relaxed)
        case .reviews: reviews.add(1, ordering: .relaxed)
        case .suggested: suggested.add(1, ordering: .relaxed)
        case .all: preconditionFailure("a request is on one route")
        }
    }

    func abandon(_ route: StubRoute) {
        abandoned.add(1, ordering: .relaxed)
        if route == .product { abandonedProduct.add(1, ordering: .relaxed) }
    }

    func slowFirstCall() {
        slowFirstCalls.add(1, ordering: .relaxed)
    }

    func snapshot(openConnections: Int) -> StubStats {
        StubStats(
            product: product.load(ordering: .relaxed),
            reviews: reviews.load(ordering: .relaxed),
            suggested: suggested.load(ordering: .relaxed),
            abandoned: abandoned.load(ordering: .relaxed),
            abandonedProduct: abandonedProduct.load(ordering: .relaxed),
            slowFirstCalls: slowFirstCalls.load(ordering: .relaxed),
            openConnections: openConnections
        )
    }

    func reset() {
        product.store(0, ordering: .relaxed)
        reviews.store(0, ordering: .relaxed)
        suggested.store(0, ordering: .relaxed)
        abandoned.store(0, ordering: .relaxed)
        abandonedProduct.store(0, ordering: .relaxed)
        slowFirstCalls.store(0, ordering: .relaxed)
    }
}
