import ProductDetails
import Redis

/// The shared cache's events as the application hears them: every one is counted by its metrics;
/// its breaker's changes and Redis's connections are also logged. Metrics only count; the lines
/// are the log's.
struct SharedCacheTelemetry: SharedCacheEvents {
    let metrics: SharedCacheMetrics
    let log: SharedCacheLog

    func sharedRead(_ result: SharedReadResult) { metrics.sharedRead(result) }
    func lease(_ result: LeaseResult) { metrics.lease(result) }

    func redisBreaker(_ state: CircuitBreaker.State) {
        metrics.breaker(state)
        log.breaker(state)
    }

    /// What the Redis client and the subscription report to.
    var redisObserver: RedisClientObserver {
        RedisClientObserver(
            commandFinished: { [metrics] in metrics.commandFinished(latency: $0, outcome: $1) },
            connectionChanged: { [metrics, log] change in
                metrics.connectionChanged(change)
                log.connection(change)
            },
            cluster: { [metrics, log] event in
                metrics.cluster(event)
                log.cluster(event)
            },
            wrote: { [metrics] _ in metrics.wrote() },
            busyPolled: { [metrics] caught in metrics.busyPolled(caught: caught) })
    }
}
