@testable import App
import Metrics
import ProductDetails
import Redis
import Testing
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
        telemetry.sharedBreaker(.open)
        telemetry.redisObserver.connectionChanged(.disconnected(.command(loopIndex: 0), .connectionLost))
        _ = writer.close(within: .seconds(5))
        let exposition = String(decoding: registry.render(), as: UTF8.self)
        #expect(exposition.contains("t_redis_breaker_transitions_total{to=\"open\"} 1"))
        #expect(exposition.contains("t_redis_reconnects_total{connection=\"command\"} 1"))
        let messages = lines.objects.compactMap { $0["msg"] as? String }
        #expect(messages.contains("redis circuit breaker open: requests skip Redis (single-node behaviour)"))
        #expect(messages.contains("redis connection lost: reconnecting"))
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
