@testable import Logging
@testable import Fleet
@testable import App
import Metrics
import ProductDetails
import Redis
import Testing
import TestSupport
import Timekeeping

/// The shared cache's metrics only count (they hold no logger); its log writes the lines. The
/// telemetry feeds both from the same event.
@Suite("Shared cache telemetry")
struct SharedCacheTelemetryTests {
    @Test func aBreakerChangeIsCountedByTheMetricsAndWrittenByTheLog() throws {
        let lines = LogLines()
        let writer = LogWriter(capacity: 1 << 16, destination: lines.destination)
        let registry = MetricsRegistry(prefix: "t_")
        let telemetry = SharedCacheTelemetry(
            metrics: SharedCacheMetrics(registry: registry), log: SharedCacheLog(logger: Logger(minimum: .info, writer: writer), time: ManualTimeSource()))
        telemetry.redisBreaker(.open)
        telemetry.redisObserver.connectionChanged(.disconnected(.command(loopIndex: 0), .connectionLost))
        telemetry.redisObserver.wrote(12)
        telemetry.redisObserver.busyPolled(true)
        telemetry.redisObserver.busyPolled(true)
        telemetry.redisObserver.busyPolled(false)
        _ = writer.close(within: .seconds(5))
        let exposition = String(decoding: registry.render(), as: UTF8.self)
        #expect(exposition.contains("t_redis_breaker_transitions_total{to=\"open\"} 1"))
        #expect(exposition.contains("t_redis_reconnects_total{connection=\"command\"} 1"))
        #expect(exposition.contains("t_redis_writes_total 1"))
        #expect(exposition.contains("t_redis_busy_polls_total{result=\"caught\"} 2"))
        #expect(exposition.contains("t_redis_busy_polls_total{result=\"ran_out\"} 1"))
        let messages = lines.objects.compactMap { $0["msg"] as? String }
        #expect(messages.contains("redis circuit breaker open: requests skip Redis (single-node behaviour)"))
        #expect(messages.contains("redis connection lost: reconnecting"))
    }

    /// The gauge reads the shared cache when scraped: 0 until the fleet's invalidation log was
    /// read after the subscription started, 1 from then on.
    @Test func theInvalidationLogGaugeReadsTheSharedCache() async throws {
        let registry = MetricsRegistry(prefix: "t_")
        let time = ManualTimeSource()
        let shared = SharedCache(store: InMemorySharedPageStore(time: time), time: time)
        SharedCacheMetrics(registry: registry).readInvalidationLog(of: shared)
        let before = String(decoding: registry.render(), as: UTF8.self)
        await shared.subscribed()
        let after = String(decoding: registry.render(), as: UTF8.self)
        #expect(before.contains("t_invalidation_log_read 0"))
        #expect(after.contains("t_invalidation_log_read 1"))
    }

    /// Redirects and map reads are counted; a new map is a log line, at most one a second (a
    /// reshard changes it at every read), one with uncovered slots a warning.
    @Test func theClusterMapIsCountedAndItsChangesLogged() throws {
        let lines = LogLines()
        let writer = LogWriter(capacity: 1 << 16, destination: lines.destination)
        let registry = MetricsRegistry(prefix: "t_")
        let time = ManualTimeSource()
        let telemetry = SharedCacheTelemetry(
            metrics: SharedCacheMetrics(registry: registry), log: SharedCacheLog(logger: Logger(minimum: .info, writer: writer), time: time))
        let observer = telemetry.redisObserver
        let a = RedisNodeAddress(host: "10.0.0.1", port: 7000), b = RedisNodeAddress(host: "10.0.0.2", port: 7001)
        observer.cluster(.redirected(.moved(slot: 1, to: a)))
        observer.cluster(.redirected(.ask(slot: 1, to: a)))
        observer.cluster(.redirected(.moved(slot: 2, to: a)))
        observer.cluster(.refreshed(change: RedisTopologyChange(masters: [a, b], uncoveredSlots: 0)))
        observer.cluster(.refreshed(change: RedisTopologyChange(masters: [a], uncoveredSlots: 5461)))
        time.advance(by: .seconds(2))
        observer.cluster(.refreshed(change: RedisTopologyChange(masters: [a], uncoveredSlots: 5461)))
        observer.cluster(.refreshed(change: nil))
        observer.cluster(.refreshFailed)
        _ = writer.close(within: .seconds(5))
        let exposition = String(decoding: registry.render(), as: UTF8.self)
        #expect(exposition.contains("t_redis_cluster_redirects_total{kind=\"moved\"} 2"))
        #expect(exposition.contains("t_redis_cluster_redirects_total{kind=\"ask\"} 1"))
        #expect(exposition.contains("t_redis_cluster_refreshes_total{result=\"changed\"} 3"))
        #expect(exposition.contains("t_redis_cluster_refreshes_total{result=\"unchanged\"} 1"))
        #expect(exposition.contains("t_redis_cluster_refreshes_total{result=\"failed\"} 1"))
        #expect(exposition.contains("t_redis_cluster_masters 1"))
        #expect(exposition.contains("t_redis_cluster_uncovered_slots 5461"))
        let messages = lines.objects.compactMap { $0["msg"] as? String }
        #expect(messages == ["redis cluster map read", "redis cluster map read: some slots have no master"])
        #expect(lines.objects.last?["suppressed"] as? String == "1")
    }

    /// A host name that does not resolve is an `error` for Redis as for an upstream (it was a
    /// `warn` for Redis): only an operator can fix it. A refused connect stays a `warn`.
    @Test func aRedisHostThatDoesNotResolveIsAnErrorAsAnUpstreamsIs() throws {
        let lines = LogLines()
        let writer = LogWriter(capacity: 1 << 16, destination: lines.destination)
        let logger = Logger(minimum: .info, writer: writer)
        let time = ManualTimeSource()
        let redisLog = SharedCacheLog(logger: logger, time: time)
        let url = try RedisURL(parsing: "redis://no-such-host.invalid:6379")
        redisLog.connection(.connectAttemptFailed(
            .subscriber, .couldNotConnect(to: url, "resolving no-such-host.invalid: EAI_NONAME: unknown node or service")))
        time.advance(by: .seconds(2))
        redisLog.connection(.connectAttemptFailed(.subscriber, .couldNotConnect(to: url, "ECONNREFUSED: connection refused")))
        UpstreamFaultLog(logger: logger, time: time).attempted(.products, failure: .hostNotFound)
        _ = writer.close(within: .seconds(5))
        let levels = lines.objects.map { ($0["msg"] as? String ?? "", $0["level"] as? String ?? "") }
        #expect(levels.map(\.1) == ["error", "warn", "error"], "\(levels)")
    }
}
