@testable import Fleet
@testable import ProductDetails
import TestSupport
import Testing
import Timekeeping

/// A page gets its gzip variant once, when it is stored into L1, through the `PageCompressor`
/// port; hits never compress, small pages stay identity, and the shared cache keeps the variant.
struct PageCompressionTests {
    static func service(
        _ compressor: FakeCompressor, minBytes: Int, catalog: FakeCatalog = FakeCatalog(), time: ManualTimeSource = ManualTimeSource(),
        shared: SharedCache? = nil
    ) -> ProductDetailsService {
        var settings = ServiceSettings(gzipMinBytes: minBytes)
        settings.hedging = nil
        return ProductDetailsService(
            products: catalog, reviews: catalog, suggestions: catalog, settings: settings, time: time, loads: loadPath(shared),
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

    /// The loader's variant is shared with the page: a replica that reads it compresses nothing.
    /// A page shared without one (its loader does not compress) is compressed by its reader, once.
    @Test func theSharedCacheKeepsTheVariantSoReadersNeverCompress() async throws {
        let time = ManualTimeSource()
        let catalog = FakeCatalog()
        let store = InMemorySharedPageStore(time: time)
        func replica(_ compressor: FakeCompressor) async -> ProductDetailsService {
            let shared = SharedCache(store: store, time: time)
            await shared.subscribed()
            return Self.service(compressor, minBytes: 64, catalog: catalog, time: time, shared: shared)
        }
        let (first, second) = (FakeCompressor(), FakeCompressor())
        let loader = await replica(first)
        let loaded = try await loader.detail(id: "p1").document
        #expect(loaded.gzip != nil)
        guard case .page(let page, _, _) = try await store.read(id: "p1", deadline: time.now + .seconds(1)) else {
            Issue.record("the page was not shared")
            return
        }
        #expect(page.document == loaded && page.document.gzip == loaded.gzip)
        let reader = await replica(second)
        let read = try await reader.detail(id: "p1")
        #expect(read.cache.shared?.result == .hit)
        #expect(read.document == loaded && read.document.gzip == loaded.gzip)
        guard case .answered(let hit) = reader.lookUpDetail(id: "p1") else { Issue.record("not kept locally"); return }
        #expect(hit.document.gzip == loaded.gzip)
        #expect(catalog.productPort.callCount == 1 && first.callCount == 1 && second.callCount == 0)

        let plainShared = SharedCache(store: store, time: time)
        await plainShared.subscribed()
        var plainSettings = ServiceSettings(gzipMinBytes: 64)
        plainSettings.hedging = nil
        let plainLoader = ProductDetailsService(
            products: catalog, reviews: catalog, suggestions: catalog, settings: plainSettings, time: time, loads: FleetLoads(plainShared),
            random: { $0.lowerBound })
        #expect(try await plainLoader.detail(id: "p2").document.gzip == nil)
        let third = FakeCompressor()
        let compressing = await replica(third)
        #expect(try await compressing.detail(id: "p2").document.gzip != nil)
        #expect(third.callCount == 1)
    }
}
