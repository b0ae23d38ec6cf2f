@testable import Fleet
import ProductDetails
import PureTestSupport
import Redis
import RESP
import Testing
import Timekeeping
import TestSupport

/// The lease holder's renewals on the hand-moved time line, against a real `redis-server`.
@Suite("Lease renewal", .timeLimit(.minutes(1)))
struct LeaseRenewalTests {
    /// A runner whose first renewal gets no reply (as a timeout would), and that counts them.
    actor FirstRenewalTimesOut: RedisCommandRunner {
        let redis: SerialRedisRunner
        private(set) var renewals = 0

        init(_ redis: SerialRedisRunner) {
            self.redis = redis
        }

        func run(_ request: RedisRequest, deadline: Duration) async throws(RedisClientError) -> RESPValue {
            if case .script(let script, _, _) = request, script == FleetScripts.renew {
                renewals += 1
                if renewals == 1 { throw .timedOut }
            }
            return try await redis.run(request, deadline: deadline)
        }
    }

    /// One renewal that failed leaves two thirds of the lease: the holder goes on renewing, so
    /// the lease does not lapse under its running load.
    @Test func aFailedRenewalIsTriedAgainAtTheNextInterval() async throws {
        let server = try await RedisServer.started()
        let runner = FirstRenewalTimesOut(try SerialRedisRunner(port: server.port))
        let time = ManualTimeSource()
        let lease = Duration.seconds(3)
        let keys = FleetKeys(prefix: "pd:\(RandomPrefix.next()):")
        let store = RedisPageStore(redis: runner, keys: keys, leaseDuration: lease, generationLifetime: .seconds(600))
        let catalog = CountingCatalog()
        var settings = ServiceSettings()
        settings.requestDeadline = .seconds(30)
        let service = ProductDetailsService(
            products: catalog, reviews: catalog, suggestions: catalog, settings: settings, time: time,
            shared: SharedCache(store: store, settings: SharedCacheSettings(timeout: .seconds(60), leaseDuration: lease), time: time))
        catalog.hold()
        let load = Task { try await service.detail(id: "p1") }
        await eventually(.live) { catalog.heldCount == 1 }
        for renewal in 1...3 {
            await eventually(.live) { time.sleeperCount == 1 }
            time.advance(by: lease / 3)
            await eventually(.live) { await runner.renewals == renewal }
        }
        catalog.release()
        #expect(try await load.value.cache.shared?.stored == true, "the lease was still held at the store")
        server.stop()
    }
}
