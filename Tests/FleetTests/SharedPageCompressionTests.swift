@testable import Fleet
@testable import ProductDetails
import TestSupport
import Testing
import Timekeeping

/// A page's gzip variant in a fleet: the shared cache keeps it, so the replicas that read the page
/// compress nothing (a single node's rules: `ProductDetailsTests/PageCompressionTests`).
struct SharedPageCompressionTests {
    /// A replica whose loads go through `shared`, compressing with `compressor` the pages of
    /// `minBytes` and more.
    static func service(
        _ compressor: FakeCompressor, minBytes: Int, catalog: FakeCatalog, time: ManualTimeSource, shared: SharedCache
    ) -> ProductDetailsService {
        var settings = ServiceSettings(gzipMinBytes: minBytes)
        settings.hedging = nil
        return ProductDetailsService(
            products: catalog, reviews: catalog, suggestions: catalog, settings: settings, time: time, loads: FleetLoads(shared),
            compressor: compressor, random: { $0.lowerBound })
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
