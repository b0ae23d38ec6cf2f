import App
import CatalogStub
import ProductDetails
import PureTestSupport
import Testing
import TestSupport

extension AppE2ETests {
    /// Issue "semantics": load once, forget correctly, stale-if-error, degraded pages, admin,
    /// validators, batches and request ids, over real sockets.
    @Suite struct Semantics {
        @Test func halfTheUpstreamAnswersFailingIsRetriedTo200() async throws {
            try await withE2E(configure: { $0.service.retry.attempts = 3 }) { env in
                // errorRate 0.5 alternates per route, so no call fails twice in a row.
                env.stub.setFaults(FaultPlan(errorRate: 0.5), for: .all)
                let count = 10
                for index in 1...count {
                    let id = "p\(100 + index)"
                    let reply = try await env.get("/products/\(id)")
                    #expect(reply.status == 200)
                    let document = try reply.json()
                    #expect(document["missing"] == nil, "degraded: \(reply.text)")
                    #expect(document == (try env.expectedDetail(id)))
                }
                let stats = env.stub.stats()
                #expect(stats.product > count)
                #expect(stats.reviews > count)
                #expect(stats.suggested > count)
            }
        }

        @Test func thousandConcurrentRequestsForOneUncachedIdMakeOneLoadAndJoinersAreCollapsed() async throws {
            try await withE2E { env in
                let total = 1000
                // The test client holds at most this many connections, so this many requests
                // are in the app at once; the rest wait in the client's queue.
                let concurrent = env.client.configuration.maxConnectionsPerPool
                env.stub.pause(route: .all)
                try await withThrowingTaskGroup(of: Reply.self) { group in
                    for _ in 0..<total {
                        group.addTask { try await env.get("/products/p200") }
                    }
                    // One load runs, held at the stub, and every other request in the app has
                    // joined it. Nobody is answered before `resume`, so exactly `concurrent - 1`
                    // join; the queued rest arrive after the load stored its page: cache hits.
                    await eventually(.live) { env.stub.pausedRequests == 3 }
                    try await env.eventuallyMetric("coalesced_requests_total") { $0 == Double(concurrent - 1) }
                    #expect(env.app.service.inFlightCount == 1)
                    env.stub.resume()

                    var replies: [Reply] = []
                    for try await reply in group { replies.append(reply) }
                    #expect(replies.count == total)
                    #expect(replies.allSatisfy { $0.status == 200 })
                    #expect(Set(replies.map(\.body)).count == 1)
                    #expect(replies.filter(\.isLoaderMiss).count == 1)
                    #expect(replies.filter(\.isCollapsed).count == concurrent - 1)
                    #expect(replies.filter(\.isHit).count == total - concurrent)
                    #expect(try replies[0].json() == (try env.expectedDetail("p200")))
                }
                let stats = env.stub.stats()
                #expect(stats.product == 1)
                #expect(stats.reviews == 1)
                #expect(stats.suggested == 1)
                #expect(env.app.service.inFlightCount == 0)
                #expect(try await env.metric("loads_total") == 1)
            }
        }

        @Test func cancellingOneWaiterLeavesTheOtherAnswered() async throws {
            try await withE2E { env in
                env.stub.pause(route: .all)
                let leaving = try await env.raw()
                try await leaving.sendRequest("/products/p300")
                await eventually(.live) { env.stub.pausedRequests == 3 }
                let staying = try await env.raw()
                try await staying.sendRequest("/products/p300")
                try await env.eventuallyMetric("coalesced_requests_total") { $0 == 1 }
                // The request that started the load goes away; the load is not its own.
                leaving.close()
                let cancelled = ["route": "/products/{id}", "method": "GET", "code": "499"]
                try await env.eventuallyMetric("http_requests_total", cancelled) { $0 == 1 }
                #expect(try await env.metric("load_cancellations_total") == 0)
                #expect(env.app.service.inFlightCount == 1)
                #expect(env.stub.stats().abandoned == 0)
                env.stub.resume()
                let reply = try await staying.readResponse()
                #expect(reply.status == 200)
                #expect(try reply.json() == (try env.expectedDetail("p300")))
                #expect(env.stub.stats() == StubStats(product: 1, reviews: 1, suggested: 1, abandoned: 0, openConnections: env.stub.stats().openConnections))
                // The load's page was stored: the next request is a hit.
                let next = try await env.get("/products/p300")
                #expect(next.isHit, "Cache-Status: \(next.cacheStatus)")
            }
        }

        @Test func cancellingEveryWaiterAbandonsTheUpstreamRequestsAndCachesNothing() async throws {
            try await withE2E { env in
                env.stub.pause(route: .all)
                let first = try await env.raw()
                try await first.sendRequest("/products/p301")
                await eventually(.live) { env.stub.pausedRequests == 3 }
                let second = try await env.raw()
                try await second.sendRequest("/products/p301")
                try await env.eventuallyMetric("coalesced_requests_total") { $0 == 1 }
                first.close()
                second.close()
                try await env.eventuallyMetric("load_cancellations_total") { $0 == 1 }
                await eventually(.live) { env.stub.stats().abandoned == 3 && env.stub.pausedRequests == 0 }
                #expect(env.app.service.inFlightCount == 0)
                env.stub.resume()
                let reply = try await env.get("/products/p301")
                #expect(reply.status == 200)
                #expect(reply.isLoaderMiss, "Cache-Status: \(reply.cacheStatus)")
                #expect(env.stub.stats().product == 2)
            }
        }

