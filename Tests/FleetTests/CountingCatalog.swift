import Locking
import ProductDetails

/// An upstream for the replicas of a test fleet: answers every product, counts calls per route,
/// and can hold product calls until released (to keep a load running) or fail them.
final class CountingCatalog: ProductSource, ReviewSource, SuggestionSource {
    private struct State {
        var calls: [String: Int] = [:]
        var version = 1
        var held: [CheckedContinuation<Void, Never>] = []
        var holding = false
        var failing = false
        var heldReviews: [CheckedContinuation<Void, Never>] = []
        var holdingReviews = false
    }

    private let state = Locked(State())

    func calls(_ route: String) -> Int { state.withLock { $0.calls[route, default: 0] } }

    /// Changes what products are named, as an edit upstream would.
    func bumpVersion() { state.withLock { $0.version += 1 } }

    func hold() { state.withLock { $0.holding = true } }

    var heldCount: Int { state.withLock { $0.held.count } }

    func release() {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }

    /// Holds review calls until ``releaseReviews()``: an optional part that is late.
    func holdReviews() { state.withLock { $0.holdingReviews = true } }

    var heldReviewCount: Int { state.withLock { $0.heldReviews.count } }

    func releaseReviews() {
        let held = state.withLock { state in
            state.holdingReviews = false
            defer { state.heldReviews = [] }
            return state.heldReviews
        }
        for continuation in held { continuation.resume() }
    }

    func product(id: String, call: UpstreamCall) async throws(UpstreamFailure) -> Product {
        let (version, failing) = count("products")
        await waitIfHeld()
        if failing { throw .status(503, retryAfter: nil) }
        return Product(id: id, name: "Product \(id) v\(version)", priceInCents: 1999, currency: "EUR")
    }

    func reviews(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Review] {
        _ = count("reviews")
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                guard state.holdingReviews else { return true }
                state.heldReviews.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
        return [Review(id: "\(productID)-r1", rating: 5, text: "fine")]
    }

    func suggestions(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Product] {
        _ = count("suggestions")
        return []
    }

    private func count(_ route: String) -> (version: Int, failing: Bool) {
        state.withLock { state in
            state.calls[route, default: 0] += 1
            return (state.version, state.failing)
        }
    }

    private func waitIfHeld() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                guard state.holding else { return true }
                state.held.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
