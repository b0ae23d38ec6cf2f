import ProductDetails
import Testing

/// Fleet mode's part of the routes, in memory: the shared cache's member of `Cache-Status`,
/// `X-Invalidation-Receivers`, and the `503` of an invalidation the fleet could not be told of.
/// Pub/sub, the scripts and Redis faults on the wire are the live `FleetMode` suite's.
@Suite("Fleet routes in memory")
struct FleetRouteTests {
    @Test func aPageLoadedForTheFleetSaysItWasStored() async throws {
        try await InMemoryApp.with(fleet: true) { app in
            let miss = try await app.request("/products/p1")
            #expect(miss.status == 200)
            #expect(miss.header("Cache-Status") == "product-details-shared; fwd=miss; stored, product-details; fwd=miss; ttl=60")
            let hit = try await app.request("/products/p1")
            #expect(hit.header("Cache-Status") == "product-details; hit; ttl=60", "an L1 hit does not ask the shared cache")
        }
    }

    /// Without request lines, a request gets its id only where it needs one: a shared-cache hit
    /// answered from its look has it made in the answer, as an L1 hit; a miss handed to a task
    /// after its look carries the same id to the upstream as it answers with.
    @Test func aMissAfterTheLookCarriesItsAnswersRequestIDUpstream() async throws {
        try await InMemoryApp.with(fleet: true, logLevel: .warn) { app in
            let miss = try await app.request("/products/p3")
            #expect(miss.header("Cache-Status") == "product-details-shared; fwd=miss; stored, product-details; fwd=miss; ttl=60")
            let answered = try #require(miss.header("X-Request-ID"))
            #expect(app.upstream.productCallRequestIDs == [answered])

            let echoed = try await app.request("/products/p4", headers: [("X-Request-ID", "mem-fleet-1")])
            #expect(echoed.header("X-Request-ID") == "mem-fleet-1")
            #expect(app.upstream.productCallRequestIDs.last == "mem-fleet-1")

            _ = try await app.otherReplica().detail(id: "p5")
            let shared = try await app.request("/products/p5")
            #expect(shared.header("Cache-Status")?.hasPrefix("product-details-shared; hit") == true)
            #expect(shared.header("X-Request-ID")?.isEmpty == false)
        }
    }

    @Test func aPageAnotherReplicaLoadedIsASharedHitWithItsTTLLeft() async throws {
        try await InMemoryApp.with(fleet: true) { app in
            _ = try await app.otherReplica().detail(id: "p2")
            app.time.advance(by: .seconds(20))
            let reply = try await app.request("/products/p2")
            #expect(reply.status == 200)
            #expect(reply.header("Cache-Status") == "product-details-shared; hit; ttl=40, product-details; fwd=miss; ttl=40")
            #expect(reply.header("Cache-Control") == "max-age=40")
            #expect(app.upstream.productCalls == 1)
        }
    }

    /// RFC 9211: an expired copy found is `fwd=stale`, and `ttl` is the answer's (the new page's),
    /// never the expired copy's negative one.
    @Test func anExpiredSharedCopyReloadedIsForwardedStaleWithNoNegativeTTL() async throws {
        try await InMemoryApp.with(fleet: true) { app in
            _ = try await app.otherReplica().detail(id: "p6")
            // Past its TTL (60 s) and stale-while-revalidate (30 s), within stale-if-error.
            app.time.advance(by: .seconds(96))
            let reply = try await app.request("/products/p6")
            #expect(reply.status == 200)
            #expect(reply.header("Cache-Status") == "product-details-shared; fwd=stale; stored, product-details; fwd=miss; ttl=60")
            #expect(app.upstream.productCalls == 2)
        }
    }

    @Test func aClientsNoCacheRefreshesTheSharedCopyWithoutReadingIt() async throws {
        try await InMemoryApp.with(fleet: true) { app in
            _ = try await app.otherReplica().detail(id: "p3")
            let fresh = try await app.request("/products/p3", headers: [("Cache-Control", "no-cache")])
            #expect(fresh.header("Cache-Status") == "product-details-shared; fwd=request; stored, product-details; fwd=miss; ttl=60")
            #expect(app.upstream.productCalls == 2)
        }
    }

    @Test func aClientsNoCacheWhileAnotherReplicaHoldsTheLeaseSaysItWasNotShared() async throws {
        try await InMemoryApp.with(fleet: true) { app in
            let store = try #require(app.sharedStore)
            _ = try await store.claimCurrent(id: "p7", deadline: .seconds(1))
            let fresh = try await app.request("/products/p7", headers: [("Cache-Control", "no-cache")])
            #expect(fresh.status == 200)
            #expect(fresh.header("Cache-Status") == "product-details-shared; fwd=request; detail=lease-held, product-details; fwd=miss; ttl=60")
        }
    }

    @Test func withRedisDownPagesLoadAloneAndSaySo() async throws {
        try await InMemoryApp.with(fleet: true) { app in
            app.sharedStore?.fail(with: .unavailable("connection refused"))
            let reply = try await app.request("/products/p4")
            #expect(reply.status == 200)
            #expect(reply.header("Cache-Status") == "product-details-shared; fwd=bypass; detail=unavailable, product-details; fwd=miss; ttl=60")
        }
    }

    @Test func anInvalidationSaysHowManyReplicasReceivedIt() async throws {
        try await InMemoryApp.with(fleet: true) { app in
            let store = try #require(app.sharedStore)
            store.receivers = 3
            let one = try await app.delete("/cache/products/p5")
            #expect(one.status == 204)
            #expect(one.header("X-Invalidation-Receivers") == "3")
            store.receivers = 2
            let all = try await app.delete("/cache")
            #expect(all.status == 204)
            #expect(all.header("X-Invalidation-Receivers") == "2")
            #expect(store.invalidations == [.product("p5"), .everything])
        }
    }

    @Test func aSingleNodeInvalidationHasNoReceivers() async throws {
        try await InMemoryApp.with { app in
            let reply = try await app.delete("/cache/products/p6")
            #expect(reply.status == 204)
            #expect(reply.header("X-Invalidation-Receivers") == nil)
        }
    }

    /// This replica forgot, but the fleet could not be told: not what was asked, so `503`.
    @Test(arguments: [
        (SharedStoreFailure.unavailable("Connection refused by 127.0.0.1:6379."), "Connection refused by 127.0.0.1:6379."),
        (SharedStoreFailure.timedOut, "Redis did not answer in time."),
    ])
    func anInvalidationWithRedisDownIs503(failure: SharedStoreFailure, reason: String) async throws {
        try await InMemoryApp.with(fleet: true) { app in
            _ = try await app.request("/products/p7")
            app.sharedStore?.fail(with: failure)
            let reply = try await app.delete("/cache/products/p7")
            #expect(reply.status == 503)
            #expect(reply.header("Retry-After") == "1")
            #expect(reply.header("Cache-Control") == "no-store")
            #expect(reply.header("X-Invalidation-Receivers") == nil)
            #expect(try reply.json()["detail"]?.string?.contains(reason) == true, "\(reply.text)")
            // It did forget: the next answer is loaded again (alone, Redis being down).
            let again = try await app.request("/products/p7")
            #expect(again.header("Cache-Status")?.hasPrefix("product-details-shared; fwd=bypass") == true)
            #expect(app.upstream.productCalls == 2)
        }
    }
}
