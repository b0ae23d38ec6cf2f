import HTTP1
import Locking
import ProductDetails
import Testing

/// The gray-failure rows as the routes answer them, on the hand-moved time line: a hung optional
/// part, a hung product, expired pages while the product hangs, a batch, a healed upstream.
@Suite("Gray failure, routes in memory")
struct GrayFailureRouteTests {
    /// The documented defaults, hedging off: a hung upstream is what these cases are about.
    static var settings: ServiceSettings {
        var settings = ServiceSettings()
        settings.hedging = nil
        return settings
    }

    /// Starts a request and moves time on until it is answered.
    static func answer(_ target: String, method: HTTPMethod = .get, in app: InMemoryApp) async throws -> InMemoryApp.Answer {
        let request = Task { try await app.request(target, method: method) }
        let done = DoneFlag()
        let answer = Task {
            defer { done.set() }
            return try await request.value
        }
        await app.drive(until: { done.isSet })
        return try await answer.value
    }

    @Test func aHungReviewsUpstreamIsLeftOutAfterTheGraceThenNotAskedOnceItsBreakerOpens() async throws {
        try await InMemoryApp.with(settings: Self.settings) { app in
            app.upstream.hang(.reviews)
            let first = try await Self.answer("/products/p1", in: app)
            #expect(first.status == 200)
            #expect(try first.json()["missing"] == .array([.string("reviews")]))
            #expect(first.header("Cache-Status") == "product-details; fwd=miss; ttl=5; detail=grace-ended")
            // The late part's load goes on: its time-outs, five in a row over two pages, open the breaker.
            var page = 1
            while app.service.breaker(for: .reviews).state != .open && page < 10 {
                page += 1
                _ = try await Self.answer("/products/p\(page)", in: app)
                await app.drive(until: { app.service.breaker(for: .reviews).state == .open || app.time.sleeperCount + app.time.scheduledCount == 0 })
            }
            #expect(app.service.breaker(for: .reviews).state == .open)
            let calls = app.upstream.reviewCalls
            let now = app.time.now
            let refused = try await app.request("/products/p100")
            #expect(refused.status == 200)
            #expect(try refused.json()["missing"] == .array([.string("reviews")]))
            #expect(refused.header("Cache-Status") == "product-details; fwd=miss; ttl=5; detail=breaker-open")
            #expect(app.upstream.reviewCalls == calls, "not asked while open")
            #expect(app.time.now == now, "nothing waited")
            app.flushLog()
            let line = app.log.objects.last { $0["msg"] as? String == "request" }
            #expect(line?["cacheDetail"] as? String == "breaker-open")

            // Healed: after the open time one trial goes out, and pages are whole again.
            app.upstream.hang(.reviews, false)
            app.time.advance(by: .seconds(5))
            let healed = try await Self.answer("/products/p101", in: app)
            #expect(try healed.json()["missing"] == nil)
            #expect(app.service.breaker(for: .reviews).state == .closed)
        }
    }

    @Test func aHungProductIs503WithRetryAfterOnceItsBreakerOpensAndNoCacheCannotForceIt() async throws {
        try await InMemoryApp.with(settings: Self.settings) { app in
            app.upstream.hang(.products)
            let first = try await Self.answer("/products/p1", in: app)
            #expect(first.status == 504)
            var page = 1
            while app.service.breaker(for: .products).state != .open && page < 10 {
                page += 1
                _ = try await Self.answer("/products/p\(page)", in: app)
            }
            #expect(app.service.breaker(for: .products).state == .open)
            let calls = app.upstream.productCalls
            for headers in [[], [("Cache-Control", "no-cache")]] {
                let refused = try await app.request("/products/p50", headers: headers)
                #expect(refused.status == 503)
                #expect(refused.header("Content-Type") == "application/problem+json")
                let retryAfter = try #require(refused.header("Retry-After").flatMap { Int($0) })
                #expect((1...5).contains(retryAfter))
            }
            let head = try await app.request("/products/p50", method: .head)
            #expect(head.status == 503 && head.header("Retry-After") != nil)
            #expect(app.upstream.productCalls == calls, "the product upstream gets no call while open")
            let batch = try await app.request("/products?ids=p60,p61")
            #expect(batch.status == 200)
            for item in try batch.json()["items"]?.array ?? [] {
                #expect(item["status"]?.int == 503)
            }
        }
    }

    @Test func expiredPagesAreServedAtOnceWhileTheProductBreakerIsOpen() async throws {
        var settings = Self.settings
        settings.staleWhileRevalidate = .zero
        try await InMemoryApp.with(settings: settings) { app in
            for index in 1...3 { _ = try await app.request("/products/p\(index)") }
            app.time.advance(by: .seconds(61))
            app.upstream.hang(.products)
            _ = try await Self.answer("/products/p1", in: app)
            _ = try await Self.answer("/products/p2", in: app)
            #expect(app.service.breaker(for: .products).state == .open)
            let now = app.time.now
            let stale = try await app.request("/products/p3")
            #expect(stale.status == 200)
            #expect(stale.header("Cache-Status")?.hasSuffix("detail=breaker-open") == true)
            #expect(app.time.now == now)
        }
    }
}

/// Set once, read from any task.
private final class DoneFlag: Sendable {
    private let state = Locked(false)
    var isSet: Bool { state.withLock { $0 } }
    func set() { state.withLock { $0 = true } }
}
