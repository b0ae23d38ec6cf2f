@testable import Logging
@testable import App
@testable import Fleet
import Metrics
import ProductDetails
import Redis
import Testing
import TestSupport

/// What the invalidation subscription's events do to L1, on the hand-moved time line: the same
/// listener fleet mode subscribes with, driving a service answered in memory.
@Suite("Invalidation listener")
struct InvalidationListenerTests {
    static let cap = Duration.seconds(2)

    /// Runs `body` with an app and a listener on its service; the app's L1 starts capped, as
    /// fleet mode starts it before the first subscription.
    static func withListener(fleet: Bool = false, _ body: (InMemoryApp, InvalidationListener) async throws -> Void) async throws {
        try await InMemoryApp.with(fleet: fleet) { app in
            let lines = LogLines()
            let writer = LogWriter(capacity: 1 << 16, destination: lines.destination)
            defer { _ = writer.close(within: .seconds(1)) }
            let log = SharedCacheLog(logger: Logger(minimum: .info, writer: writer), time: app.time)
            let listener = InvalidationListener(
                service: app.service, shared: app.sharedCache ?? SharedCache(store: InMemorySharedPageStore(time: app.time), time: app.time),
                metrics: SharedCacheMetrics(registry: MetricsRegistry()), log: log,
                disconnectedFreshness: cap)
            app.service.capLocalFreshness(to: cap)
            try await body(app, listener)
        }
    }

    /// A page stored before the first subscription may have missed an invalidation: it must not
    /// become fresh for its whole TTL when the cap goes.
    @Test func theFirstSubscriptionDropsWhatWasStoredUnderTheCap() async throws {
        try await Self.withListener { app, listener in
            _ = try await app.request("/products/p1")
            app.time.advance(by: .seconds(1))
            listener.handle(.subscribed(isResubscription: false))
            let after = try await app.request("/products/p1")
            #expect(!after.immediate, "not answered from the copy stored under the cap")
            #expect(app.upstream.productCalls == 2)
            app.time.advance(by: .seconds(30))
            #expect(try await app.request("/products/p1").immediate, "uncapped once subscribed")
        }
    }

    /// A disconnect right after a resubscription leaves the cap in force, whatever runs later.
    @Test func aDisconnectRightAfterAResubscriptionKeepsTheCap() async throws {
        try await Self.withListener { app, listener in
            listener.handle(.subscribed(isResubscription: false))
            _ = try await app.request("/products/p1")
            listener.handle(.subscribed(isResubscription: true))
            listener.handle(.disconnected(.connectionLost))
            // Whatever the events started has run.
            for _ in 0..<100 { await Task.yield() }
            await app.service.stopJoiningLoads(.everything)
            let reloaded = try await app.request("/products/p1")
            #expect(!reloaded.immediate, "the resubscription dropped L1")
            app.time.advance(by: Self.cap + .seconds(1))
            #expect(!(try await app.request("/products/p1").immediate), "capped while disconnected")
        }
    }

    /// Redis down must cost clients no more than a single node: under the cap a hot page is
    /// served while one background load refreshes it, never reloaded while a client waits, and the
    /// upstreams see about one load per cap.
    @Test func underTheCapAHotPageIsRefreshedInTheBackgroundWhileItIsServed() async throws {
        try await Self.withListener { app, listener in
            listener.handle(.disconnected(.connectionLost))
            _ = try await app.request("/products/p1")
            var waited = 0
            for _ in 0..<60 {
                app.time.advance(by: .milliseconds(125))
                let reply = try await app.request("/products/p1")
                #expect(reply.status == 200)
                if reply.header("Cache-Status")?.contains("fwd=miss") == true { waited += 1 }
                // Let a refresh the answer started finish before time moves on.
                for _ in 0..<1_000 where app.service.inFlightCount > 0 { await Task.yield() }
            }
            #expect(waited == 0, "no client waited for a reload")
            // 7.5 s under a 2 s cap: the first load, then one refresh per cap.
            #expect((4...5).contains(app.upstream.productCalls), "\(app.upstream.productCalls) loads")
        }
    }

    @Test func aMessageDropsItsProductAtOnce() async throws {
        try await Self.withListener { app, listener in
            listener.handle(.subscribed(isResubscription: false))
            _ = try await app.request("/products/p1")
            _ = try await app.request("/products/p2")
            listener.handle(.message(channel: "invalidations", payload: Array("7 ".utf8) + InvalidationScope.product("p1").payload))
            #expect(!(try await app.request("/products/p1").immediate))
            #expect(try await app.request("/products/p2").immediate)
        }
    }

    /// The sender knows its invalidation from Redis's answer and dropped its copies before
    /// sending: its own message, coming back, must not drop the page reloaded since.
    @Test func theSendersOwnMessageDoesNotDropTheReloadedPage() async throws {
        try await Self.withListener(fleet: true) { app, listener in
            listener.handle(.subscribed(isResubscription: false))
            await app.drive(until: { app.sharedCache?.knowsHistory == true })
            _ = try await app.request("/products/p1")
            #expect(try await app.delete("/cache/products/p1").status == 204)
            #expect(!(try await app.request("/products/p1").immediate), "reloaded")
            let sequence = try #require(app.sharedStore?.lastSequence)
            listener.handle(.message(channel: "invalidations", payload: Array("\(sequence) ".utf8) + InvalidationScope.product("p1").payload))
            #expect(try await app.request("/products/p1").immediate, "the reload stays")
        }
    }
}
