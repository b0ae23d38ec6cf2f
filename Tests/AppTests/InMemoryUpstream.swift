import Locking
import ProductDetails

/// The three upstreams as plain values: products `p1` … `p9999` exist (each with one review and
/// one suggestion), any other id is a 404. Counts the product calls, so a test sees loads.
final class InMemoryUpstream: ProductSource, ReviewSource, SuggestionSource, Sendable {
    private let calls = Locked(0)

    var productCalls: Int { calls.withLock { $0 } }

    static func exists(_ id: String) -> Bool {
        guard id.hasPrefix("p"), let number = Int(id.dropFirst()) else { return false }
        return (1...9999).contains(number)
    }

    func product(id: String, call: UpstreamCall) async throws(UpstreamFailure) -> Product {
        calls.withLock { $0 += 1 }
        guard Self.exists(id) else { throw .notFound }
        return Product(id: id, name: "Product \(id)", priceInCents: 1999, currency: "EUR")
    }

    func reviews(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Review] {
        [Review(id: "\(productID)-r1", rating: 4, text: "fine")]
    }

    func suggestions(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Product] {
        [Product(id: "\(productID)-s1", name: "Also", priceInCents: 500, currency: "EUR")]
    }
}
