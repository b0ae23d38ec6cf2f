import PureTestSupport
import TestSupport
import Testing
@testable import ProductDetails

/// A page depends on every product it shows: invalidating a suggested product reaches the pages
/// that show it, never the others, and a load that saw the old product never stores it.
struct DependentInvalidationTests {
    let harness = ServiceHarness()
    var catalog: FakeCatalog { harness.catalog }

    @Test func aPageShowsItsOwnIdThenEachValidSuggestionOnce() async throws {
        catalog.suggestionPort.respond { _, _ in
            .success([
                FakeCatalog.product("s1"), FakeCatalog.product("bad id"), FakeCatalog.product("s1"),
                FakeCatalog.product("a"), FakeCatalog.product("s2"),
            ])
        }
        let page = try #require(await harness.detail("a").answer)
        #expect(page.document.shownProducts == ["a", "s1", "s2"])
        #expect(Array(page.document.dependencies) == ["s1", "s2"])
    }

    @Test func invalidatingASuggestedProductMakesThePageThatShowsItAMiss() async throws {
        #expect(await harness.detail("a").answer?.cache.result == .miss)
        #expect(await harness.detail("b").answer?.cache.result == .miss)
        await harness.service.invalidate(.product("a-s1"))
        #expect(await harness.detail("a").answer?.cache.result == .miss)
        #expect(await harness.detail("b").answer?.cache.result == .hit)
        #expect(harness.events.count("dependentDropped") == 1)
        #expect(catalog.productPort.callCount == 3)
    }

    @Test func anUnrelatedInvalidationKeepsThePage() async throws {
        _ = await harness.detail("a")
        await harness.service.invalidate(.product("zzz"))
        await harness.service.invalidate(.products(["y1", "y2"]))
        #expect(await harness.detail("a").answer?.cache.result == .hit)
        #expect(harness.events.count("dependentDropped") == 0)
    }

    @Test func anInvalidatedDependencyIsNotServedStaleEvenWhenTheUpstreamFails() async throws {
        _ = await harness.detail("a")
        harness.time.advance(by: .seconds(70))  // within stale-while-revalidate and stale-if-error
        await harness.service.invalidate(.product("a-s1"))
        catalog.productPort.respond { _, _ in .failure(.connectionReset) }
        let answer = await harness.detail("a")
        #expect(answer.answer == nil)
        #expect(harness.service.cacheEntryCount == 0)
    }

    @Test func aBulkInvalidationReachesEveryIdAndTheirDependents() async throws {
        for id in ["a", "b", "c", "d"] { _ = await harness.detail(id) }
        await harness.service.invalidate(.products(["a", "b-s1", "zzz"]))
        #expect(await harness.detail("a").answer?.cache.result == .miss)
        #expect(await harness.detail("b").answer?.cache.result == .miss)
        #expect(await harness.detail("c").answer?.cache.result == .hit)
        #expect(await harness.detail("d").answer?.cache.result == .hit)
        #expect(harness.events.count("invalidated bulk 3") == 1)
    }

    /// The race of a load whose suggestions answered before their product was invalidated: the
    /// load compares against what it took at its start, so it answers its waiters but stores
    /// nothing, and a request that came after the invalidation does not join it.
    @Test func aLoadThatSawTheOldSuggestionNeverStoresIt() async throws {
        let gate = catalog.productPort.hold()
        let harness = harness
        let before = Task { await harness.detail("a") }
        await gate.waitForWaiters(1)
        await eventually { catalog.suggestionPort.callCount == 1 }
        await harness.service.invalidate(.product("a-s1"))
        let after = Task { await harness.detail("a") }
        await gate.waitForWaiters(2)
        catalog.productPort.release()
        let old = try #require(await before.value.answer)
        #expect(old.document.shownProducts == ["a", "a-s1"])
        #expect(old.cache.ttlRemaining == nil)
        #expect(await after.value.answer?.cache.collapsed == false)
        #expect(catalog.productPort.callCount == 2)
        #expect(await harness.detail("a").answer?.cache.result == .hit)
    }

    @Test func theStoreIsRefusedWhenADependencyWasInvalidatedAfterTheToken() {
        let cache = ResponseCache<String, Int>(maxEntries: 10, maxBytes: 1000, time: harness.time)
        let token = cache.loadToken(for: "a")
        cache.invalidate("s")
        #expect(!cache.store(1, for: "a", cost: 1, ttl: .seconds(60), dependencies: ["s"], token: token))
        #expect(cache.store(1, for: "a", cost: 1, ttl: .seconds(60), dependencies: ["t"], token: token))
        #expect(cache.store(1, for: "a", cost: 1, ttl: .seconds(60), dependencies: ["s"], token: cache.loadToken(for: "a")))
    }

    @Test func forgottenInvalidationsDropEveryPageWithDependenciesButNoOther() {
        let cache = ResponseCache<String, Int>(maxEntries: 10, maxBytes: 1000, time: harness.time, invalidationMemory: 2)
        cache.store(1, for: "a", cost: 1, ttl: .seconds(60), dependencies: ["s"], token: cache.loadToken(for: "a"))
        cache.store(2, for: "b", cost: 1, ttl: .seconds(60), token: cache.loadToken(for: "b"))
        // Three invalidations of other ids: the first is forgotten, so whether "s" was among
        // them is no longer known for a page stored before.
        cache.invalidate(["x"])
        cache.invalidate(["y"])
        cache.invalidate(["z"])
        #expect(cache.lookup("a") == .miss)
        #expect(cache.lookup("b") == .fresh(2, remaining: .seconds(60)))
    }

    @Test func anEntryOutlivesAnUnrelatedInvalidationButNotOneOfItsDependency() {
        let cache = ResponseCache<String, Int>(maxEntries: 10, maxBytes: 1000, time: harness.time)
        cache.store(1, for: "a", cost: 1, ttl: .seconds(60), dependencies: ["s"], token: cache.loadToken(for: "a"))
        cache.invalidate("x")
        #expect(cache.lookup("a") == .fresh(1, remaining: .seconds(60)))
        #expect(cache.lookup("a") == .fresh(1, remaining: .seconds(60)))
        cache.invalidate(["s"])
        #expect(cache.lookup("a") == .miss)
    }
}
