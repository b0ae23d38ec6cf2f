@testable import ProductDetails
import TestSupport
import Testing
import Timekeeping

/// A page gets its gzip variant once, when it is stored into L1, through the `PageCompressor`
/// port; hits never compress, and small pages stay identity. That the shared cache keeps the
/// variant is `FleetTests/SharedPageCompressionTests`.
struct PageCompressionTests {
    static func service(_ compressor: FakeCompressor, minBytes: Int) -> ProductDetailsService {
        var settings = ServiceSettings(gzipMinBytes: minBytes)
        settings.hedging = nil
        let catalog = FakeCatalog()
        return ProductDetailsService(
            products: catalog, reviews: catalog, suggestions: catalog, settings: settings, time: ManualTimeSource(),
            compressor: compressor, random: { $0.lowerBound })
    }

    @Test func aStoredPageGetsItsVariantOnceAndHitsServeIt() async throws {
        let compressor = FakeCompressor()
        let service = Self.service(compressor, minBytes: 64)
        let body = ServiceHarness.expectedBody("p1")
        let loaded = try await service.detail(id: "p1")
        let variant = try #require(loaded.document.gzip)
        #expect(variant.body == Array("gz:".utf8) + body.prefix(8))
        #expect(variant.etag == String(loaded.document.etag.dropLast()) + "-gz\"")
        #expect(loaded.document.body == body)
        for _ in 0..<3 {
            guard case .answered(let hit) = service.lookUpDetail(id: "p1") else { Issue.record("not a hit"); return }
            #expect(hit.document == loaded.document)
        }
        #expect(compressor.callCount == 1)
    }

    @Test func theCacheCountsBothBodies() async throws {
        let compressor = FakeCompressor()
        let service = Self.service(compressor, minBytes: 64)
        let document = try await service.detail(id: "p1").document
        let variant = try #require(document.gzip)
        #expect(service.cacheBytes == document.body.count + document.etag.utf8.count + variant.body.count + variant.etag.utf8.count
            + 64 + document.shownProducts.reduce(0) { $0 + $1.utf8.count + 16 })
    }

    @Test func aPageBelowTheThresholdStaysIdentity() async throws {
        let compressor = FakeCompressor()
        let size = ServiceHarness.expectedBody("p1").count
        let below = Self.service(compressor, minBytes: size + 1)
        #expect(try await below.detail(id: "p1").document.gzip == nil)
        #expect(compressor.callCount == 0)
        let atIt = Self.service(compressor, minBytes: size)
        #expect(try await atIt.detail(id: "p1").document.gzip != nil)
    }

    @Test func aVariantNoSmallerThanTheBodyIsNotKept() async throws {
        let service = Self.service(FakeCompressor(grows: true), minBytes: 0)
        #expect(try await service.detail(id: "p1").document.gzip == nil)
    }

    @Test func withoutACompressorOrACacheEveryPageIsIdentity() async throws {
        let catalog = FakeCatalog()
        let plain = ProductDetailsService(products: catalog, reviews: catalog, suggestions: catalog, settings: ServiceSettings(gzipMinBytes: 0))
        #expect(try await plain.detail(id: "p1").document.gzip == nil)
        let compressor = FakeCompressor()
        let uncached = ProductDetailsService(
            products: catalog, reviews: catalog, suggestions: catalog, settings: ServiceSettings(ttl: .zero, gzipMinBytes: 0),
            compressor: compressor)
        #expect(try await uncached.detail(id: "p1").document.gzip == nil)
        #expect(compressor.callCount == 0)
    }
}
