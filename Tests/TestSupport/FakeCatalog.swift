import Locking
import ProductDetails

/// A scripted upstream port: answers per (id, call number), optionally held at a gate, and
/// counts calls, concurrency and cancellations.
package final class FakePort<Value: Sendable>: Sendable {
    private struct State {
        var calls: [(id: String, call: UpstreamCall)] = []
        var running = 0
        var maxRunning = 0
        var cancellations = 0
    }

    private let state = Locked(State())
    private let gate = Locked<CancellableGate?>(nil)
    private let responder: Locked<@Sendable (String, Int) -> Result<Value, UpstreamFailure>>

    package init(_ responder: @escaping @Sendable (String, Int) -> Result<Value, UpstreamFailure>) {
        self.responder = Locked(responder)
    }

    package var callCount: Int { state.withLock { $0.calls.count } }
    package var calls: [(id: String, call: UpstreamCall)] { state.withLock { $0.calls } }
    package var maxRunning: Int { state.withLock { $0.maxRunning } }
    package var running: Int { state.withLock { $0.running } }
    package var cancellations: Int { state.withLock { $0.cancellations } }

    /// Holds every later call until the returned gate opens.
    @discardableResult
    package func hold() -> CancellableGate {
        let newGate = CancellableGate()
        gate.withLock { $0 = newGate }
        return newGate
    }

    package func release() {
        let current = gate.withLock { gate in
            defer { gate = nil }
            return gate
        }
        current?.open()
    }

    package func respond(_ responder: @escaping @Sendable (String, Int) -> Result<Value, UpstreamFailure>) {
        self.responder.withLock { $0 = responder }
    }

    package func call(id: String, _ call: UpstreamCall) async throws(UpstreamFailure) -> Value {
        let number = state.withLock { state -> Int in
            state.calls.append((id, call))
            state.running += 1
            state.maxRunning = max(state.maxRunning, state.running)
            return state.calls.count
        }
        defer { state.withLock { $0.running -= 1 } }
        if let gate = gate.withLock({ $0 }) {
            do {
                try await gate.wait()
            } catch {
                state.withLock { $0.cancellations += 1 }
                throw .cancelled
            }
        }
        let respond = responder.withLock { $0 }
        return try respond(id, number).get()
    }
}

/// The three upstream services, backed by fake ports with the same catalogue by default.
package struct FakeCatalog: ProductSource, ReviewSource, SuggestionSource {
    package let productPort = FakePort<Product> { id, _ in .success(FakeCatalog.product(id)) }
    package let reviewPort = FakePort<[Review]> { id, _ in .success(FakeCatalog.reviews(id)) }
    package let suggestionPort = FakePort<[Product]> { id, _ in .success(FakeCatalog.suggested(id)) }

    package init() {}

    package static func product(_ id: String) -> Product {
        Product(id: id, name: "Product \(id)", priceInCents: 1999, currency: "EUR")
    }

    package static func reviews(_ id: String) -> [Review] {
        [Review(id: "\(id)-r1", rating: 5, text: "Great \"stuff\"\n"), Review(id: "\(id)-r2", rating: 2, text: "meh")]
    }

    package static func suggested(_ id: String) -> [Product] {
        [Product(id: "\(id)-s1", name: "Also nice", priceInCents: 500, currency: "EUR")]
    }

    package func product(id: String, call: UpstreamCall) async throws(UpstreamFailure) -> Product {
        try await productPort.call(id: id, call)
    }

    package func reviews(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Review] {
        try await reviewPort.call(id: productID, call)
    }

    package func suggestions(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Product] {
        try await suggestionPort.call(id: productID, call)
    }
}
