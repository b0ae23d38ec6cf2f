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
}
