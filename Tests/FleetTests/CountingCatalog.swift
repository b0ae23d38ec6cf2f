import Locking
import ProductDetails

/// An upstream for the replicas of a test fleet: answers every product and counts calls per route.
final class CountingCatalog: ProductSource, ReviewSource, SuggestionSource {
    private let counts = Locked<[String: Int]>([:])

    func calls(_ route: String) -> Int { counts.withLock { $0[route, default: 0] } }

    func product(id: String, call: UpstreamCall) async throws(UpstreamFailure) -> Product {
        count("products")
        return Product(id: id, name: "Product \(id)", priceInCents: 1999, currency: "EUR")
    }

    func reviews(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Review] {
        count("reviews")
        return [Review(id: "\(productID)-r1", rating: 5, text: "fine")]
    }

    func suggestions(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Product] {
        count("suggestions")
        return []
    }

    private func count(_ route: String) {
        counts.withLock { $0[route, default: 0] += 1 }
    }
}
