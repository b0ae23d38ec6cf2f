import ProductDetails
import Timekeeping

/// A service wired to fake upstreams, a manual clock and recorded events.
package struct ServiceHarness {
    package let catalog = FakeCatalog()
    package let time = ManualTimeSource()
    package let events = RecordingEvents()
    package let service: ProductDetailsService

    package init(_ settings: ServiceSettings = ServiceSettings()) {
        // Jitter at its minimum: retries happen without parking on the manual clock.
        service = ProductDetailsService(
            products: catalog, reviews: catalog, suggestions: catalog,
            settings: settings, time: time, events: events, random: { $0.lowerBound }
        )
    }

    /// `detail` as a `Result`, so tests can compare outcomes.
    package func detail(_ id: String, noCache: Bool = false, observer: (any LoadObserver)? = nil) async -> Result<DetailAnswer, ProductDetailsError> {
        do throws(ProductDetailsError) {
            return .success(try await service.detail(id: id, noCache: noCache, requestID: "req-\(id)", observer: observer))
        } catch {
            return .failure(error)
        }
    }

    /// The exact bytes of the complete document the fake catalogue yields for `id` (a slice, as
    /// a document holds its body).
    package static func expectedBody(_ id: String) -> ArraySlice<UInt8> {
        DetailEncoder.encode(ProductDetail(
            product: FakeCatalog.product(id), reviews: FakeCatalog.reviews(id), suggested: FakeCatalog.suggested(id)
        ))[...]
    }
}

extension Result where Success == DetailAnswer {
    package var answer: DetailAnswer? { try? get() }
    package var text: String { answer.map { String(decoding: $0.document.body, as: UTF8.self) } ?? "" }
}