        @Test func invalidationDuringALoadKeepsItsResultOutOfTheCache() async throws {
            try await withE2E { env in
                env.stub.pause(route: .product)
                try await withThrowingTaskGroup(of: Reply.self) { group in
                    group.addTask { try await env.get("/products/p400") }
                    await eventually(.live) { env.stub.pausedRequests == 1 }
                    #expect(try await env.delete("/cache/products/p400").status == 204)
                    env.stub.resume()
                    let reply = try #require(try await group.next())
                    #expect(reply.status == 200)
                    #expect(try reply.json() == (try env.expectedDetail("p400")))
                    // It answered its waiter but was not stored, so it claims no freshness.
                    #expect(reply.isLoaderMiss)
                    #expect(!reply.cacheStatusParameters.contains { $0.hasPrefix("ttl=") }, "Cache-Status: \(reply.cacheStatus)")
                }
                let next = try await env.get("/products/p400")
                #expect(next.status == 200)
                #expect(next.isLoaderMiss, "Cache-Status: \(next.cacheStatus)")
                #expect(env.stub.stats().product == 2)
            }
        }

        @Test func requestsAfterAnInvalidationNeverJoinTheOlderLoad() async throws {
            try await withE2E { env in
                env.stub.pause(route: .product)
                try await withThrowingTaskGroup(of: Reply.self) { group in
                    group.addTask { try await env.get("/products/p401") }
                    await eventually(.live) { env.stub.pausedRequests == 1 }
                    #expect(try await env.delete("/cache/products/p401").status == 204)
                    group.addTask { try await env.get("/products/p401") }
                    // The later request starts a load of its own (held too), instead of joining.
                    await eventually(.live) { env.stub.pausedRequests == 2 }
                    env.stub.resume()
                    var replies: [Reply] = []
                    for try await reply in group { replies.append(reply) }
                    #expect(replies.count == 2)
                    #expect(replies.allSatisfy { $0.status == 200 && $0.isLoaderMiss })
                }
                #expect(env.stub.stats().product == 2)
                // The later load began after the invalidation, so it was stored.
                let next = try await env.get("/products/p401")
                #expect(next.isHit, "Cache-Status: \(next.cacheStatus)")
            }
        }

        @Test func upstreamDownWithAnExpiredEntryServesItStale() async throws {
            try await withE2E(configure: {
                $0.service.ttl = .milliseconds(50)
                $0.service.staleIfError = .seconds(300)
                $0.service.staleWhileRevalidate = .zero
                $0.service.retry.attempts = 1
            }) { env in
                let first = try await env.get("/products/p500")
                #expect(first.status == 200)
                env.stub.setFaults(FaultPlan(errorRate: 1.0), for: .all)
                var stale: Reply?
                let served = try await eventually(.live) {
                    let reply = try await env.get("/products/p500")
                    #expect(reply.status == 200)
                    #expect(reply.isHit || reply.isStale, "Cache-Status: \(reply.cacheStatus)")
                    stale = reply
                    return reply.isStale
                }
                #expect(served)
                let reply = try #require(stale)
                #expect(reply.body == first.body)
                #expect(reply.cacheStatusParameters.contains("detail=error"), "Cache-Status: \(reply.cacheStatus)")
                #expect(env.stub.stats().product >= 2)
            }
        }

        @Test func reviewsUpstreamDownGives200WithReviewsMissing() async throws {
            try await withE2E { env in
                env.stub.setFaults(FaultPlan(errorRate: 1.0), for: .reviews)
                let reply = try await env.get("/products/p600")
                #expect(reply.status == 200)
                let document = try reply.json()
                let full = try env.expectedDetail("p600")
                #expect(document.keys == ["product", "reviews", "suggested", "missing"])
                #expect(document["product"] == full["product"])
                #expect(document["reviews"] == .array([]))
                #expect(document["suggested"] == full["suggested"])
                #expect(document["missing"] == .array([.string("reviews")]))
                // A degraded page is not cached for the normal TTL (60 s here) but for the degraded one.
                let maxAge = reply.header("Cache-Control").flatMap { Int($0.replacing("max-age=", with: "")) }
                #expect(maxAge.map { $0 <= 5 } == true, "Cache-Control: \(reply.header("Cache-Control") ?? "none")")
            }
        }

