import Locking
import ProductDetails
import Timekeeping

/// The three upstreams as plain values: products `p1` … `p9999` exist (each with one review and
/// one suggestion), any other id is a 404. Counts the calls, so a test sees loads. An upstream
/// made to hang answers nothing: each attempt times out after its whole time-out, on the app's
/// hand-moved time line.
final class InMemoryUpstream: ProductSource, ReviewSource, SuggestionSource, Sendable {
    private let calls = Locked(0)
    private let productRequestIDs = Locked<[String]>([])
    private let reviewCallCount = Locked(0)
    private let hanging = Locked<Set<Upstream>>([])
    private let time: any TimeSource

    init(time: any TimeSource) {
        self.time = time
    }

    var productCalls: Int { calls.withLock { $0 } }
    /// The request id each product call carried, in order.
    var productCallRequestIDs: [String] { productRequestIDs.withLock { $0 } }
    var reviewCalls: Int { reviewCallCount.withLock { $0 } }

    func hang(_ upstream: Upstream, _ hangs: Bool = true) {
        hanging.withLock { if hangs { $0.insert(upstream) } else { $0.remove(upstream) } }
    }

    private func answer(_ upstream: Upstream, _ call: UpstreamCall) async throws(UpstreamFailure) {
        guard hanging.withLock({ $0.contains(upstream) }) else { return }
        do { try await time.sleep(for: call.timeout) } catch { throw .cancelled }
        throw .timedOut
    }

    static func exists(_ id: String) -> Bool {
        guard id.hasPrefix("p"), let number = Int(id.dropFirst()) else { return false }
        return (1...9999).contains(number)
    }

    func product(id: String, call: UpstreamCall) async throws(UpstreamFailure) -> Product {
        calls.withLock { $0 += 1 }
        productRequestIDs.withLock { $0.append(call.requestID) }
        try await answer(.products, call)
        guard Self.exists(id) else { throw .notFound }
        return Product(id: id, name: "Product \(id)", priceInCents: 1999, currency: "EUR")
    }

    func reviews(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Review] {
        reviewCallCount.withLock { $0 += 1 }
        try await answer(.reviews, call)
        return [Review(id: "\(productID)-r1", rating: 4, text: "fine")]
    }

    func suggestions(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Product] {
        try await answer(.suggestions, call)
        return [Product(id: "\(productID)-s1", name: "Also", priceInCents: 500, currency: "EUR")]
    }
}
