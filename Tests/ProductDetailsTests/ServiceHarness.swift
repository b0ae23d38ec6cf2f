@testable import ProductDetails
import TestSupport
import Testing
import Timekeeping

/// A service wired to fake upstreams, a manual clock and recorded events.
struct ServiceHarness {
    let catalog = FakeCatalog()
    let time = ManualTimeSource()
    let events = RecordingEvents()
    let service: ProductDetailsService

    init(_ settings: ServiceSettings = ServiceSettings()) {
        // Jitter at its minimum: retries happen without parking on the manual clock.
        service = ProductDetailsService(
            products: catalog, reviews: catalog, suggestions: catalog,
            settings: settings, time: time, events: events, random: { $0.lowerBound }
        )
    }

    /// `detail` as a `Result`, so tests can compare outcomes.
    func detail(_ id: String, noCache: Bool = false, observer: (any LoadObserver)? = nil) async -> Result<DetailAnswer, ProductDetailsError> {
        do throws(ProductDetailsError) {
            return .success(try await service.detail(id: id, noCache: noCache, requestID: "req-\(id)", observer: observer))
        } catch {
            return .failure(error)
        }
    }

    /// The exact bytes of the complete document the fake catalogue yields for `id` (a slice, as
    /// a document holds its body).
    static func expectedBody(_ id: String) -> ArraySlice<UInt8> {
        DetailEncoder.encode(ProductDetail(
            product: FakeCatalog.product(id), reviews: FakeCatalog.reviews(id), suggested: FakeCatalog.suggested(id)
        ))[...]
    }
}

extension Result where Success == DetailAnswer {
    var answer: DetailAnswer? { try? get() }
    var text: String { answer.map { String(decoding: $0.document.body, as: UTF8.self) } ?? "" }
}