        @Test func fullLoadTableSheds503WithRetryAfterButStillLetsRequestsJoin() async throws {
            try await withE2E(configure: { $0.service.maxInFlightLoads = 1 }) { env in
                env.stub.pause(route: .product)
                try await withThrowingTaskGroup(of: Reply.self) { group in
                    group.addTask { try await env.get("/products/p650") }
                    await eventually(.live) { env.stub.pausedRequests == 1 }
                    let shed = try await env.get("/products/p651")
                    #expect(shed.status == 503)
                    #expect(shed.header("Retry-After") != nil)
                    #expect(shed.header("Content-Type") == "application/problem+json")
                    group.addTask { try await env.get("/products/p650") }
                    try await env.eventuallyMetric("coalesced_requests_total") { $0 == 1 }
                    env.stub.resume()
                    var replies: [Reply] = []
                    for try await reply in group { replies.append(reply) }
                    #expect(replies.allSatisfy { $0.status == 200 })
                    #expect(replies.filter(\.isCollapsed).count == 1)
                }
                #expect(env.stub.stats().product == 1)
            }
        }

        @Test func zeroTTLLoadsEveryRequestButConcurrentOnesStillCoalesce() async throws {
            try await withE2E(configure: { $0.service.ttl = .zero }) { env in
                for round in 1...3 {
                    let reply = try await env.get("/products/p950")
                    #expect(reply.status == 200)
                    #expect(reply.isLoaderMiss)
                    #expect(reply.header("Cache-Control") == "no-store")
                    #expect(env.stub.stats().product == round)
                }
                #expect(env.app.service.cacheEntryCount == 0)

                env.stub.resetStats()
                env.stub.pause(route: .all)
                let total = 20
                try await withThrowingTaskGroup(of: Reply.self) { group in
                    for _ in 0..<total {
                        group.addTask { try await env.get("/products/p950") }
                    }
                    await eventually(.live) { env.stub.pausedRequests == 3 }
                    // Every request is in the app at once (the client has room for them all).
                    try await env.eventuallyMetric("coalesced_requests_total") { $0 == Double(total - 1) }
                    env.stub.resume()
                    var replies: [Reply] = []
                    for try await reply in group { replies.append(reply) }
                    #expect(replies.allSatisfy { $0.status == 200 && $0.header("Cache-Control") == "no-store" })
                    #expect(replies.filter(\.isLoaderMiss).count == 1)
                    #expect(replies.filter(\.isCollapsed).count == total - 1)
                }
                #expect(env.stub.stats().product == 1)
                #expect(env.app.service.cacheEntryCount == 0)
                // Not stored: the next request loads again.
                #expect(try await env.get("/products/p950").isLoaderMiss)
                #expect(env.stub.stats().product == 2)
            }
        }

        @Test func batchAnswersInOrderLoadsARepeatedIdOnceAndReportsPerItemProblems() async throws {
            try await withE2E { env in
                let reply = try await env.get("/products?ids=p3,p1,p3,bad!,p999999")
                #expect(reply.status == 200)
                #expect(reply.header("Content-Type") == "application/json")
                let document = try reply.json()
                #expect(document.keys == ["items"])
                let items = try #require(document["items"]?.array)
                #expect(items.count == 5)
                #expect(items[0] == (try env.expectedBatchItem("p3")))
                #expect(items[1] == (try env.expectedBatchItem("p1")))
                #expect(items[2] == items[0])
                // Every item names the id it answers, an invalid one too, in its problem's detail.
                #expect(items[3]["status"]?.int == 400)
                #expect(items[3].keys == ["id", "type", "title", "status", "detail"])
                #expect(items[3]["id"] == .string("bad!"))
                #expect(items[3]["detail"]?.string?.contains("\"bad!\"") == true)
                #expect(items[4]["status"]?.int == 404)
                #expect(items[4]["id"] == .string("p999999"))
                // p3, p1 and p999999: three product loads, the repeated p3 once.
                #expect(env.stub.stats().product == 3)
                // The batch filled the cache the single route reads.
                #expect(try await env.get("/products/p3").isHit)
            }
        }

        /// `ids` is an array of strings in the contract: an empty value is one empty, invalid id.
        @Test func anEmptyIdsValueIsOneInvalidItem() async throws {
            try await withE2E { env in
                let reply = try await env.get("/products?ids=")
                #expect(reply.status == 200)
                let items = try #require(try reply.json()["items"]?.array)
                #expect(items.count == 1)
                #expect(items.first?["id"] == .string(""))
                #expect(items.first?["status"]?.int == 400)
                #expect(try await env.get("/products").status == 400)
                #expect(try await env.get("/products?ids=p1&ids=p2").status == 400)
            }
        }

        @Test func batchOfMoreThan100IdsIs400AndOf100Is200() async throws {
            // Hedging off: on a loaded host a product call can outlast the live p95 and be
            // hedged, and this counts product calls exactly.
            try await withE2E(configure: { $0.service.hedging = nil }) { env in
                let tooMany = (1...101).map { "p\($0)" }.joined(separator: ",")
                let refused = try await env.get("/products?ids=\(tooMany)")
                #expect(refused.status == 400)
                #expect(refused.header("Content-Type") == "application/problem+json")
                #expect(env.upstreamRequests == 0)

                let hundred = (1...100).map { "p\($0)" }.joined(separator: ",")
                let served = try await env.get("/products?ids=\(hundred)")
                #expect(served.status == 200)
                #expect(try served.json()["items"]?.array?.count == 100)
                #expect(env.stub.stats().product == 100)
            }
        }
    }
}
