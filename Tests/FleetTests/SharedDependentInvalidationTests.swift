@testable import Fleet
import Testing
@testable import ProductDetails
import Timekeeping

/// Pages in the shared cache depend on the products they show: a replica judges each page it
/// reads by the fleet's invalidations, from the broadcast or, when it missed one, from the log it
/// reads when it subscribes.
@Suite("Dependent invalidation in the shared cache")
struct SharedDependentInvalidationTests {
    @Test func aSharedPageThatShowsAnInvalidatedProductIsReloadedNotServed() async throws {
        let fleet = Replicas()
        let (first, second, third) = (await fleet.replica(), await fleet.replica(), await fleet.replica())
        _ = try await first.detail(id: "a")
        #expect(try await second.detail(id: "a").cache.shared?.result == .hit)
        fleet.catalog.suggestionPort.respond { id, _ in
            .success([Product(id: "\(id)-s1", name: "Also nice", priceInCents: 450, currency: "EUR")])
        }
        #expect(await first.invalidate(.product("a-s1")) == .fleet(receivers: 0))
        await fleet.deliver(.product("a-s1"), to: [first, second, third])
        // The third replica never had the page in L1: the shared copy shows the old price.
        let fresh = try await third.detail(id: "a")
        #expect(fresh.cache.shared == SharedCacheStatus(result: .miss, stored: true))
        #expect(String(decoding: fresh.document.body, as: UTF8.self).contains("450"))
        #expect(fleet.catalog.productPort.callCount == 2)
        // The page it stored is judged good by the others.
        #expect(try await second.detail(id: "a").cache.shared?.result == .hit)
        #expect(fleet.catalog.productPort.callCount == 2)
    }

    /// Before its own message comes back, the sender already judges shared pages by its
    /// invalidation: the shared copy of a page it just dropped is not taken back into its L1.
    @Test func theSenderKnowsItsInvalidationBeforeItsMessageReturns() async throws {
        let fleet = Replicas()
        let (first, second) = (await fleet.replica(), await fleet.replica())
        _ = try await second.detail(id: "a")
        _ = try await first.detail(id: "a")
        _ = await first.invalidate(.product("a-s1"))
        #expect(try await first.detail(id: "a").cache.shared?.result == .miss)
        #expect(fleet.catalog.productPort.callCount == 2)
    }

    /// Its own message coming back teaches the sender nothing: a reload it began after sending is
    /// stored, not refused as if the product had been invalidated again.
    @Test func theSendersOwnMessageIsKnownAlready() async throws {
        let fleet = Replicas()
        let replica = await fleet.replica()
        _ = await replica.invalidate(.product("a-s1"))
        let shared = try #require(replica.sharedCache)
        #expect(!shared.received(fleet.store.lastSequence, .product("a-s1")))
        #expect(!shared.received(fleet.store.lastSequence - 1, .product("a-s1")))
        #expect(shared.received(fleet.store.lastSequence + 1, .products(["a-s1", "b"])))
        #expect(!shared.received(fleet.store.lastSequence + 1, .products(["a-s1", "b"])))
    }

    @Test func anUnrelatedInvalidationKeepsTheSharedPage() async throws {
        let fleet = Replicas()
        let (first, second) = (await fleet.replica(), await fleet.replica())
        _ = try await first.detail(id: "a")
        _ = await first.invalidate(.products(["b", "b-s1"]))
        await fleet.deliver(.products(["b", "b-s1"]), to: [first, second])
        #expect(try await second.detail(id: "a").cache.shared?.result == .hit)
        #expect(fleet.catalog.productPort.callCount == 1)
    }

    @Test func aMissedMessageIsRecoveredFromTheLogOnTheNextSubscription() async throws {
        let fleet = Replicas()
        let (first, second) = (await fleet.replica(), await fleet.replica())
        _ = try await first.detail(id: "a")
        _ = await first.invalidate(.product("a-s1"))
        // The second replica was not subscribed when the message went out.
        await fleet.deliver(.product("a-s1"), to: [first])
        await second.sharedCache?.subscribed()
        #expect(try await second.detail(id: "a").cache.shared?.result == .miss)
        #expect(fleet.catalog.productPort.callCount == 2)
    }

    /// A message missed before the log is read may have invalidated anything, everything
    /// included: the shared cache is neither read nor written until then.
    @Test func beforeTheLogIsReadTheSharedCacheIsNotUsed() async throws {
        let fleet = Replicas()
        let first = await fleet.replica()
        _ = try await first.detail(id: "a")
        let shared = SharedCache(store: fleet.store, time: fleet.time)
        let late = ProductDetailsService(
            products: fleet.catalog, reviews: fleet.catalog, suggestions: fleet.catalog, time: fleet.time, loads: FleetLoads(shared),
            random: { $0.lowerBound })
        #expect(!shared.knowsHistory)
        let calls = fleet.store.calls
        let answer = try await late.detail(id: "a")
        #expect(answer.cache.shared == SharedCacheStatus(result: .bypass, notStored: .unavailable))
        #expect(fleet.store.calls == calls, "no call to the shared cache")
        #expect(fleet.catalog.productPort.callCount == 2)
        #expect(try await (await fleet.replica()).detail(id: "a").cache.shared?.result == .hit, "the first page stays")
    }
}
