import Fleet
import Locking
import ProductDetails
import Testing
import Timekeeping
import TestSupport

/// A replica on a real `redis-server` that goes away: what the wire shows and an in-memory store
/// cannot (a refused connection through the real client). The fleet's rules (the herd, the
/// takeover, the waiter's deadline, the stale refresh, `no-cache`, overtaken loads) are tested on
/// an in-memory store beside it (`SharedCacheRuleTests`).
@Suite("Services sharing a cache on one Redis", .timeLimit(.minutes(1)))
struct ServiceOnRedisTests {
    let server: RedisServer
    let catalog = CountingCatalog()
    let events = RecordingEvents()
    let keys = SharedCacheKeys(prefix: "pd:\(RandomPrefix.next()):")

    init() async throws {
        server = try await RedisServer.started()
    }

    /// A replica that read the fleet's invalidation log, as after its first subscription.
    func replica(breakerFailures: Int) async throws -> (ProductDetailsService, SerialRedisRunner) {
        let runner = try SerialRedisRunner(port: server.port)
        let time = ClockTimeSource()
        let settings = SharedCacheSettings(timeout: .seconds(60), breakerFailures: breakerFailures, breakerOpenFor: .seconds(60))
        let store = RedisPageStore(redis: runner, keys: keys, leaseDuration: .seconds(30), generationLifetime: .seconds(600))
        var serviceSettings = ServiceSettings()
        serviceSettings.hedging = nil
        // About the breaker, not deadlines: a loaded host's slow socket must not make it a 504.
        serviceSettings.requestDeadline = .seconds(30)
        let shared = SharedCache(store: store, settings: settings, time: time, events: events)
        await shared.subscribed()
        let service = ProductDetailsService(
            products: catalog, reviews: catalog, suggestions: catalog, settings: serviceSettings, time: time,
            loads: FleetLoads(shared)
        )
        return (service, runner)
    }

    @Test func withRedisGoneTheBreakerOpensAndPagesStillLoad() async throws {
        let (replica, redis) = try await replica(breakerFailures: 3)
        let before = await redis.sent.count
        server.stop()
        for index in 0..<10 {
            let answer = try await replica.detail(id: "p\(index)")
            #expect(answer.document.status == 200)
            #expect(answer.cache.shared?.result == .bypass)
        }
        #expect(events.count("redis breaker open") == 1)
        #expect(await redis.sent.count - before == 3, "no Redis command while the breaker is open")
        #expect(catalog.calls("products") == 10)
        #expect(await replica.invalidate(.product("p1")) != .fleet(receivers: 0))
    }
}
