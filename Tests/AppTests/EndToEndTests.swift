import App
import CatalogStub
import HTTP1
import ProductDetails
import PureTestSupport
import Testing
import TestSupport

extension AppE2ETests {
    /// Issue "end to end": the service over real sockets against the catalog stub.
    @Suite struct EndToEnd {
        @Test(arguments: ["p1", "p2", "p37", "p9999"])
        func mergedDocumentEqualsWhatTheStubServesInContractKeyOrder(id: String) async throws {
            try await withE2E { env in
                let reply = try await env.get("/products/\(id)")
                #expect(reply.status == 200)
                #expect(reply.header("Content-Type") == "application/json")
                let document = try reply.json()
                #expect(document.keys == ["product", "reviews", "suggested"])
                #expect(document == (try env.expectedDetail(id)))
                #expect(reply.text.hasPrefix(#"{"product":{"id":"\#(id)","#))
                #expect(reply.header("ETag") != nil)
                #expect(reply.header("Cache-Control") == "max-age=60")
                #expect(reply.isLoaderMiss, "Cache-Status: \(reply.cacheStatus)")
                #expect(env.stub.stats() == StubStats(product: 1, reviews: 1, suggested: 1, abandoned: 0, openConnections: env.stub.stats().openConnections))

                // The second answer is the same bytes from the cache, without an upstream call.
                let again = try await env.get("/products/\(id)")
                #expect(again.status == 200)
                #expect(again.body == reply.body)
                #expect(again.isHit, "Cache-Status: \(again.cacheStatus)")
                #expect(again.header("ETag") == reply.header("ETag"))
                #expect(env.upstreamRequests == 3)
            }
        }

        @Test func longestValidIdReachesTheUpstream() async throws {
            try await withE2E { env in
                let reply = try await env.get("/products/\(String(repeating: "a", count: 64))")
                #expect(reply.status == 404)
                #expect(env.stub.stats().product == 1)
            }
        }

        @Test func hungProductUpstreamIs504WithinTheDeadline() async throws {
            let deadline = Duration.milliseconds(300)
            try await withE2E(configure: {
                $0.service.requestDeadline = deadline
                $0.service.retry.attemptTimeout = .milliseconds(100)
            }) { env in
                env.stub.setFaults(FaultPlan(hang: true), for: .product)
                let started = ContinuousClock.now
                let reply = try await env.get("/products/p5")
                let elapsed = ContinuousClock.now - started
                #expect(reply.status == 504)
                #expect(reply.header("Content-Type") == "application/problem+json")
                #expect(try reply.json()["status"]?.int == 504)
                #expect(elapsed < deadline * 5, "504 after \(elapsed)")
                // Every timed-out attempt was given up at the stub, not left hanging. (A sibling
                // request whose client had left before the stub read it counts as abandoned too.)
                await eventually(.live) { env.stub.stats().abandonedProduct == env.stub.stats().product }
                #expect(env.stub.stats().product >= 1)
                // A failure is not cached.
                env.stub.clearFaults()
                let after = try await env.get("/products/p5")
                #expect(after.status == 200)
                #expect(after.isLoaderMiss)
            }
        }

        @Test func malformedUpstreamJSONIs502AndNotRetried() async throws {
            try await withE2E { env in
                env.stub.setFaults(FaultPlan(malformedJSON: true), for: .product)
                let reply = try await env.get("/products/p6")
                #expect(reply.status == 502)
                #expect(reply.header("Content-Type") == "application/problem+json")
                #expect(try reply.json()["status"]?.int == 502)
                #expect(env.stub.stats().product == 1)
            }
        }

        @Test func resetMidBodyOnEveryAttemptIs502AfterRetries() async throws {
            try await withE2E(configure: { $0.service.retry.attempts = 3 }) { env in
                env.stub.setFaults(FaultPlan(resetMidBody: true), for: .product)
                let reply = try await env.get("/products/p7")
                #expect(reply.status == 502)
                #expect(reply.header("Content-Type") == "application/problem+json")
                #expect(try reply.json()["status"]?.int == 502)
                #expect(env.stub.stats().product == 3)
            }
        }

        @Test func resetMidBodyOnceIsRetriedTo200() async throws {
            try await withE2E { env in
                env.stub.setFaults(FaultPlan(resetMidBody: true), for: .product, times: 1)
                let reply = try await env.get("/products/p8")
                #expect(reply.status == 200)
                #expect(try reply.json() == (try env.expectedDetail("p8")))
                #expect(env.stub.stats().product == 2)
            }
        }

        @Test func fiftySequentialLoadsReuseThePooledUpstreamConnections() async throws {
            // No hedging: a hedge is one more product call, on a connection of its own.
            try await withE2E(configure: { $0.service.ttl = .zero; $0.service.hedging = nil }) { env in
                for index in 1...50 {
                    let reply = try await env.get("/products/p\(index)")
                    #expect(reply.status == 200)
                    #expect(reply.header("Cache-Control") == "no-store")
                }
                #expect(env.stub.stats().product == 50)
                let opened = env.app.client.statistics.connectionsOpened
                let configuration = env.app.configuration
                // One origin (the stub serves all three upstreams), a pool per upstream and loop.
                #expect(opened <= configuration.loops * Upstream.allCases.count * configuration.client.maxConnectionsPerPool)
                // Three parts at once per load, one load at a time: at most three per loop.
                #expect(opened <= 2 * 3, "opened \(opened) upstream connections for 50 loads")
                #expect(env.app.client.statistics.requestsSent >= 150)
            }
        }

        @Test func clientDisconnectAbandonsAHangingUpstreamRequest() async throws {
            try await withE2E(configure: {
                // No attempt time-out may end the upstream request: only the client leaving does.
                $0.service.retry.attemptTimeout = .seconds(60)
                $0.service.requestDeadline = .seconds(120)
            }) { env in
                env.stub.setFaults(FaultPlan(hang: true), for: .product)
                let client = try await env.raw()
                try await client.sendRequest("/products/p9")
                await eventually(.live) { env.stub.stats().product == 1 && env.stub.stats().reviews == 1 && env.stub.stats().suggested == 1 }
                #expect(env.stub.stats().abandoned == 0)
                client.close()
                await eventually(.live) { env.stub.stats().abandoned == 1 }
                await eventually(.live) { env.app.service.inFlightCount == 0 }
                // Nothing was cached: the next request loads again.
                env.stub.clearFaults()
                let reply = try await env.get("/products/p9")
                #expect(reply.status == 200)
                #expect(reply.isLoaderMiss)
                #expect(env.stub.stats().product == 2)
            }
        }

        @Test func clientDisconnectAbandonsPausedUpstreamRequests() async throws {
            try await withE2E { env in
                env.stub.pause(route: .all)
                let client = try await env.raw()
                try await client.sendRequest("/products/p10")
                await eventually(.live) { env.stub.pausedRequests == 3 }
                client.close()
                await eventually(.live) { env.stub.stats().abandoned == 3 && env.stub.pausedRequests == 0 }
                await eventually(.live) { env.app.service.inFlightCount == 0 }
            }
        }
    }
}
